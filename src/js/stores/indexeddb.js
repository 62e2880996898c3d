// Signatures in the browser's IndexedDB, through the `idb` library, so that
// incremental de-duplication survives a reload.
//
// Object stores: `signatures` ({id, seq, signature}; `seq` keeps the order of
// addition, which the index needs to reproduce its representatives) and `meta`
// (the fingerprint the signatures were made with, the statistics). Each commit
// is one readwrite transaction: a closed tab loses at most the batch in
// flight, never part of one.
//
// Several tabs (or workers) may open one database. Each keeps its own index
// in memory, so a tab that commits after another one did would write from a
// stale view: an id the other tab added would be overwritten, its statistics
// replaced. `meta.generation` counts commits; a commit checks, inside its
// own transaction (IndexedDB runs overlapping readwrite transactions one at a
// time), that the generation is the one this tab last saw, and otherwise
// writes nothing and throws `StoreChanged`: reopen to see the other tab's
// documents.

// idb is vendored into the package (pkg/vendor/idb.js) so that browsers and
// module workers load it without a bundler or an import map.
import { openDB, deleteDB } from "../vendor/idb.js";
import { FingerprintMismatch, StoreChanged } from "./store.js";

/** Schema versions, each with its migration from the one before. */
const MIGRATIONS = [
  // 1: signatures by id, and a meta store.
  (db) => {
    db.createObjectStore("signatures", { keyPath: "id" });
    db.createObjectStore("meta");
  },
  // 2: order of addition, so that reopening indexes documents as first added.
  (db, tx) => {
    const signatures = tx.objectStore("signatures");
    signatures.createIndex("seq", "seq");
    // Version 1 kept no order: number existing records in key order.
    let seq = 0;
    return signatures.openCursor().then(function number(cursor) {
      if (!cursor) return tx.objectStore("meta").put(seq, "nextSeq");
      cursor.update({ ...cursor.value, seq: seq++ });
      return cursor.continue().then(number);
    });
  },
];
export const SCHEMA_VERSION = MIGRATIONS.length;

/** @implements {import('./store.js').SignatureStore} */
export class IndexedDBStore {
  #name;
  #db = null;
  /** The commit count this instance last saw (`meta.generation`). */
  #generation = 0;

  /** @param {string} [name] the database name (one store per name) */
  constructor(name = "semhash") {
    this.#name = name;
  }

  async #open() {
    this.#db ??= await openDB(this.#name, SCHEMA_VERSION, {
      async upgrade(db, oldVersion, _newVersion, tx) {
        for (let v = oldVersion; v < SCHEMA_VERSION; v++) await MIGRATIONS[v](db, tx);
      },
    });
    return this.#db;
  }

  async load(fingerprint) {
    const db = await this.#open();
    const tx = db.transaction(["signatures", "meta"], "readwrite");
    const meta = tx.objectStore("meta");
    const stored = await meta.get("fingerprint");
    const count = await tx.objectStore("signatures").count();
    if (stored !== undefined && count > 0 && stored !== fingerprint) {
      tx.abort();
      await tx.done.catch(() => {}); // the abort is ours: not an unhandled rejection
      throw new FingerprintMismatch(`IndexedDB store "${this.#name}"`, stored, fingerprint);
    }
    if (stored !== fingerprint) await meta.put(fingerprint, "fingerprint");
    const records = await tx.objectStore("signatures").index("seq").getAll();
    const stats = (await meta.get("stats")) ?? null;
    this.#generation = (await meta.get("generation")) ?? 0;
    await tx.done;
    return { signatures: records.map(({ id, signature }) => ({ id, signature })), stats };
  }

  async commit({ added, removed, stats }) {
    const db = await this.#open();
    const tx = db.transaction(["signatures", "meta"], "readwrite");
    const signatures = tx.objectStore("signatures");
    const meta = tx.objectStore("meta");
    const generation = (await meta.get("generation")) ?? 0;
    if (generation !== this.#generation) {
      tx.abort();
      await tx.done.catch(() => {}); // the abort is ours
      throw new StoreChanged(`IndexedDB store "${this.#name}"`);
    }
    let seq = (await meta.get("nextSeq")) ?? 0;
    for (const { id, signature } of added) signatures.put({ id, seq: seq++, signature });
    for (const id of removed) signatures.delete(id);
    meta.put(seq, "nextSeq");
    if (stats) meta.put(stats, "stats");
    meta.put(generation + 1, "generation");
    await tx.done;
    this.#generation = generation + 1;
  }

  async clear() {
    const db = await this.#open();
    const tx = db.transaction(["signatures", "meta"], "readwrite");
    const meta = tx.objectStore("meta");
    // The count goes on: a tab that opened the store before it was cleared must not commit into it.
    const generation = ((await meta.get("generation")) ?? 0) + 1;
    await Promise.all([tx.objectStore("signatures").clear(), meta.clear()]);
    await meta.put(generation, "generation");
    await tx.done;
    this.#generation = generation;
  }

  /** Documents held. */
  async count() {
    return (await this.#open()).count("signatures");
  }

  /** Closes the connection and deletes the database. */
  async destroy() {
    this.#db?.close();
    this.#db = null;
    await deleteDB(this.#name);
  }
}
