use super::{Decider, Differences, PairSignals, Relation, Verdict};
use crate::index::Blocking;
use serde::{Deserialize, Serialize};

/// Threshold rules over the lexical signals.
///
/// - same exact key: `exact`;
/// - when both texts are short and mostly their own (boilerplate share at
///   most `short_max_boilerplate`) and the texts were at hand, what differs
///   decides ([`super::align`]): `near` when the aligned words' weighted
///   similarity is ≥ `token_similarity`, the information one text adds is at
///   most `token_added` and the information replaced on both sides at most
///   `token_replaced`. Shared template text counts for little there, and a
///   different name (a rare word in place of another) stops a merge; char
///   similarity does not decide, since in such texts it measures the
///   template. From signatures alone (a store's query), char similarity ≥
///   `short_threshold` stands in;
/// - otherwise weighted similarity ≥ `threshold`: `near`. The weighted
///   sketch discounts boilerplate, which char similarity cannot;
/// - the passage samples of one document found in the other at ≥
///   `containment_threshold`: `contained_in` / `contains` (both ways: `near`);
/// - when both texts are short (as above), both signatures carry embeddings
///   and nothing lexical decided: a cosine ≥ `semantic_threshold`, or a
///   cosine ≥ `semantic_gate_cosine` with char similarity ≥
///   `semantic_gate_char`: `paraphrase`. The gate admits paraphrases that
///   keep some wording. Long texts of one genre (Bible chapters, package
///   descriptions, pages of one site) have cosines of 0.7 to 0.95 without
///   being duplicates, so embeddings never decide for them. The defaults
///   (0.91; 0.82 with 0.16) are the most paraphrases found on the Bible pairs
///   with no false link on the stress set; the README has the trade-off.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LexicalRules {
    /// Weighted similarity at which two texts are `near`: the main knob
    /// (`--threshold`).
    pub threshold: f32,
    /// Char similarity at which two short texts are `near` when only their
    /// signatures are at hand (a store's query).
    pub short_threshold: f32,
    /// Texts of at most this many characters are short: word alignment,
    /// char similarity and embeddings may decide for them.
    pub short_max_chars: u32,
    /// A text with a larger boilerplate share is not treated as short: its
    /// char similarity would measure the template.
    pub short_max_boilerplate: f32,
    /// Share of one text's passage samples found in the other at which it
    /// is `contained_in` the other.
    pub containment_threshold: f32,
    /// Content passage samples a text needs before its containment counts:
    /// with fewer, one shared phrase would read as containment.
    pub min_samples: u32,
    /// Cosine at which two short texts are a `paraphrase` on embeddings alone.
    pub semantic_threshold: f32,
    /// A lower cosine that makes a `paraphrase` together with char
    /// similarity ≥ `semantic_gate_char`.
    pub semantic_gate_cosine: f32,
    /// Char similarity that, with `semantic_gate_cosine`, admits
    /// paraphrases that keep some of the wording.
    pub semantic_gate_char: f32,
    /// Weighted similarity of the aligned words at which two short texts
    /// are `near`.
    pub token_similarity: f32,
    /// Most information one short text may have that the other lacks and
    /// still be `near`.
    pub token_added: f32,
    /// Most information two short texts may each have in place of the
    /// other's (a different name) and still be `near`.
    pub token_replaced: f32,
}

/// Char similarity around which short texts become candidates (the centre
/// of the char index's S-curve; the texts at hand are then aligned down to
/// [`super::align::MIN_CHAR_SIMILARITY`]). Banding at `short_threshold` (0.5)
/// missed perturbed copies that the alignment takes: on the stress set the
/// short type's recall rose from 0.9520 to 0.9573 at 0.4 and no further
/// below it, and 41 more links of the package descriptions were made, nearly
/// all reworded duplicates ("Shareable config for ESLint" / "ESLint shareable
/// config"), at the same time on the 100k bench corpus (0.35 cost a tenth more).
const SHORT_CANDIDATES: f32 = 0.4;

impl Default for LexicalRules {
    fn default() -> Self {
        LexicalRules {
            threshold: 0.7,
            short_threshold: 0.5,
            short_max_chars: 300,
            short_max_boilerplate: 0.3,
            containment_threshold: 0.95,
            min_samples: 8,
            semantic_threshold: 0.91,
            semantic_gate_cosine: 0.82,
            semantic_gate_char: 0.16,
            token_similarity: 0.6,
            token_added: 0.15,
            token_replaced: 0.2,
        }
    }
}

impl LexicalRules {
    fn aligned_near(&self, d: &Differences) -> bool {
        d.similarity() >= self.token_similarity && d.added() <= self.token_added && d.replaced() <= self.token_replaced
    }

    /// `char_sim` is 0 unless both texts are short.
    fn paraphrase(&self, cosine: Option<f32>, char_sim: f32) -> bool {
        cosine.is_some_and(|c| {
            c >= self.semantic_threshold || (c >= self.semantic_gate_cosine && char_sim >= self.semantic_gate_char)
        })
    }
}

impl Decider for LexicalRules {
    fn decide(&self, s: &PairSignals) -> Verdict {
        if s.exact {
            return Verdict::rule(Relation::Exact, 1.0);
        }
        let short = s.chars.0.max(s.chars.1) <= self.short_max_chars
            && s.boilerplate.0.max(s.boilerplate.1) <= self.short_max_boilerplate;
        let char_sim = if short { s.char_sim } else { 0.0 };
        match s.differences.filter(|_| short) {
            Some(d) if self.aligned_near(&d) => return Verdict::rule(Relation::Near, d.similarity()),
            Some(_) => {}
            None if s.weighted_sim >= self.threshold || char_sim >= self.short_threshold => {
                return Verdict::rule(Relation::Near, s.weighted_sim.max(char_sim))
            }
            None => {}
        }
        let t = self.containment_threshold;
        let (a_in_b, b_in_a) = (s.a_in_b.unwrap_or(0.0), s.b_in_a.unwrap_or(0.0));
        let relation = match (a_in_b >= t, b_in_a >= t) {
            (true, true) => Relation::Near,
            (true, false) => Relation::ContainedIn,
            (false, true) => Relation::Contains,
            (false, false) if short && self.paraphrase(s.cosine, char_sim) => Relation::Paraphrase,
            (false, false) => Relation::None,
        };
        let score = match relation {
            Relation::Near => a_in_b.min(b_in_a),
            Relation::ContainedIn => a_in_b,
            Relation::Contains => b_in_a,
            Relation::Paraphrase => s.cosine.unwrap_or(0.0),
            _ => s.weighted_sim.max(char_sim).max(a_in_b).max(b_in_a),
        };
        Verdict::rule(relation, score)
    }

    fn blocking(&self) -> Blocking {
        let semantic_cosine = self.semantic_threshold.min(self.semantic_gate_cosine);
        Blocking {
            weighted_threshold: self.threshold as f64,
            char_threshold: self.short_threshold.min(SHORT_CANDIDATES) as f64,
            short_max_chars: self.short_max_chars,
            // Containment needs `min_samples` content samples, `containment_threshold` of them shared.
            min_shared_passages: (self.min_samples.max(1) as f32 * self.containment_threshold).ceil() as u32,
            semantic_cosine,
            semantic_max_chars: self.short_max_chars,
        }
    }

    fn min_samples(&self) -> usize {
        self.min_samples as usize
    }

    fn probability_threshold(&self) -> Option<f32> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals() -> PairSignals {
        PairSignals {
            exact: false,
            char_sim: 0.0,
            weighted_sim: 0.0,
            a_in_b: None,
            b_in_a: None,
            chars: (1000, 1000),
            boilerplate: (0.0, 0.0),
            cosine: None,
            code_agreement: None,
            differences: None,
            headings_differ: false,
        }
    }

    #[test]
    fn char_similarity_counts_only_for_short_texts() {
        let rules = LexicalRules::default();
        let long = PairSignals { char_sim: 0.9, ..signals() };
        assert_eq!(rules.decide(&long).relation, Relation::None);
        let short = PairSignals { chars: (120, 140), ..long };
        assert_eq!(rules.decide(&short).relation, Relation::Near);
    }

    #[test]
    fn short_texts_at_hand_are_decided_by_what_differs() {
        let rules = LexicalRules::default();
        let template = PairSignals { char_sim: 0.9, weighted_sim: 0.9, chars: (40, 42), ..signals() };
        let filler = Differences { matched: 1.2, residue_a: 0.9, residue_b: 0.8 };
        let same = Differences { matched: 1.2, residue_a: 0.1, residue_b: 0.0 };
        let added = Differences { matched: 1.2, residue_a: 0.0, residue_b: 0.6 };
        assert_eq!(rules.decide(&PairSignals { differences: Some(filler), ..template }).relation, Relation::None);
        assert_eq!(rules.decide(&PairSignals { differences: Some(added), ..template }).relation, Relation::None);
        assert_eq!(rules.decide(&PairSignals { differences: Some(same), ..template }).relation, Relation::Near);
        assert_eq!(rules.decide(&template).relation, Relation::Near, "from signatures alone, char similarity decides");
        let long = PairSignals { chars: (900, 950), differences: Some(filler), ..template };
        assert_eq!(rules.decide(&long).relation, Relation::Near, "long texts: the weighted sketch");
    }

    #[test]
    fn short_texts_become_candidates_below_the_char_threshold() {
        let rules = LexicalRules::default();
        assert!(rules.blocking().char_threshold < rules.short_threshold as f64, "the alignment takes pairs below it");
        let lower = LexicalRules { short_threshold: 0.3, ..LexicalRules::default() };
        assert_eq!(lower.blocking().char_threshold, 0.3f32 as f64, "a lower threshold lowers the candidates' too");
    }

    #[test]
    fn containment_has_a_direction() {
        let rules = LexicalRules::default();
        let child = PairSignals { a_in_b: Some(0.97), b_in_a: Some(0.3), ..signals() };
        assert_eq!(rules.decide(&child), Verdict::rule(Relation::ContainedIn, 0.97));
        let parent = PairSignals { a_in_b: Some(0.3), b_in_a: Some(0.96), ..signals() };
        assert_eq!(rules.decide(&parent).relation, Relation::Contains);
        let same = PairSignals { a_in_b: Some(0.99), b_in_a: Some(0.96), ..signals() };
        assert_eq!(rules.decide(&same).relation, Relation::Near);
        let most = PairSignals { a_in_b: Some(0.93), ..signals() };
        assert_eq!(rules.decide(&most).relation, Relation::None, "most of it is not contained");
        let exact = PairSignals { exact: true, ..signals() };
        assert_eq!(rules.decide(&exact).relation, Relation::Exact);
    }

    #[test]
    fn embeddings_decide_only_what_the_lexical_rules_left() {
        let rules = LexicalRules::default();
        let paraphrase = PairSignals { cosine: Some(0.93), chars: (120, 100), ..signals() };
        assert_eq!(rules.decide(&paraphrase), Verdict::rule(Relation::Paraphrase, 0.93));
        let unrelated = PairSignals { cosine: Some(0.85), ..paraphrase };
        assert_eq!(rules.decide(&unrelated).relation, Relation::None);
        let reworded = PairSignals { char_sim: 0.3, ..unrelated };
        assert_eq!(rules.decide(&reworded).relation, Relation::Paraphrase, "the gate: short, some shared wording");
        let long = PairSignals { chars: (2000, 1900), ..paraphrase };
        assert_eq!(rules.decide(&long).relation, Relation::None, "embeddings never decide for long texts");
        let near = PairSignals { weighted_sim: 0.8, cosine: Some(0.95), ..signals() };
        assert_eq!(rules.decide(&near).relation, Relation::Near);
    }
}
