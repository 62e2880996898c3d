// The Web Worker side of `WorkerSemHash`: all signing and indexing runs here,
// off the page's main thread. Messages: {id, op, args}; replies {id, result}
// or {id, error}; progress {id, progress: {stage, done, total}}.

// The library is imported dynamically, so that `onmessage` is in place before
// the module (and its wasm) finish loading (a message that arrives while a
// static import is still awaiting would find no handler and be lost), and so
// that only the build asked for is loaded: the lite one, or the full one when
// `open` names a model.
const library = (full) => import(full ? "./full.browser.js" : "./index.browser.js");

let semhash = null;
let opened = null;

const ops = {
  async open({ config, storeName, model }, progress) {
    const { SemHash, IndexedDBStore, MemoryStore, loadModel } = await library(Boolean(model));
    semhash?.close();
    opened = { config, storeName, model };
    progress({ stage: "model", done: 0, total: model ? 1 : 0 });
    const semantic = model ? await loadModel(new URL(model, self.location.href)) : undefined;
    const store = storeName ? new IndexedDBStore(storeName) : new MemoryStore();
    semhash = await SemHash.open({ config, store, model: semantic });
    return { size: semhash.size, fingerprint: semhash.fingerprint, semantic: Boolean(model) };
  },
  // Adds in chunks, one store transaction each, reporting progress between them.
  async add({ docs, chunk = 256 }, progress) {
    let added = 0;
    for (let i = 0; i < docs.length; i += chunk) {
      added += await semhash.add(docs.slice(i, i + chunk));
      progress({ stage: "add", done: Math.min(i + chunk, docs.length), total: docs.length });
    }
    return added;
  },
  query: ({ text }) => semhash.query(text),
  queryMany: ({ texts }) => texts.map((t) => semhash.query(t)),
  remove: ({ ids }) => semhash.remove(ids),
  compare: ({ a, b }) => semhash.compare(a, b),
  size: () => semhash.size,
  dedup: ({ docs }, progress) =>
    semhash.dedup(docs, { onProgress: (stage, done, total) => progress({ stage, done, total }) }),
  async clear(_, progress) {
    await semhash.store.clear();
    return ops.open(opened, progress);
  },
};

self.onmessage = async ({ data: { id, op, args } }) => {
  const progress = (p) => self.postMessage({ id, progress: p });
  try {
    if (!semhash && op !== "open") throw new Error("call open() first");
    self.postMessage({ id, result: await ops[op](args ?? {}, progress) });
  } catch (e) {
    self.postMessage({ id, error: { name: e.name, message: e.message } });
  }
};
