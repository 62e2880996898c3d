// Shared by the JS tests: paths, the sample corpus, the known-answer vectors.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join, dirname } from "node:path";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const pkg = join(root, "pkg");

export const sample = () =>
  readFileSync(join(root, "tests", "data", "sample.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

export const vectors = () => JSON.parse(readFileSync(join(root, "tests", "vectors", "lexical.json"), "utf8"));

export const hex = (bytes) => Buffer.from(bytes).toString("hex");

// Verse pairs from two independent public-domain Bible translations (the
// same as tests/encoder.rs), and texts unrelated to them.
export const PARAPHRASES = [
  [
    "And Solomon told her all her questions: and there was nothing hid from Solomon which he told her not.",
    "Solomon answered all her questions. There wasn\u2019t anything hidden from Solomon which he didn\u2019t tell her.",
  ],
  [
    "And he burnt sweet incense thereon; as the LORD commanded Moses.",
    "and he burned incense of sweet spices on it, as Yahweh commanded Moses.",
  ],
];
export const UNRELATED = [
  "The compiler reports an error when a borrowed value does not live long enough.",
  "Preheat the oven, then bake the bread for forty minutes until the crust is brown.",
];
