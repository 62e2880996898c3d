#!/usr/bin/env node
// semhash-llm's wasm package in Node, for benches/bench: the whole job a user
// of the package runs on a JSONL file of {"id", "text"} documents.
//
//   node benches/wasm/node_job.mjs PKG_DIR INPUT.jsonl OUTPUT.jsonl [MODELS_DIR [EMBEDDER]]
//
// import the package (its "node" export: reads and instantiates the module;
// with MODELS_DIR, the full build's "./full" export and the model files of
// EMBEDDER: student, the default, or static)
// -> read and parse the JSONL -> SemHash.open() (in-memory store) ->
// dedup(docs) -> write one line per document (as `semhash dedup` does).
// Prints one JSON line: docs, clusters, snippets, timings (ms).
// Exit 77: cannot run here (the bench records the row as skipped).

import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [pkgDir, input, output, models, embedder = "student"] = process.argv.slice(2);
if (!output) {
  console.error("usage: node_job.mjs PKG_DIR INPUT.jsonl OUTPUT.jsonl [MODELS_DIR [EMBEDDER]]");
  process.exit(2);
}
const t = { start: performance.now() };
const lap = (name) => {
  const now = performance.now();
  t[name] = now - t.last;
  t.last = now;
};
t.last = t.start;

const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const entry = manifest.exports?.[models ? "./full" : "."]?.node ?? manifest.main ?? "index.js";
const { SemHash, version, loadModel } = await import(pathToFileURL(resolve(pkgDir, entry)).href);
lap("load_module");
const model = models ? await loadModel(resolve(models), { embedder }) : undefined;
if (models) lap("load_model");

const docs = [];
for (const line of readFileSync(input, "utf8").split("\n")) {
  if (line.trim()) {
    const d = JSON.parse(line);
    docs.push({ id: d.id, text: d.text });
  }
}
lap("read");

const semhash = await SemHash.open({ model });
const outcome = semhash.dedup(docs);
lap("dedup");

writeFileSync(output, outcome.docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
lap("write");
semhash.close();

const clusters = new Set(outcome.docs.map((d) => d.cluster)).size;
const timings_ms = Object.fromEntries(Object.entries(t).filter(([k]) => !["start", "last"].includes(k)));
timings_ms.total = performance.now() - t.start;
console.log(JSON.stringify({
  host: "node", build: models ? "full" : "lite", embedder: models ? embedder : undefined, node: process.version, package: manifest.version, semhash: version?.(),
  docs: outcome.docs.length, clusters, snippets: outcome.snippets.length, timings_ms,
}));
