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
//! down however close the averages are. Where the pair's words are known
//! ([`Pair::words`], two short texts), the means are weighted: each token by
//! its word's information, less where the lexical alignment matched the
//! word, so that what differs decides. F1 becomes a probability by a
//! logistic calibration ([`Calibration`]; one for weighted and one for
//! unweighted F1), fitted ([`fit_calibration`]) on pairs made by editing
//! unlabelled text, never on evaluation labels. The verdict is `p >= 0.5`,
//! its confidence `|2p - 1|`.
//!
//! The encoder is the student that the semantic stage already loads, so the
//! judge costs no other model file; it runs offline, on any platform tract
//! runs on.

use super::{AlignConfig, Calibration, Judge, Judgement, Pair};
use crate::decide::align::AlignedWord;
use crate::encoder::{Encoder, TokenStates};
use crate::Result;
use std::ops::Range;
use std::sync::Arc;

/// What every token counts for beside its word's information: a word of no
/// information ("the", "for") still says something in context.
const FLOOR: f32 = 0.05;

/// How much a word the lexical alignment matched counts, against one it left
/// unmatched: its counterpart is known, so the second opinion is mostly
/// about what differs. Chosen on two sources, 2026-12-06 (models/README.md):
/// at 0.5 the npm pairs rank far better than with every token alike (AUC
/// 0.836 -> 0.873) and the Bible pairs within 0.001; lower helps the npm
/// pairs more and costs the Bible more.
const MATCHED: f32 = 0.5;

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

    /// The alignment F1 of each pair, in [-1, 1] (in practice [0, 1]);
    /// weighted by the pair's [`Pair::words`] where it has them.
    ///
    /// # Errors
    ///
    /// What [`Encoder::token_states`] refuses, for the first batch that failed.
    pub fn scores(&self, pairs: &[Pair<'_>]) -> Result<Vec<f32>> {
        let chunks: Vec<&[Pair<'_>]> = pairs.chunks(self.config.batch_pairs.max(1)).collect();
        let scored = crate::util::par::map_heavy(&chunks, |chunk| self.chunk_scores(chunk));
        let mut out = Vec::with_capacity(pairs.len());
        for s in scored {
            out.extend(s?);
        }
        Ok(out)
    }

    fn chunk_scores(&self, chunk: &[Pair<'_>]) -> Result<Vec<f32>> {
        let texts: Vec<&str> = chunk.iter().flat_map(|p| [p.a, p.b]).collect();
        let states = self.encoder.token_states(&texts)?;
        let d = self.encoder.dims();
        Ok(chunk
            .iter()
            .zip(states.chunks(2))
            .map(|(p, ab)| {
                let weights = |text: &str, s: &TokenStates, words: Option<&[AlignedWord]>| match words {
                    Some(words) => token_weights(text, &s.spans, words),
                    None => vec![1.0; s.spans.len()],
                };
                let wa = weights(p.a, &ab[0], p.words.map(|w| w.a.as_slice()));
                let wb = weights(p.b, &ab[1], p.words.map(|w| w.b.as_slice()));
                alignment_f1((&ab[0].rows, &wa), (&ab[1].rows, &wb), d)
            })
            .collect())
    }

    /// The calibration for `pair`'s alignment F1: weighted where its words are known.
    fn calibration(&self, pair: &Pair<'_>) -> Calibration {
        if pair.words.is_some() {
            self.config.weighted
        } else {
            self.config.unweighted
        }
    }
}

/// What each token of `text` (at byte ranges `spans`) counts for in the
/// alignment F1: `FLOOR` plus its word's information, times `MATCHED` when
/// the lexical alignment paired the word ([`AlignedWord`], the text's words
/// in order). A token outside any word (punctuation) has no information; a
/// word the alignment did not read as such (a sign the normalizer spelled
/// out) counts as a matched word of full information.
fn token_weights(text: &str, spans: &[Range<usize>], words: &[AlignedWord]) -> Vec<f32> {
    let is_word = |c: char| c.is_alphanumeric();
    let unread = (1.0 + FLOOR) * MATCHED;
    let (mut next, mut last) = (0, None);
    let mut weight = unread;
    spans
        .iter()
        .map(|span| {
            let (Some(before), Some(token), Some(after)) =
                (text.get(..span.start), text.get(span.clone()), text.get(span.end..))
            else {
                return unread;
            };
            if !token.chars().any(is_word) {
                return FLOOR * MATCHED;
            }
            // The run of letters and digits the token lies in: its word.
            let start =
                before.len() - before.chars().rev().take_while(|&c| is_word(c)).map(char::len_utf8).sum::<usize>();
            let end = span.end + after.chars().take_while(|&c| is_word(c)).map(char::len_utf8).sum::<usize>();
            if last != Some(start) {
                last = Some(start);
                let word = text[start..end].to_lowercase();
                weight = match words[next..].iter().position(|w| w.word == word) {
                    Some(k) => {
                        let w = &words[next + k];
                        next += k + 1;
                        (FLOOR + w.information) * if w.matched { MATCHED } else { 1.0 }
                    }
                    None => unread,
                };
            }
            weight
        })
        .collect()
}

/// BERTScore F1 of two texts' token rows (each `d` floats, L2-normalised),
/// each token weighted: recall is the weighted mean over `a`'s tokens of
/// their best cosine in `b`, precision the same over `b`'s. Two empty texts
/// align perfectly; one empty text aligns with nothing.
fn alignment_f1((a, wa): (&[f32], &[f32]), (b, wb): (&[f32], &[f32]), d: usize) -> f32 {
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
    let mean = |best: &[f32], w: &[f32]| {
        let total: f32 = w.iter().sum();
        best.iter().zip(w).map(|(b, w)| b * w).sum::<f32>() / total.max(f32::MIN_POSITIVE)
    };
    let (recall, precision) = (mean(&best_a, wa), mean(&best_b, wb));
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
            match self.chunk_scores(chunk) {
                Ok(scores) => chunk.iter().zip(scores).map(|(p, f1)| Ok(judgement(self.calibration(p), f1))).collect(),
                // One batch failing (a text the tokenizer refuses) fails only its pairs.
                Err(e) => chunk.iter().map(|_| Err(crate::Error::Input(format!("local judge: {e}")))).collect(),
            }
        });
        judged.into_iter().flatten().collect()
    }
}

fn judgement(calibration: Calibration, f1: f32) -> Judgement {
    let p = calibration.probability(f1);
    Judgement { score: Some(f1), ..Judgement::new(p >= 0.5, (2.0 * p - 1.0).abs()) }
}

/// Fits a [`Calibration`] to scored pairs by logistic regression (Newton's
/// method on the log loss, with a small ridge so separable data stays finite).
pub fn fit_calibration(scored: &[(f32, bool)]) -> Calibration {
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
    Calibration { scale: w as f32, midpoint: (-c / w) as f32 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_f1_is_one_for_the_same_tokens_and_drops_with_unmatched_ones() {
        let (x, y, z) = ([1.0, 0.0], [0.0, 1.0], [0.6, 0.8]);
        let f1 = |a: &[[f32; 2]], b: &[[f32; 2]]| {
            let (wa, wb) = (vec![1.0; a.len()], vec![1.0; b.len()]);
            alignment_f1((&a.concat(), &wa), (&b.concat(), &wb), 2)
        };
        assert!((f1(&[x, y], &[y, x]) - 1.0).abs() < 1e-6, "order does not matter");
        let extra = f1(&[x, y], &[x, y, z]);
        assert!(extra < 1.0 && extra > 0.9, "{extra}");
        assert_eq!(f1(&[], &[]), 1.0);
        assert_eq!(f1(&[x, y], &[]), 0.0);
        // The same extra token weighing as much as the other two together.
        let heavy = alignment_f1((&[x, y].concat(), &[1.0, 1.0]), (&[x, y, z].concat(), &[1.0, 1.0, 2.0]), 2);
        assert!(heavy < extra, "{heavy} {extra}");
    }

    #[test]
    fn a_token_weighs_its_words_information_and_less_when_the_word_was_matched() {
        let word =
            |word: &str, information: f32, matched: bool| AlignedWord { word: word.into(), information, matched };
        let text = "Python SDK for AWS-Eventbridge!";
        // Tokens as a WordPiece tokenizer splits it: "event" and "##bridge" are one word.
        let spans = [0..6, 7..10, 11..14, 15..18, 18..19, 19..24, 24..30, 30..31];
        let words = [
            word("python", 0.4, true),
            word("sdk", 0.5, true),
            word("for", 0.0, true),
            word("aws", 0.6, true),
            word("eventbridge", 0.9, false),
        ];
        let w = token_weights(text, &spans, &words);
        let expect = [
            (FLOOR + 0.4) * MATCHED,
            (FLOOR + 0.5) * MATCHED,
            FLOOR * MATCHED,
            (FLOOR + 0.6) * MATCHED,
            FLOOR * MATCHED,
            FLOOR + 0.9,
            FLOOR + 0.9,
            FLOOR * MATCHED,
        ];
        for (i, (got, want)) in w.iter().zip(expect).enumerate() {
            assert!((got - want).abs() < 1e-6, "token {i}: {got} against {want}");
        }
        // A word the alignment did not read counts as matched, of full information.
        let unread = token_weights("C++ bindings", &[0..1, 1..2, 2..3, 4..12], &[word("bindings", 0.7, false)]);
        assert_eq!(unread[0], (1.0 + FLOOR) * MATCHED);
        assert_eq!(unread[3], FLOOR + 0.7);
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
        let Calibration { scale, midpoint } = fit_calibration(&scored);
        assert!((scale - 20.0).abs() < 1.0 && (midpoint - 0.7).abs() < 0.01, "{scale} {midpoint}");
    }
}
