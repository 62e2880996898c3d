// A store that lives as long as the page, the process or the Worker isolate.

import { FingerprintMismatch } from "./store.js";

/** @implements {import('./store.js').SignatureStore} */
export class MemoryStore {
  #signatures = new Map();
  #stats = null;
  #fingerprint = null;

  async load(fingerprint) {
    if (this.#fingerprint !== null && this.#signatures.size > 0 && this.#fingerprint !== fingerprint) {
      throw new FingerprintMismatch("the memory store", this.#fingerprint, fingerprint);
    }
    this.#fingerprint = fingerprint;
    const signatures = [...this.#signatures].map(([id, signature]) => ({ id, signature }));
    return { signatures, stats: this.#stats };
  }

  async commit({ added, removed, stats }) {
    for (const { id, signature } of added) this.#signatures.set(id, signature);
    for (const id of removed) this.#signatures.delete(id);
    if (stats) this.#stats = stats;
  }

  async clear() {
    this.#signatures.clear();
    this.#stats = null;
    this.#fingerprint = null;
  }

  /** Documents held. */
  get size() {
    return this.#signatures.size;
  }
}
