// The full build (encoder + semantic hashing in wasm) in Node, through the
// package's `semhash-llm/full` entry: the model files load from a folder, the
// codes agree with the native build's (tests/vectors/semantic.json) on at
// least 99.9% of bits (the static table's, tests/vectors/static.json: all of
// them), and the semantic stage finds paraphrases that the lexical stages
// miss, in `query` over a store and in `dedup`, with either embedder (and
// the cascade of the two).
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkg, root, PARAPHRASES, UNRELATED } from "./helpers.mjs";

const full = await import(join(pkg, "full.node.js"));
const lite = await import(join(pkg, "index.node.js"));
const models = join(root, "models");
const model = await full.loadModel(models);
const staticModel = await full.loadModel(models, { embedder: "static" });

function agreement(a, b) {
  let same = 0, all = 0;
  a.forEach((code, i) => {
    for (let k = 0; k < code.length; k += 16) {
      let x = BigInt(`0x${code.slice(k, k + 16)}`) ^ BigInt(`0x${b[i].slice(k, k + 16)}`);
      let differ = 0;
      for (; x; x >>= 1n) differ += Number(x & 1n);
      same += 64 - differ;
      all += 64;
    }
  });
  return same / all;
}

test("semantic codes agree with the native build", () => {
  const vectors = JSON.parse(readFileSync(join(root, "tests", "vectors", "semantic.json"), "utf8"));
  const codes = model.codes(vectors.texts);
  assert.equal(codes.length, vectors.codes.length);
  const share = agreement(codes, vectors.codes);
  console.log(`# SPH bit agreement wasm vs native: ${share} over ${codes.length * 128} bits`);
  assert.ok(share >= 0.999, `agreement ${share}`);
});

test("a store with the semantic stage finds a stored verse's paraphrase; the lexical one does not", async () => {
  const docs = [
    ...PARAPHRASES.map(([kjv], i) => ({ id: `kjv${i}`, text: kjv })),
    ...UNRELATED.map((text, i) => ({ id: `other${i}`, text })),
  ];
  const store = new full.MemoryStore();
  let semantic = await full.SemHash.open({ store, model });
  const plain = await lite.SemHash.open();
  await semantic.add(docs);
  await plain.add(docs);
  semantic = await full.SemHash.open({ store, model }); // reopened from the stored signatures
  PARAPHRASES.forEach(([, web], i) => {
    assert.deepEqual(plain.query(web), [], `pair ${i} should need the semantic stage`);
    const found = semantic.query(web);
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.equal(found[0].id, `kjv${i}`);
    assert.equal(found[0].relation, "paraphrase");
  });
  const compared = semantic.compare(PARAPHRASES[0][0], PARAPHRASES[0][1]);
  assert.ok(compared.signals.cosine > 0.9 && compared.relation === "paraphrase", JSON.stringify(compared));
  // The store holds semantic signatures: opening it without the model (or in the lite build) is refused.
  await assert.rejects(full.SemHash.open({ store }), full.FingerprintMismatch);
});

test("the static table's codes equal the native build's bit for bit", () => {
  const vectors = JSON.parse(readFileSync(join(root, "tests", "vectors", "static.json"), "utf8"));
  assert.equal(vectors.codes.length, 100);
  assert.deepEqual(staticModel.codes(vectors.texts), vectors.codes);
});

for (const [embedder, semanticModel] of [["student", model], ["static", staticModel]])
  test(`dedup with the ${embedder} model links paraphrases and leaves unrelated texts alone`, async () => {
  const semhash = await full.SemHash.open({ store: null, model: semanticModel });
  const docs = [
    ...PARAPHRASES.flatMap(([a, b], i) => [{ id: `kjv${i}`, text: a }, { id: `web${i}`, text: b }]),
    ...UNRELATED.map((text, i) => ({ id: `other${i}`, text })),
  ];
  const stages = new Set();
  const { docs: out, stats } = semhash.dedup(docs, { onProgress: (stage) => stages.add(stage) });
  const by = Object.fromEntries(out.map((d) => [d.id, d]));
  PARAPHRASES.forEach((_, i) => {
    assert.equal(by[`web${i}`].cluster, by[`kjv${i}`].cluster);
    assert.equal(by[`web${i}`].relation, "paraphrase");
  });
  assert.notEqual(by.other0.cluster, by.other1.cluster);
  assert.equal(stats.semantic_encoded, docs.length);
  assert.ok(stages.has("embed"), [...stages].join());
});

test("the cascade hands the student the pairs the table is unsure of, within its budget", async () => {
  const docs = [
    ...PARAPHRASES.flatMap(([a, b], i) => [{ id: `kjv${i}`, text: a }, { id: `web${i}`, text: b }]),
    ...UNRELATED.map((text, i) => ({ id: `other${i}`, text })),
  ];
  for (const verifyBudget of [0.5, 0]) {
    const cascade = await full.loadModel(models, { embedder: "cascade", verifyBudget });
    const semhash = await full.SemHash.open({ store: null, model: cascade });
    const { stats } = semhash.dedup(docs);
    const verified = stats.semantic_verified;
    assert.ok(verified.embedded <= verifyBudget * docs.length, JSON.stringify(verified));
    assert.equal(verified.documents, docs.length);
    if (verifyBudget === 0) assert.equal(verified.pairs, 0);
    else assert.ok(verified.embedded > 0, JSON.stringify(verified));
  }
  const cascade = await full.loadModel(models, { embedder: "cascade", verifyBudget: 2 });
  await assert.rejects(full.SemHash.open({ store: null, model: cascade }), /budget must be in \[0, 1\]/);
});

test("wrong model files and the lite build's loadModel are refused with clear errors", async () => {
  await assert.rejects(full.loadModel(join(root, "tests")), /student\.onnx|no such file/i);
  await assert.rejects(lite.loadModel(models), /lite build/);
  await assert.rejects(full.loadModel(models, { embedder: "tiny" }), /unknown embedder "tiny"/);
  // A copy cut short is refused by name against the folder's SHA256SUMS.
  const copy = mkdtempSync(join(tmpdir(), "semhash-models-"));
  for (const f of ["student.onnx", "tokenizer.json", "sph-128.bin", "SHA256SUMS"]) copyFileSync(join(models, f), join(copy, f));
  const onnx = readFileSync(join(copy, "student.onnx"));
  writeFileSync(join(copy, "student.onnx"), onnx.subarray(0, onnx.length >> 1));
  await assert.rejects(full.loadModel(copy), /student\.onnx is truncated or damaged: its SHA-256 is [0-9a-f]{64}, SHA256SUMS lists/);
  rmSync(copy, { recursive: true, force: true });
  const read = (f) => readFileSync(join(models, f));
  const wasm = await import(join(pkg, "full", "semhash.js"));
  assert.throws(() => new wasm.SemanticModel(read("student.onnx"), read("tokenizer.json"), read("tokenizer.json")), /projection/);
});
