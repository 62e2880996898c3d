//! The learned decider: gated multi-granularity fusion under a learned,
//! regime-aware decision boundary, with an uncertainty per pair (paper
//! components 3 and 5; the paper gives no details, these are ours).
//!
//! Threshold rules must pick, per regime, which similarity decides: char
//! n-grams for short perturbed texts, weighted word shingles for template-
//! wrapped pages, containment for excerpts, embeddings for paraphrases. This
//! module learns that choice. For a pair's [`features`](super::features):
//!
//! ```text
//! ℓ_k = w_k · x_k + b_k                 one logit per granularity k: char, token, document
//! g   = softmax(V f + c)                the gate, over all features (context and evidence)
//! θ   = u · ctx + u₀                    the boundary, moved by the regime (lengths, boilerplate, embeddings)
//! m   = Σ_k g_k ℓ_k − θ                 margin: > 0 duplicate, in units of the training margin
//! p   = σ(m / T)                        T: temperature fitted on held-out training pairs
//! ```
//!
//! The char expert reads char similarity, the token expert weighted
//! similarity, the document expert containment both ways, cosine and code
//! agreement. The gate sees the evidence as well as the context, so it can
//! hand the decision to the expert whose kind of redundancy is present: a
//! containment pair has low char similarity and must not be outvoted by it.
//!
//! A pair below every candidate level ([`Candidates`]: the loosest signals
//! the index blocks on) is not a duplicate whatever the model says: the index
//! proposes such pairs only by chance, and a verdict must not depend on luck.
//!
//! A model is a small ensemble (members trained on bootstrap resamples):
//! `probability` is the members' mean, and `uncertainty` is 1 on the
//! boundary (at the model's threshold) or where members disagree, 0 far
//! from it where they agree: the pairs a judge should see. Everything is a
//! few dozen multiply-adds per member, plain Rust, so it runs in the wasm
//! build too. Training is in [`super::train`].

use super::features::{at, features, Features, COUNT, NAMES};
use super::{logit, Confidence, Decider, PairSignals, Relation, Verdict};
use crate::index::Blocking;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// `format` of a boundary file.
pub const FORMAT: &str = "semhash-boundary";
/// Version of the file format and model equations; other versions are refused.
pub const VERSION: u32 = 1;
/// Number of experts: one per granularity (char, token, document).
pub const EXPERTS: usize = 3;
/// The experts' names, in model order, for reports.
pub const EXPERT_NAMES: [&str; EXPERTS] = ["char", "token", "document"];
const DOCUMENT: usize = 2;

/// The features each expert reads.
pub(crate) const EXPERT_INPUTS: [&[usize]; EXPERTS] =
    [&[at::CHAR], &[at::WEIGHTED], &[at::CONTAIN_MAX, at::CONTAIN_MIN, at::COSINE, at::CODE, at::HAS_EMBEDDING]];
/// The regime: what moves the boundary.
pub(crate) const CONTEXT: [usize; 4] = [at::HAS_EMBEDDING, at::LEN_MIN, at::LEN_RATIO, at::BOILERPLATE];

/// One ensemble member. Weights outside an expert's inputs (or the context)
/// are not read, and training leaves them at 0.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Member {
    /// `w_k`: each expert's weights over the feature vector, of which only
    /// the expert's own inputs are read.
    pub experts: [[f32; COUNT]; EXPERTS],
    /// `b_k`: each expert's bias.
    pub expert_bias: [f32; EXPERTS],
    /// `V`: the gate's weights, one row per expert, over every feature.
    pub gate: [[f32; COUNT]; EXPERTS],
    /// `c`: the gate's bias.
    pub gate_bias: [f32; EXPERTS],
    /// `u`: the boundary's weights, of which only the regime features
    /// (embedding present, lengths, boilerplate) are read.
    pub boundary: [f32; COUNT],
    /// `u₀`: the boundary's constant; the whole boundary when the adaptive
    /// boundary is switched off.
    pub boundary_bias: f32,
}

/// What one member computes for a pair; training reuses it for gradients.
#[derive(Clone, Copy, Debug)]
pub struct Pass {
    /// `ℓ_k`: each expert's logit.
    pub logits: [f32; EXPERTS],
    /// `g_k`: the weight the gate gave each expert (1/3 each with the gate off).
    pub gate: [f32; EXPERTS],
    /// `m = Σ g_k ℓ_k − θ`: positive for a duplicate.
    pub margin: f32,
}

/// Which parts of the model are switched on (the ablations switch them off).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Parts {
    /// Off: every expert weighs 1/3, whatever the pair.
    pub gate: bool,
    /// Off: the boundary θ is one constant for every regime.
    pub adaptive_boundary: bool,
}

fn dot(w: &[f32; COUNT], f: &Features) -> f32 {
    w.iter().zip(f).map(|(w, x)| w * x).sum()
}

fn dot_on(inputs: &[usize], w: &[f32; COUNT], f: &Features) -> f32 {
    inputs.iter().map(|&i| w[i] * f[i]).sum()
}

impl Member {
    /// Number of parameters, flattened for the optimiser.
    pub const PARAMS: usize = 2 * EXPERTS * (COUNT + 1) + COUNT + 1;

    /// Runs this member on a pair's features: the equations of the module
    /// docs, with the parts switched off at their neutral values (an even
    /// gate, a constant boundary).
    pub fn forward(&self, f: &Features, parts: Parts) -> Pass {
        let logits: [f32; EXPERTS] =
            std::array::from_fn(|k| dot_on(EXPERT_INPUTS[k], &self.experts[k], f) + self.expert_bias[k]);
        let gate = if parts.gate {
            let a: [f32; EXPERTS] = std::array::from_fn(|k| dot(&self.gate[k], f) + self.gate_bias[k]);
            let top = a.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let e = a.map(|x| (x - top).exp());
            let sum: f32 = e.iter().sum();
            e.map(|x| x / sum)
        } else {
            [1.0 / EXPERTS as f32; EXPERTS]
        };
        let theta =
            if parts.adaptive_boundary { dot_on(&CONTEXT, &self.boundary, f) } else { 0.0 } + self.boundary_bias;
        let margin = logits.iter().zip(&gate).map(|(l, g)| l * g).sum::<f32>() - theta;
        Pass { logits, gate, margin }
    }

    /// Adds `scale · ∂margin/∂params` to `grad` (flattened as [`Member::flat`]).
    pub fn add_margin_gradient(&self, f: &Features, pass: &Pass, parts: Parts, scale: f32, grad: &mut [f32]) {
        let fused: f32 = pass.logits.iter().zip(&pass.gate).map(|(l, g)| l * g).sum();
        let mut at = 0;
        for (k, inputs) in EXPERT_INPUTS.iter().enumerate() {
            for &i in *inputs {
                grad[at + i] += scale * pass.gate[k] * f[i];
            }
            at += COUNT;
        }
        for k in 0..EXPERTS {
            grad[at + k] += scale * pass.gate[k];
        }
        at += EXPERTS;
        if parts.gate {
            for k in 0..EXPERTS {
                // ∂m/∂a_k of a softmax-weighted sum: g_k (ℓ_k − Σ g ℓ).
                let d = scale * pass.gate[k] * (pass.logits[k] - fused);
                for i in 0..COUNT {
                    grad[at + k * COUNT + i] += d * f[i];
                }
                grad[at + EXPERTS * COUNT + k] += d;
            }
        }
        at += EXPERTS * (COUNT + 1);
        if parts.adaptive_boundary {
            for &i in &CONTEXT {
                grad[at + i] -= scale * f[i];
            }
        }
        grad[at + COUNT] -= scale;
    }

    /// The parameters as one vector, in the order of the fields.
    pub fn flat(&self) -> Vec<f32> {
        let mut v = Vec::with_capacity(Self::PARAMS);
        self.experts.iter().for_each(|w| v.extend(w));
        v.extend(self.expert_bias);
        self.gate.iter().for_each(|w| v.extend(w));
        v.extend(self.gate_bias);
        v.extend(self.boundary);
        v.push(self.boundary_bias);
        v
    }

    /// The member whose parameters are `v`, in the order of [`Member::flat`]:
    /// the optimiser works on the flat vector.
    ///
    /// Panics unless `v` holds [`Member::PARAMS`] values.
    pub fn from_flat(v: &[f32]) -> Self {
        assert_eq!(v.len(), Self::PARAMS);
        let mut it = v.iter().copied();
        let mut take = || it.next().expect("length checked");
        let mut m = Member::default();
        m.experts.iter_mut().flatten().for_each(|x| *x = take());
        m.expert_bias.iter_mut().for_each(|x| *x = take());
        m.gate.iter_mut().flatten().for_each(|x| *x = take());
        m.gate_bias.iter_mut().for_each(|x| *x = take());
        m.boundary.iter_mut().for_each(|x| *x = take());
        m.boundary_bias = take();
        m
    }
}

/// Loosest signals at which a pair is worth deciding: they set the index's
/// blocking, as the thresholds do for the rules. Lower than the rules'
/// thresholds, so the model sees the pairs the rules could not accept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Candidates {
    /// Weighted similarity of the word shingles.
    pub weighted: f32,
    /// Char n-gram similarity (short texts only).
    pub char: f32,
    /// Containment of either text in the other.
    pub containment: f32,
    /// Cosine of the embeddings (short texts only).
    pub cosine: f32,
}

impl Candidates {
    /// Whether some signal reaches its candidate level (char similarity and
    /// cosine count for short texts only, as in blocking).
    pub fn admit(&self, s: &PairSignals, short_max_chars: u32) -> bool {
        let short = s.chars.0.max(s.chars.1) <= short_max_chars;
        s.weighted_sim >= self.weighted
            || s.a_in_b.unwrap_or(0.0).max(s.b_in_a.unwrap_or(0.0)) >= self.containment
            || (short && (s.char_sim >= self.char || s.cosine.unwrap_or(0.0) >= self.cosine))
    }
}

impl Default for Candidates {
    fn default() -> Self {
        // Containment 0.91, not lower: a viral host that is mostly the pasted
        // snippet sits at 0.80-0.90 in the host it shares it with (stress set).
        Candidates { weighted: 0.5, char: 0.3, containment: 0.91, cosine: 0.6 }
    }
}

/// A trained boundary: the file `semhash train-boundary` writes and the
/// `learned` decider of a [`Config`](crate::Config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LearnedBoundary {
    /// Always [`FORMAT`]: says what the file is before anything else is read.
    pub format: String,
    /// The [`VERSION`] of the equations the model was trained for.
    pub version: u32,
    /// The feature names the model was trained on, in order: must be [`NAMES`].
    pub features: Vec<String>,
    /// Features held at 0 in training and use (ablations).
    #[serde(default)]
    pub dropped: Vec<String>,
    /// The parts the model was trained with; those off in training stay off.
    pub parts: Parts,
    /// Duplicate when the probability is at least this.
    pub threshold: f32,
    /// Texts of at most this many characters are short: embedded, and char-LSH blocked.
    pub short_max_chars: u32,
    /// Minimum passage samples for a containment estimate.
    pub min_samples: u32,
    /// Containment at which a duplicate is named `contained_in` / `contains`.
    pub containment: f32,
    /// `T` of `p = σ(m / T)`: the margin has no probabilistic scale of its
    /// own, so this is fitted on held-out pairs.
    pub temperature: f32,
    /// The loosest signals at which a pair is decided at all; they set the
    /// index's blocking.
    pub candidates: Candidates,
    /// The ensemble, at least one member; its mean is the probability, its
    /// spread part of the uncertainty.
    pub members: Vec<Member>,
    /// How it was made (data, sizes, losses): for people, not read by the model.
    #[serde(default)]
    pub provenance: serde_json::Value,
}

impl LearnedBoundary {
    /// Reads a boundary file, refusing other formats, versions and feature sets.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the JSON does not parse, is not a
    /// [`FORMAT`] file, is of another [`VERSION`], has unknown fields, or
    /// fails [`LearnedBoundary::validate`].
    pub fn from_json(json: &str) -> Result<Self> {
        let bad = |m: String| Error::Config(format!("boundary model: {m}"));
        let value: serde_json::Value = serde_json::from_str(json).map_err(|e| bad(e.to_string()))?;
        // Format and version first: another version's fields would only confuse the message.
        if value.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
            return Err(bad(format!("not a {FORMAT} file")));
        }
        match value.get("version").and_then(|v| v.as_u64()) {
            Some(v) if v == VERSION as u64 => {}
            v => return Err(bad(format!("version {v:?}, this build reads version {VERSION}: retrain it"))),
        }
        let model: LearnedBoundary = serde_json::from_value(value).map_err(|e| bad(e.to_string()))?;
        model.validate()?;
        Ok(model)
    }

    /// Checks what the types cannot: version, feature set, values.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the format or version is another, the model
    /// was trained on other features than [`NAMES`], a dropped feature is
    /// unknown, there are no members, the threshold is outside (0, 1), the
    /// temperature is not positive, or a parameter is not finite.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::Config(format!("boundary model: {m}")));
        if self.format != FORMAT || self.version != VERSION {
            return bad(format!(
                "{} version {}, this build reads {FORMAT} version {VERSION}",
                self.format, self.version
            ));
        }
        if self.features != NAMES {
            return bad(format!("trained on features {:?}, this build computes {NAMES:?}: retrain it", self.features));
        }
        if let Some(d) = self.dropped.iter().find(|d| !NAMES.contains(&d.as_str())) {
            return bad(format!("dropped feature {d:?} is not one of {NAMES:?}"));
        }
        if self.members.is_empty() {
            return bad("no ensemble members".into());
        }
        let in_range = self.threshold > 0.0 && self.threshold < 1.0 && self.temperature > 0.0;
        if !in_range {
            return bad(format!(
                "threshold must be in (0, 1), temperature > 0: {} {}",
                self.threshold, self.temperature
            ));
        }
        if !self.members.iter().flat_map(Member::flat).all(f32::is_finite) {
            return bad("non-finite parameters".into());
        }
        Ok(())
    }

    /// The model's input for a pair: its features with the dropped ones at 0.
    pub fn input(&self, s: &PairSignals) -> Features {
        let mut f = features(s, self.short_max_chars);
        mask(&mut f, &self.dropped);
        f
    }

    /// Probability of duplicate, uncertainty, and the members' mean gate.
    /// Uncertainty is about the decision, so it is read on the scale where
    /// the threshold is 0.5 (as [`shift_odds`](super::shift_odds) moves a
    /// probability; here the log odds are at hand).
    pub fn predict(&self, f: &Features) -> (Confidence, [f32; EXPERTS]) {
        let n = self.members.len() as f32;
        let at_threshold = logit(self.threshold);
        let (mut sum, mut centred, mut sq, mut gate) = (0.0, 0.0, 0.0, [0.0; EXPERTS]);
        for m in &self.members {
            let pass = m.forward(f, self.parts);
            let log_odds = pass.margin / self.temperature;
            let (p, q) = (sigmoid(log_odds), sigmoid(log_odds - at_threshold));
            (sum, centred, sq) = (sum + p, centred + q, sq + q * q);
            gate.iter_mut().zip(pass.gate).for_each(|(g, x)| *g += x / n);
        }
        let (probability, q) = (sum / n, centred / n);
        let spread = (sq / n - q * q).max(0.0).sqrt();
        // Near the boundary, or members disagreeing (a pair unlike the training pairs).
        let uncertainty = (1.0 - (2.0 * q - 1.0).abs()).max(2.0 * spread).min(1.0);
        (Confidence { probability, uncertainty }, gate)
    }

    /// The relation of a duplicate: containment when one side is (mostly)
    /// inside the other and not the reverse; a paraphrase when the gate gave
    /// the decision to the document expert and embeddings were there; else near.
    fn relation(&self, s: &PairSignals, f: &Features, gate: &[f32; EXPERTS]) -> Relation {
        let c = self.containment;
        match (s.a_in_b.unwrap_or(0.0) >= c, s.b_in_a.unwrap_or(0.0) >= c) {
            (true, false) => Relation::ContainedIn,
            (false, true) => Relation::Contains,
            _ if f[at::HAS_EMBEDDING] > 0.0 && gate.iter().all(|&g| g <= gate[DOCUMENT]) => Relation::Paraphrase,
            _ => Relation::Near,
        }
    }
}

/// Sets the named features to 0.
pub fn mask(f: &mut Features, dropped: &[String]) {
    for (i, name) in NAMES.iter().enumerate() {
        if dropped.iter().any(|d| d == name) {
            f[i] = 0.0;
        }
    }
}

pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Decider for LearnedBoundary {
    fn decide(&self, s: &PairSignals) -> Verdict {
        if s.exact {
            let sure = Confidence { probability: 1.0, uncertainty: 0.0 };
            return Verdict { relation: Relation::Exact, score: 1.0, confidence: Some(sure) };
        }
        let f = self.input(s);
        let (confidence, gate) = self.predict(&f);
        // Below every candidate level a pair is no duplicate, whatever the model
        // says: the index proposes such pairs only by chance, and a verdict must
        // not depend on luck. Their probability is still reported.
        let accepted = confidence.probability >= self.threshold && self.candidates.admit(s, self.short_max_chars);
        let relation = if accepted { self.relation(s, &f, &gate) } else { Relation::None };
        Verdict { relation, score: confidence.probability, confidence: Some(confidence) }
    }

    fn blocking(&self) -> Blocking {
        let c = &self.candidates;
        Blocking {
            weighted_threshold: c.weighted as f64,
            char_threshold: c.char as f64,
            short_max_chars: self.short_max_chars,
            min_shared_passages: (self.min_samples.max(1) as f32 * c.containment).ceil() as u32,
            semantic_cosine: c.cosine,
            semantic_max_chars: self.short_max_chars,
        }
    }

    fn min_samples(&self) -> usize {
        self.min_samples as usize
    }

    fn probability_threshold(&self) -> Option<f32> {
        Some(self.threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(seed: u64) -> Member {
        let mut x = seed;
        let v: Vec<f32> = (0..Member::PARAMS)
            .map(|_| {
                x = crate::util::hash::mix64(x);
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        Member::from_flat(&v)
    }

    fn pair() -> Features {
        [0.3, 0.5, 0.9, 0.2, 0.7, 0.8, 1.0, 0.6, 0.4, 0.1]
    }

    const ALL: Parts = Parts { gate: true, adaptive_boundary: true };

    #[test]
    fn gate_weights_are_a_distribution() {
        for seed in 0..20 {
            let g = member(seed).forward(&pair(), ALL).gate;
            assert!((g.iter().sum::<f32>() - 1.0).abs() < 1e-5 && g.iter().all(|&x| x >= 0.0), "{g:?}");
        }
        let off = member(1).forward(&pair(), Parts { gate: false, ..ALL }).gate;
        assert_eq!(off, [1.0 / 3.0; 3]);
    }

    #[test]
    fn margin_gradient_matches_finite_differences() {
        let (m, f) = (member(7), pair());
        let pass = m.forward(&f, ALL);
        let mut grad = vec![0.0; Member::PARAMS];
        m.add_margin_gradient(&f, &pass, ALL, 1.0, &mut grad);
        let flat = m.flat();
        for i in 0..Member::PARAMS {
            let at = |d: f32| {
                let mut v = flat.clone();
                v[i] += d;
                Member::from_flat(&v).forward(&f, ALL).margin as f64
            };
            let numeric = (at(1e-2) - at(-1e-2)) / 2e-2;
            assert!((numeric - grad[i] as f64).abs() < 1e-3, "parameter {i}: {numeric} vs {}", grad[i]);
        }
    }

    /// A one-member model whose probability is `p` for every pair.
    fn constant(p: f32, threshold: f32) -> LearnedBoundary {
        let member = Member { boundary_bias: -(p / (1.0 - p)).ln(), ..Member::default() };
        LearnedBoundary {
            format: FORMAT.into(),
            version: VERSION,
            features: NAMES.iter().map(|n| n.to_string()).collect(),
            dropped: Vec::new(),
            parts: ALL,
            threshold,
            short_max_chars: 300,
            min_samples: 8,
            containment: 0.9,
            temperature: 1.0,
            candidates: Candidates::default(),
            members: vec![member],
            provenance: serde_json::Value::Null,
        }
    }

    #[test]
    fn uncertainty_peaks_at_the_threshold_not_at_one_half() {
        let u = |p: f32, t: f32| constant(p, t).predict(&pair()).0.uncertainty;
        assert!(u(0.05, 0.05) > 0.99, "on the boundary: {}", u(0.05, 0.05));
        assert!(u(0.5, 0.05) < 0.15, "far above a threshold of 0.05: {}", u(0.5, 0.05));
        assert!(u(0.5, 0.5) > 0.99);
    }

    #[test]
    fn flat_round_trips() {
        let m = member(3);
        assert_eq!(Member::from_flat(&m.flat()), m);
    }
}
