// `npm run demo`: builds the package when pkg/ lacks it, then serves the
// repository root on localhost (the page needs /pkg/ and /models/ beside /www/).
//
//   node www/serve-demo.mjs [--port N]
import { existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { serve } from "../tests/js/serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({ options: { port: { type: "string", default: "8080" } } });

if (!existsSync(join(root, "pkg", "full", "semhash_bg.wasm"))) {
  console.log("pkg/ has no full build yet: building it (a few minutes)…");
  execFileSync(process.execPath, [join(root, "pkg-config", "build.mjs")], { stdio: "inherit", cwd: root });
}
const { url } = await serve(root, Number(args.port));
console.log(`semhash-llm demo: ${url}/www/  (Ctrl+C to stop)`);
