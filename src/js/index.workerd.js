// Cloudflare Workers entry: Workers may not compile wasm from bytes at run
// time, so the module is imported (the bundler or wrangler compiles it at
// upload) and instantiated synchronously.
import module from "./wasm/semhash_bg.wasm";
import * as wasm from "./wasm/semhash.js";
import { bind } from "./core.js";

const exports = wasm.initSync({ module });

export const { SemHash, loadModel, defaultConfig, version, memoryBytes } = bind(wasm, exports);
export { MemoryStore } from "./stores/memory.js";
export { FingerprintMismatch, StoreChanged } from "./stores/store.js";
