#!/usr/bin/env node
// Builds the npm package into pkg/: the wasm module by wasm-pack (never
// Debian's wasm-opt: it breaks the module), the JS wrapper from src/js, the
// vendored `idb`, the manifest from pkg-config/package.json.
//
//   node pkg-config/build.mjs            # the lite (lexical) build in pkg/wasm/ and
//                                        # the full one (encoder + SPH) in pkg/full/
//
// wasm-pack runs with `--mode no-install`: a `wasm-bindgen` of the exact
// version the crate pins must be on PATH (.ci/run installs it).

import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkg = join(root, "pkg");
// A fresh clone before `npm ci` has no node_modules: say so in one line, not a stack trace.
try {
  statSync(join(root, "node_modules", "idb", "build", "index.js"));
} catch {
  console.error("semhash-llm build: node_modules/idb is missing: run `npm ci` in this folder first");
  process.exit(1);
}
const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
const version = cargo.match(/^version = "([^"]+)"/m)[1];

/** wasm-pack build of one flavour; returns the folder with its output. */
function wasmPack(flavour, features, { lto }) {
  const crate = join(root, "crates", "semhash-wasm");
  const out = join(root, "target", "wasm-pack", flavour);
  const env = {
    ...process.env,
    // Each flavour its own target dir (inside the native one, which CI keeps
    // outside the clone): flags differ, and native builds must not wait on this one.
    CARGO_TARGET_DIR: join(process.env.CARGO_TARGET_DIR ?? join(root, "target"), `wasm-${flavour}`),
    RUSTFLAGS: "-C target-feature=+simd128",
    CARGO_PROFILE_RELEASE_DEBUG: "false",
    CARGO_PROFILE_RELEASE_OPT_LEVEL: "3",
    // Size and speed of the lite module; the native release profile stays as it
    // is. The full module skips LTO: with tract inside, it costs minutes of
    // build for a module already within its budget.
    ...(lto ? { CARGO_PROFILE_RELEASE_LTO: "true", CARGO_PROFILE_RELEASE_CODEGEN_UNITS: "1" } : {}),
  };
  execFileSync(
    "wasm-pack",
    ["build", crate, "--target", "web", "--mode", "no-install", "--release", "--no-pack",
     "--out-dir", out, "--out-name", "semhash", "--", "--features", features],
    { stdio: "inherit", env },
  );
  return out;
}

/**
 * Drops the custom "name" section (function names for stack traces: 2.4 MB of
 * the full module) from a wasm file; wasm-pack keeps it and its wasm-opt
 * step, which would, is off (see Cargo.toml).
 */
function dropNameSection(path) {
  const bytes = readFileSync(path);
  const leb = (at) => {
    let value = 0, shift = 0, byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return [value, at];
  };
  const kept = [bytes.subarray(0, 8)];
  for (let at = 8; at < bytes.length; ) {
    const [size, body] = leb(at + 1);
    const end = body + size;
    const [nameLength, name] = leb(body);
    const isNames = bytes[at] === 0 && bytes.subarray(name, name + nameLength).toString() === "name";
    if (!isNames) kept.push(bytes.subarray(at, end));
    at = end;
  }
  writeFileSync(path, Buffer.concat(kept));
}

const lite = wasmPack("lite", "", { lto: true });
const full = wasmPack("full", "full", { lto: false });

rmSync(pkg, { recursive: true, force: true });
mkdirSync(join(pkg, "wasm"), { recursive: true });
cpSync(join(root, "src", "js"), pkg, { recursive: true });
mkdirSync(join(pkg, "full"), { recursive: true });
for (const f of ["semhash.js", "semhash.d.ts", "semhash_bg.wasm"]) {
  cpSync(join(lite, f), join(pkg, "wasm", f));
  cpSync(join(full, f), join(pkg, "full", f));
}
for (const flavour of ["wasm", "full"]) dropNameSection(join(pkg, flavour, "semhash_bg.wasm"));
mkdirSync(join(pkg, "vendor"), { recursive: true });
cpSync(join(root, "node_modules", "idb", "build", "index.js"), join(pkg, "vendor", "idb.js"));
cpSync(join(root, "node_modules", "idb", "LICENSE"), join(pkg, "vendor", "idb.LICENSE"));
cpSync(join(root, "LICENSE"), join(pkg, "LICENSE"));
cpSync(join(root, "pkg-config", "README.md"), join(pkg, "README.md"));
const manifest = JSON.parse(readFileSync(join(root, "pkg-config", "package.json"), "utf8"));
manifest.version = version;
writeFileSync(join(pkg, "package.json"), JSON.stringify(manifest, null, 2) + "\n");

const sizes = ["wasm", "full"].map((flavour) => {
  const wasm = join(pkg, flavour, "semhash_bg.wasm");
  const gz = gzipSync(readFileSync(wasm), { level: 9 }).length;
  return `${flavour === "wasm" ? "lite" : "full"} ${(statSync(wasm).size / 1024).toFixed(0)} KiB raw, ${(gz / 1024).toFixed(0)} KiB gzipped`;
});
console.log(`pkg/ ready: semhash-llm ${version}; wasm ${sizes.join("; ")}`);
console.log(`files: ${readdirSync(pkg).join(" ")}`);
