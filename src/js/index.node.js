// Node entry: reads the wasm module from disk and instantiates it synchronously.
import { readFileSync } from "node:fs";
import * as wasm from "./wasm/semhash.js";
import { bind } from "./core.js";

const exports = wasm.initSync({ module: readFileSync(new URL("./wasm/semhash_bg.wasm", import.meta.url)) });

export const { SemHash, loadModel, defaultConfig, version, memoryBytes } = bind(wasm, exports);
export { MemoryStore } from "./stores/memory.js";
export { FingerprintMismatch, StoreChanged } from "./stores/store.js";
