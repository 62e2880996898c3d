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
