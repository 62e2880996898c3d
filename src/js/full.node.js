// Node entry of the full build: as index.node.js, over the full wasm module;
// `loadModel` also takes a folder path.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import * as wasm from "./full/semhash.js";
import { bind } from "./core.js";

const exports = wasm.initSync({ module: readFileSync(new URL("./full/semhash_bg.wasm", import.meta.url)) });
const bound = bind(wasm, exports, { readLocal: async (url) => new Uint8Array(await readFile(url)) });

export const { SemHash, defaultConfig, version, memoryBytes } = bound;
/** `base`: a folder path or URL holding the model files. */
export const loadModel = (base, options) =>
  bound.loadModel(/^[a-z][a-z0-9+.-]*:\/\//i.test(String(base)) ? base : pathToFileURL(`${base}/`), options);
export { MemoryStore } from "./stores/memory.js";
export { FingerprintMismatch, StoreChanged } from "./stores/store.js";
