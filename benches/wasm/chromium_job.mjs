#!/usr/bin/env node
// semhash-llm's wasm package in headless Chromium, for benches/bench: the
// whole job a page runs on a JSONL file of {"id", "text"} documents.
//
//   node benches/wasm/chromium_job.mjs PKG_DIR INPUT.jsonl OUTPUT.jsonl [MODELS_DIR [EMBEDDER]]
//
// Serves PKG_DIR, the input (and MODELS_DIR) on 127.0.0.1, starts Debian's
// Chromium (/usr/bin/chromium, or $CHROMIUM) through npm `playwright-core`
// (the workspace's dev dependency), and in the page: import the package's
// "browser" export (fetches and compiles the module; with MODELS_DIR, the
// full build's "./full" export, and loadModel fetches the model files) -> fetch and parse the
// JSONL -> SemHash.open() (in-memory store) -> dedup(docs). Writes one line
// per document; prints one JSON line: docs, clusters, snippets, timings (ms;
// `page` = what the page measured, `browser_start` = launching Chromium).
// Exit 77: cannot run here (no playwright-core or no Chromium; the bench
// records the row as skipped).

import { createReadStream, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [pkgDir, input, output, models] = process.argv.slice(2, 6).map((p) => p && resolve(p));
const embedder = process.argv[6] ?? "student";
if (!output) {
  console.error("usage: chromium_job.mjs PKG_DIR INPUT.jsonl OUTPUT.jsonl [MODELS_DIR [EMBEDDER]]");
  process.exit(2);
}
const t0 = performance.now();
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
let chromium;
try {
  ({ chromium } = createRequire(join(repo, "package.json"))("playwright-core"));
} catch {
  console.error("chromium_job: npm playwright-core is not installed (npm install in the repository)");
  process.exit(77);
}
if (!existsSync(executablePath)) {
  console.error(`chromium_job: no Chromium at ${executablePath} (apt-get install chromium)`);
  process.exit(77);
}

const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const exported = manifest.exports?.[models ? "./full" : "."];
const entry = exported?.browser ?? exported?.default ?? "index.js";
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
                ".html": "text/html", ".json": "application/json", ".jsonl": "text/plain" };
const server = createServer((req, res) => {
  const url = new URL(req.url, "http://x");
  let file = null;
  if (url.pathname === "/") {
    res.writeHead(200, { "content-type": "text/html" });
    return res.end("<!doctype html><title>semhash bench</title>");
  }
  const under = (prefix, dir) => {
    const f = resolve(dir, "." + decodeURIComponent(url.pathname.slice(prefix.length - 1)));
    return f.startsWith(dir) ? f : null;
  };
  if (url.pathname === "/input.jsonl") file = input;
  else if (url.pathname.startsWith("/pkg/")) file = under("/pkg/", pkgDir);
  else if (models && url.pathname.startsWith("/models/")) file = under("/models/", models);
  if (!file || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
  createReadStream(file).pipe(res);
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}`;

let browser;
try {
  const t1 = performance.now();
  browser = await chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    // playwright gives the browser a fresh, empty profile of its own.
  });
  const page = await browser.newPage();
  await page.goto(base + "/");
  const browserStart = performance.now() - t1;
  const result = await page.evaluate(async ({ entryUrl, full, embedder }) => {
    const t = {};
    let last = performance.now();
    const lap = (name) => { const now = performance.now(); t[name] = now - last; last = now; };
    const { SemHash, version, loadModel } = await import(entryUrl);
    lap("load_module");
    const model = full ? await loadModel("/models/", { embedder }) : undefined;
    if (full) lap("load_model");
    const text = await (await fetch("/input.jsonl")).text();
    const docs = [];
    for (const line of text.split("\n")) {
      if (line.trim()) {
        const d = JSON.parse(line);
        docs.push({ id: d.id, text: d.text });
      }
    }
    lap("read");
    const semhash = await SemHash.open({ model });
    const outcome = semhash.dedup(docs);
    lap("dedup");
    semhash.close();
    return { version: version?.(), docs: outcome.docs, snippets: outcome.snippets.length, timings_ms: t,
             userAgent: navigator.userAgent };
  }, { entryUrl: `${base}/pkg/${entry.replace(/^\.\//, "")}`, full: Boolean(models), embedder });
  writeFileSync(output, result.docs.map((d) => JSON.stringify(d)).join("\n") + "\n");
  const clusters = new Set(result.docs.map((d) => d.cluster)).size;
  console.log(JSON.stringify({
    host: "chromium", build: models ? "full" : "lite", embedder: models ? embedder : undefined, browser: browser.version(), package: manifest.version, semhash: result.version,
    docs: result.docs.length, clusters, snippets: result.snippets,
    timings_ms: { browser_start: browserStart, page: result.timings_ms, total: performance.now() - t0 },
  }));
} finally {
  if (browser) await browser.close();
  server.close();
}
