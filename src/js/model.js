// The semantic model (the full build): three files the host serves next to
// the app (the student's, or the static table's) (the repository's `models/`), fetched once and kept in the Cache
// API, so a page reload or the next Worker request reads them locally.
//
// When the folder also serves `SHA256SUMS` (as `models/` does), each file is
// checked against it before use, as the `semhash` command does: a download
// cut short or damaged is refused by name and dropped from the cache, so the
// next load fetches it again instead of failing (or answering wrongly) forever.

/**
 * File names under the model's base URL, per embedder, in the order its
 * `SemanticModel` constructor takes them: the student transformer, or the
 * static token table distilled from it.
 */
export const MODEL_FILES = {
  student: ["student.onnx", "tokenizer.json", "sph-128.bin"],
  static: ["static-128.bin", "tokenizer.json", "sph-static-128.bin"],
  // The table for every text, the student for the pairs the table is unsure of.
  cascade: ["static-128.bin", "tokenizer.json", "sph-static-128.bin", "student.onnx", "tokenizer.json", "sph-128.bin"],
};
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

/** SHA-256 of `bytes` as hex; null where WebCrypto is missing (an insecure origin). */
async function sha256(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  return [...new Uint8Array(await subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `SHA256SUMS` as {name: hash}, or null when the folder has none. */
function parseSums(bytes) {
  if (!bytes) return null;
  const sums = {};
  for (const line of new TextDecoder().decode(bytes).split("\n")) {
    const match = /^([0-9a-fA-F]{64}) [ *](.+)$/.exec(line.trim());
    if (match) sums[match[2]] = match[1].toLowerCase();
  }
  return sums;
}

/**
 * The bytes of the model files under `base` (a URL or path of their folder).
 * `readLocal(url)` reads `file:` URLs where the platform can (Node).
 */
export async function fetchModelFiles(base, { embedder = "student", cacheName = MODEL_CACHE, readLocal } = {}) {
  const names = MODEL_FILES[embedder];
  if (!names) throw new Error(`unknown embedder ${JSON.stringify(embedder)}: "student", "static" or "cascade"`);
  const folder = String(base).endsWith("/") ? String(base) : `${base}/`;
  const urlOf = (name) => new URL(name, new URL(folder, globalThis.location?.href ?? "file:///"));
  const read = (url) => {
    if (url.protocol === "file:") {
      if (!readLocal) throw new Error(`cannot read ${url} here: serve the model files over HTTP`);
      return readLocal(url);
    }
    return cachedFetch(url, cacheName);
  };
  const optional = async (url) => {
    try {
      return await read(url);
    } catch {
      return null;
    }
  };
  const [sums, ...files] = await Promise.all([optional(urlOf("SHA256SUMS")).then(parseSums), ...names.map((name) => read(urlOf(name)))]);
  if (sums) {
    await Promise.all(
      names.map(async (name, i) => {
        const want = sums[name];
        const got = want && (await sha256(files[i]));
        if (got && got !== want) {
          const url = urlOf(name);
          if (url.protocol !== "file:" && globalThis.caches) await (await globalThis.caches.open(cacheName)).delete(url);
          throw new Error(
            `model file ${url} is truncated or damaged: its SHA-256 is ${got}, SHA256SUMS lists ${want}` +
              (url.protocol === "file:" ? "; copy it again" : "; it was dropped from the cache, so loading again fetches it anew"),
          );
        }
      }),
    );
  }
  return files;
}
