//! A store whose bytes the host keeps: the browser's IndexedDB, a Worker's
//! storage binding, anything that is not a file the library can open.
//!
//! The host hands over what it has stored when the store opens
//! ([`HostStore::preloaded`]); each commit is kept, as bytes, for the host to
//! take ([`HostStore::take_commits`]) and write in one transaction. The bytes
//! are the same versioned, fingerprinted signatures and statistics the file
//! store writes, so a host never needs to understand them. Ids are a
//! host's strings: an [`IdKind`](super::IdKind) is not kept.

use super::{IdKind, SignatureStore, Stored, StoredDoc};
use crate::pipeline::Deduper;
use crate::sketch::{CorpusStats, Fingerprint, Signature};
use crate::Result;

/// One committed batch, as bytes for the host to persist.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Commit {
    /// `(id, signature bytes)` of each added document.
    pub added: Vec<(String, Vec<u8>)>,
    /// Ids of the documents removed.
    pub removed: Vec<String>,
    /// The corpus statistics after the batch (replace the stored ones).
    pub stats: Vec<u8>,
}

/// See the module docs.
#[derive(Debug)]
pub struct HostStore {
    /// That of the pipeline that opened the store.
    fingerprint: Fingerprint,
    signatures: Vec<(String, Vec<u8>)>,
    stats: Option<Vec<u8>>,
    commits: Vec<Commit>,
    /// Whether commits are kept: a host that persists nothing (an index that
    /// lives as long as a Worker isolate) spares the encoding.
    record: bool,
}

impl HostStore {
    /// A store holding what the host loaded: signatures in the order they were
    /// added, and the statistics last committed (none for a new store). They
    /// are checked against the pipeline that opens the store.
    pub fn preloaded(signatures: Vec<(String, Vec<u8>)>, stats: Option<Vec<u8>>) -> Self {
        HostStore { fingerprint: Fingerprint([0; 16]), signatures, stats, commits: Vec::new(), record: true }
    }

    /// A store that keeps no commits: the in-memory index is all there is.
    pub fn unrecorded() -> Self {
        HostStore { record: false, ..HostStore::preloaded(Vec::new(), None) }
    }

    /// The commits made since the last call, oldest first.
    pub fn take_commits(&mut self) -> Vec<Commit> {
        std::mem::take(&mut self.commits)
    }
}

impl SignatureStore for HostStore {
    fn load(&mut self, deduper: &Deduper) -> Result<Stored> {
        self.fingerprint = deduper.fingerprint();
        let docs = std::mem::take(&mut self.signatures)
            .into_iter()
            .map(|(id, bytes)| {
                let (signature, _) =
                    Signature::from_bytes(&bytes, self.fingerprint, &format!("stored signature {id:?}"))?;
                Ok(StoredDoc { id, kind: IdKind::Text, signature })
            })
            .collect::<Result<Vec<_>>>()?;
        let stats = match self.stats.take() {
            Some(bytes) => {
                Some(CorpusStats::decode(&bytes, self.fingerprint, &deduper.config().weights, "stored statistics")?)
            }
            None => None,
        };
        Ok((docs, stats))
    }

    fn commit(&mut self, added: &[StoredDoc], removed: &[String], stats: &CorpusStats) -> Result<()> {
        if !self.record {
            return Ok(());
        }
        self.commits.push(Commit {
            added: added.iter().map(|d| (d.id.clone(), d.signature.to_bytes(self.fingerprint))).collect(),
            removed: removed.to_vec(),
            stats: stats.encode(self.fingerprint),
        });
        Ok(())
    }
}
