//! Stage 2c: meaning as bits. Semantic projection hashing (paper III-A).
//!
//! An embedding (from [`crate::encoder`], or any other source of L2-normalised
//! vectors) becomes two things in the signature:
//!
//! - a **code** of K bits, one per learned hyperplane ([`Projection`]): texts
//!   with close embeddings get codes at a small Hamming distance, so blocking
//!   by code ([`crate::index::mih`]) proposes the pairs worth a closer look without comparing
//!   every pair;
//! - an **int8 copy** of the embedding, for the exact cosine of a candidate
//!   pair: 384 bytes instead of 1,536, and the cosine of the copies is within
//!   0.005 of the float one (the bound the tests below check).
//!
//! The code says who to compare; the cosine decides. A code alone would carry
//! the hyperplanes' rounding into the verdict.

pub mod projection;
pub mod train;

pub use projection::Projection;

use crate::sketch::semantic::SemanticSketch;
use crate::Result;
use serde::{Deserialize, Serialize};

/// What a pipeline asks of the encoder (`semantic` in a
/// [`Config`](crate::Config)). The model files are the caller's to supply
/// ([`crate::Deduper::with_semantic`]): a configuration names what runs,
/// not where a model lies.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SemanticConfig {
    /// Run the semantic stage: embed the short texts the lexical stages left
    /// undecided, index their codes and link paraphrases.
    pub enabled: bool,
    /// Weigh word shingles by the encoder's attention as well as IDF (every
    /// distinct text is encoded before the lexical stages).
    pub attention_weights: bool,
}

/// Anything that turns texts into L2-normalised embeddings: the student
/// encoder natively, or embeddings computed elsewhere.
pub trait Embedder: Send + Sync {
    /// One embedding per text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// Embedding dimensions.
    fn dims(&self) -> usize;
}

/// What a pipeline needs for its semantic stage: an embedder, the
/// hyperplanes, and a hash of the model files (signatures made with other
/// models must not be compared with these). Cloning shares the embedder.
#[derive(Clone)]
pub struct Stage {
    /// Turns texts into embeddings; shared, since a model is large.
    pub embedder: std::sync::Arc<dyn Embedder>,
    /// The hyperplanes that turn an embedding into a code, with the radius
    /// table that blocking reads.
    pub projection: Projection,
    /// Hash of the model files, mixed into the pipeline's fingerprint.
    pub model_hash: u128,
}

impl Stage {
    /// Checks that the embedder and the hyperplanes agree on dimensions.
    ///
    /// # Errors
    ///
    /// [`Error::Config`](crate::Error::Config) when they do not.
    pub fn new(embedder: std::sync::Arc<dyn Embedder>, projection: Projection, model_hash: u128) -> Result<Self> {
        if embedder.dims() != projection.dims {
            return Err(crate::Error::Config(format!(
                "the projection expects {}-dimensional embeddings, the encoder gives {}",
                projection.dims,
                embedder.dims()
            )));
        }
        Ok(Stage { embedder, projection, model_hash })
    }

    /// Sketches of `texts`, embedded on all threads.
    ///
    /// # Errors
    ///
    /// The embedder's first error.
    pub fn sketch(&self, texts: &[&str], progress: &dyn crate::util::Progress) -> Result<Vec<SemanticSketch>> {
        let embeddings = embed_all(self.embedder.as_ref(), texts, progress)?;
        Ok(crate::util::par::map(&embeddings, |e| self.projection.sketch(e)))
    }
}

// Checkpoints are files: native builds only.
#[cfg(not(target_arch = "wasm32"))]
mod checkpointed {
    use super::*;

    /// Texts embedded between two checkpoints: about a second of encoder time
    /// on one core, so a killed run loses at most that per thread.
    pub const CHECKPOINT_TEXTS: usize = 256;

    impl Stage {
        /// [`Stage::sketch`] that keeps each finished piece of
        /// [`CHECKPOINT_TEXTS`] texts in `checkpoints` and loads pieces an
        /// earlier run finished instead of embedding them again; returns the
        /// sketches and how many of them were loaded. A piece is named by the
        /// model's hash and its texts, so only the same texts under the same
        /// model ever load it.
        ///
        /// # Errors
        ///
        /// The embedder's first error, or a piece that cannot be saved.
        pub fn sketch_checkpointed(
            &self,
            texts: &[&str],
            progress: &dyn crate::util::Progress,
            checkpoints: &dyn crate::util::checkpoint::Checkpoints,
        ) -> Result<(Vec<SemanticSketch>, u64)> {
            // Pieces run side by side (and each on all threads it can get);
            // their size stays fixed, so a rerun with other threads finds them.
            let pieces: Vec<&[&str]> = texts.chunks(CHECKPOINT_TEXTS).collect();
            let done = crate::util::par::map_heavy(&pieces, |piece| -> Result<(Vec<SemanticSketch>, bool)> {
                let mut named = self.model_hash.to_le_bytes().to_vec();
                for text in piece.iter() {
                    named.extend_from_slice(&(text.len() as u64).to_le_bytes());
                    named.extend_from_slice(text.as_bytes());
                }
                let key = format!("embed-{:032x}", crate::util::hash::hash128(&named));
                if let Some(saved) =
                    checkpoints.load(&key).and_then(|b| decode_piece(&b, piece.len(), &self.projection))
                {
                    progress.advance(piece.len() as u64);
                    return Ok((saved, true));
                }
                let sketches = self.sketch(piece, progress)?;
                checkpoints.save(&key, &encode_piece(&sketches))?;
                Ok((sketches, false))
            });
            let (mut out, mut loaded) = (Vec::with_capacity(texts.len()), 0u64);
            for piece in done {
                let (sketches, was_saved) = piece?;
                loaded += if was_saved { sketches.len() as u64 } else { 0 };
                out.extend(sketches);
            }
            Ok((out, loaded))
        }
    }

    const PIECE_MAGIC: [u8; 4] = *b"SHEP";

    /// A piece's sketches: magic, count, then each code (u64 LE words) and int8
    /// embedding, then the xxh3-64 of all before it.
    pub(super) fn encode_piece(sketches: &[SemanticSketch]) -> Vec<u8> {
        let mut bytes = PIECE_MAGIC.to_vec();
        bytes.extend_from_slice(&(sketches.len() as u32).to_le_bytes());
        for s in sketches {
            s.code.iter().for_each(|w| bytes.extend_from_slice(&w.to_le_bytes()));
            bytes.extend(s.embedding.iter().map(|&x| x as u8));
        }
        let sum = crate::util::hash::hash64(0, &bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes
    }

    /// The sketches of a saved piece of `count` texts, or `None` for bytes that
    /// are not one whole piece of this projection's sketches (torn by a kill,
    /// or damaged): the piece is then embedded again.
    pub(super) fn decode_piece(bytes: &[u8], count: usize, projection: &Projection) -> Option<Vec<SemanticSketch>> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if crate::util::hash::hash64(0, body) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        let (words, dims) = (projection.words(), projection.dims);
        let mut r = crate::util::bytes::Reader::new(body, "checkpoint");
        if r.array::<4>().ok()? != PIECE_MAGIC || r.u32().ok()? as usize != count {
            return None;
        }
        let mut out = Vec::with_capacity(count);
        for _ in 0..count {
            let code = (0..words).map(|_| r.u64()).collect::<Result<Vec<u64>>>().ok()?;
            let embedding = r.take(dims).ok()?.iter().map(|&b| b as i8).collect();
            out.push(SemanticSketch { code, embedding });
        }
        r.is_empty().then_some(out)
    }
}
#[cfg(not(target_arch = "wasm32"))]
pub use checkpointed::CHECKPOINT_TEXTS;

/// Embeds `texts` in chunks of 64 on all threads (each chunk is sorted by
/// length inside the encoder), reporting progress per chunk.
///
/// # Errors
///
/// The first chunk's error, in text order, once every chunk has run.
pub fn embed_all(
    embedder: &dyn Embedder,
    texts: &[&str],
    progress: &dyn crate::util::Progress,
) -> Result<Vec<Vec<f32>>> {
    let chunks: Vec<&[&str]> = texts.chunks(64).collect();
    let done = crate::util::par::map_heavy(&chunks, |chunk| {
        let out = embedder.embed(chunk);
        progress.advance(chunk.len() as u64);
        out
    });
    let mut out = Vec::with_capacity(texts.len());
    for chunk in done {
        out.extend(chunk?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::checkpointed::{decode_piece, encode_piece};
    use super::*;

    #[test]
    fn a_kept_piece_loads_back_and_a_torn_or_damaged_one_does_not() {
        let projection = Projection::random(128, 6, 3);
        let sketches: Vec<SemanticSketch> =
            (0..3).map(|i| projection.sketch(&[i as f32, 1.0, -2.0, 0.5, 3.0 - i as f32, 0.25])).collect();
        let bytes = encode_piece(&sketches);
        assert_eq!(decode_piece(&bytes, 3, &projection), Some(sketches));
        assert_eq!(decode_piece(&bytes, 2, &projection), None, "a piece of other texts");
        for cut in [0, 4, bytes.len() / 2, bytes.len() - 1] {
            assert_eq!(decode_piece(&bytes[..cut], 3, &projection), None, "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        assert_eq!(decode_piece(&flipped, 3, &projection), None);
        assert_eq!(decode_piece(&bytes, 3, &Projection::random(64, 6, 3)), None, "another projection's sketches");
    }
}
