use super::{Decider, PairSignals, Relation, Verdict};
use crate::index::Blocking;
use serde::{Deserialize, Serialize};

/// Threshold rules over the lexical signals.
///
/// - same exact key: `exact`;
/// - weighted similarity ≥ `threshold`, or, when both texts are short and
///   mostly their own (boilerplate share at most `short_max_boilerplate`),
///   char similarity ≥ `short_threshold`: `near`. Char similarity has no
///   notion of boilerplate: in template-wrapped pages, or two short package
///   descriptions that are mostly the same stock sentence, it measures the
///   template. The weighted sketch discounts that;
/// - the passage samples of one document found in the other at ≥
///   `containment_threshold`: `contained_in` / `contains` (both ways: `near`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LexicalRules {
    pub threshold: f32,
    pub short_threshold: f32,
    pub short_max_chars: u32,
    pub short_max_boilerplate: f32,
    pub containment_threshold: f32,
    pub min_samples: u32,
}

impl Default for LexicalRules {
    fn default() -> Self {
        LexicalRules {
            threshold: 0.7,
            short_threshold: 0.5,
            short_max_chars: 300,
            short_max_boilerplate: 0.3,
            containment_threshold: 0.95,
            min_samples: 8,
        }
    }
}

impl Decider for LexicalRules {
    fn decide(&self, s: &PairSignals) -> Verdict {
        if s.exact {
            return Verdict { relation: Relation::Exact, score: 1.0 };
        }
        let short = s.chars.0.max(s.chars.1) <= self.short_max_chars
            && s.boilerplate.0.max(s.boilerplate.1) <= self.short_max_boilerplate;
        let char_sim = if short { s.char_sim } else { 0.0 };
        if s.weighted_sim >= self.threshold || char_sim >= self.short_threshold {
            return Verdict { relation: Relation::Near, score: s.weighted_sim.max(char_sim) };
        }
        let t = self.containment_threshold;
        let (a_in_b, b_in_a) = (s.a_in_b.unwrap_or(0.0), s.b_in_a.unwrap_or(0.0));
        let relation = match (a_in_b >= t, b_in_a >= t) {
            (true, true) => Relation::Near,
            (true, false) => Relation::ContainedIn,
            (false, true) => Relation::Contains,
            (false, false) => Relation::None,
        };
        let score = match relation {
            Relation::Near => a_in_b.min(b_in_a),
            Relation::ContainedIn => a_in_b,
            Relation::Contains => b_in_a,
            _ => s.weighted_sim.max(char_sim).max(a_in_b).max(b_in_a),
        };
        Verdict { relation, score }
    }

    fn blocking(&self) -> Blocking {
        Blocking {
            weighted_threshold: self.threshold as f64,
            char_threshold: self.short_threshold as f64,
            short_max_chars: self.short_max_chars,
            // Containment needs `min_samples` content samples, `containment_threshold` of them shared.
            min_shared_passages: (self.min_samples.max(1) as f32 * self.containment_threshold).ceil() as u32,
        }
    }

    fn min_samples(&self) -> usize {
        self.min_samples as usize
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
    fn containment_has_a_direction() {
        let rules = LexicalRules::default();
        let child = PairSignals { a_in_b: Some(0.97), b_in_a: Some(0.3), ..signals() };
        assert_eq!(rules.decide(&child), Verdict { relation: Relation::ContainedIn, score: 0.97 });
        let parent = PairSignals { a_in_b: Some(0.3), b_in_a: Some(0.96), ..signals() };
        assert_eq!(rules.decide(&parent).relation, Relation::Contains);
        let same = PairSignals { a_in_b: Some(0.99), b_in_a: Some(0.96), ..signals() };
        assert_eq!(rules.decide(&same).relation, Relation::Near);
        let most = PairSignals { a_in_b: Some(0.93), ..signals() };
        assert_eq!(rules.decide(&most).relation, Relation::None, "most of it is not contained");
        let exact = PairSignals { exact: true, ..signals() };
        assert_eq!(rules.decide(&exact).relation, Relation::Exact);
    }
}
