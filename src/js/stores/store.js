// The contract every signature store keeps. Stores hold bytes the library
// made (versioned, fingerprinted signatures and corpus statistics); they never
// need to understand them, only keep them safe and in order.

/**
 * @typedef {object} Stored
 * @property {{id: string, signature: Uint8Array}[]} signatures in the order they were added
 * @property {Uint8Array|null} stats the corpus statistics of the last commit
 *
 * @typedef {object} Commit
 * @property {{id: string, signature: Uint8Array}[]} added
 * @property {string[]} removed
 * @property {Uint8Array|null} stats replaces the stored statistics
 *
 * @typedef {object} SignatureStore
 * @property {(fingerprint: string) => Promise<Stored>} load everything stored;
 *   refuses (throws) when the store holds signatures of another fingerprint
 * @property {(commit: Commit) => Promise<void>} commit one batch, all or nothing
 * @property {() => Promise<void>} clear forgets everything
 */

/** The error a store throws when it holds another configuration's signatures. */
export class FingerprintMismatch extends Error {
  constructor(where, stored, wanted) {
    super(
      `${where} holds signatures made with configuration/model ${stored}, ` +
        `this de-duplicator uses ${wanted}: clear the store or open another one`,
    );
    this.name = "FingerprintMismatch";
  }
}

/**
 * The error a store throws when another tab or worker committed to it since
 * this instance loaded it: nothing was written, and this instance's view is
 * stale. Open the store again to see the other's documents.
 */
export class StoreChanged extends Error {
  constructor(where) {
    super(
      `${where} was changed by another tab or worker since this one opened it; nothing was written: ` +
        `open it again (SemHash.open) to see its documents, then add yours`,
    );
    this.name = "StoreChanged";
  }
}
