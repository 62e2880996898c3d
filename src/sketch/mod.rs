//! Stage 2: features. Each document becomes a fixed-size [`Signature`].
//!
//! A signature holds one sketch per granularity, each a pure function of the
//! normalized text, the corpus statistics and the config:
//!
//! - **exact**: xxh3-128 of the normalized text. Stage 0 of the cascade: exact
//!   copies are settled before anything else is computed for them.
//! - **char MinHash**: character n-grams (default 5) under K permutations.
//!   Short texts and character-level perturbations (typos) live here.
//! - **weighted MinHash**: word n-gram shingles (default 3), weighted by IDF ×
//!   token importance with boilerplate discounted ([`weights`]), sketched by
//!   improved consistent weighted sampling (ICWS). Two sketches agree on a
//!   position with probability equal to the weighted Jaccard similarity, so
//!   template text that dominates by count does not dominate by weight.
//! - **passage samples**: a content-defined sample (1 in `passage_sample`) of
//!   the word shingles, the lowest bit of each marking boilerplate. Because the
//!   choice depends only on the shingle, a passage inside a longer document
//!   keeps exactly its samples in the parent: containment is `|A ∩ B| / |A|`
//!   on these.
//! - **heading numbers**: the words with a digit in a long text's first line
//!   ([`heading`]), which name the version or model the text is about.
//!
//! Token importance comes from a [`TokenImportance`]; [`Uniform`] (1.0 for
//! every token) until an encoder supplies attention-based importances.

pub mod format;
pub mod heading;
pub mod kernels;
pub mod semantic;
pub mod tokens;
pub mod weights;

pub use format::Fingerprint;
pub use weights::{CorpusStats, WeightConfig};

use crate::util::hash::{self, hash128, key32, mix64};
use kernels::{IcwsSeeds, IcwsState, Kernel};
use serde::{Deserialize, Serialize};

/// Shape of the sketches; part of the signature fingerprint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SketchConfig {
    /// Words per shingle for the weighted MinHash and passage samples.
    pub word_ngram: u32,
    /// Characters per shingle for the char MinHash.
    pub char_ngram: u32,
    /// Permutations of the char MinHash.
    pub char_perms: u32,
    /// Texts longer than this (in characters) get no char MinHash: character
    /// similarity decides only between short texts, and sketching every
    /// character of long ones would cost more than all else.
    pub char_max_chars: u32,
    /// Samplers of the weighted MinHash.
    pub weighted_perms: u32,
    /// Keep one word shingle in this many as a passage sample.
    pub passage_sample: u32,
    /// Seed of every permutation and sampler (kept below 2^53 so a JSON config
    /// survives JavaScript's numbers).
    pub seed: u64,
}

impl Default for SketchConfig {
    fn default() -> Self {
        SketchConfig {
            word_ngram: 3,
            char_ngram: 5,
            char_perms: 128,
            char_max_chars: 300,
            weighted_perms: 128,
            passage_sample: 4,
            seed: 0x5348_4153,
        }
    }
}

/// The signature of one document. See the module docs for each part.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Signature {
    /// xxh3-128 of the normalized text: equal keys, equal texts.
    pub exact: u128,
    /// Characters of the normalized text.
    pub char_len: u32,
    /// Words of the normalized text.
    pub word_len: u32,
    /// Share of the document's distinct shingles that are boilerplate.
    pub boilerplate_share: f32,
    /// MinHash of the character n-grams; empty for a text longer than
    /// `char_max_chars`, where character similarity does not decide.
    pub char_minhash: Vec<u32>,
    /// ICWS samples of the weighted word shingles; empty for a text with no
    /// words.
    pub weighted_minhash: Vec<u32>,
    /// Sorted, distinct; the lowest bit is set on boilerplate samples.
    pub passages: Vec<u32>,
    /// [`heading::numbered_words`] of the original text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub heading_numbers: Vec<u32>,
    /// Code and int8 embedding, when a semantic stage signed the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<semantic::SemanticSketch>,
}

/// A document's distinct word-shingle hashes, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shingles(pub Vec<u64>);

impl Shingles {
    /// Sorts `hashes` and drops the repeats.
    pub fn from_unsorted(mut hashes: Vec<u64>) -> Self {
        hashes.sort_unstable();
        hashes.dedup();
        Shingles(hashes)
    }
}

/// A document after normalization, before its corpus is known: what the
/// batch keeps between counting document frequencies and signing.
#[derive(Clone, Debug)]
pub struct Prepared {
    /// The exact key: xxh3-128 of the normalized text.
    pub exact: u128,
    /// The normalized text.
    pub normalized: String,
    /// Words of the normalized text.
    pub words: u32,
    /// Word-shingle hashes in text order.
    pub sequence: Vec<u64>,
    /// For a short text, which piece of the original each word came from
    /// ([`crate::decide::align::chunks`]); empty otherwise.
    pub chunks: Vec<u16>,
    /// [`heading::numbered_words`] of the original text.
    pub heading_numbers: Vec<u32>,
}

/// The exact key of a normalized text ([`Prepared::exact`]).
pub fn exact_key(normalized: &str) -> u128 {
    hash128(normalized.as_bytes())
}

/// Per-token importance, mapped onto shingles as the mean over their words.
pub trait TokenImportance: Send + Sync {
    /// One importance (positive) per word of [`tokens::words`]`(normalized)`,
    /// or `None` for 1.0 everywhere.
    fn importance(&self, normalized: &str) -> Option<Vec<f32>>;
}

/// Every token equally important: the lexical pipeline before an encoder.
#[derive(Clone, Copy, Debug, Default)]
pub struct Uniform;

impl TokenImportance for Uniform {
    fn importance(&self, _: &str) -> Option<Vec<f32>> {
        None
    }
}

/// Turns normalized documents into signatures.
pub struct Signer {
    config: SketchConfig,
    char_seeds: Vec<u32>,
    icws_seeds: IcwsSeeds,
    kernel: Kernel,
    importance: Box<dyn TokenImportance>,
}

impl Signer {
    /// A signer for `config`, on the fastest kernel this CPU runs, with every
    /// token equally important.
    pub fn new(config: &SketchConfig) -> Self {
        Signer {
            config: config.clone(),
            char_seeds: hash::seeds(config.seed, config.char_perms as usize),
            icws_seeds: IcwsSeeds::new(mix64(config.seed ^ 0x1c35), config.weighted_perms as usize),
            kernel: Kernel::best(),
            importance: Box::new(Uniform),
        }
    }

    /// The kernel this signer runs.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Uses `kernel` instead of [`Kernel::best`] (tests and benchmarks).
    pub fn with_kernel(mut self, kernel: Kernel) -> Self {
        self.kernel = kernel;
        self
    }

    /// Uses token importances from `importance` (an encoder's attention).
    pub fn with_importance(mut self, importance: Box<dyn TokenImportance>) -> Self {
        self.importance = importance;
        self
    }

    /// The sketch configuration it signs with.
    pub fn config(&self) -> &SketchConfig {
        &self.config
    }

    /// The corpus-independent part: exact key and word shingles.
    pub fn prepare(&self, normalized: String) -> Prepared {
        let words = tokens::words(&normalized);
        let sequence = tokens::word_shingles(&words, self.config.word_ngram as usize);
        Prepared {
            exact: exact_key(&normalized),
            words: words.len() as u32,
            normalized,
            sequence,
            chunks: Vec::new(),
            heading_numbers: Vec::new(),
        }
    }

    /// The full signature, given the statistics of the corpus it belongs to.
    pub fn sign(&self, doc: &Prepared, stats: &CorpusStats) -> Signature {
        let text = &doc.normalized;
        let char_len = text.chars().count() as u32;
        let char_keys: Vec<u32> = if char_len <= self.config.char_max_chars {
            tokens::char_shingles(text, self.config.char_ngram as usize).into_iter().map(key32).collect()
        } else {
            Vec::new()
        };
        let char_minhash = if char_keys.is_empty() {
            Vec::new()
        } else {
            let mut sig = vec![u32::MAX; self.char_seeds.len()];
            self.kernel.minhash(&char_keys, &self.char_seeds, &mut sig);
            sig
        };

        let importance = self.shingle_importance(text);
        let analysed = stats.analyse(&doc.sequence);
        let shingles = &analysed.distinct;
        let keys: Vec<u32> = shingles.iter().map(|&h| key32(h)).collect();
        let ln_weights: Vec<f32> = (0..shingles.len())
            .map(|i| {
                let importance = importance.as_ref().map_or(1.0, |m| m[&shingles[i]]);
                kernels::portable::ln(stats.weight(analysed.stats[i], importance, analysed.boilerplate[i]))
            })
            .collect();
        let weighted_minhash = if keys.is_empty() {
            Vec::new()
        } else {
            let mut state = IcwsState::new(self.icws_seeds.len());
            self.kernel.icws(&keys, &ln_weights, &self.icws_seeds, &mut state);
            state.finish()
        };

        let rate = self.config.passage_sample.max(1) as u64;
        let mut passages: Vec<u32> = (0..shingles.len())
            .filter(|&i| mix64(shingles[i] ^ 0x7061_7373).is_multiple_of(rate))
            .map(|i| key32(shingles[i]) & !1 | analysed.boilerplate[i] as u32)
            .collect();
        passages.sort_unstable();
        passages.dedup();

        Signature {
            exact: doc.exact,
            char_len,
            word_len: doc.words,
            boilerplate_share: if shingles.is_empty() {
                0.0
            } else {
                analysed.boilerplate.iter().filter(|&&b| b).count() as f32 / shingles.len() as f32
            },
            char_minhash,
            weighted_minhash,
            passages,
            heading_numbers: doc.heading_numbers.clone(),
            semantic: None,
        }
    }

    /// Mean token importance of each shingle (the maximum over a shingle's
    /// occurrences when it occurs more than once), or `None` when uniform.
    fn shingle_importance(&self, text: &str) -> Option<hash::PrehashedMap<u64, f32>> {
        let per_word = self.importance.importance(text)?;
        let words = tokens::words(text);
        let n = (self.config.word_ngram as usize).max(1).min(words.len());
        let hashes = tokens::word_shingles(&words, self.config.word_ngram as usize);
        let mut out = hash::PrehashedMap::with_capacity_and_hasher(hashes.len(), Default::default());
        for (i, h) in hashes.into_iter().enumerate() {
            let mean = per_word[i..i + n].iter().sum::<f32>() / n as f32;
            let e = out.entry(h).or_insert(mean);
            *e = e.max(mean);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::Normalizers;

    fn signed(texts: &[&str]) -> Vec<Signature> {
        let signer = Signer::new(&SketchConfig::default());
        let norm = Normalizers::default();
        let prepared: Vec<Prepared> = texts.iter().map(|t| signer.prepare(norm.text(t))).collect();
        let refs: Vec<&[u64]> = prepared.iter().map(|p| p.sequence.as_slice()).collect();
        let stats = CorpusStats::from_corpus(&WeightConfig::default(), &refs);
        prepared.iter().map(|p| signer.sign(p, &stats)).collect()
    }

    fn agreement(a: &[u32], b: &[u32]) -> f32 {
        a.iter().zip(b).filter(|(x, y)| x == y).count() as f32 / a.len() as f32
    }

    #[test]
    fn sketches_estimate_similarity() {
        let base = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door";
        let edited = "the quick brown fox jumps over the lazy dog while the cat naps on the warm mat by the door";
        let other = "completely unrelated text about compilers and linkers and the many ways they fail at night";
        let s = signed(&[base, edited, other]);
        let near = agreement(&s[0].weighted_minhash, &s[1].weighted_minhash);
        let far = agreement(&s[0].weighted_minhash, &s[2].weighted_minhash);
        assert!(near > 0.6 && far < 0.1, "weighted: near {near}, far {far}");
        let near = agreement(&s[0].char_minhash, &s[1].char_minhash);
        let far = agreement(&s[0].char_minhash, &s[2].char_minhash);
        assert!(near > 0.75 && far < 0.1, "char: near {near}, far {far}");
    }

    #[test]
    fn weighted_sketch_tracks_weighted_jaccard() {
        // Two weighted sets with known weighted Jaccard, through the kernel directly.
        let seeds = IcwsSeeds::new(5, 1024);
        let keys: Vec<u32> = (0..60).map(|i| hash::fmix32(i + 1)).collect();
        let (mut a, mut b) = (IcwsState::new(1024), IcwsState::new(1024));
        let wa: Vec<f32> = (0..60).map(|i| 1.0 + (i % 7) as f32).collect();
        let wb: Vec<f32> = (0..60).map(|i| if i < 20 { 0.5 } else { 1.0 + (i % 5) as f32 }).collect();
        let ln = |w: &[f32]| w.iter().map(|&x| kernels::portable::ln(x)).collect::<Vec<_>>();
        Kernel::best().icws(&keys, &ln(&wa), &seeds, &mut a);
        Kernel::best().icws(&keys, &ln(&wb), &seeds, &mut b);
        let truth = wa.iter().zip(&wb).map(|(x, y)| x.min(*y)).sum::<f32>()
            / wa.iter().zip(&wb).map(|(x, y)| x.max(*y)).sum::<f32>();
        let est = agreement(&a.finish(), &b.finish());
        assert!((est - truth).abs() < 0.05, "estimate {est}, truth {truth}");
    }

    #[test]
    fn contained_passage_keeps_its_samples_in_the_parent() {
        let parent = "in the beginning god created the heaven and the earth and the earth was without form and void \
                      and darkness was upon the face of the deep and the spirit of god moved upon the face of the waters \
                      and god said let there be light and there was light and god saw the light that it was good";
        let child =
            "and darkness was upon the face of the deep and the spirit of god moved upon the face of the waters";
        let s = signed(&[parent, child]);
        assert!(!s[1].passages.is_empty());
        assert!(s[1].passages.iter().all(|p| s[0].passages.binary_search(p).is_ok()));
    }

    #[test]
    fn empty_text_has_empty_sketches() {
        let s = signed(&[""]);
        assert!(s[0].char_minhash.is_empty() && s[0].weighted_minhash.is_empty() && s[0].passages.is_empty());
    }
}
