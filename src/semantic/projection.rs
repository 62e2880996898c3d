//! K hyperplanes that turn an embedding into K bits, and their file format.
//!
//! Bit k of a code is `w_k · e + b_k > 0`. Random hyperplanes (SimHash) make
//! the chance that two codes agree on a bit `1 - θ/π` for embeddings at angle
//! θ; learned ones ([`super::train`]) aim at `(1 + cos θ) / 2`, which spends
//! the bits on the part of the space where the corpus lives.
//!
//! A projection also carries its **radius table**: for cosines 0.50, 0.55, …,
//! 0.95, the Hamming distance within which 99% of the calibration pairs at
//! that cosine or above fall. Blocking reads its radius from it, so the same
//! `block_cosine` means the same recall whatever the codes' K or training.
//!
//! ```text
//! offset  size      field
//! 0       4         magic "SHPJ"
//! 4       2         version (u16)
//! 6       2         K (u16)
//! 8       4         d (u32)
//! 12      4·K·d     W, hyperplane by hyperplane (f32)
//! …       4·K       b (f32)
//! …       2         radius table length n (u16)
//! …       8·n       (cosine f32, radius u32)
//! …       8         xxh3-64 of everything before
//! ```

use crate::sketch::semantic::SemanticSketch;
use crate::util::bytes::Reader;
use crate::util::hash::hash64;
use crate::{Error, Result};

const MAGIC: [u8; 4] = *b"SHPJ";
const VERSION: u16 = 1;

/// K hyperplanes over d-dimensional embeddings.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// `K`: hyperplanes, so bits per code.
    pub bits: usize,
    /// `d`: the dimensions of the embeddings it takes.
    pub dims: usize,
    /// `bits × dims`, row k is hyperplane k.
    pub weights: Vec<f32>,
    /// `b`, one per hyperplane: learned ones carry the corpus mean here
    /// (`b = −W·mean`), so that codes split the corpus, not the origin.
    pub bias: Vec<f32>,
    /// `(cosine, Hamming radius)`, cosines ascending.
    pub radius: Vec<(f32, u32)>,
}

impl Projection {
    /// Random Gaussian hyperplanes through the origin (SimHash), from `seed`.
    pub fn random(bits: usize, dims: usize, seed: u64) -> Self {
        let mut state = seed;
        let mut uniform = || {
            state = crate::util::hash::mix64(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
            ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        };
        // Box-Muller: two uniforms, one normal.
        let weights = (0..bits * dims)
            .map(|_| {
                let (u, v) = (uniform(), uniform());
                ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
            })
            .collect();
        Projection { bits, dims, weights, bias: vec![0.0; bits], radius: Vec::new() }
    }

    /// Words per code.
    pub fn words(&self) -> usize {
        self.bits.div_ceil(64)
    }

    /// The code of one embedding.
    pub fn code(&self, embedding: &[f32]) -> Vec<u64> {
        let mut code = vec![0u64; self.words()];
        for (k, w) in self.weights.chunks_exact(self.dims).enumerate() {
            let dot: f32 = w.iter().zip(embedding).map(|(a, b)| a * b).sum::<f32>() + self.bias[k];
            code[k / 64] |= ((dot > 0.0) as u64) << (k % 64);
        }
        code
    }

    /// Code and int8 copy of an embedding.
    pub fn sketch(&self, embedding: &[f32]) -> SemanticSketch {
        SemanticSketch::new(self.code(embedding), embedding)
    }

    /// Hamming radius for pairs at cosine `t` or above: the table's entry for
    /// the largest cosine not above `t` (a lower cosine has a wider radius),
    /// or a quarter of the bits with no table.
    pub fn radius_for(&self, t: f32) -> u32 {
        let fallback = (self.bits / 4) as u32;
        let below = self.radius.iter().rev().find(|&&(c, _)| c <= t + 1e-6);
        below.or(self.radius.first()).map_or(fallback, |&(_, r)| r)
    }

    /// The projection file (layout above), checksummed, as
    /// [`Projection::from_bytes`] reads it.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + 4 * (self.weights.len() + self.bias.len()) + 8 * self.radius.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(self.bits as u16).to_le_bytes());
        out.extend_from_slice(&(self.dims as u32).to_le_bytes());
        self.weights.iter().chain(&self.bias).for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        out.extend_from_slice(&(self.radius.len() as u16).to_le_bytes());
        for &(c, r) in &self.radius {
            out.extend_from_slice(&c.to_le_bytes());
            out.extend_from_slice(&r.to_le_bytes());
        }
        let sum = hash64(0, &out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a projection file; `context` names it in errors.
    ///
    /// # Errors
    ///
    /// [`Error::BadMagic`] when the bytes are not a projection file,
    /// [`Error::UnsupportedVersion`] for another format version, and
    /// [`Error::Corrupted`] when they are truncated, fail the checksum, have
    /// sizes that disagree with their length, or hold no hyperplanes.
    pub fn from_bytes(bytes: &[u8], context: &str) -> Result<Self> {
        let corrupted = |detail: &str| Error::Corrupted { context: context.to_owned(), detail: detail.to_owned() };
        let mut r = Reader::checksummed(bytes, MAGIC, 20, context)?;
        let version = r.u16()?;
        if version != VERSION {
            return Err(Error::UnsupportedVersion { context: context.to_owned(), found: version, supported: VERSION });
        }
        let bits = r.u16()? as usize;
        let dims = r.u32()? as usize;
        let floats =
            |r: &mut Reader, n: usize| -> Result<Vec<f32>> { Ok(r.u32s(n)?.into_iter().map(f32::from_bits).collect()) };
        let weights = floats(&mut r, bits.checked_mul(dims).ok_or_else(|| corrupted("size"))?)?;
        let bias = floats(&mut r, bits)?;
        let n = r.u16()? as usize;
        let radius = r.u32s(2 * n)?.chunks_exact(2).map(|p| (f32::from_bits(p[0]), p[1])).collect();
        if !r.is_empty() {
            return Err(r.malformed("length"));
        }
        if bits == 0 || dims == 0 {
            return Err(corrupted("no hyperplanes"));
        }
        Ok(Projection { bits, dims, weights, bias, radius })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_damage() {
        let mut p = Projection::random(64, 8, 3);
        p.radius = vec![(0.5, 20), (0.9, 6)];
        let bytes = p.to_bytes();
        assert_eq!(Projection::from_bytes(&bytes, "p").unwrap(), p);
        let mut flipped = bytes.clone();
        flipped[30] ^= 4;
        assert!(Projection::from_bytes(&flipped, "p").unwrap_err().to_string().contains("checksum"));
        assert!(matches!(Projection::from_bytes(b"SHSG0000", "p"), Err(Error::BadMagic { .. })));
    }

    #[test]
    fn radius_is_read_conservatively() {
        let mut p = Projection::random(128, 4, 1);
        p.radius = vec![(0.5, 30), (0.8, 14), (0.9, 8)];
        assert_eq!(p.radius_for(0.85), 14);
        assert_eq!(p.radius_for(0.9), 8);
        assert_eq!(p.radius_for(0.3), 30);
        p.radius.clear();
        assert_eq!(p.radius_for(0.8), 32);
    }

    #[test]
    fn random_codes_agree_more_for_closer_vectors() {
        let p = Projection::random(256, 16, 7);
        let a: Vec<f32> = (0..16).map(|i| (i as f32).sin()).collect();
        let near: Vec<f32> = a.iter().enumerate().map(|(i, x)| x + 0.1 * (i as f32).cos()).collect();
        let far: Vec<f32> = a.iter().enumerate().map(|(i, x)| -x + (i as f32 * 3.0).cos()).collect();
        let h = |b: &[f32]| crate::sketch::semantic::hamming(&p.code(&a), &p.code(b));
        assert!(h(&near) < 40 && h(&far) > 128, "near {}, far {}", h(&near), h(&far));
    }
}
