// Writes www/sample.jsonl: the demo's small labelled sample (about 60
// documents) with every kind of duplicate, taken from the development data
// (../shared/data, or --data DIR). Deterministic: the same data gives the
// same bytes. It then runs the full package (encoder included) on the sample
// and fails unless the clusters match the labels, so the page's test can
// trust them.
//
//   node www/make_sample.mjs [--data DIR]
import { readFileSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { checkOutcome } from "./expected.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const { values: args } = parseArgs({ options: { data: { type: "string", default: join(here, "..", "..", "shared", "data") } } });

const readJsonl = (path) =>
  readFileSync(join(args.data, path), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

// Stress-set rows grouped by cluster, clusters in order of their number.
const stress = readJsonl("stress/stress_dev.jsonl");
const clustersOf = (type) => {
  const groups = new Map();
  for (const row of stress.filter((r) => r.type === type)) {
    groups.set(row.cluster, [...(groups.get(row.cluster) ?? []), row]);
  }
  return [...groups.entries()].sort(([a], [b]) => a - b).map(([, rows]) => rows);
};
const meanLength = (rows) => rows.reduce((n, r) => n + r.text.length, 0) / rows.length;

// Template-wrapped: five articles each plain and inside the same two site
// templates, so each template wraps five documents (the default
// `boilerplate_min_docs`) and is recognised as boilerplate.
const TEMPLATES = ["wrapped:article_with_divs", "wrapped:cnn_002"];
const boilerplate = clustersOf("boilerplate")
  .filter((rows) => TEMPLATES.every((t) => rows.some((r) => r.variant === t)))
  .slice(0, 5)
  .flat();

// Hot: the original and eleven copies (exact and lightly edited) of the hot
// document with the shortest texts still over the 300 characters of the
// short-text rule.
const hotCluster = clustersOf("hot")
  .filter((rows) => meanLength(rows) > 300)
  .sort((a, b) => meanLength(a) - meanLength(b))[0];
const hot = [...hotCluster.filter((r) => r.variant === "exact"), ...hotCluster.filter((r) => r.variant !== "exact").slice(0, 11)];

// Short and perturbed: one quote per kind of perturbation.
const PERTURBATIONS = ["typo", "homoglyph", "whitespace", "case+punct", "typo+whitespace"];
const shortClusters = clustersOf("short");
const short = PERTURBATIONS.flatMap((kind) => shortClusters.find((rows) => rows.some((r) => r.variant === kind)));

// Containment: the two shortest chapters with their excerpts.
const contain = clustersOf("contain")
  .sort((a, b) => meanLength(a) - meanLength(b))
  .slice(0, 2)
  .flat();

// Viral: one quote pasted into five unrelated descriptions (`min_docs` of snippets).
const viral = stress.filter((r) => r.type === "viral" && r.snippet === 0).slice(0, 5);

// Unrelated documents of moderate length.
const singleton = stress.filter((r) => r.type === "singleton" && r.text.length < 600).slice(0, 6);

// Paraphrase: the same Old Testament verse in two translations (KJV, WEB),
// short, and kept only where the default configuration calls the pair a
// paraphrase: the semantic stage finds about half of these pairs, and the
// demo shows ones it finds.
const { SemHash, loadModel } = await import("../pkg/full.node.js");
const model = await loadModel(join(here, "..", "models"));
const comparer = await SemHash.open({ model });
const paraphrase = [];
for (const pair of readJsonl("pairs/bible_ot_pairs.jsonl")) {
  if (paraphrase.length === 10) break;
  if (pair.label !== 1 || pair.a.length > 160 || pair.b.length > 160) continue;
  if (comparer.compare(pair.a, pair.b).relation !== "paraphrase") continue;
  const cluster = 1 + paraphrase.length / 2;
  paraphrase.push(
    { id: `kjv:${pair.id}`, text: pair.a, cluster, type: "paraphrase", variant: "kjv" },
    { id: `web:${pair.id}`, text: pair.b, cluster, type: "paraphrase", variant: "web" },
  );
}

// A fixed shuffle (mulberry32), so duplicates are spread through the input.
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
const rows = [...boilerplate, ...hot, ...short, ...contain, ...viral, ...singleton, ...paraphrase].map(
  ({ id, text, cluster, type, variant, snippet }) => ({ id, text, cluster, type, variant, ...(snippet === undefined ? {} : { snippet }) }),
);
const next = random(20261130);
for (let i = rows.length - 1; i > 0; i--) {
  const j = Math.floor(next() * (i + 1));
  [rows[i], rows[j]] = [rows[j], rows[i]];
}

const deduper = await SemHash.open({ model });
const outcome = deduper.dedup(rows.map(({ id, text }) => ({ id, text })));
const problems = checkOutcome(rows, outcome);
if (problems.length) {
  console.error(`the sample does not de-duplicate as labelled:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
writeFileSync(join(here, "sample.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n") + "\n");
const count = (type) => rows.filter((r) => r.type === type).length;
console.log(
  `www/sample.jsonl: ${rows.length} documents (${["boilerplate", "hot", "short", "contain", "viral", "paraphrase", "singleton"]
    .map((t) => `${t} ${count(t)}`)
    .join(", ")}); de-duplicates as labelled`,
);
