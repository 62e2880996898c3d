//! Stage 3: blocking. Which pairs of documents are worth comparing at all.
//!
//! Comparing every pair is quadratic; the index proposes candidates instead:
//!
//! - documents with the same exact key ([`ExactIndex`], stage 0);
//! - documents sharing an LSH bucket of the weighted MinHash, with bands and
//!   rows chosen from the decider's threshold ([`Banding::optimal`]);
//! - short documents sharing a bucket of the char MinHash (typos in short texts);
//! - documents sharing enough content passage samples (containment: a passage
//!   inside a longer document shares its samples with it, whatever their
//!   overall similarity). One shared sample is a shared phrase; the decider
//!   says how many make containment possible at all.
//!
//! A bucket holding more than `bucket_cap` documents is not expanded into all
//! its pairs: each member is paired with the bucket's best representative
//! only. A hot document copied thousands of times costs a linear number of
//! comparisons, not a quadratic one.

mod banding;
mod exact;
mod lsh;
pub mod mih;

pub use banding::Banding;
pub use exact::ExactIndex;
pub use lsh::{BandHasher, BucketTable};
pub use mih::MultiIndex;

use crate::sketch::{Signature, SketchConfig};
use crate::util::hash::mix64;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Blocking knobs; not part of the signature fingerprint (the index is rebuilt
/// from signatures, so these may change between runs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct IndexConfig {
    /// Buckets larger than this link members to a representative instead of all pairs.
    pub bucket_cap: u32,
    /// Relative cost of a candidate below the threshold when choosing bands.
    pub false_positive_weight: f64,
    /// Relative cost of a missed pair above the threshold when choosing bands.
    pub false_negative_weight: f64,
    /// Bits per substring of the semantic codes' multi-index hashing.
    pub semantic_substring_bits: u32,
    /// Most bits a semantic probe flips per substring (see [`mih`]).
    pub semantic_max_probe: u32,
}

impl Default for IndexConfig {
    fn default() -> Self {
        // Misses cost more than candidates: a candidate costs one comparison of
        // two signatures, a miss is a duplicate left in the corpus.
        IndexConfig {
            bucket_cap: 64,
            false_positive_weight: 0.25,
            false_negative_weight: 0.75,
            semantic_substring_bits: 16,
            semantic_max_probe: 2,
        }
    }
}

/// What a decider needs candidates for; it declares this, the index obliges.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Blocking {
    /// Weighted-Jaccard threshold of near duplicates.
    pub weighted_threshold: f64,
    /// Char-Jaccard threshold of near duplicates among short texts.
    pub char_threshold: f64,
    /// Texts of at most this many characters count as short.
    pub short_max_chars: u32,
    /// Fewest shared content passage samples that could make a containment.
    pub min_shared_passages: u32,
    /// Cosine of the embeddings at which a pair is worth deciding.
    pub semantic_cosine: f32,
    /// Texts longer than this (characters) are not embedded: the decider
    /// never lets embeddings decide for them.
    pub semantic_max_chars: u32,
}

const WEIGHTED: u64 = 1;
const CHARS: u64 = 2;
const PASSAGES: u64 = 3;
const EXACT: u64 = 4;

/// The bucket keys of a signature: its bands, its content passage samples
/// (boilerplate ones would pair every page of a site) and its exact key.
#[derive(Clone, Debug)]
pub struct Blocker {
    weighted: BandHasher,
    chars: BandHasher,
    short_max_chars: u32,
    min_shared_passages: u32,
}

impl Blocker {
    /// Chooses the weighted and char bandings for the decider's thresholds
    /// and the sketch lengths.
    pub fn new(sketch: &SketchConfig, blocking: &Blocking, config: &IndexConfig) -> Self {
        let band = |t: f64, k: u32| {
            Banding::optimal(t, k as usize, config.false_positive_weight, config.false_negative_weight)
        };
        Blocker {
            weighted: BandHasher::new(band(blocking.weighted_threshold, sketch.weighted_perms), WEIGHTED),
            chars: BandHasher::new(band(blocking.char_threshold, sketch.char_perms), CHARS),
            short_max_chars: blocking.short_max_chars,
            min_shared_passages: blocking.min_shared_passages.max(1),
        }
    }

    /// The bandings in use (for reports).
    pub fn bandings(&self) -> (Banding, Banding) {
        (self.weighted.banding(), self.chars.banding())
    }

    /// Shared passage keys that make a candidate.
    pub fn min_shared_passages(&self) -> usize {
        self.min_shared_passages as usize
    }

    /// Band keys of the sketches: one shared key makes a candidate.
    pub fn band_keys<'a>(&'a self, sig: &'a Signature) -> impl Iterator<Item = u64> + 'a {
        let short = sig.char_len <= self.short_max_chars;
        let char_keys = self.chars.keys(if short { &sig.char_minhash } else { &[] });
        self.weighted.keys(&sig.weighted_minhash).chain(char_keys)
    }

    /// Keys of the content passage samples: `min_shared_passages` shared keys make a candidate.
    pub fn passage_keys<'a>(&'a self, sig: &'a Signature) -> impl Iterator<Item = u64> + 'a {
        sig.passages.iter().filter(|&&p| p & 1 == 0).map(|&p| mix64(PASSAGES << 40 ^ p as u64))
    }

    fn all_keys<'a>(&'a self, sig: &'a Signature) -> impl Iterator<Item = u64> + 'a {
        self.band_keys(sig).chain(self.passage_keys(sig)).chain([Self::exact_key(sig)])
    }

    fn exact_key(sig: &Signature) -> u64 {
        mix64(EXACT << 40 ^ sig.exact as u64 ^ (sig.exact >> 64) as u64)
    }
}

/// All candidate pairs `(a, b)`, `a < b`, among `sigs` (one batch).
///
/// `rank[d]` orders representatives (lower is better): a capped bucket pairs
/// its members with its lowest-ranked member. Pairs come out sorted and
/// distinct. This is a sort-merge join over `(key, doc)`: the same candidates
/// an incremental [`SignatureIndex`] would give, without a hash table per key.
pub fn candidate_pairs(sigs: &[&Signature], rank: &[u64], blocker: &Blocker, cap: usize) -> Vec<(u32, u32)> {
    let mut pairs = join(sigs, rank, cap, |s| blocker.band_keys(s).collect());
    let mut shared = join(sigs, rank, cap, |s| blocker.passage_keys(s).collect());
    crate::util::par::sort(&mut shared);
    let min_shared = blocker.min_shared_passages();
    pairs.extend(shared.chunk_by(|a, b| a == b).filter(|run| run.len() >= min_shared).map(|run| run[0]));
    crate::util::par::sort(&mut pairs);
    pairs.dedup();
    pairs
}

/// Pairs sharing a key, once per shared key.
fn join(
    sigs: &[&Signature],
    rank: &[u64],
    cap: usize,
    keys: impl Fn(&Signature) -> Vec<u64> + Sync + Send,
) -> Vec<(u32, u32)> {
    let mut keyed: Vec<(u64, u32)> =
        crate::util::par::flat_map_indexed(sigs, |doc, sig| keys(sig).into_iter().map(|k| (k, doc as u32)).collect());
    crate::util::par::sort(&mut keyed);
    keyed.dedup();
    let groups: Vec<&[(u64, u32)]> = keyed.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() > 1).collect();
    crate::util::par::flat_map_indexed(&groups, |_, group| {
        let members: Vec<u32> = group.iter().map(|&(_, d)| d).collect();
        bucket_pairs(&members, |d| rank[d as usize], cap)
    })
}

/// The candidate pairs `(a, b)`, `a < b`, of one bucket: the documents that
/// share one key, distinct and in ascending order. A bucket of at most `cap`
/// gives every pair; a larger one (a hot key) pairs each member with its
/// representative, the member of lowest `(rank, doc)`, so it costs linear,
/// not quadratic, work.
pub fn bucket_pairs(members: &[u32], rank: impl Fn(u32) -> u64, cap: usize) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    if members.len() <= cap {
        for (i, &a) in members.iter().enumerate() {
            out.extend(members[i + 1..].iter().map(|&b| (a, b)));
        }
    } else {
        let rep = *members.iter().min_by_key(|&&d| (rank(d), d)).expect("a bucket has members");
        out.extend(members.iter().filter(|&&d| d != rep).map(|&d| (rep.min(d), rep.max(d))));
    }
    out
}

/// Signatures indexed for adding, querying and removing one document at a time.
#[derive(Debug)]
pub struct SignatureIndex {
    blocker: Blocker,
    cap: usize,
    exact: ExactIndex,
    table: BucketTable,
    sigs: Vec<Option<Signature>>,
    ids: Vec<String>,
    by_id: HashMap<String, u32>,
    /// Codes of the signatures with a semantic part, when the pipeline has a semantic stage.
    semantic: Option<MultiIndex>,
}

impl SignatureIndex {
    /// An empty index that blocks with `blocker`.
    pub fn new(blocker: Blocker, config: &IndexConfig) -> Self {
        SignatureIndex {
            blocker,
            cap: config.bucket_cap.max(1) as usize,
            exact: ExactIndex::with_capacity(1 << 16),
            table: BucketTable::default(),
            sigs: Vec::new(),
            ids: Vec::new(),
            by_id: HashMap::new(),
            semantic: None,
        }
    }

    /// Also proposes the documents whose semantic codes are within `codes`'
    /// radius (an empty multi-index configured for the pipeline's projection).
    pub fn with_semantic(mut self, codes: MultiIndex) -> Self {
        self.semantic = Some(codes);
        self
    }

    /// Documents indexed now (removed ones not counted).
    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    /// Whether no document is indexed.
    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Whether a document with this id is indexed.
    pub fn contains(&self, id: &str) -> bool {
        self.by_id.contains_key(id)
    }

    /// Adds a document; `false` if the id is already present (nothing changes).
    pub fn add(&mut self, id: &str, sig: Signature) -> bool {
        if self.by_id.contains_key(id) {
            return false;
        }
        let doc = self.sigs.len() as u32;
        self.exact.insert(sig.exact, doc);
        self.table.insert(self.blocker.all_keys(&sig), doc);
        if let (Some(codes), Some(sem)) = (&mut self.semantic, &sig.semantic) {
            codes.insert(doc, &sem.code);
        }
        self.sigs.push(Some(sig));
        self.ids.push(id.to_owned());
        self.by_id.insert(id.to_owned(), doc);
        true
    }

    /// Removes a document by id; `false` if it was not there.
    pub fn remove(&mut self, id: &str) -> bool {
        let Some(doc) = self.by_id.remove(id) else {
            return false;
        };
        let sig = self.sigs[doc as usize].take().expect("indexed document has a signature");
        self.table.remove(self.blocker.all_keys(&sig), doc);
        if let Some(codes) = &mut self.semantic {
            codes.remove(doc);
        }
        let mut copies = Vec::new();
        self.table.members([Blocker::exact_key(&sig)].into_iter(), usize::MAX, &mut copies);
        let next = copies.into_iter().find(|&d| self.sigs[d as usize].as_ref().is_some_and(|s| s.exact == sig.exact));
        self.exact.remove(sig.exact, doc, next);
        true
    }

    /// Documents worth comparing with `sig`: its exact copy first, then the
    /// members of its band buckets and those sharing enough passage samples
    /// (each bucket capped), then those with a semantic code within the
    /// radius, distinct.
    pub fn candidates(&self, sig: &Signature) -> Vec<u32> {
        let mut out: Vec<u32> = self.exact.get(sig.exact).into_iter().collect();
        self.table.members(self.blocker.band_keys(sig), self.cap, &mut out);
        let mut shared = Vec::new();
        self.table.members(self.blocker.passage_keys(sig), self.cap, &mut shared);
        shared.sort_unstable();
        let min_shared = self.blocker.min_shared_passages as usize;
        out.extend(shared.chunk_by(|a, b| a == b).filter(|run| run.len() >= min_shared).map(|run| run[0]));
        if let (Some(codes), Some(sem)) = (&self.semantic, &sig.semantic) {
            out.extend(codes.query(&sem.code).into_iter().map(|(d, _)| d));
        }
        let mut seen = std::collections::HashSet::with_capacity(out.len());
        out.retain(|d| seen.insert(*d) && self.sigs[*d as usize].is_some());
        out
    }

    /// The signature of document number `doc` (as [`SignatureIndex::candidates`]
    /// gives them); `None` once it is removed.
    pub fn signature(&self, doc: u32) -> Option<&Signature> {
        self.sigs.get(doc as usize)?.as_ref()
    }

    /// The id of document number `doc`. Numbers are never reused, so this
    /// stays valid after a removal.
    ///
    /// Panics when `doc` was never given out.
    pub fn id(&self, doc: u32) -> &str {
        &self.ids[doc as usize]
    }

    /// Live documents in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Signature)> {
        self.sigs.iter().zip(&self.ids).filter_map(|(s, id)| s.as_ref().map(|s| (id.as_str(), s)))
    }
}
