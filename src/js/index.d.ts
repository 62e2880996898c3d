// Types of the semhash-llm package (all three entry points share them; the
// browser entry adds IndexedDBStore and WorkerSemHash).

export type Relation = "exact" | "near" | "contained_in" | "contains" | "paraphrase" | "none";

export interface Doc {
  id: string | number;
  text: string;
}

export interface Match {
  id: string;
  /** Relation of the queried text to this stored document. */
  relation: Relation;
  score: number;
}

export interface Comparison {
  duplicate: boolean;
  relation: Relation;
  score: number;
  signals: {
    exact: boolean;
    char_sim: number;
    weighted_sim: number;
    a_in_b: number | null;
    b_in_a: number | null;
    chars: [number, number];
    boilerplate: [number, number];
    /** Cosine of the embeddings, when both texts were embedded (full build). */
    cosine: number | null;
    /** Share of equal bits of the semantic codes, when both texts were embedded. */
    code_agreement: number | null;
  };
  /** With a learned boundary: its probability of duplicate (after the judge, if asked) and uncertainty. */
  probability: number | null;
  uncertainty: number | null;
  /** Whether a judge was asked about this pair. */
  judged: boolean;
}

export interface DocResult {
  id: string;
  cluster: number;
  representative: string;
  relation: Relation;
  score: number;
  parent?: string;
}

export interface Snippet {
  text: string;
  words: number;
  docs: string[];
}

export interface Outcome {
  docs: DocResult[];
  snippets: Snippet[];
  stats: Record<string, unknown>;
}

export interface Stored {
  signatures: { id: string; signature: Uint8Array }[];
  stats: Uint8Array | null;
}

export interface Commit {
  added: { id: string; signature: Uint8Array }[];
  removed: string[];
  stats: Uint8Array | null;
}

/** Where signatures live between sessions. */
export interface SignatureStore {
  /** Everything stored; throws `FingerprintMismatch` for another configuration's signatures. */
  load(fingerprint: string): Promise<Stored>;
  /** One batch, all or nothing. */
  commit(commit: Commit): Promise<void>;
  clear(): Promise<void>;
}

export class MemoryStore implements SignatureStore {
  load(fingerprint: string): Promise<Stored>;
  commit(commit: Commit): Promise<void>;
  clear(): Promise<void>;
  readonly size: number;
}

export class IndexedDBStore implements SignatureStore {
  constructor(name?: string);
  load(fingerprint: string): Promise<Stored>;
  commit(commit: Commit): Promise<void>;
  clear(): Promise<void>;
  count(): Promise<number>;
  destroy(): Promise<void>;
}

export const SCHEMA_VERSION: number;

export class FingerprintMismatch extends Error {}

/** Thrown by a commit when another tab or worker committed to the store since this one opened it: nothing was written; reopen. */
export class StoreChanged extends Error {}

/** An embedder (the student encoder, or the static table) and its learned hyperplanes (full build: `semhash-llm/full`). */
export interface SemanticModel {
  /** The semantic code of each text, as hex of its 64-bit words, low word first. */
  codes(texts: string[]): string[];
  free(): void;
}

/**
 * Loads the semantic model from the folder (URL; in Node also a path) serving
 * `student.onnx`, `tokenizer.json` and `sph-128.bin` (the student, the
 * default), or with `embedder: "static"` `static-128.bin`, `tokenizer.json`
 * and `sph-static-128.bin` (the static table: a lookup per token, far faster
 * and less exact), or with `embedder: "cascade"` all five (the table for
 * every text; the student, within `verifyBudget` of a run's documents,
 * default 0.05, for the pairs the table is unsure of, in `dedup` and
 * `compare`); fetched once, then read from the Cache API. The lite build
 * throws: it has no encoder.
 */
export function loadModel(
  base: string | URL,
  options?: { embedder?: "student" | "static" | "cascade"; verifyBudget?: number; cacheName?: string },
): Promise<SemanticModel>;

export class SemHash {
  /**
   * `store: null` keeps nothing but the index (no commits). `model` (full
   * build) adds the semantic stage: short texts are embedded, paraphrases found.
   */
  static open(options?: { config?: object | string; store?: SignatureStore | null; model?: SemanticModel }): Promise<SemHash>;
  readonly fingerprint: string;
  readonly size: number;
  readonly store: SignatureStore;
  config(): object;
  has(id: string | number): boolean;
  add(docs: Doc[]): Promise<number>;
  query(text: string): Match[];
  remove(ids: string[]): Promise<number>;
  compare(a: string, b: string): Comparison;
  /** A judge for the learned boundary's uncertain pairs (dedup and compare); `null` removes it. */
  setJudge(
    callback: ((pairs: { a: string; b: string; p: number }[]) => { duplicate: boolean; confidence: number; relation?: Relation }[]) | null,
    options?: { budget?: number; band?: number },
  ): void;
  sign(text: string): Uint8Array;
  signBatch(texts: string[]): Uint8Array[];
  dedup(docs: Doc[], options?: { onProgress?: (stage: string, done: number, total: number) => void }): Outcome;
  close(): void;
}

/** `SemHash` in a Web Worker: the page never blocks; `progress` events; `cancel()`. */
export class WorkerSemHash extends EventTarget {
  constructor(workerUrl?: URL | string);
  /** `model`: URL of the model files' folder, for the full build's semantic stage. */
  open(options?: { config?: object | string; storeName?: string; model?: string | URL }): Promise<{ size: number; fingerprint: string; semantic: boolean }>;
  add(docs: Doc[], options?: { chunk?: number }): Promise<number>;
  query(text: string): Promise<Match[]>;
  queryMany(texts: string[]): Promise<Match[][]>;
  remove(ids: string[]): Promise<number>;
  compare(a: string, b: string): Promise<Comparison>;
  size(): Promise<number>;
  dedup(docs: Doc[]): Promise<Outcome>;
  /** Deletes every stored signature; the store stays open, empty. */
  clear(): Promise<{ size: number; fingerprint: string; semantic: boolean }>;
  cancel(): void;
  close(): void;
}

export function defaultConfig(): object;
export function version(): string;
/** Bytes of wasm linear memory in use (it only grows). */
export function memoryBytes(): number;
