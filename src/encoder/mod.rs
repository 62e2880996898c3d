//! Stage 2b: meaning. A small transformer turns a text into an embedding, and
//! its attention says which words matter.
//!
//! The student encoder (distilled from all-MiniLM-L6-v2, see `models/`) is an
//! ONNX graph run by tract, the same code on native and wasm32; the tokenizer
//! is HF `tokenizers` over the model's `tokenizer.json`. For each text:
//!
//! - **embedding**: the mean of the last hidden states over the real tokens
//!   (paper eq. 1), L2-normalised. Texts longer than the model's window are
//!   cut into windows of `max_tokens` overlapping by `stride` tokens and the
//!   window embeddings are averaged, weighted by their token counts
//!   ([`LongText::Windows`]); [`LongText::Truncate`] keeps the first window.
//! - **token importance**: the attention each token receives in the last
//!   layer, averaged over heads and over the query tokens, with the special
//!   tokens left out, scaled to mean 1 over the text. The weighted MinHash
//!   multiplies IDF by it (paper III-B), so the words the model attends to
//!   weigh more than the words it skims.
//!
//! Texts are encoded in batches of similar length (sorted by token count),
//! since padding a short text to a long one's length wastes the model's time.

pub mod static_table;
mod wordpiece;

use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::ops::Range;
use tract_onnx::prelude::*;

/// How texts longer than the model's window are encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LongText {
    /// The first window only.
    Truncate,
    /// Every window (overlapping by `stride` tokens), averaged.
    Windows,
}

/// Encoder knobs; part of the signature fingerprint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EncoderConfig {
    /// Tokens per window, special tokens included.
    pub max_tokens: u32,
    /// Tokens shared by consecutive windows of a long text.
    pub stride: u32,
    /// How a text longer than `max_tokens` is encoded: every window, or the first.
    pub long_text: LongText,
    /// Most tokens (padding included) in one batch.
    pub batch_tokens: u32,
}

impl Default for EncoderConfig {
    fn default() -> Self {
        EncoderConfig { max_tokens: 256, stride: 32, long_text: LongText::Windows, batch_tokens: 4096 }
    }
}

/// What the encoder says about one text.
#[derive(Clone, Debug, PartialEq)]
pub struct Encoded {
    /// L2-normalised.
    pub embedding: Vec<f32>,
    /// `(byte range in the text, importance)` of each token, mean 1.
    pub importance: Vec<(Range<usize>, f32)>,
}

type Plan = std::sync::Arc<TypedRunnableModel>;

/// The student model and its tokenizer, ready to encode.
pub struct Encoder {
    tokenizer: tokenizers::Tokenizer,
    plan: Plan,
    config: EncoderConfig,
    dims: usize,
}

fn model_error(what: &str, e: impl std::fmt::Display) -> Error {
    Error::Config(format!("{what}: {e}"))
}

/// What the model gives for one window.
struct WindowOutput {
    /// Sum of the last hidden states over the window's tokens.
    sum: Vec<f32>,
    /// Attention each token receives, summed over heads and queries.
    received: Vec<f32>,
    /// The last hidden state of each token, token-major; empty unless asked for.
    states: Vec<f32>,
}

/// The tokens of one text as the encoder read them in context
/// ([`Encoder::token_states`]), special tokens left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TokenStates {
    /// Each token's last hidden state, L2-normalised, token-major.
    pub rows: Vec<f32>,
    /// Each token's byte range in the text.
    pub spans: Vec<Range<usize>>,
}

/// One window of one text, tokenized.
struct Window {
    text: usize,
    ids: Vec<i64>,
    /// Byte offsets of each token in the text; special tokens are `None`.
    offsets: Vec<Option<Range<usize>>>,
}

impl Encoder {
    /// Loads the model (ONNX bytes) and its tokenizer (`tokenizer.json` bytes).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the tokenizer or the ONNX graph does not load,
    /// the tokenizer has no `[CLS]` or `[SEP]` token (every window is framed
    /// by them), or the graph fails on a probe text (which also measures the
    /// embedding dimensions).
    pub fn from_bytes(onnx: &[u8], tokenizer_json: &[u8], config: &EncoderConfig) -> Result<Self> {
        let tokenizer = load_tokenizer(tokenizer_json)?;
        let plan = tract_onnx::onnx()
            .model_for_read(&mut std::io::Cursor::new(onnx))
            .and_then(|m| m.into_optimized())
            .and_then(|m| m.into_runnable())
            .map_err(|e| model_error("encoder ONNX", e))?;
        let mut encoder = Encoder { tokenizer, plan, config: config.clone(), dims: 0 };
        encoder.dims = encoder.encode(&["dimension probe"])?[0].embedding.len();
        Ok(encoder)
    }

    /// Embedding dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Encodes texts; the result is in the order of `texts`.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the tokenizer fails on a text, and
    /// [`Error::Config`] when the model fails to run on a batch.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<Encoded>> {
        let windows = self.windows(texts)?;
        let outputs = self.run_windows(&windows, false)?;
        Ok(self.assemble(texts.len(), &windows, outputs))
    }

    /// Each text's last hidden states, one L2-normalised row of
    /// [`Encoder::dims`] floats per token with the token's byte range, in
    /// text order; special tokens are left out and a token two windows share
    /// is kept once. For token-level alignment of two texts (the local judge).
    ///
    /// # Errors
    ///
    /// As [`Encoder::encode`].
    pub fn token_states(&self, texts: &[&str]) -> Result<Vec<TokenStates>> {
        let windows = self.windows(texts)?;
        let outputs = self.run_windows(&windows, true)?;
        let d = self.dims;
        let mut out: Vec<TokenStates> = (0..texts.len()).map(|_| TokenStates::default()).collect();
        // Windows of a text come in order: a token ending before the last kept one is an overlap.
        let mut kept_to = vec![0usize; texts.len()];
        for (w, output) in windows.iter().zip(outputs) {
            for (j, span) in w.offsets.iter().enumerate() {
                let Some(span) = span else { continue };
                let text = &mut out[w.text];
                if span.end <= kept_to[w.text] && !text.spans.is_empty() {
                    continue;
                }
                kept_to[w.text] = span.end;
                let row = &output.states[j * d..(j + 1) * d];
                let norm = row.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
                text.rows.extend(row.iter().map(|x| x / norm));
                text.spans.push(span.clone());
            }
        }
        Ok(out)
    }

    /// Runs every window, in batches of similar length; outputs in window order.
    fn run_windows(&self, windows: &[Window], keep_states: bool) -> Result<Vec<WindowOutput>> {
        // Similar lengths together: a batch pads to its longest window.
        let mut order: Vec<usize> = (0..windows.len()).collect();
        order.sort_by_key(|&w| (windows[w].ids.len(), w));
        let mut outputs: Vec<Option<WindowOutput>> = (0..windows.len()).map(|_| None).collect();
        let mut start = 0;
        while start < order.len() {
            let longest = |end: usize| windows[order[end - 1]].ids.len();
            let mut end = start + 1;
            while end < order.len() && longest(end + 1) * (end + 1 - start) <= self.config.batch_tokens as usize {
                end += 1;
            }
            let batch = &order[start..end];
            let results = self.run(&batch.iter().map(|&w| &windows[w]).collect::<Vec<_>>(), keep_states)?;
            for (&w, output) in batch.iter().zip(results) {
                outputs[w] = Some(output);
            }
            start = end;
        }
        Ok(outputs.into_iter().map(|o| o.expect("every window ran")).collect())
    }

    /// Tokenizes each text into windows of at most `max_tokens`.
    fn windows(&self, texts: &[&str]) -> Result<Vec<Window>> {
        let (cls, sep) = (self.special("[CLS]")?, self.special("[SEP]")?);
        let inner = (self.config.max_tokens as usize).saturating_sub(2).max(1);
        let step = inner.saturating_sub(self.config.stride as usize).max(1);
        let mut out = Vec::new();
        for (t, text) in texts.iter().enumerate() {
            let enc = self.tokenizer.encode(*text, false).map_err(|e| Error::Input(format!("tokenizing: {e}")))?;
            let (ids, offsets) = (enc.get_ids(), enc.get_offsets());
            let mut begin = 0;
            loop {
                let end = (begin + inner).min(ids.len());
                let mut w = Window { text: t, ids: vec![cls], offsets: vec![None] };
                w.ids.extend(ids[begin..end].iter().map(|&i| i as i64));
                w.offsets.extend(offsets[begin..end].iter().map(|&(a, b)| Some(a..b)));
                w.ids.push(sep);
                w.offsets.push(None);
                out.push(w);
                if end >= ids.len() || self.config.long_text == LongText::Truncate {
                    break;
                }
                begin += step;
            }
        }
        Ok(out)
    }

    fn special(&self, token: &str) -> Result<i64> {
        self.tokenizer
            .token_to_id(token)
            .map(i64::from)
            .ok_or_else(|| Error::Config(format!("tokenizer.json has no {token} token")))
    }

    /// Runs one batch.
    fn run(&self, batch: &[&Window], keep_states: bool) -> Result<Vec<WindowOutput>> {
        let t = batch.iter().map(|w| w.ids.len()).max().unwrap_or(1);
        let b = batch.len();
        let mut ids = vec![0i64; b * t];
        let mut mask = vec![0i64; b * t];
        for (i, w) in batch.iter().enumerate() {
            ids[i * t..i * t + w.ids.len()].copy_from_slice(&w.ids);
            mask[i * t..i * t + w.ids.len()].iter_mut().for_each(|m| *m = 1);
        }
        let tensor = |v: Vec<i64>| tract_ndarray::Array2::from_shape_vec((b, t), v).map(|a| a.into_tensor());
        let inputs = tvec!(
            tensor(ids).map_err(|e| model_error("batch", e))?.into(),
            tensor(mask).map_err(|e| model_error("batch", e))?.into()
        );
        let outputs = self.plan.run(inputs).map_err(|e| model_error("running the encoder", e))?;
        let hidden = outputs[0].to_plain_array_view::<f32>().map_err(|e| model_error("encoder output", e))?;
        let attention = outputs[1].to_plain_array_view::<f32>().map_err(|e| model_error("encoder attention", e))?;
        let (d, heads) = (hidden.shape()[2], attention.shape()[1]);
        let mut out = Vec::with_capacity(b);
        for (i, w) in batch.iter().enumerate() {
            let n = w.ids.len();
            let mut s = vec![0f32; d];
            for j in 0..n {
                s.iter_mut().enumerate().for_each(|(k, x)| *x += hidden[[i, j, k]]);
            }
            let mut r = vec![0f32; n];
            for h in 0..heads {
                for q in 0..n {
                    r.iter_mut().enumerate().for_each(|(j, x)| *x += attention[[i, h, q, j]]);
                }
            }
            let mut states = Vec::new();
            if keep_states {
                states.reserve(n * d);
                (0..n).for_each(|j| states.extend((0..d).map(|k| hidden[[i, j, k]])));
            }
            out.push(WindowOutput { sum: s, received: r, states });
        }
        Ok(out)
    }

    /// Windows back into texts: embeddings averaged over windows (weighted by
    /// their tokens), importance of every non-special token scaled to mean 1.
    fn assemble(&self, n: usize, windows: &[Window], outputs: Vec<WindowOutput>) -> Vec<Encoded> {
        let mut texts: Vec<Encoded> =
            (0..n).map(|_| Encoded { embedding: Vec::new(), importance: Vec::new() }).collect();
        let mut tokens = vec![0f32; n];
        for (w, output) in windows.iter().zip(outputs) {
            let text = &mut texts[w.text];
            if text.embedding.is_empty() {
                text.embedding = vec![0.0; output.sum.len()];
            }
            text.embedding.iter_mut().zip(&output.sum).for_each(|(e, s)| *e += s);
            tokens[w.text] += w.ids.len() as f32;
            let spans = w.offsets.iter().zip(&output.received);
            text.importance.extend(spans.filter_map(|(o, &a)| o.clone().map(|o| (o, a))));
        }
        for (text, tokens) in texts.iter_mut().zip(tokens) {
            text.embedding.iter_mut().for_each(|e| *e /= tokens.max(1.0));
            let norm = text.embedding.iter().map(|e| e * e).sum::<f32>().sqrt().max(1e-12);
            text.embedding.iter_mut().for_each(|e| *e /= norm);
            let mean = text.importance.iter().map(|(_, a)| a).sum::<f32>() / text.importance.len().max(1) as f32;
            text.importance.iter_mut().for_each(|(_, a)| *a = if mean > 0.0 { *a / mean } else { 1.0 });
        }
        texts
    }
}

impl crate::semantic::Embedder for Encoder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        Ok(self.encode(texts)?.into_iter().map(|e| e.embedding).collect())
    }

    fn dims(&self) -> usize {
        self.dims
    }
}

/// The semantic stage from the bytes of its three model files: the student
/// ONNX, its `tokenizer.json` and a projection (`semhash train-sph`).
/// Its model hash covers all three and the encoder config, so signatures
/// made with any other model or window size are refused.
///
/// # Errors
///
/// What [`Encoder::from_bytes`] and [`Projection::from_bytes`] refuse, and
/// [`Error::Config`] when the projection's dimensions are not the encoder's.
///
/// [`Projection::from_bytes`]: crate::semantic::Projection::from_bytes
pub fn semantic_stage(
    onnx: &[u8],
    tokenizer_json: &[u8],
    projection: &[u8],
    config: &EncoderConfig,
) -> Result<crate::semantic::Stage> {
    let encoder = Encoder::from_bytes(onnx, tokenizer_json, config)?;
    let projection = crate::semantic::Projection::from_bytes(projection, "projection")?;
    let config = serde_json::to_string(config).expect("serialises");
    let hash = model_hash(&[onnx, tokenizer_json, &projection.to_bytes(), config.as_bytes()]);
    crate::semantic::Stage::new(std::sync::Arc::new(encoder), projection, hash)
}

/// One hash of a stage's files, each length-prefixed so no two lists of
/// files hash alike by moving bytes between them.
fn model_hash(parts: &[&[u8]]) -> u128 {
    let mut all = Vec::with_capacity(parts.iter().map(|p| p.len() + 8).sum());
    for part in parts {
        all.extend_from_slice(&(part.len() as u64).to_le_bytes());
        all.extend_from_slice(part);
    }
    crate::util::hash::hash128(&all)
}

/// `tokenizer.json` as the encoders use it: texts are cut into windows (or
/// not at all) here, not by the tokenizer's own truncation and padding.
fn load_tokenizer(tokenizer_json: &[u8]) -> Result<tokenizers::Tokenizer> {
    let mut tokenizer =
        tokenizers::Tokenizer::from_bytes(tokenizer_json).map_err(|e| model_error("tokenizer.json", e))?;
    tokenizer.with_truncation(None).map_err(|e| model_error("tokenizer.json", e))?;
    tokenizer.with_padding(None);
    Ok(tokenizer)
}

/// Token importance from the encoder's attention, for the weighted MinHash
/// (paper III-B): a word's importance is the mean over the model tokens that
/// fall inside it (1.0 for a word the tokenizer left out).
pub struct Attention(pub std::sync::Arc<Encoder>);

impl crate::sketch::TokenImportance for Attention {
    fn importance(&self, normalized: &str) -> Option<Vec<f32>> {
        let encoded = self.0.encode(&[normalized]).ok()?.pop()?;
        let words = crate::sketch::tokens::words(normalized);
        let mut sums = vec![(0f32, 0u32); words.len()];
        // Tokens and words both come in text order: one merge pass.
        let mut w = 0;
        for (span, weight) in &encoded.importance {
            while w < words.len() && (words[w].end as usize) <= span.start {
                w += 1;
            }
            if w < words.len() && (words[w].start as usize) <= span.start {
                sums[w].0 += weight;
                sums[w].1 += 1;
            }
        }
        Some(sums.into_iter().map(|(s, n)| if n == 0 { 1.0 } else { s / n as f32 }).collect())
    }
}
