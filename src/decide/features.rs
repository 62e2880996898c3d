//! The pair as numbers: what a learned decider sees.
//!
//! Every granularity the signatures carry, reduced to a fixed vector whose
//! order and names are part of a model file ([`NAMES`]): a model trained on
//! another feature set is refused, not silently misread.
//!
//! Features are symmetric in the pair (containment and lengths enter as
//! max/min, not a/b): a duplicate is a duplicate both ways, and the direction
//! of containment is read off the signals when the relation is named.
//!
//! Embeddings count only when both texts are at most `max_embedded_chars`
//! long: that is what the pipeline embeds, so training, evaluation on pairs
//! and batch runs see the same thing.
//!
//! Script (Latin, Cyrillic, ...) is not a feature: normalization folds
//! confusables before anything is sketched, so a homoglyph-perturbed copy
//! has the same script as its original by design, and the signature keeps no
//! trace of the original characters.

use super::PairSignals;

/// Feature names, in vector order.
pub const NAMES: [&str; COUNT] = [
    "char_sim",
    "weighted_sim",
    "contain_max",
    "contain_min",
    "cosine",
    "code_agreement",
    "has_embedding",
    "len_min",
    "len_ratio",
    "boilerplate",
];
/// Length of the feature vector.
pub const COUNT: usize = 10;

/// Indices into the vector, by name.
pub mod at {
    /// Estimated Jaccard similarity of the character n-grams.
    pub const CHAR: usize = 0;
    /// Estimated weighted Jaccard similarity of the word shingles.
    pub const WEIGHTED: usize = 1;
    /// The larger containment: how much of one text is in the other.
    pub const CONTAIN_MAX: usize = 2;
    /// The smaller containment: high only when each text is mostly in the other.
    pub const CONTAIN_MIN: usize = 3;
    /// Cosine of the embeddings; 0 where the pair is not embedded.
    pub const COSINE: usize = 4;
    /// Share of equal bits of the semantic codes; 0 where not embedded.
    pub const CODE: usize = 5;
    /// 1 when both texts are embedded: tells a cosine of 0 from a missing one.
    pub const HAS_EMBEDDING: usize = 6;
    /// Length of the shorter text, `ln(1 + chars) / ln(10⁴)`: 1 around ten
    /// thousand characters.
    pub const LEN_MIN: usize = 7;
    /// The shorter length over the longer (1 for two empty texts).
    pub const LEN_RATIO: usize = 8;
    /// The larger boilerplate share of the two.
    pub const BOILERPLATE: usize = 9;
}

/// A pair's features, each roughly in [0, 1].
pub type Features = [f32; COUNT];

/// The features of a pair. Missing signals (no embeddings, too few passage
/// samples for containment) are 0, with `has_embedding` telling the model
/// which zeros mean "unknown".
pub fn features(s: &PairSignals, max_embedded_chars: u32) -> Features {
    let (a_in_b, b_in_a) = (s.a_in_b.unwrap_or(0.0), s.b_in_a.unwrap_or(0.0));
    let (short, long) = (s.chars.0.min(s.chars.1), s.chars.0.max(s.chars.1));
    let embedded = long <= max_embedded_chars && s.cosine.is_some();
    let semantic = |v: Option<f32>| if embedded { v.unwrap_or(0.0) } else { 0.0 };
    let mut f = [0.0; COUNT];
    f[at::CHAR] = s.char_sim;
    f[at::WEIGHTED] = s.weighted_sim;
    f[at::CONTAIN_MAX] = a_in_b.max(b_in_a);
    f[at::CONTAIN_MIN] = a_in_b.min(b_in_a);
    f[at::COSINE] = semantic(s.cosine);
    f[at::CODE] = semantic(s.code_agreement);
    f[at::HAS_EMBEDDING] = embedded as u8 as f32;
    // ln(1 + chars) / ln(10^4): 0 for empty, 1 around ten thousand characters.
    f[at::LEN_MIN] = (1.0 + short as f32).ln() / 10_000f32.ln();
    f[at::LEN_RATIO] = if long == 0 { 1.0 } else { short as f32 / long as f32 };
    f[at::BOILERPLATE] = s.boilerplate.0.max(s.boilerplate.1);
    f
}

/// The features the same pair has where it is not embedded (a long text, a
/// run without the semantic stage).
pub fn without_embeddings(mut f: Features) -> Features {
    for i in [at::COSINE, at::CODE, at::HAS_EMBEDDING] {
        f[i] = 0.0;
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals() -> PairSignals {
        PairSignals {
            exact: false,
            char_sim: 0.4,
            weighted_sim: 0.3,
            a_in_b: Some(0.9),
            b_in_a: None,
            chars: (120, 480),
            boilerplate: (0.0, 0.25),
            cosine: Some(0.8),
            code_agreement: Some(0.75),
            differences: None,
            headings_differ: false,
        }
    }

    fn swapped(s: &PairSignals) -> PairSignals {
        PairSignals {
            a_in_b: s.b_in_a,
            b_in_a: s.a_in_b,
            chars: (s.chars.1, s.chars.0),
            boilerplate: (s.boilerplate.1, s.boilerplate.0),
            ..*s
        }
    }

    #[test]
    fn features_do_not_depend_on_the_order_of_the_pair() {
        let s = signals();
        assert_eq!(features(&s, 500), features(&swapped(&s), 500));
        assert_eq!(features(&s, 500)[at::CONTAIN_MAX], 0.9);
        assert_eq!(features(&s, 500)[at::LEN_RATIO], 0.25);
    }

    #[test]
    fn embeddings_count_only_for_texts_the_pipeline_embeds() {
        let s = signals();
        assert_eq!(features(&s, 500)[at::COSINE], 0.8);
        let long = features(&s, 300);
        assert_eq!((long[at::COSINE], long[at::CODE], long[at::HAS_EMBEDDING]), (0.0, 0.0, 0.0));
    }
}
