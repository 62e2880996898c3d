//! The portable kernels compiled with AVX2, and with AVX-512.
//!
//! `#[target_feature]` lets LLVM use wider registers for the same source:
//! eight (AVX2) or sixteen (AVX-512) `u32`/`f32` lanes per instruction instead
//! of four, and with AVX-512 twice the registers, which the ICWS loop's
//! constants need.

use super::{portable, IcwsSeeds, IcwsState};

#[target_feature(enable = "avx2")]
pub unsafe fn minhash_avx2(keys: &[u32], seeds: &[u32], sig: &mut [u32]) {
    portable::minhash(keys, seeds, sig)
}

#[target_feature(enable = "avx512f")]
pub unsafe fn minhash_avx512(keys: &[u32], seeds: &[u32], sig: &mut [u32]) {
    portable::minhash(keys, seeds, sig)
}

#[target_feature(enable = "avx512f")]
pub unsafe fn icws_avx512(keys: &[u32], ln_weights: &[f32], seeds: &IcwsSeeds, state: &mut IcwsState) {
    portable::icws(keys, ln_weights, seeds, state)
}

#[target_feature(enable = "avx2")]
pub unsafe fn icws_avx2(keys: &[u32], ln_weights: &[f32], seeds: &IcwsSeeds, state: &mut IcwsState) {
    portable::icws(keys, ln_weights, seeds, state)
}
