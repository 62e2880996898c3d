//! One [`Config`] describes a whole pipeline, as JSON.
//!
//! ```
//! let config = semhash::Config::default();
//! let json = serde_json::to_string_pretty(&config).unwrap();
//! let back = semhash::Config::from_json(&json).unwrap();
//! assert_eq!(back.fingerprint(), config.fingerprint());
//! ```
//!
//! The parts that shape a signature (normalization, sketches, weights) make up
//! its [`Fingerprint`]; signatures made under another fingerprint are refused.
//! Blocking, decision and reporting knobs can change from run to run.

use crate::decide::{Decider, DeciderWrapper, SnippetConfig};
use crate::index::IndexConfig;
use crate::judge::JudgeConfig;
use crate::normalize::Normalizers;
use crate::semantic::SemanticConfig;
use crate::sketch::{format, Fingerprint, SketchConfig, WeightConfig};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// The whole cascade as data.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// How texts are normalized before anything is hashed. Shapes
    /// signatures: part of the fingerprint.
    pub normalize: Normalizers,
    /// Shingle sizes, sketch lengths and seeds. Shapes signatures.
    pub sketch: SketchConfig,
    /// How word shingles are weighted (IDF, boilerplate). Shapes signatures.
    pub weights: WeightConfig,
    /// How candidate pairs are found: banding, bucket caps, semantic
    /// blocking. Free to change from run to run.
    pub index: IndexConfig,
    /// What decides a candidate pair: the threshold rules or a learned
    /// boundary. Free to change from run to run.
    pub decide: DeciderWrapper,
    /// Whether the semantic stage runs and the encoder's attention weighs
    /// shingles. Both change signatures; the model files' hash joins the
    /// fingerprint when they run ([`crate::Deduper::with_semantic`]).
    pub semantic: SemanticConfig,
    /// When a shared passage is reported as a viral snippet.
    pub snippets: SnippetConfig,
    /// The judge asked about the verdicts the learned boundary is unsure
    /// of, and how much of it a run may use; `None`: no judge. The judge
    /// itself (model files, an endpoint, a callback) is the caller's to
    /// supply ([`JudgeConfig::stage`]).
    pub judge: Option<JudgeConfig>,
    /// What input is accepted.
    pub limits: Limits,
}

/// What input is accepted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Documents longer than this (bytes of UTF-8) are refused with an error.
    pub max_doc_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_doc_bytes: 16 << 20 }
    }
}

impl Config {
    /// Parses a config; unknown fields are errors (a typo must not silently
    /// fall back to a default), missing fields take their defaults.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the JSON does not parse, names a field that
    /// does not exist, or holds a value [`Config::validate`] refuses.
    pub fn from_json(json: &str) -> Result<Config> {
        let config: Config = serde_json::from_str(json).map_err(|e| Error::Config(e.to_string()))?;
        config.validate()?;
        Ok(config)
    }

    /// Checks the values a JSON schema cannot.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the first bad value: an n-gram size of 0, a
    /// permutation count outside 1..=4096, a passage sample of 0, a
    /// boilerplate discount or a decision threshold outside (0, 1], or a
    /// learned boundary that [`LearnedBoundary::validate`] refuses.
    ///
    /// [`LearnedBoundary::validate`]: crate::decide::LearnedBoundary::validate
    pub fn validate(&self) -> Result<()> {
        let s = &self.sketch;
        let bad = |m: &str| Err(Error::Config(m.to_owned()));
        if s.word_ngram == 0 || s.char_ngram == 0 {
            return bad("sketch.word_ngram and sketch.char_ngram must be at least 1");
        }
        if !(1..=4096).contains(&s.char_perms) || !(1..=4096).contains(&s.weighted_perms) {
            return bad("sketch.char_perms and sketch.weighted_perms must be between 1 and 4096");
        }
        if s.passage_sample == 0 {
            return bad("sketch.passage_sample must be at least 1");
        }
        if !(self.weights.boilerplate_discount > 0.0 && self.weights.boilerplate_discount <= 1.0) {
            return bad("weights.boilerplate_discount must be in (0, 1]");
        }
        if let Some(judge) = &self.judge {
            judge.validate()?;
            self.check_judge_fits()?;
        }
        let d = match &self.decide {
            DeciderWrapper::Lexical(d) => d,
            DeciderWrapper::Learned(model) => return model.validate(),
        };
        for (name, v) in [
            ("threshold", d.threshold),
            ("short_threshold", d.short_threshold),
            ("containment_threshold", d.containment_threshold),
            ("semantic_threshold", d.semantic_threshold),
            ("semantic_gate_cosine", d.semantic_gate_cosine),
            ("semantic_gate_char", d.semantic_gate_char),
        ] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(Error::Config(format!("decide.{name} must be in (0, 1], got {v}")));
            }
        }
        Ok(())
    }

    /// A judge picks the verdicts the decider is unsure of: the decider must
    /// state probabilities.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for the threshold rules, which state none.
    pub fn check_judge_fits(&self) -> Result<()> {
        match self.decide.probability_threshold() {
            Some(_) => Ok(()),
            None => Err(Error::Config(
                "a judge needs the learned boundary (decide type \"learned\", --boundary FILE): the threshold \
                 rules state no uncertainty"
                    .into(),
            )),
        }
    }

    /// Fingerprint of everything that shapes a signature.
    pub fn fingerprint(&self) -> Fingerprint {
        #[derive(Serialize)]
        struct Shaping<'a> {
            format: u16,
            normalize: &'a Normalizers,
            sketch: &'a SketchConfig,
            weights: &'a WeightConfig,
        }
        let json = serde_json::to_vec(&Shaping {
            format: format::VERSION,
            normalize: &self.normalize,
            sketch: &self.sketch,
            weights: &self.weights,
        })
        .expect("config serialises");
        Fingerprint(crate::util::hash::hash128(&json).to_le_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_covers_shaping_parts_only() {
        let base = Config::default();
        let mut decision = base.clone();
        decision.decide.set_threshold(0.9);
        assert_eq!(decision.fingerprint(), base.fingerprint());
        let mut shaping = base.clone();
        shaping.sketch.char_ngram = 4;
        assert_ne!(shaping.fingerprint(), base.fingerprint());
    }

    #[test]
    fn typos_in_config_are_errors() {
        let err = Config::from_json(r#"{"sketch": {"word_ngrams": 3}}"#).unwrap_err();
        assert!(err.to_string().contains("word_ngrams"), "{err}");
        let err = Config::from_json(r#"{"decide": {"type": "lexical", "threshold": 1.5}}"#).unwrap_err();
        assert!(err.to_string().contains("threshold"), "{err}");
        assert!(Config::from_json(r#"{"sketch": {"word_ngram": 2}}"#).is_ok());
    }
}
