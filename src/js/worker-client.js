// `WorkerSemHash`: the same operations as `SemHash`, run in a Web Worker so
// the page never blocks. Calls return promises; progress arrives as
// `progress` events ({detail: {op, stage, done, total}}); `cancel()` stops
// the work in flight at once (the worker is ended and a fresh one takes the
// next call; what an `add` already committed stays committed, the chunk in
// flight is rolled back by IndexedDB).

export class WorkerSemHash extends EventTarget {
  #url;
  #worker = null;
  #next = 0;
  #pending = new Map();
  #openArgs = null;

  /** @param {URL|string} [workerUrl] where `worker.js` of this package is served */
  constructor(workerUrl = new URL("./worker.js", import.meta.url)) {
    super();
    this.#url = workerUrl;
  }

  #spawn() {
    const worker = new Worker(this.#url, { type: "module" });
    worker.onmessage = ({ data }) => {
      const call = this.#pending.get(data.id);
      if (!call) return;
      if (data.progress) {
        this.dispatchEvent(new CustomEvent("progress", { detail: { op: call.op, ...data.progress } }));
        return;
      }
      this.#pending.delete(data.id);
      if (data.error) {
        const error = new Error(data.error.message);
        error.name = data.error.name;
        call.reject(error);
      } else {
        call.resolve(data.result);
      }
    };
    worker.onerror = (e) => {
      for (const call of this.#pending.values()) call.reject(new Error(`worker failed: ${e.message}`));
      this.#pending.clear();
    };
    return worker;
  }

  async #call(op, args) {
    if (!this.#worker) {
      this.#worker = this.#spawn();
      // A replacement worker (after cancel) reopens what the first one had open.
      if (this.#openArgs && op !== "open") await this.#send("open", this.#openArgs);
    }
    return this.#send(op, args);
  }

  #send(op, args) {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { op, resolve, reject });
      this.#worker.postMessage({ id, op, args });
    });
  }

  /**
   * Opens the store (`storeName`: an IndexedDB database; none: in memory).
   * `model`: URL of the folder serving the model files, for the full build's
   * semantic stage (relative URLs resolve against the page).
   */
  open({ config, storeName, model } = {}) {
    const absolute = model === undefined ? undefined : String(new URL(model, globalThis.location?.href));
    this.#openArgs = { config, storeName, model: absolute };
    return this.#call("open", this.#openArgs);
  }

  add(docs, { chunk } = {}) {
    return this.#call("add", { docs, chunk });
  }

  query(text) {
    return this.#call("query", { text });
  }

  queryMany(texts) {
    return this.#call("queryMany", { texts });
  }

  remove(ids) {
    return this.#call("remove", { ids });
  }

  compare(a, b) {
    return this.#call("compare", { a, b });
  }

  size() {
    return this.#call("size");
  }

  dedup(docs) {
    return this.#call("dedup", { docs });
  }

  /** Deletes every stored signature; the store stays open, empty. */
  clear() {
    return this.#call("clear");
  }

  /** Stops the work in flight: its promise rejects with an `AbortError`. */
  cancel() {
    if (!this.#worker) return;
    this.#worker.terminate();
    this.#worker = null;
    for (const call of this.#pending.values()) {
      const error = new Error(`${call.op} was cancelled`);
      error.name = "AbortError";
      call.reject(error);
    }
    this.#pending.clear();
  }

  /** Ends the worker. */
  close() {
    this.cancel();
    this.#openArgs = null;
  }
}
