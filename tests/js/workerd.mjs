// The example Cloudflare Worker under a real local workerd (through
// miniflare), importing the package by its name as a deployed Worker would.
import { Miniflare } from "miniflare";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pkg, root } from "./helpers.mjs";

const ROOT = "/semhash-worker";

function files(dir) {
  return readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)]));
}

/** Starts the example Worker; resolves to a Miniflare instance (dispatchFetch, dispose). */
export async function startWorker() {
  const modules = [
    { type: "ESModule", path: join(ROOT, "worker.js"), contents: readFileSync(join(root, "pkg-config/examples/cloudflare-worker/worker.js"), "utf8") },
    // The package's `workerd` entry, under the package's name: what `import "semhash-llm"` resolves to.
    { type: "ESModule", path: join(ROOT, "semhash-llm"), contents: readFileSync(join(pkg, "index.workerd.js"), "utf8") },
  ];
  for (const file of files(pkg)) {
    const name = relative(pkg, file);
    if (name.endsWith(".wasm")) modules.push({ type: "CompiledWasm", path: join(ROOT, name), contents: readFileSync(file) });
    else if (name.endsWith(".js") && !name.startsWith("index.") && name !== "worker.js" && !name.startsWith("vendor/")) {
      modules.push({ type: "ESModule", path: join(ROOT, name), contents: readFileSync(file, "utf8") });
    }
  }
  const mf = new Miniflare({ modules, modulesRoot: ROOT, compatibilityDate: "2026-08-01", host: "127.0.0.1" });
  await mf.ready;
  return mf;
}

/**
 * Resident memory of the workerd processes this process started (Linux
 * /proc), in MiB: `{ rss, peak }` summed over them (peak is VmHWM, the most
 * each held), or null where /proc is not there.
 */
export function workerdMemory() {
  let procs;
  try {
    procs = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  let found = null;
  for (const pid of procs) {
    let status;
    try {
      status = readFileSync(`/proc/${pid}/status`, "utf8");
    } catch {
      continue; // gone since the listing
    }
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\S+)`, "m").exec(status)?.[1] ?? NaN);
    const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? "";
    if (field("PPid") === process.pid && name.startsWith("workerd")) {
      found ??= { rss: 0, peak: 0 };
      found.rss += field("VmRSS") / 1024;
      found.peak += field("VmHWM") / 1024;
    }
  }
  return found;
}
