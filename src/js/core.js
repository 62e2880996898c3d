// The JS face of semhash: a de-duplicator over a signature store.
//
// Every entry point (browser, Node, Workers) initialises the same wasm module
// its own way and then calls `bind(wasm)`; everything else is here, so the
// three behave alike. The heavy lifting is the library's; this file only moves
// values between the wasm module and a store.

import { MemoryStore } from "./stores/memory.js";
import { fetchModelFiles } from "./model.js";

/**
 * @param {object} wasm the initialised wasm-bindgen module (lite or full)
 * @param {{memory: WebAssembly.Memory}} exports what its initialisation returned
 * @param {{readLocal?: (url: URL) => Promise<Uint8Array>}} [platform] how to read `file:` URLs
 */
export function bind(wasm, exports, platform = {}) {
  const semantic = typeof wasm.Deduper.withSemantic === "function";

  /** A wasm deduper, with the semantic stage when a model is given. */
  function deduper(config, model, stored, record) {
    if (!model) return new wasm.Deduper(config, stored, record);
    if (!semantic) throw new Error('this is the lite build (no encoder): import "semhash-llm/full" for a semantic model');
    return wasm.Deduper.withSemantic(model, config, stored, record);
  }

  /**
   * Loads the semantic model (full build only) from the folder URL (or, in
   * Node, path) that serves its files: `student.onnx`, `tokenizer.json` and
   * `sph-128.bin`, or with `embedder: "static"` `static-128.bin`,
   * `tokenizer.json` and `sph-static-128.bin`, or with `embedder: "cascade"`
   * all five (the student embeds at most `verifyBudget` of a run's
   * documents, default 0.05); fetched once, then read from the Cache API.
   */
  async function loadModel(base, options = {}) {
    if (!semantic) throw new Error('this is the lite build (no encoder): import "semhash-llm/full" for a semantic model');
    const files = await fetchModelFiles(base, { readLocal: platform.readLocal, ...options });
    switch (options.embedder) {
      case "static": return wasm.SemanticModel.staticTable(...files);
      case "cascade": return wasm.SemanticModel.cascade(...files, options.verifyBudget);
      default: return new wasm.SemanticModel(...files);
    }
  }

  /** Incremental de-duplication whose signatures live in a `SignatureStore`. */
  class SemHash {
    #deduper;
    #store;

    constructor(deduper, store) {
      this.#deduper = deduper;
      this.#store = store;
    }

    /**
     * Opens a de-duplicator over `store` (default: in memory). The store's
     * signatures are indexed; a store made under another configuration or
     * model is refused with an error that says so. `store: null` keeps
     * nothing but the index itself (no commits are made: the cheapest, for an
     * index that lives as long as the process or Worker isolate). `model`
     * (from `loadModel`, full build) adds the semantic stage: short texts are
     * embedded and paraphrases found.
     * @param {{config?: object|string, store?: import('./stores/store.js').SignatureStore | null, model?: object}} [options]
     */
    static async open({ config, store = new MemoryStore(), model } = {}) {
      if (store === null) return new SemHash(deduper(config, model, undefined, false), null);
      const probe = deduper(config, model, undefined);
      const fingerprint = probe.fingerprint();
      probe.free();
      const stored = await store.load(fingerprint);
      return new SemHash(deduper(config, model, stored), store);
    }

    /** Fingerprint of the configuration and model: what stored signatures must carry. */
    get fingerprint() {
      return this.#deduper.fingerprint();
    }

    /** Number of documents indexed. */
    get size() {
      return this.#deduper.size();
    }

    /** Whether a document with this id is stored. */
    has(id) {
      return this.#deduper.has(String(id));
    }

    get store() {
      return this.#store;
    }

    /** The configuration in use. */
    config() {
      return this.#deduper.config();
    }

    /**
     * Signs and indexes `[{id, text}]` as one batch, persisted in one store
     * transaction. Ids already stored are refused (nothing is added).
     * @returns {Promise<number>} documents added
     */
    async add(docs) {
      const commit = this.#deduper.add(docs);
      await this.#store?.commit(commit);
      return Array.isArray(docs) ? docs.length : 0;
    }

    /**
     * Stored documents that `text` duplicates, strongest first.
     * @returns {{id: string, relation: string, score: number}[]}
     */
    query(text) {
      return this.#deduper.query(text);
    }

    /** Removes documents by id. @returns {Promise<number>} documents removed */
    async remove(ids) {
      const present = ids.filter((id) => this.#deduper.has(String(id)));
      const commit = this.#deduper.remove(ids.map(String));
      await this.#store?.commit(commit);
      return present.length;
    }

    /**
     * A judge for the pairs the learned boundary (config `decide: {type:
     * "learned", ...models/boundary.json}`) is unsure of, asked in `dedup`
     * and `compare`: a synchronous `(pairs: {a, b, p}[]) => {duplicate,
     * confidence, relation?}[]`. Offered: verdicts with uncertainty >= `band`
     * (default 0.5); asked: at most `budget` (default 0.01) of the candidate
     * pairs, the most uncertain first. A throw leaves the model's verdicts.
     * `null` removes it; with the threshold rules it throws.
     */
    setJudge(callback, { budget, band } = {}) {
      this.#deduper.setJudge(callback ?? undefined, budget, band);
    }

    /** Compares two texts: `{duplicate, relation, score, signals}`. */
    compare(a, b) {
      return this.#deduper.compare(a, b);
    }

    /** Signature bytes of `text` under the current statistics (not indexed). */
    sign(text) {
      return this.#deduper.sign(text);
    }

    /** Signatures of texts signed as one corpus (what the test vectors hold). */
    signBatch(texts) {
      return this.#deduper.signBatch(texts);
    }

    /**
     * De-duplicates one batch on its own: `{docs, snippets, stats}` as the
     * `semhash dedup` report. `onProgress(stage, done, total)` follows it.
     */
    dedup(docs, { onProgress } = {}) {
      return this.#deduper.dedup(docs, onProgress);
    }

    /** Releases the wasm memory. */
    close() {
      this.#deduper.free();
    }
  }

  return {
    SemHash,
    loadModel,
    defaultConfig: () => wasm.defaultConfig(),
    version: () => wasm.version(),
    /** Bytes of wasm linear memory in use (it only grows). */
    memoryBytes: () => exports.memory.buffer.byteLength,
  };
}
