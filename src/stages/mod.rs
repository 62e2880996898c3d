//! The batch pipeline as stage functions, for engines that shuffle data
//! between machines (a Spark job): each function works on one document, one
//! pair or one group, and the engine does the joins and aggregations between
//! them. Run in the order below, they give exactly what [`Deduper::dedup`]
//! gives on the whole input, whatever the partitioning.
//!
//! | stage | per | function | the engine then |
//! | --- | --- | --- | --- |
//! | ingest | document | [`Stages::prepare`] | numbers documents in input order (their *position*) |
//! | exact | document | [`Stages::exact_key`] | groups by it: the lowest position is the text's *head*, the others its copies |
//! | statistics 1 | distinct text | [`Stages::shingles`] | counts texts per shingle (`df`) and distinct texts (`docs`) |
//! | statistics 2 | distinct text | [`Stages::content_shingles`] (its shingles' `df` joined in) | counts texts per shingle again (`content_df`) |
//! | sign | distinct text | [`Stages::sign`] (under [`Stages::statistics`] of its shingles' counts, joined in) | keeps the signature by head |
//! | candidates | distinct text, then key | [`Stages::band_keys`], [`Stages::passage_keys`]; [`Stages::bucket_pairs`] per key | unions the band pairs; keeps passage pairs found under at least [`Stages::min_shared_passages`] keys |
//! | word statistics | short distinct text | [`Stages::word_keys`] | sums word counts; counts distinct fillers per context |
//! | verify | candidate pair | [`Stages::verify`] (both signatures; word statistics of both texts' keys) | keeps the links |
//! | components | link | – | connected components of links and exact copies |
//! | assign | component | [`Stages::cluster_component`] | numbers clusters: [`number_clusters`] |
//!
//! Everything is keyed by position (`u32`), and a pair is always (lower
//! position, higher): verdicts are not symmetric (containment has a
//! direction), so a pair must be read the way round the batch reads it.
//!
//! Statistics and word statistics that hold only one text's entries (and
//! the corpus-wide totals) give that text the same signature and reading as
//! the whole corpus's would: an engine joins each text's own counts in
//! instead of shipping the corpus's tables to every task.
//!
//! [`arrow`] runs each stage function over an Arrow record batch, for
//! engines that move data as Arrow; [`packed`] is the form a text travels
//! in between stages.
//!
//! Not here: the semantic stage, the judge (a global budget over the most
//! uncertain verdicts) and snippet reports; [`Stages::new`] refuses a
//! deduper with a semantic stage or a judge.

use crate::cluster::{cluster, Link, Placement};
use crate::decide::align::{Reading, WordKeys, WordStats};
use crate::decide::Decider;
use crate::index::bucket_pairs;
use crate::sketch::{weights::content_holder, CorpusStats, Prepared, Shingles, Signature};

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod packed;
use crate::{Deduper, Error, Result};

/// The stage functions of one pipeline (see the module docs).
#[derive(Clone, Copy)]
pub struct Stages<'d> {
    deduper: &'d Deduper,
}

/// One side of a candidate pair, for [`Stages::verify`].
pub struct Side<'a> {
    /// The text's head position.
    pub position: u32,
    /// Its signature ([`Stages::sign`]).
    pub signature: &'a Signature,
    /// Its text to read for the alignment ([`Stages::reading`]), when short:
    /// an engine keeps one per text for all the pairs it verifies.
    pub words: Option<&'a Reading<'a>>,
}

impl<'d> Stages<'d> {
    /// The stages of `deduper`'s lexical pipeline.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when `deduper` has a semantic stage or a judge:
    /// those run on one machine only.
    pub fn new(deduper: &'d Deduper) -> Result<Self> {
        if deduper.semantic().is_some() || deduper.has_judge() {
            return Err(Error::Config(
                "the distributed stages run the lexical pipeline: no semantic stage and no judge".into(),
            ));
        }
        Ok(Stages { deduper })
    }

    /// Normalizes and shingles a text.
    pub fn prepare(&self, text: &str) -> Prepared {
        self.deduper.prepare(text)
    }

    /// A text's exact key, [`Prepared::exact`] without the rest of
    /// [`Stages::prepare`].
    pub fn exact_key(&self, text: &str) -> u128 {
        self.deduper.exact_key(text)
    }

    /// A distinct text's shingles, each once: what `df` counts.
    pub fn shingles(&self, p: &Prepared) -> Vec<u64> {
        Shingles::from_unsorted(p.sequence.clone()).0
    }

    /// The shingles this text counts in `content_df`, given the `df` of its
    /// own shingles ([`Stages::shingles`]).
    pub fn content_shingles(&self, shingles: &[u64], df: impl Fn(u64) -> u32) -> Vec<u64> {
        content_holder(&self.deduper.config().weights, shingles, df)
    }

    /// Corpus statistics from the engine's counts: `docs` distinct texts in
    /// the corpus, and `(shingle, df, content_df)` of (at least) the
    /// shingles of the texts to be signed: one text's own, or the whole
    /// corpus's when a worker holds them all.
    pub fn statistics(&self, docs: u64, counts: impl IntoIterator<Item = (u64, u32, u32)>) -> CorpusStats {
        CorpusStats::from_parts(&self.deduper.config().weights, docs, counts)
    }

    /// The signature of a distinct text under `stats` ([`Stages::statistics`]).
    pub fn sign(&self, p: &Prepared, stats: &CorpusStats) -> Signature {
        self.deduper.signer().sign(p, stats)
    }

    /// Keys under which one shared key makes a candidate pair.
    pub fn band_keys(&self, sig: &Signature) -> Vec<u64> {
        self.deduper.blocker().band_keys(sig).collect()
    }

    /// Keys of the content passage samples: [`Stages::min_shared_passages`]
    /// of them shared make a candidate pair.
    pub fn passage_keys(&self, sig: &Signature) -> Vec<u64> {
        let mut keys: Vec<u64> = self.deduper.blocker().passage_keys(sig).collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// Shared passage keys that make a candidate pair.
    pub fn min_shared_passages(&self) -> usize {
        self.deduper.blocker().min_shared_passages()
    }

    /// The candidate pairs of one key's bucket: `(head position, copies)` of
    /// every distinct text under the key, sorted by position, no repeats.
    /// A hot bucket pairs its members with the most copied one.
    pub fn bucket_pairs(&self, members: &[(u32, u32)]) -> Vec<(u32, u32)> {
        let copies: std::collections::HashMap<u32, u32> = members.iter().copied().collect();
        let positions: Vec<u32> = members.iter().map(|&(p, _)| p).collect();
        let cap = self.deduper.config().index.bucket_cap.max(1) as usize;
        bucket_pairs(&positions, |p| (u32::MAX - copies[&p]) as u64, cap)
    }

    /// Whether the decider reads this text's words (a short text).
    pub fn is_short(&self, sig: &Signature) -> bool {
        sig.char_len <= self.deduper.config().decide.blocking().short_max_chars
    }

    /// A short text to read for the alignment, for [`Stages::verify`].
    pub fn reading<'t>(&self, p: &'t Prepared) -> Reading<'t> {
        Reading::new(&p.normalized, &p.chunks)
    }

    /// What a short text ([`Stages::reading`]) adds to the word statistics.
    pub fn word_keys(&self, reading: &Reading) -> WordKeys {
        WordKeys::of(reading.text())
    }

    /// Word statistics from the engine's counts: `docs` short distinct texts,
    /// `(word, texts)` and `(context, distinct fillers)` for (at least) the
    /// words and contexts of the texts to be read.
    pub fn word_stats(
        &self,
        docs: u64,
        words: impl IntoIterator<Item = (u64, u32)>,
        contexts: impl IntoIterator<Item = (u64, u32)>,
    ) -> WordStats {
        WordStats::from_parts(docs, self.deduper.config().weights.idf_prior_docs, words, contexts)
    }

    /// The link a candidate pair makes, if its verdict is a duplicate or its
    /// headings name different things ([`Link::apart`]), with
    /// short texts read against `words` ([`Stages::word_stats`]). `a` must
    /// be the lower position.
    pub fn verify(&self, words: &WordStats, a: &Side, b: &Side) -> Option<Link> {
        assert!(a.position < b.position, "a pair is read from the lower position");
        let read = a.words.zip(b.words).map(|(x, y)| move || (x.words(words), y.words(words)));
        let (verdict, signals) = self.deduper.verdict_reading(a.signature, b.signature, read);
        Link::decided(a.position, b.position, &verdict, signals.headings_differ)
    }

    /// Star clustering of one connected component of the links (exact
    /// copies linked to their head with [`crate::decide::Relation::Exact`]):
    /// `positions` are every member's, ascending. Placements come back by
    /// position, their `cluster` unset until [`number_clusters`].
    pub fn cluster_component(&self, positions: &[u32], links: &[Link]) -> Vec<(u32, Placement)> {
        let local = |p: u32| positions.binary_search(&p).expect("a link within the component") as u32;
        let local_links: Vec<Link> = links.iter().map(|l| Link { a: local(l.a), b: local(l.b), ..*l }).collect();
        cluster(positions.len(), &local_links)
            .into_iter()
            .zip(positions)
            .map(|(p, &at)| {
                let global = |q: u32| positions[q as usize];
                let placement = Placement {
                    cluster: u32::MAX,
                    representative: global(p.representative),
                    parent: p.parent.map(global),
                    ..p
                };
                (at, placement)
            })
            .collect()
    }
}

/// Numbers the clusters of all components as the batch does: from 0, in
/// order of each cluster's first (lowest) position.
pub fn number_clusters(placements: &mut [(u32, Placement)]) {
    let mut first: std::collections::HashMap<u32, u32> = Default::default();
    for &(at, ref p) in placements.iter() {
        let f = first.entry(p.representative).or_insert(at);
        *f = (*f).min(at);
    }
    let mut order: Vec<(u32, u32)> = first.iter().map(|(&rep, &f)| (f, rep)).collect();
    order.sort_unstable();
    let number: std::collections::HashMap<u32, u32> =
        order.iter().enumerate().map(|(i, &(_, rep))| (rep, i as u32)).collect();
    for (_, p) in placements.iter_mut() {
        p.cluster = number[&p.representative];
    }
}
