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
    let done = crate::util::par::map(&chunks, |chunk| {
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
