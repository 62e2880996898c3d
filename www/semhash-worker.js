// The package's worker, started from under /www/ so that the demo's service
// worker controls it and serves its wasm from the cache when offline.
import "/pkg/worker.js";
