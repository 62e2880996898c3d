// The example Worker in a local workerd: verdicts for POSTed documents, and
// clear 4xx answers to bad requests.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { startWorker, workerdMemory } from "./workerd.mjs";

let mf;
before(async () => {
  mf = await startWorker();
});
after(async () => {
  await mf?.dispose();
});

const post = (body, headers = {}) =>
  mf.dispatchFetch("http://localhost/dedup", { method: "POST", body, headers: { "content-type": "application/json", ...headers } });

test("POSTed documents get verdicts against everything seen before", async () => {
  const article = "The river flooded the lower town after three days of heavy rain, and the old stone bridge was closed to all traffic.";
  let res = await post(
    JSON.stringify({
      documents: [
        { id: "a", text: article },
        { id: "b", text: article.toUpperCase().replace(/,/g, "") },
        { id: "c", text: "Compilers translate the source code of a program into machine code." },
      ],
    }),
  );
  assert.equal(res.status, 200);
  let body = await res.json();
  assert.deepEqual(body.results.map((r) => r.duplicate), [false, true, false]);
  assert.equal(body.results[1].matches[0].id, "a");
  assert.equal(body.stored, 3);

  res = await post(JSON.stringify({ documents: [{ id: 4, text: "Compilers translate the source code of a program into machine code!" }] }));
  body = await res.json();
  assert.equal(body.results[0].matches[0].id, "c");
  assert.equal(body.results[0].matches[0].relation, "exact");
  assert.equal(body.stored, 4);
});

test("bad requests get a 4xx with a clear message", async () => {
  const cases = [
    [post("{not json"), 400, /not valid JSON/],
    [post(new Uint8Array([0x7b, 0xff, 0x7d])), 400, /not valid JSON \(UTF-8\)/],
    [post(JSON.stringify({ docs: [] })), 400, /expected \{"documents"/],
    [post(JSON.stringify({ documents: [{ id: "x" }] })), 400, /documents\[0\]\.text must be a non-empty string/],
    [post(JSON.stringify({ documents: [{ id: null, text: "t" }] })), 400, /documents\[0\]\.id/],
    [post(JSON.stringify({ documents: [{ id: 1, text: "t" }, { id: "1", text: "u" }] })), 400, /repeated/],
    [post("x".repeat((1 << 20) + 1)), 413, /body over/],
    [mf.dispatchFetch("http://localhost/dedup"), 405, /use POST/],
    [mf.dispatchFetch("http://localhost/elsewhere"), 404, /no route/],
  ];
  for (const [pending, status, message] of cases) {
    const res = await pending;
    assert.equal(res.status, status);
    assert.match((await res.json()).error, message);
  }
});

test("load: 1,000 POSTs, 16 at a time, a fifth of them bad: no 5xx, every good document stored, memory bounded", async () => {
  const words = "river bridge engine parser garden compiler market winter harbor signal".split(" ");
  const text = (i, j) => `Report ${i}-${j}: the ${words[i % 10]} near the ${words[(i * 7 + j) % 10]} was ${i * 31 + j} metres long.`;
  const bad = [
    () => "{not json",
    () => "x".repeat((1 << 20) + 1),
    () => JSON.stringify({ documents: [{ id: "no-text" }] }),
    () => new Uint8Array([0x7b, 0xff, 0x7d]),
  ];
  const body = (i) => (i % 5 === 4 ? bad[(i / 5) % 4 | 0]() : JSON.stringify({ documents: [0, 1, 2, 3, 4].map((j) => ({ id: `load-${i}-${j}`, text: text(i, j) })) }));
  const before = (await (await mf.dispatchFetch("http://localhost/health")).json()).stored;
  const statuses = new Map();
  const latencies = [];
  let next = 0;
  const client = async () => {
    while (next < 1000) {
      const i = next++;
      const started = performance.now();
      const res = await post(body(i));
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      assert.ok(res.status < 500, `request ${i}: ${res.status}`);
      assert.equal(res.status === 200, i % 5 !== 4, `request ${i}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, client));
  const health = await (await mf.dispatchFetch("http://localhost/health")).json();
  assert.equal(health.stored - before, 800 * 5, "every document of every good request stored once");
  assert.ok(health.wasm_memory_bytes < 128 * 2 ** 20, `wasm memory ${health.wasm_memory_bytes}`);
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1);
  // The whole workerd process (runtime, isolate, wasm), where /proc tells.
  const mem = workerdMemory();
  if (existsSync("/proc/self/status")) assert.ok(mem && mem.peak > 0, "the workerd process is found under /proc");
  const resident = mem ? `; workerd process resident ${mem.rss.toFixed(1)} MiB (peak ${mem.peak.toFixed(1)} MiB)` : "";
  console.log(
    `load: 1000 requests (16 at a time): statuses ${JSON.stringify(Object.fromEntries(statuses))}; ` +
      `latency p50 ${at(0.5)} ms, p99 ${at(0.99)} ms; wasm memory ${(health.wasm_memory_bytes / 2 ** 20).toFixed(1)} MiB${resident}`,
  );
});
