//! Hash functions for every signature part.
//!
//! All hashing is integer arithmetic on fixed-width types with fixed seeds,
//! little-endian where bytes are involved, and never a `usize`: a signature
//! made by the native binary and one made in a browser must agree bit for bit.

use twox_hash::{XxHash3_128, XxHash3_64};

/// xxh3-64 of `bytes` under `seed`.
#[inline]
pub fn hash64(seed: u64, bytes: &[u8]) -> u64 {
    XxHash3_64::oneshot_with_seed(seed, bytes)
}

/// xxh3-128 of `bytes`; the exact-duplicate key.
#[inline]
pub fn hash128(bytes: &[u8]) -> u128 {
    XxHash3_128::oneshot(bytes)
}

/// The 64-bit finaliser of MurmurHash3: a bijection with full avalanche.
#[inline]
pub const fn mix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The 32-bit finaliser of MurmurHash3. Two multiplies and three shifts, all
/// of which vectorise to eight lanes on AVX2 and four on wasm SIMD128.
#[inline(always)]
pub const fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// Folds a sequence of hashes into one, order-sensitively (for n-grams).
#[inline]
pub const fn combine(acc: u64, next: u64) -> u64 {
    mix64(acc.rotate_left(23) ^ next).wrapping_add(0x9e37_79b9_7f4a_7c15)
}

/// Reduces a 64-bit hash to the 32-bit key the sketch kernels work on.
#[inline]
pub const fn key32(h: u64) -> u32 {
    fmix32((h ^ (h >> 32)) as u32)
}

/// A hasher for keys that are hashes already: passes them through.
///
/// The statistics, LSH buckets and exact index are keyed by 64- and 128-bit
/// hashes; hashing them again with SipHash only costs time.
#[derive(Clone, Copy, Debug, Default)]
pub struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |h, &b| combine(h, b as u64));
    }

    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }

    fn write_u128(&mut self, v: u128) {
        self.0 ^= v as u64 ^ (v >> 64) as u64;
    }
}

/// A map keyed by hashes.
pub type PrehashedMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<Prehashed>>;

/// `n` pseudo-random 32-bit seeds from one 64-bit seed (SplitMix64).
pub fn seeds(seed: u64, n: usize) -> Vec<u32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            (mix64(state) >> 32) as u32
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_answers_do_not_drift() {
        // Guards the hash choice itself: these feed every stored signature.
        assert_eq!(hash64(0, b""), 0x2d06_8005_38d3_94c2);
        assert_eq!(fmix32(1), 0x514e_28b7);
        assert_eq!(seeds(7, 3).len(), 3);
        assert_ne!(combine(1, 2), combine(2, 1));
    }
}
