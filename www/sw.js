// Offline support: the page, its modules and the package are cached when the
// service worker installs; every request then goes to the network first (so
// a rebuilt package or an edited page shows at once) and falls back to the
// cache when offline. The model files are not cached here: the package keeps
// them in its own Cache API entry (model.js).

const CACHE = "semhash-demo-v1";
const PRECACHE = [
  "/www/",
  "/www/index.html",
  "/www/style.css",
  "/www/app.js",
  "/www/input.js",
  "/www/diff.js",
  "/www/charts.js",
  "/www/export.js",
  "/www/semhash-worker.js",
  "/www/scores-worker.js",
  "/www/sample.jsonl",
  "/pkg/worker.js",
  "/pkg/worker-client.js",
  "/pkg/core.js",
  "/pkg/model.js",
  "/pkg/index.browser.js",
  "/pkg/full.browser.js",
  "/pkg/stores/store.js",
  "/pkg/stores/memory.js",
  "/pkg/stores/indexeddb.js",
  "/pkg/vendor/idb.js",
  "/pkg/wasm/semhash.js",
  "/pkg/wasm/semhash_bg.wasm",
  "/pkg/full/semhash.js",
  "/pkg/full/semhash_bg.wasm",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("semhash-demo-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/models/")) return;
  event.respondWith(
    (async () => {
      try {
        const response = await fetch(event.request);
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(event.request, copy)));
        }
        return response;
      } catch {
        return (await caches.match(event.request, { ignoreSearch: true })) ?? Response.error();
      }
    })(),
  );
});
