//! Stage 4: verification. Is a candidate pair a duplicate, and how are they related?
//!
//! [`PairSignals`] estimates every similarity a pair of signatures supports;
//! a [`Decider`] turns them into a [`Verdict`]: the relation of the first
//! document to the second and a score. The lexical rules
//! ([`LexicalRules`]) are the first decider; the learned boundary
//! ([`LearnedBoundary`]: gated fusion of the [`features`], trained by
//! `semhash train-boundary`) replaces it behind the same trait, and adds a
//! probability and an uncertainty to each verdict.
//!
//! Viral snippets, passages shared by many otherwise different documents, are
//! found here too ([`snippets`]): they are reported, not merged.

pub mod align;
#[cfg(feature = "train")]
pub mod augment;
pub mod features;
pub mod fusion;
mod lexical;
pub mod snippets;
#[cfg(feature = "train")]
pub mod train;

pub use align::{Differences, Reading, WordStats, Words};
pub use fusion::LearnedBoundary;
pub use lexical::LexicalRules;
pub use snippets::{Snippet, SnippetConfig};

use crate::index::Blocking;
use crate::sketch::{heading, Signature};
use serde::{Deserialize, Serialize};

/// How document `a` relates to document `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// The same text after normalization.
    Exact,
    /// Similar enough overall to be the same document.
    Near,
    /// `a` is (mostly) a passage of `b`.
    ContainedIn,
    /// `b` is (mostly) a passage of `a`.
    Contains,
    /// The same meaning in other words: found by the semantic stage.
    Paraphrase,
    /// Not duplicates.
    None,
}

impl Relation {
    /// The relation of `b` to `a`, given that of `a` to `b`.
    pub fn reversed(self) -> Relation {
        match self {
            Relation::ContainedIn => Relation::Contains,
            Relation::Contains => Relation::ContainedIn,
            r => r,
        }
    }

    /// Whether the pair are duplicates: every relation but [`Relation::None`].
    pub fn is_duplicate(self) -> bool {
        self != Relation::None
    }

    /// Every relation, in declaration order.
    pub const ALL: [Relation; 6] = [
        Relation::Exact,
        Relation::Near,
        Relation::ContainedIn,
        Relation::Contains,
        Relation::Paraphrase,
        Relation::None,
    ];

    /// The relation's name in every output ("near", "contained_in").
    pub fn name(self) -> &'static str {
        match self {
            Relation::Exact => "exact",
            Relation::Near => "near",
            Relation::ContainedIn => "contained_in",
            Relation::Contains => "contains",
            Relation::Paraphrase => "paraphrase",
            Relation::None => "none",
        }
    }

    /// The relation of a name ([`Relation::name`]).
    pub fn from_name(name: &str) -> Option<Relation> {
        Relation::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// A verdict on one pair as every face reports it (`semhash compare`, the
/// wasm module's and the Python package's `compare`): whether it is a
/// duplicate, the relation and score, a learned decider's probability and
/// uncertainty, and the signals that decided.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    /// Whether the relation is a duplicate one.
    pub duplicate: bool,
    /// How the first text relates to the second.
    pub relation: Relation,
    /// The verdict's score ([`Verdict::score`]).
    pub score: f32,
    /// A learned decider's probability of duplicate (`null` for the rules).
    pub probability: Option<f32>,
    /// A learned decider's uncertainty (`null` for the rules).
    pub uncertainty: Option<f32>,
    /// What was measured of the pair.
    pub signals: PairSignals,
}

/// A [`Comparison`] with the words the alignment left unmatched on each
/// side, where the texts were aligned ([`Deduper::explain`](crate::Deduper::explain)).
/// Its own type, so that a build that only compares (the lite wasm module,
/// at its size budget) carries no code for the words.
#[derive(Clone, Debug, Serialize)]
pub struct Explained {
    /// The verdict and its signals.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// What tells the two texts apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmatched: Option<align::Unmatched>,
}

impl Comparison {
    /// The report of `verdict`, reached on `signals`.
    pub fn new(verdict: &Verdict, signals: PairSignals) -> Self {
        Comparison {
            duplicate: verdict.relation.is_duplicate(),
            relation: verdict.relation,
            score: verdict.score,
            probability: verdict.confidence.map(|c| c.probability),
            uncertainty: verdict.confidence.map(|c| c.uncertainty),
            signals,
        }
    }

    /// The report with what the alignment left unmatched.
    pub fn with_unmatched(self, unmatched: Option<align::Unmatched>) -> Explained {
        Explained { comparison: self, unmatched }
    }
}

/// The outcome of comparing two documents.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// How the first document relates to the second; [`Relation::None`]
    /// when they are not duplicates.
    pub relation: Relation,
    /// Strength of the evidence in [0, 1]: the similarity that decided, or
    /// for a non-duplicate the largest similarity seen (a learned decider:
    /// its probability of duplicate).
    pub score: f32,
    /// How sure a learned decider is; absent for threshold rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
}

impl Verdict {
    /// A verdict of threshold rules, which carry no probability.
    pub fn rule(relation: Relation, score: f32) -> Self {
        Verdict { relation, score, confidence: None }
    }
}

/// A learned decider's belief about a pair: what a judge needs to pick the
/// pairs worth a second opinion and to merge its answer with the model's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Confidence {
    /// Probability that the pair is a duplicate (mean over the ensemble).
    pub probability: f32,
    /// In [0, 1]: 1 on the decision boundary or where the ensemble's members
    /// disagree completely, 0 far from it with members agreeing.
    pub uncertainty: f32,
}

/// `p` moved along the logistic curve so that `from` lands on `to`: the same
/// log-odds distance from a decision, on a scale that decides at `to`. A model
/// deciding at p = 0.05 is unsure near 0.05, not near 0.5: uncertainty and a
/// judge's vote are weighed on the scale centred on the model's threshold.
pub fn shift_odds(p: f32, from: f32, to: f32) -> f32 {
    if p <= 0.0 || p >= 1.0 {
        return p; // certainty stays certainty
    }
    1.0 / (1.0 + (logit(from) - logit(p) - logit(to)).exp())
}

/// Log odds of a probability (kept finite at 0 and 1).
pub(crate) fn logit(p: f32) -> f32 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    (p / (1.0 - p)).ln()
}

/// Everything the signatures of a pair say about it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairSignals {
    /// Whether both have the same exact key: the same text after
    /// normalization.
    pub exact: bool,
    /// Estimated Jaccard similarity of the character n-grams.
    pub char_sim: f32,
    /// Estimated weighted Jaccard similarity of the word shingles.
    pub weighted_sim: f32,
    /// How much of `a` is found in `b` (see [`PairSignals::between`]), when
    /// `a` has enough content samples to say.
    pub a_in_b: Option<f32>,
    /// How much of `b` is found in `a`.
    pub b_in_a: Option<f32>,
    /// Lengths of `a` and `b` in characters of normalized text: what tells
    /// a short text (where char similarity and embeddings may decide) from a
    /// long one.
    pub chars: (u32, u32),
    /// Shares of `a`'s and `b`'s word shingles that are boilerplate
    /// (template text common in the corpus).
    pub boilerplate: (f32, f32),
    /// Cosine of the embeddings, when both signatures have a semantic part.
    pub cosine: Option<f32>,
    /// Share of equal bits of the semantic codes, when both have one.
    #[serde(default)]
    pub code_agreement: Option<f32>,
    /// What differs once the two texts are aligned word by word ([`align`]):
    /// known when both texts were at hand (a batch, a compared pair), not
    /// from signatures alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub differences: Option<Differences>,
    /// Both texts have headings and each names a version or model the other
    /// lacks ([`heading::name_other_things`]): whatever else they share, they
    /// are about different things.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub headings_differ: bool,
}

impl PairSignals {
    /// Containment of `a` in `b` is the smaller of two shares of `a`'s passage
    /// samples found in `b`: of all of them, and of its content (non-boilerplate)
    /// ones. The first keeps a document whose own sentence is missing from `b`
    /// from counting as contained because the rest is common phrasing; the
    /// second keeps a page that is mostly template from counting as contained
    /// in every page of the same site. It needs at least `min_samples` content
    /// samples: with fewer, one shared phrase would read as containment.
    pub fn between(a: &Signature, b: &Signature, min_samples: usize) -> Self {
        let min_samples = min_samples.max(1);
        let own = |p: &[u32]| p.iter().filter(|&&x| x & 1 == 0).count();
        let (own_a, own_b) = (own(&a.passages), own(&b.passages));
        // Most candidates are short texts with too few samples for either
        // containment: their samples need no intersecting.
        let (all, content) =
            if own_a.max(own_b) >= min_samples { sorted_intersection(&a.passages, &b.passages) } else { (0, 0) };
        let containment = |p: &[u32], own: usize| {
            (own >= min_samples).then(|| (all as f32 / p.len() as f32).min(content as f32 / own as f32))
        };
        let semantic = a.semantic.as_ref().zip(b.semantic.as_ref());
        PairSignals {
            exact: a.exact == b.exact,
            char_sim: agreement(&a.char_minhash, &b.char_minhash),
            weighted_sim: agreement(&a.weighted_minhash, &b.weighted_minhash),
            a_in_b: containment(&a.passages, own_a),
            b_in_a: containment(&b.passages, own_b),
            chars: (a.char_len, b.char_len),
            boilerplate: (a.boilerplate_share, b.boilerplate_share),
            cosine: semantic.map(|(x, y)| x.cosine(y)),
            code_agreement: semantic.map(|(x, y)| 1.0 - x.hamming(y) as f32 / (64 * x.code.len().max(1)) as f32),
            differences: None,
            headings_differ: heading::name_other_things(&a.heading_numbers, &b.heading_numbers),
        }
    }
}

/// Share of equal positions of two sketches (0 for empty or mismatched ones).
pub fn agreement(a: &[u32], b: &[u32]) -> f32 {
    if a.is_empty() || a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f32 / a.len() as f32
}

/// Common values of two sorted lists: all of them, and those with the lowest bit clear.
fn sorted_intersection(a: &[u32], b: &[u32]) -> (usize, usize) {
    let (mut i, mut j, mut n, mut clear) = (0, 0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                clear += (a[i] & 1 == 0) as usize;
                i += 1;
                j += 1;
            }
        }
    }
    (n, clear)
}

/// Decides pairs. Implementations declare which candidates they need.
pub trait Decider: Send + Sync {
    /// The verdict on a pair: the relation of `a` to `b`, and a score.
    fn decide(&self, signals: &PairSignals) -> Verdict;
    /// The candidates this decider needs the index to propose.
    fn blocking(&self) -> Blocking;
    /// Minimum passage samples for a containment estimate.
    fn min_samples(&self) -> usize;
    /// The probability of duplicate at which a verdict is one, for a decider
    /// that states probabilities (a judge's merged opinion decides there);
    /// `None` for one that states none.
    fn probability_threshold(&self) -> Option<f32>;
}

/// Any decider, as it appears in a [`Config`](crate::Config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DeciderWrapper {
    /// The threshold rules: the default, needing no training, but stating
    /// no confidence.
    Lexical(LexicalRules),
    /// A trained boundary: a probability and an uncertainty per verdict,
    /// which a judge needs to pick pairs. Boxed, being several times the
    /// size of the rules.
    Learned(Box<LearnedBoundary>),
}

impl Default for DeciderWrapper {
    fn default() -> Self {
        DeciderWrapper::Lexical(LexicalRules::default())
    }
}

impl Decider for DeciderWrapper {
    /// Either decider's verdict, except that texts whose headings name
    /// different things are never duplicates: one place, so that no decider,
    /// judge or face can merge them.
    fn decide(&self, signals: &PairSignals) -> Verdict {
        let verdict = match self {
            DeciderWrapper::Lexical(d) => d.decide(signals),
            DeciderWrapper::Learned(d) => d.decide(signals),
        };
        if signals.headings_differ && verdict.relation != Relation::Exact {
            // Certain, so that no judge is asked to undo it.
            let certain = Confidence { probability: 0.0, uncertainty: 0.0 };
            return Verdict { relation: Relation::None, score: 0.0, confidence: verdict.confidence.map(|_| certain) };
        }
        verdict
    }

    fn blocking(&self) -> Blocking {
        match self {
            DeciderWrapper::Lexical(d) => d.blocking(),
            DeciderWrapper::Learned(d) => d.blocking(),
        }
    }

    fn min_samples(&self) -> usize {
        match self {
            DeciderWrapper::Lexical(d) => d.min_samples(),
            DeciderWrapper::Learned(d) => d.min_samples(),
        }
    }

    fn probability_threshold(&self) -> Option<f32> {
        match self {
            DeciderWrapper::Lexical(d) => d.probability_threshold(),
            DeciderWrapper::Learned(d) => d.probability_threshold(),
        }
    }
}

impl DeciderWrapper {
    /// Sets the main threshold (the `--threshold` flag): weighted similarity
    /// of the rules, probability of the learned boundary.
    pub fn set_threshold(&mut self, t: f32) {
        match self {
            DeciderWrapper::Lexical(d) => d.threshold = t,
            DeciderWrapper::Learned(d) => d.threshold = t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_and_intersection() {
        assert_eq!(agreement(&[1, 2, 3, 4], &[1, 0, 3, 0]), 0.5);
        assert_eq!(agreement(&[], &[]), 0.0);
        assert_eq!(sorted_intersection(&[1, 4, 5, 8], &[3, 4, 5, 8]), (3, 2));
    }

    #[test]
    fn relation_names_are_the_serialized_ones() {
        for r in Relation::ALL {
            assert_eq!(serde_json::to_value(r).unwrap(), r.name(), "{r:?}");
            assert_eq!(Relation::from_name(r.name()), Some(r));
        }
        assert_eq!(Relation::from_name("Near"), None);
    }
}
