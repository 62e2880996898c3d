// The semantic model (the full build): three files the host serves next to
// the app (the repository's `models/`), fetched once and kept in the Cache
// API, so a page reload or the next Worker request reads them locally.

/** File names under the model's base URL, in the order `SemanticModel` takes them. */
export const MODEL_FILES = ["student.onnx", "tokenizer.json", "sph-128.bin"];
/** Cache API name; a new model under the same URL needs a new name (or `cache.delete`). */
export const MODEL_CACHE = "semhash-llm-models-v1";

async function cachedFetch(url, cacheName) {
  // No Cache API (Node, an insecure origin): a plain fetch each time.
  const cache = globalThis.caches ? await globalThis.caches.open(cacheName) : null;
  let response = await cache?.match(url);
  if (!response) {
    response = await fetch(url);
    if (!response.ok) throw new Error(`fetching model file ${url}: HTTP ${response.status} ${response.statusText}`);
    await cache?.put(url, response.clone());
  }
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * The bytes of the model files under `base` (a URL or path of their folder).
 * `readLocal(url)` reads `file:` URLs where the platform can (Node).
 */
export async function fetchModelFiles(base, { cacheName = MODEL_CACHE, readLocal } = {}) {
  const folder = String(base).endsWith("/") ? String(base) : `${base}/`;
  return Promise.all(
    MODEL_FILES.map((name) => {
      const url = new URL(name, new URL(folder, globalThis.location?.href ?? "file:///"));
      if (url.protocol === "file:") {
        if (!readLocal) throw new Error(`cannot read ${url} here: serve the model files over HTTP`);
        return readLocal(url);
      }
      return cachedFetch(url, cacheName);
    }),
  );
}
