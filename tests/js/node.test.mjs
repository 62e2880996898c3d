// The npm package in Node: the same signatures as native, the incremental
// API over a store, clear errors, and the same clusters as `semhash dedup`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pkg, root, sample, vectors, hex } from "./helpers.mjs";

const { SemHash, MemoryStore, FingerprintMismatch, defaultConfig } = await import(join(pkg, "index.node.js"));

test("lexical signatures are bit-identical to the native known-answer vectors", async () => {
  const v = vectors();
  const semhash = await SemHash.open();
  assert.equal(semhash.fingerprint, v.fingerprint);
  const got = semhash.signBatch(v.vectors.map((x) => x.text));
  assert.equal(got.length, v.vectors.length);
  v.vectors.forEach((x, i) => assert.equal(hex(got[i]), x.bytes, `vector ${i}: ${JSON.stringify(x.text).slice(0, 40)}`));
});

test("add, query, remove, and reopen from the store's commits", async () => {
  const store = new MemoryStore();
  let semhash = await SemHash.open({ store });
  const text = "The river flooded the lower town after three days of heavy rain, and the old stone bridge was closed.";
  assert.equal(await semhash.add([{ id: "a", text }, { id: 7, text: "Compilers translate source code into machine code." }]), 2);
  assert.deepEqual(semhash.query(text.toUpperCase())[0], { id: "a", relation: "exact", score: 1 });
  assert.equal(semhash.query("Gardens need water and light.").length, 0);
  assert.ok(semhash.has(7) && semhash.has("a"));

  semhash = await SemHash.open({ store });
  assert.equal(semhash.size, 2, "reopened from what the store kept");
  assert.equal(semhash.query(text)[0].id, "a");
  assert.equal(await semhash.remove(["a", "missing"]), 1);
  semhash = await SemHash.open({ store });
  assert.equal(semhash.size, 1);
  assert.equal(semhash.query(text).length, 0);
});

test("bad input and another configuration's store are refused with clear errors", async () => {
  const store = new MemoryStore();
  const semhash = await SemHash.open({ store });
  await semhash.add([{ id: "a", text: "some text to keep" }]);
  await assert.rejects(semhash.add([{ id: "a", text: "again" }]), /already in the store/);
  await assert.rejects(semhash.add([{ id: "b" }]), /document 0: text must be a string/);
  await assert.rejects(semhash.add([{ id: "c", text: "   " }]), /text is empty/);
  await assert.rejects(semhash.add("not an array"), /expected an array/);
  assert.throws(() => semhash.query(""), /text is empty/);
  assert.equal(semhash.size, 1, "nothing added by a refused batch");

  const other = { ...defaultConfig(), sketch: { ...defaultConfig().sketch, char_ngram: 4 } };
  await assert.rejects(SemHash.open({ config: other, store }), FingerprintMismatch);
  await assert.rejects(SemHash.open({ config: { sketch: { word_ngrams: 3 } } }), /unknown field `word_ngrams`/);
  await assert.rejects(SemHash.open({ config: { semantic: { enabled: true } } }), /open with withSemantic\(model\)/);
});

test("dedup gives the native binary's clusters on the sample corpus", async () => {
  const docs = sample().map(({ id, text }) => ({ id, text }));
  const semhash = await SemHash.open();
  const stages = [];
  const outcome = semhash.dedup(docs, { onProgress: (stage, done, total) => stages.push([stage, done, total]) });
  assert.ok(stages.some(([s, d, t]) => s === "sign" && d === t && t > 0), "progress reaches the end of signing");
  const native = execFileSync("cargo", ["run", "--release", "--quiet", "--bin", "semhash", "--", "dedup", join(root, "tests/data/sample.jsonl"), "-q"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  })
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(outcome.docs.length, native.length);
  outcome.docs.forEach((d, i) => {
    const n = native[i];
    assert.deepEqual([d.id, d.cluster, d.representative, d.relation, d.parent], [n.id, n.cluster, n.representative, n.relation, n.parent]);
    assert.ok(Math.abs(d.score - n.score) < 1e-6);
  });
  assert.ok(outcome.snippets.length >= 3);
});

test("a JS judge is asked about the learned boundary's uncertain pairs, within its budget", async () => {
  const boundary = JSON.parse(readFileSync(join(root, "models", "boundary.json"), "utf8"));
  const config = { ...defaultConfig(), decide: { type: "learned", ...boundary } };
  const docs = sample().map(({ id, text }) => ({ id, text }));
  const semhash = await SemHash.open({ config, store: null });
  const alone = semhash.dedup(docs).stats;
  assert.equal(alone.judge, undefined, "no judge, no judge stats");

  // Every candidate offered (band 0, budget 1): a judge sure that all are duplicates links them all.
  const asked = [];
  semhash.setJudge((pairs) => {
    asked.push(...pairs);
    return pairs.map(() => ({ duplicate: true, confidence: 1 }));
  }, { budget: 1, band: 0 });
  const yes = semhash.dedup(docs).stats;
  assert.equal(yes.judge.calls, yes.candidate_pairs);
  assert.equal(asked.length, yes.judge.calls);
  assert.ok(asked.every((p) => typeof p.a === "string" && p.p >= 0 && p.p <= 1));
  assert.ok(yes.judge.changed > 0 && yes.clusters < alone.clusters, JSON.stringify(yes.judge));

  // The default budget: at most 1% of the candidate pairs.
  semhash.setJudge((pairs) => pairs.map(() => ({ duplicate: true, confidence: 1 })), { band: 0 });
  const capped = semhash.dedup(docs).stats;
  assert.equal(capped.judge.calls, Math.floor(capped.candidate_pairs * 0.01));

  // A judge that throws changes nothing; its calls count as failed.
  semhash.setJudge(() => { throw new Error("offline"); }, { budget: 1, band: 0 });
  const failed = semhash.dedup(docs).stats;
  assert.equal(failed.judge.failed, failed.judge.calls);
  assert.equal(failed.clusters, alone.clusters);

  const rules = await SemHash.open({ store: null });
  assert.throws(() => rules.setJudge(() => []), /learned boundary/);
});

