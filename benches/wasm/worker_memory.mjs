#!/usr/bin/env node
// Memory of the example Cloudflare Worker holding N signatures, under a local
// workerd: POSTs N documents (in requests of 500), then reads the resident
// memory of the workerd process from /proc. Prints one JSON line.
//
//   node benches/wasm/worker_memory.mjs CORPUS.jsonl [N]     (needs pkg/: npm run build)

import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { startWorker } from "../../tests/js/workerd.mjs";

const [corpus, n = "10000"] = process.argv.slice(2);
const docs = readFileSync(corpus, "utf8").trim().split("\n").slice(0, Number(n)).map((l) => {
  const { id, text } = JSON.parse(l);
  return { id, text };
});

/** Resident set size (KiB) of every workerd process, by pid. */
const rss = () =>
  Object.fromEntries(
    execFileSync("ps", ["-C", "workerd", "-o", "pid=,rss="], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => l.trim().split(/\s+/).map(Number)),
  );

const mf = await startWorker();
await mf.dispatchFetch("http://localhost/health");
const before = rss();
let duplicates = 0;
const started = performance.now();
for (let i = 0; i < docs.length; i += 500) {
  const res = await mf.dispatchFetch("http://localhost/dedup", { method: "POST", body: JSON.stringify({ documents: docs.slice(i, i + 500) }) });
  if (res.status !== 200) throw new Error(`batch ${i}: ${res.status} ${await res.text()}`);
  duplicates += (await res.json()).results.filter((r) => r.duplicate).length;
}
const seconds = (performance.now() - started) / 1000;
const health = await (await mf.dispatchFetch("http://localhost/health")).json();
const stored = health.stored;
const after = rss();
await mf.dispose();
const mib = (kib) => Math.round((kib / 1024) * 10) / 10;
console.log(JSON.stringify({
  documents: docs.length, stored, duplicates, seconds: Math.round(seconds * 100) / 100,
  wasm_memory_mib: mib(health.wasm_memory_bytes / 1024),
  workerd_rss_mib_before: Object.values(before).map(mib), workerd_rss_mib_after: Object.values(after).map(mib),
}));
