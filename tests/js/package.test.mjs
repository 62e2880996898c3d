// `npm pack` makes a tarball a user installs; each environment's entry is in
// it and resolves by the package's name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pkg, root, PARAPHRASES } from "./helpers.mjs";

test("the packed tarball installs and imports by name in Node, with every environment's entry", () => {
  const dir = mkdtempSync(join(tmpdir(), "semhash-pack-"));
  try {
    const tarball = execFileSync("npm", ["pack", pkg, "--pack-destination", dir, "--json"], { encoding: "utf8" });
    const [{ filename, files }] = JSON.parse(tarball);
    const paths = files.map((f) => f.path);
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    for (const condition of ["browser", "node", "workerd", "types"]) {
      const target = manifest.exports["."][condition].replace(/^\.\//, "");
      assert.ok(paths.includes(target), `${condition} entry ${target} is in the tarball`);
    }
    for (const condition of ["browser", "node", "types"]) {
      const target = manifest.exports["./full"][condition].replace(/^\.\//, "");
      assert.ok(paths.includes(target), `full ${condition} entry ${target} is in the tarball`);
    }
    for (const f of ["wasm/semhash_bg.wasm", "wasm/semhash.js", "full/semhash_bg.wasm", "worker.js", "vendor/idb.js", "LICENSE"]) {
      assert.ok(paths.includes(f), `${f} is in the tarball`);
    }

    const app = join(dir, "app");
    execFileSync("mkdir", ["-p", app]);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(dir, filename)], { cwd: app, stdio: "pipe" });
    writeFileSync(
      join(app, "main.js"),
      `import { SemHash, version } from "semhash-llm";
       const s = await SemHash.open();
       await s.add([{ id: "a", text: "The quick brown fox jumps over the lazy dog." }]);
       console.log(JSON.stringify({ version: version(), match: s.query("the quick brown fox jumps over the lazy dog")[0] }));`,
    );
    const out = JSON.parse(execFileSync("node", ["main.js"], { cwd: app, encoding: "utf8" }));
    assert.equal(out.version, manifest.version);
    assert.deepEqual(out.match, { id: "a", relation: "exact", score: 1 });

    // The full build by name, its model files from where the user keeps them.
    const [kjv, web] = PARAPHRASES[0];
    writeFileSync(
      join(app, "full.js"),
      `import { SemHash, loadModel } from "semhash-llm/full";
       const model = await loadModel(${JSON.stringify(join(root, "models"))});
       const s = await SemHash.open({ model });
       await s.add([{ id: "kjv", text: ${JSON.stringify(kjv)} }]);
       console.log(JSON.stringify(s.query(${JSON.stringify(web)}).map((m) => [m.id, m.relation])));`,
    );
    assert.deepEqual(JSON.parse(execFileSync("node", ["full.js"], { cwd: app, encoding: "utf8" })), [["kjv", "paraphrase"]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// The lite budget was 300 KB until the word alignment of short texts (the
// precision work of 2026-12-01) added about 11 KB gzipped, then 320 KB until
// the judge's settings joined the configuration (about 9 KB: every build
// parses the same config, endpoint and aligner knobs included), then 330 KB
// until the alignment read which words the original joins into names
// (2026-12-02: about 1.6 KB), then 335 KB until the local judge got two
// calibrations in the configuration and the pairs' words (2026-12-06: about
// 1.9 KB, 1.2 KB of it the nested calibration's config parsing), then 340
// KB until headings that name other things were kept apart in pairs and
// clusters (2026-12-07: about 1.1 KB; 339,320 -> 340,398 bytes).
test("the wasm modules stay within their size budgets (gzipped: lite 345 KB, full 5 MB)", () => {
  for (const [build, budget] of [["wasm", 345_000], ["full", 5_000_000]]) {
    const gz = gzipSync(readFileSync(join(pkg, build, "semhash_bg.wasm")), { level: 9 }).length;
    console.log(`# ${build === "wasm" ? "lite" : "full"}: ${gz} bytes gzipped, budget ${budget}`);
    assert.ok(gz <= budget, `${build}: ${gz} bytes gzipped, over ${budget}`);
  }
});

