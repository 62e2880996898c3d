//! The semantic part of a signature: a K-bit code and an int8 embedding
//! (made by [`crate::semantic`]), and the arithmetic that compares them.

use super::kernels::Kernel;
use serde::{Deserialize, Serialize};

/// The semantic part of a signature.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SemanticSketch {
    /// K bits, packed 64 to a word, bit `k % 64` of word `k / 64` for hyperplane `k`.
    pub code: Vec<u64>,
    /// The embedding scaled so its largest component is ±127, rounded.
    pub embedding: Vec<i8>,
}

impl SemanticSketch {
    /// The sketch of an embedding whose code is computed already: keeps the
    /// code and quantizes the embedding to int8.
    pub fn new(code: Vec<u64>, embedding: &[f32]) -> Self {
        SemanticSketch { code, embedding: quantize(embedding) }
    }

    /// Bits that differ between the two codes.
    pub fn hamming(&self, other: &SemanticSketch) -> u32 {
        hamming(&self.code, &other.code)
    }

    /// Cosine of the two int8 embeddings (0 when either is all zero).
    pub fn cosine(&self, other: &SemanticSketch) -> f32 {
        cosine_i8(&self.embedding, &other.embedding)
    }
}

/// Hamming distance of two packed codes, on the fastest kernel this CPU runs.
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    Kernel::best().hamming(a, b)
}

/// A code as hex, its 64-bit words low first (test vectors, the JS face).
pub fn code_hex(code: &[u64]) -> String {
    code.iter().map(|w| format!("{w:016x}")).collect()
}

/// Scales `v` so its largest magnitude is 127 and rounds. Cosine is scale-free,
/// so no scale needs to be kept.
pub fn quantize(v: &[f32]) -> Vec<i8> {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return vec![0; v.len()];
    }
    v.iter().map(|x| (x * 127.0 / max).round() as i8).collect()
}

/// Cosine of two int8 vectors, in integers until the final division.
pub fn cosine_i8(a: &[i8], b: &[i8]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    let [ab, aa, bb] = Kernel::best().dot_i8(a, b);
    if aa == 0 || bb == 0 {
        return 0.0;
    }
    (ab as f64 / ((aa as f64).sqrt() * (bb as f64).sqrt())) as f32
}

/// Cosine of two float vectors.
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let d = norm(a) * norm(b);
    if d == 0.0 {
        0.0
    } else {
        dot / d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pseudo_random(seed: u64, n: usize) -> Vec<f32> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = crate::util::hash::mix64(x);
                (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect()
    }

    #[test]
    fn int8_cosine_tracks_float_cosine() {
        let mut worst = 0f32;
        for s in 0..200u64 {
            let a = pseudo_random(s, 384);
            // Mix a with another vector for cosines across the whole range.
            let b: Vec<f32> =
                a.iter().zip(pseudo_random(s + 1000, 384)).map(|(x, y)| x * (s % 10) as f32 + y).collect();
            let err = (cosine(&a, &b) - cosine_i8(&quantize(&a), &quantize(&b))).abs();
            worst = worst.max(err);
        }
        assert!(worst < 0.005, "worst int8 cosine error {worst}");
    }

    #[test]
    fn hamming_counts_differing_bits() {
        assert_eq!(hamming(&[0b1011, u64::MAX], &[0b0001, 0]), 2 + 64);
        assert_eq!(quantize(&[0.0, 0.0]), vec![0, 0]);
        assert_eq!(cosine_i8(&[0, 0], &[1, 2]), 0.0);
    }
}
