//! The local judge: do the two texts say the same things, token by token?
//!
//! A mean-pooled embedding (what the semantic stage compares) blurs a text
//! into one point: two verses about the same people doing different things
//! land close. Aligning tokens keeps the detail. Each token of one text is
//! matched to its most similar token of the other (cosine of the student
//! encoder's contextual last hidden states), as BERTScore does:
//!
//! ```text
//! recall    = mean over tokens of A of the best cosine with a token of B
//! precision = mean over tokens of B of the best cosine with a token of A
//! F1        = 2 * precision * recall / (precision + recall)
//! ```
//!
//! A token with no counterpart (a changed name, an added clause) pulls F1
//! down however close the averages are. F1 becomes a probability by a
//! logistic calibration, `p = sigmoid(scale * (F1 - midpoint))`, whose two
//! parameters are fitted ([`fit_calibration`]) on pairs made by editing
//! unlabelled text, never on evaluation labels. The verdict is `p >= 0.5`,
//! its confidence `|2p - 1|`.
//!
//! The encoder is the student that the semantic stage already loads, so the
//! judge costs no other model file; it runs offline, on any platform tract
//! runs on.

use super::{AlignConfig, Judge, Judgement, Pair};
use crate::encoder::Encoder;
use crate::Result;
use std::sync::Arc;

/// The token-alignment judge.
pub struct Aligner {
    encoder: Arc<Encoder>,
    config: AlignConfig,
}

impl Aligner {
    /// A judge on `encoder`'s token states: the student the semantic stage
    /// loads already, so no other model file is needed.
    pub fn new(encoder: Arc<Encoder>, config: AlignConfig) -> Aligner {
        Aligner { encoder, config }
    }

    /// The alignment F1 of each pair, in [-1, 1] (in practice [0, 1]).
    ///
    /// # Errors
    ///
    /// What [`Encoder::token_states`] refuses, for the first batch that failed.
    pub fn scores(&self, pairs: &[(&str, &str)]) -> Result<Vec<f32>> {
        let chunks: Vec<&[(&str, &str)]> = pairs.chunks(self.config.batch_pairs.max(1)).collect();
        let scored = crate::util::par::map_heavy(&chunks, |chunk| self.chunk_scores(chunk));
        let mut out = Vec::with_capacity(pairs.len());
        for s in scored {
            out.extend(s?);
        }
        Ok(out)
    }

    fn chunk_scores(&self, chunk: &[(&str, &str)]) -> Result<Vec<f32>> {
        let texts: Vec<&str> = chunk.iter().flat_map(|(a, b)| [*a, *b]).collect();
        let states = self.encoder.token_states(&texts)?;
        let d = self.encoder.dims();
        Ok(states.chunks(2).map(|ab| alignment_f1(&ab[0], &ab[1], d)).collect())
    }

    /// The calibrated probability of duplicate for an alignment F1.
    pub fn probability(&self, f1: f32) -> f32 {
        1.0 / (1.0 + (-self.config.scale * (f1 - self.config.midpoint)).exp())
    }
}

/// BERTScore F1 of two texts' token rows (each `d` floats, L2-normalised).
/// Two empty texts align perfectly; one empty text aligns with nothing.
fn alignment_f1(a: &[f32], b: &[f32], d: usize) -> f32 {
    let (n, m) = (a.len() / d, b.len() / d);
    if n == 0 || m == 0 {
        return if n == m { 1.0 } else { 0.0 };
    }
    let (mut best_a, mut best_b) = (vec![f32::MIN; n], vec![f32::MIN; m]);
    for (i, x) in a.chunks_exact(d).enumerate() {
        for (j, y) in b.chunks_exact(d).enumerate() {
            let c: f32 = x.iter().zip(y).map(|(u, v)| u * v).sum();
            best_a[i] = best_a[i].max(c);
            best_b[j] = best_b[j].max(c);
        }
    }
    let recall = best_a.iter().sum::<f32>() / n as f32;
    let precision = best_b.iter().sum::<f32>() / m as f32;
    if precision + recall <= 0.0 {
        return 0.0;
    }
    2.0 * precision * recall / (precision + recall)
}

impl Judge for Aligner {
    fn name(&self) -> &'static str {
        "local"
    }

    fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>> {
        let chunks: Vec<&[Pair<'_>]> = pairs.chunks(self.config.batch_pairs.max(1)).collect();
        let judged = crate::util::par::map_heavy(&chunks, |chunk| -> Vec<Result<Judgement>> {
            let texts: Vec<(&str, &str)> = chunk.iter().map(|p| (p.a, p.b)).collect();
            match self.chunk_scores(&texts) {
                Ok(scores) => scores.into_iter().map(|f1| Ok(self.judgement(f1))).collect(),
                // One batch failing (a text the tokenizer refuses) fails only its pairs.
                Err(e) => chunk.iter().map(|_| Err(crate::Error::Input(format!("local judge: {e}")))).collect(),
            }
        });
        judged.into_iter().flatten().collect()
    }
}

impl Aligner {
    fn judgement(&self, f1: f32) -> Judgement {
        let p = self.probability(f1);
        Judgement { score: Some(f1), ..Judgement::new(p >= 0.5, (2.0 * p - 1.0).abs()) }
    }
}

/// Fits `(scale, midpoint)` of `p = sigmoid(scale * (score - midpoint))` to
/// scored pairs by logistic regression (Newton's method on the log loss,
/// with a small ridge so separable data stays finite).
pub fn fit_calibration(scored: &[(f32, bool)]) -> (f32, f32) {
    // Model: p = sigmoid(w * x + c); then scale = w, midpoint = -c / w.
    let (mut w, mut c) = (1.0f64, 0.0f64);
    let ridge = 1e-3;
    for _ in 0..100 {
        let (mut gw, mut gc, mut hww, mut hwc, mut hcc) = (ridge * w, 0.0, ridge, 0.0, 1e-9);
        for &(x, y) in scored {
            let x = x as f64;
            let p = 1.0 / (1.0 + (-(w * x + c)).exp());
            let (r, s) = (p - if y { 1.0 } else { 0.0 }, p * (1.0 - p));
            gw += r * x;
            gc += r;
            hww += s * x * x;
            hwc += s * x;
            hcc += s;
        }
        let det = hww * hcc - hwc * hwc;
        if det.abs() < 1e-12 {
            break;
        }
        let (dw, dc) = ((hcc * gw - hwc * gc) / det, (hww * gc - hwc * gw) / det);
        w -= dw;
        c -= dc;
        if dw.abs() + dc.abs() < 1e-9 {
            break;
        }
    }
    (w as f32, (-c / w) as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_f1_is_one_for_the_same_tokens_and_drops_with_unmatched_ones() {
        let (x, y, z) = ([1.0, 0.0], [0.0, 1.0], [0.6, 0.8]);
        let ab: Vec<f32> = [x, y].concat();
        assert!((alignment_f1(&ab, &[y, x].concat(), 2) - 1.0).abs() < 1e-6, "order does not matter");
        let extra = alignment_f1(&ab, &[x, y, z].concat(), 2);
        assert!(extra < 1.0 && extra > 0.9, "{extra}");
        assert_eq!(alignment_f1(&[], &[], 2), 1.0);
        assert_eq!(alignment_f1(&ab, &[], 2), 0.0);
    }

    #[test]
    fn calibration_recovers_a_known_logistic() {
        // Labels drawn from p = sigmoid(20 (x - 0.7)) on a grid, in expectation.
        let mut scored = Vec::new();
        for i in 0..=200 {
            let x = i as f32 / 200.0;
            let p = 1.0 / (1.0 + (-20.0 * (x - 0.7)).exp());
            let positives = (p * 100.0).round() as usize;
            scored.extend((0..100).map(|k| (x, k < positives)));
        }
        let (scale, midpoint) = fit_calibration(&scored);
        assert!((scale - 20.0).abs() < 1.0 && (midpoint - 0.7).abs() < 0.01, "{scale} {midpoint}");
    }
}
