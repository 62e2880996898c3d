// Browser entry of the full build (encoder + semantic hashing): as
// index.browser.js, over the full wasm module.
import init, * as wasm from "./full/semhash.js";
import { bind } from "./core.js";

const exports = await init({ module_or_path: new URL("./full/semhash_bg.wasm", import.meta.url) });

export const { SemHash, loadModel, defaultConfig, version, memoryBytes } = bind(wasm, exports);
export { MemoryStore } from "./stores/memory.js";
export { IndexedDBStore, SCHEMA_VERSION } from "./stores/indexeddb.js";
export { FingerprintMismatch, StoreChanged } from "./stores/store.js";
export { WorkerSemHash } from "./worker-client.js";
