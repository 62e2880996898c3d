//! Keeping signatures between runs: add documents over days, query new ones
//! against everything kept, remove by id.
//!
//! A [`SignatureStore`] persists; an [`Incremental`] pairs one with the
//! in-memory [`SignatureIndex`] and the corpus statistics, and does the work.
//! Stores: [`MemoryStore`] (nothing survives the process), [`FileStore`]
//! (a directory with an append-only log, one checksummed frame per batch) and
//! [`HostStore`] (the host keeps the bytes: the JS wrapper's IndexedDB store).

mod file;
mod host;

pub use file::{decode_log, FileStore, Log};
pub use host::{Commit, HostStore};

use crate::decide::Relation;
use crate::index::SignatureIndex;
use crate::pipeline::Deduper;
use crate::sketch::{CorpusStats, Prepared, Signature};
use crate::util::Silent;
use crate::{Document, Error, Result};
use serde::Serialize;

/// How the caller wrote a document's id. The core names every document by a
/// string; an id that was an integer (a JSON number, an integer column) is
/// held as its decimal spelling and marked, so that what a store hands back
/// later is an integer again, and a user who joins matches on an integer id
/// column finds them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IdKind {
    /// A string id.
    #[default]
    Text,
    /// An integer id, held as its decimal spelling.
    Integer,
}

/// One stored document: its id, how the id was written, its signature.
#[derive(Clone, Debug)]
pub struct StoredDoc {
    /// The document's id.
    pub id: String,
    /// How the caller wrote the id.
    pub kind: IdKind,
    /// The document's signature.
    pub signature: Signature,
}

/// What a store holds: live documents in the order added, and the corpus
/// statistics (none in a new store).
pub type Stored = (Vec<StoredDoc>, Option<CorpusStats>);

/// Where signatures live between runs.
pub trait SignatureStore {
    /// Everything stored.
    fn load(&mut self, deduper: &Deduper) -> Result<Stored>;
    /// Persists one batch of additions and removals with the statistics after
    /// it, all or nothing.
    fn commit(&mut self, added: &[StoredDoc], removed: &[String], stats: &CorpusStats) -> Result<()>;
}

/// A store that keeps nothing: for one process's lifetime.
#[derive(Debug, Default)]
pub struct MemoryStore;

impl SignatureStore for MemoryStore {
    fn load(&mut self, _: &Deduper) -> Result<Stored> {
        Ok((Vec::new(), None))
    }

    fn commit(&mut self, _: &[StoredDoc], _: &[String], _: &CorpusStats) -> Result<()> {
        Ok(())
    }
}

/// A stored document that matched a query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Match {
    /// The stored document's id.
    pub id: String,
    /// How the id was written when the document was added (a face that
    /// writes ids, as the command does, turns an integer's back into one).
    #[serde(skip)]
    pub kind: IdKind,
    /// Relation of the query document to this one.
    pub relation: Relation,
    /// The verdict's score: what orders the matches.
    pub score: f32,
}

/// Incremental de-duplication over a store.
///
/// Documents are added in batches and kept as signatures only (no texts);
/// a query signs a new text under the statistics of everything added so
/// far and asks the index for its candidates, so it costs one signature and
/// a verdict per candidate, not a pass over the store.
///
/// ```rust
/// use semhash::store::{Incremental, MemoryStore};
/// use semhash::{Config, Deduper, Document};
///
/// let article = "The river flooded the lower town after three days of heavy rain, and the old \
///                stone bridge was closed to all traffic while engineers inspected its arches.";
/// let doc = |id: &str, text: &str| Document { id: id.into(), text: text.into() };
///
/// let mut store = Incremental::open(Deduper::new(Config::default())?, MemoryStore)?;
/// store.add(&[
///     doc("flood", article),
///     doc("linker", "Linkers join object files and libraries into one executable program."),
/// ])?;
///
/// // A later, lightly edited copy is found; querying does not add it.
/// let edited = article.replace("heavy rain", "rain").to_uppercase();
/// let matches = store.query(&edited)?;
/// assert_eq!(matches[0].id, "flood");
/// assert!(matches[0].relation.is_duplicate());
/// assert_eq!(store.len(), 2);
///
/// // A new text matches nothing; ids are unique.
/// assert!(store.query("Bread rises because yeast makes carbon dioxide.")?.is_empty());
/// assert!(store.add(&[doc("flood", "another text")]).is_err());
/// # Ok::<(), semhash::Error>(())
/// ```
pub struct Incremental<S: SignatureStore> {
    deduper: Deduper,
    store: S,
    index: SignatureIndex,
    stats: CorpusStats,
    /// The kind of each id the index numbered, by its number (as the index,
    /// it keeps a removed document's place).
    kinds: Vec<IdKind>,
}

impl<S: SignatureStore> Incremental<S> {
    /// Opens a store and indexes what it holds.
    ///
    /// # Errors
    ///
    /// What the store's [`SignatureStore::load`] refuses: for a
    /// [`FileStore`], signatures or statistics made under another
    /// configuration ([`Error::FingerprintMismatch`]), another format
    /// version, a damaged log, or an I/O error.
    pub fn open(deduper: Deduper, mut store: S) -> Result<Self> {
        let (docs, stats) = store.load(&deduper)?;
        let stats = stats.unwrap_or_else(|| CorpusStats::new(&deduper.config().weights));
        let mut index = deduper.new_index();
        let mut kinds = Vec::with_capacity(docs.len());
        for doc in docs {
            if index.add(&doc.id, doc.signature) {
                kinds.push(doc.kind);
            }
        }
        Ok(Incremental { deduper, store, index, stats, kinds })
    }

    /// Documents stored now.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no document is stored.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Whether a document with this id is stored.
    pub fn contains(&self, id: &str) -> bool {
        self.index.contains(id)
    }

    /// The pipeline that signs and decides.
    pub fn deduper(&self) -> &Deduper {
        &self.deduper
    }

    /// For what does not change signatures (a judge).
    pub fn deduper_mut(&mut self) -> &mut Deduper {
        &mut self.deduper
    }

    /// The store underneath: a [`HostStore`]'s commits are taken from here.
    pub fn store_mut(&mut self) -> &mut S {
        &mut self.store
    }

    /// Adds one batch: its documents count in the statistics (in order), are
    /// signed (short ones embedded too, with a semantic stage), indexed and
    /// committed together. Ids already stored, or repeated
    /// within the batch, are an error and nothing is added.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] for an id already stored or repeated in the batch,
    /// or a text [`Deduper::check`] refuses (empty, or over the size limit);
    /// the semantic stage's error; the store's commit error (I/O, a
    /// [`FileStore`] opened for reading). The index and the statistics are
    /// unchanged after any of them.
    pub fn add(&mut self, docs: &[Document]) -> Result<()> {
        self.add_with_kinds(docs, |_| IdKind::Text)
    }

    /// [`Incremental::add`], with each id's [`IdKind`] as `kind` says: the
    /// kind is stored, and a [`Match`] carries it back.
    ///
    /// # Errors
    ///
    /// As [`Incremental::add`]; an integer id that is not an integer's
    /// decimal spelling is an [`Error::Input`].
    pub fn add_with_kinds(&mut self, docs: &[Document], kind: impl Fn(&Document) -> IdKind) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for d in docs {
            if self.index.contains(&d.id) || !seen.insert(d.id.as_str()) {
                return Err(Error::Input(format!("id {:?} is already in the store", d.id)));
            }
            self.deduper.check(&d.text).map_err(|e| Error::Input(format!("id {:?}: {e}", d.id)))?;
            if kind(d) == IdKind::Integer && !is_integer_spelling(&d.id) {
                return Err(Error::Input(format!("id {:?} is marked an integer but is not one", d.id)));
            }
        }
        let prepared: Vec<Prepared> = crate::util::par::map(docs, |d| self.deduper.prepare(&d.text));
        let mut stats = self.stats.clone();
        prepared.iter().for_each(|p| stats.add(&p.sequence));
        let signer = self.deduper.signer();
        let mut sigs: Vec<Signature> = crate::util::par::map(&prepared, |p| signer.sign(p, &stats));
        let texts: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
        self.deduper.embed_short(&texts, &mut sigs, &Silent)?;
        let added: Vec<StoredDoc> = docs
            .iter()
            .zip(sigs)
            .map(|(d, signature)| StoredDoc { id: d.id.clone(), kind: kind(d), signature })
            .collect();
        self.store.commit(&added, &[], &stats)?;
        self.stats = stats;
        for doc in added {
            if self.index.add(&doc.id, doc.signature) {
                self.kinds.push(doc.kind);
            }
        }
        Ok(())
    }

    /// The signature of `text` under the current statistics (not indexed).
    ///
    /// # Errors
    ///
    /// [`Error::Input`] for a text [`Deduper::check`] refuses, and the
    /// semantic stage's error.
    pub fn sign(&self, text: &str) -> Result<Signature> {
        self.deduper.check(text)?;
        let mut sig = [self.deduper.signer().sign(&self.deduper.prepare(text), &self.stats)];
        self.deduper.embed_short(&[text], &mut sig, &Silent)?;
        let [sig] = sig;
        Ok(sig)
    }

    /// Stored documents that `text` duplicates, strongest first. Does not add it.
    ///
    /// # Errors
    ///
    /// As [`Incremental::sign`].
    pub fn query(&self, text: &str) -> Result<Vec<Match>> {
        let sig = self.sign(text)?;
        let mut matches: Vec<Match> = self
            .index
            .candidates(&sig)
            .into_iter()
            .filter_map(|doc| {
                let (v, _) = self.deduper.verdict(&sig, self.index.signature(doc)?, None);
                v.relation.is_duplicate().then(|| Match {
                    id: self.index.id(doc).to_owned(),
                    kind: self.kinds[doc as usize],
                    relation: v.relation,
                    score: v.score,
                })
            })
            .collect();
        matches.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        Ok(matches)
    }

    /// Removes documents by id, in one commit; returns which ids were present.
    ///
    /// # Errors
    ///
    /// The store's commit error; nothing is removed then.
    pub fn remove(&mut self, ids: &[String]) -> Result<Vec<bool>> {
        let present: Vec<bool> = ids.iter().map(|id| self.index.contains(id)).collect();
        let removed: Vec<String> = ids.iter().zip(&present).filter(|(_, &p)| p).map(|(id, _)| id.clone()).collect();
        self.store.commit(&[], &removed, &self.stats)?;
        for id in &removed {
            self.index.remove(id);
        }
        Ok(present)
    }
}

/// Whether `id` is an integer as a caller's number prints: an optional
/// minus and digits, no leading zero (so that it reads back as the same id).
fn is_integer_spelling(id: &str) -> bool {
    let digits = id.strip_prefix('-').unwrap_or(id);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && (digits == "0" || !digits.starts_with('0'))
}
