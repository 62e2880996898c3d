// The full build (encoder + semantic hashing in wasm) in Node: the model files
// load from their bytes, and the codes agree with the native build's
// (tests/vectors/semantic.json) on at least 99.9% of bits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const root = new URL("../../", import.meta.url);
const read = (path) => readFileSync(new URL(path, root));
const full = await import(new URL("pkg/full/semhash.js", root));
full.initSync({ module: read("pkg/full/semhash_bg.wasm") });
const load = () => new full.SemanticModel(read("models/student.onnx"), read("models/tokenizer.json"), read("models/sph-128.bin"));

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
  const vectors = JSON.parse(read("tests/vectors/semantic.json"));
  const codes = load().codes(vectors.texts);
  assert.equal(codes.length, vectors.codes.length);
  const share = agreement(codes, vectors.codes);
  console.log(`# SPH bit agreement wasm vs native: ${share} over ${codes.length * 128} bits`);
  assert.ok(share >= 0.999, `agreement ${share}`);
});

test("wrong model bytes are refused with a clear error", () => {
  assert.throws(
    () => new full.SemanticModel(read("models/student.onnx"), read("models/tokenizer.json"), read("models/tokenizer.json")),
    /projection/,
  );
});
