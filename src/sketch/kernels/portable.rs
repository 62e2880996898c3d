//! Portable kernels: plain Rust the compiler vectorises (see the parent module).

use super::{IcwsSeeds, IcwsState};
use crate::util::hash::fmix32;

/// Unweighted MinHash update. Permutation k of a key is `fmix32(key ^ seeds[k])`,
/// a bijection of `u32` for every seed.
#[inline(always)]
pub fn minhash(keys: &[u32], seeds: &[u32], sig: &mut [u32]) {
    let n = sig.len().min(seeds.len());
    let (seeds, sig) = (&seeds[..n], &mut sig[..n]);
    for &key in keys {
        for k in 0..n {
            sig[k] = sig[k].min(fmix32(key ^ seeds[k]));
        }
    }
}

/// Bits that differ between two packed codes. `count_ones` is one `popcnt`
/// per word where the kernel enables it; a code is two to four words, too
/// few for vector popcount to pay for its setup.
#[inline(always)]
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// `[a·b, a·a, b·b]` of two int8 vectors, in `i32`: exact (each product is at
/// most 2^14, so 2^17 components fit), hence equal on every kernel.
#[inline(always)]
pub fn dot_i8(a: &[i8], b: &[i8]) -> [i32; 3] {
    let (mut ab, mut aa, mut bb) = (0i32, 0i32, 0i32);
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (x as i32, y as i32);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    [ab, aa, bb]
}

/// A uniform in (0, 1) from the top 24 bits of a hash; never 0 or 1.
#[inline(always)]
fn uniform(h: u32) -> f32 {
    ((h >> 8) as f32 + 0.5) * (1.0 / 16_777_216.0)
}

/// Natural logarithm of a positive normal `f32`, in IEEE `+ - *` only so
/// that every platform gets the same bits (a platform `ln` need not), and
/// without a division, which costs as much as the rest together in SIMD.
/// `x = m · 2^e` with `m` in [√½, √2), then `ln m ≈ d + d² q(d)` with
/// `d = m − 1` and `q` a cubic least-squares fit on Chebyshev nodes:
/// absolute error below 5e-5. That is plenty: every platform computes the
/// same function bit for bit, so both sides of a comparison sample alike,
/// and the sampling distribution moves by less than the error.
#[inline(always)]
pub fn ln(x: f32) -> f32 {
    const SQRT_HALF_BITS: i32 = 0x3f35_04f3;
    const LN_2: f32 = std::f32::consts::LN_2;
    let bits = x.to_bits() as i32;
    let e = (bits - SQRT_HALF_BITS) >> 23;
    let m = f32::from_bits((bits - (e << 23)) as u32) - 1.0;
    let q = 0.182_328_26;
    let q = q * m - 0.267_735;
    let q = q * m + 0.334_959_23;
    let q = q * m - 0.499_749_56;
    m + m * m * q + e as f32 * LN_2
}

/// `1 / x` for a positive normal `f32`, in multiplications only: a bit-level
/// first guess and three Newton steps (relative error below 2e-7). LLVM will
/// not vectorise a loop with a division for wasm SIMD128; this it vectorises
/// everywhere, with the same bits everywhere.
#[inline(always)]
pub fn recip(x: f32) -> f32 {
    let y = f32::from_bits(0x7ef3_11c3u32.wrapping_sub(x.to_bits()));
    let y = y * (2.0 - x * y);
    let y = y * (2.0 - x * y);
    y * (2.0 - x * y)
}

/// Improved consistent weighted sampling (Ioffe, ICDM 2010), K samplers at once.
///
/// For element `x` with weight `w` and sampler k, with `r, c ~ Gamma(2, 1)` and
/// `β ~ U(0, 1)` drawn from hashes of `(x, k)`:
/// `t = ⌊ln w / r + β⌋` and `ln a = ln c − r (t − β + 1)`; each sampler keeps
/// the `(x, t)` of the smallest `ln a`. Two weighted sets then agree on a
/// sampler with probability equal to their weighted Jaccard similarity.
/// `Gamma(2, 1)` is `−ln(u₁u₂)`. The five uniforms come from four hashes of
/// `(x, k)`: the top 24 bits of each, and `β` from their four low bytes. Keys
/// must be distinct and sorted so ties resolve the same way everywhere.
///
/// Measured and not done: a dart sampler in the manner of DartMinHash
/// (a Poisson process of darts over each element's weight, each dart for one
/// uniformly drawn sampler, generated in rank order until every sampler has
/// one: O(n + K ln K) draws instead of n × K). At K = 128 it drew about
/// 1,000 darts per set whatever the set's size, plus one draw for each cell
/// of the weight axis an element reached (about nine per element), at about
/// 6 ns each as scalar code; this loop costs 1.8 ns per element and sampler
/// under AVX-512 (`cargo bench --bench kernels`). The 100k bench corpus took
/// 9.3-10.0 s on one thread against 7.7-8.1 s (2026-12-01). Marking each dart for four samplers cut the darts by four
/// but made the samples 1.6 times as spread as independent ones: the
/// lowest darts decide several samplers at once.
#[inline(always)]
pub fn icws(keys: &[u32], ln_weights: &[f32], seeds: &IcwsSeeds, state: &mut IcwsState) {
    icws_by::<SAMPLERS_AT_ONCE>(keys, ln_weights, seeds, state)
}

/// [`icws`] with sixteen samplers at once: one AVX-512 register each for
/// the minima, and there are 32 registers for the constants. Compiled
/// without AVX-512 it spills (AVX2: 5.5 ns a draw against 2.7 at eight).
#[inline(always)]
pub fn icws_wide(keys: &[u32], ln_weights: &[f32], seeds: &IcwsSeeds, state: &mut IcwsState) {
    icws_by::<16>(keys, ln_weights, seeds, state)
}

/// [`icws`] with `W` samplers' minima held in registers.
#[inline(always)]
fn icws_by<const W: usize>(keys: &[u32], ln_weights: &[f32], seeds: &IcwsSeeds, state: &mut IcwsState) {
    let n = state.ln_a.len().min(seeds.len());
    for first in (0..n).step_by(W) {
        // The last group ends at sampler n - 1, overlapping the one before
        // or repeating sampler n - 1 when there are fewer than W: drawing a
        // sampler's elements again leaves its minimum as it was (a draw
        // replaces it only when smaller), so one loop covers every count.
        let first = first.min(n.saturating_sub(W));
        let lane: [usize; W] = std::array::from_fn(|k| (first + k).min(n - 1));
        let (r1, r2, c1, c2) = (seeds.r1.as_slice(), seeds.r2.as_slice(), seeds.c1.as_slice(), seeds.c2.as_slice());
        let (r1, r2, c1, c2) = (lane.map(|i| r1[i]), lane.map(|i| r2[i]), lane.map(|i| c1[i]), lane.map(|i| c2[i]));
        let (mut best, mut best_t, mut best_key) =
            (lane.map(|i| state.ln_a[i]), lane.map(|i| state.t[i]), lane.map(|i| state.key[i]));
        for (&key, &ln_w) in keys.iter().zip(ln_weights) {
            for k in 0..W {
                let (ln_a, t) = draw(key, ln_w, r1[k], r2[k], c1[k], c2[k]);
                // A bit-mask blend, not `if`: a branch per lane would
                // leave the loop scalar.
                let keep_new = ((ln_a < best[k]) as u32).wrapping_neg();
                let blend = |new: u32, old: u32| (new & keep_new) | (old & !keep_new);
                best[k] = f32::from_bits(blend(ln_a.to_bits(), best[k].to_bits()));
                best_t[k] = f32::from_bits(blend(t.to_bits(), best_t[k].to_bits()));
                best_key[k] = blend(key, best_key[k]);
            }
        }
        for (k, &i) in lane.iter().enumerate() {
            (state.ln_a[i], state.t[i], state.key[i]) = (best[k], best_t[k], best_key[k]);
        }
    }
}

/// Samplers taken together by [`icws`]: their running minima stay in
/// registers while every element is drawn, and are stored once. The loop
/// the other way round (each element, then every sampler) kept them in
/// memory, where LLVM made each blend of an old and a new value a masked
/// store: on AMD Zen, with AVX2, the loop took 6.2 ns a draw that way and
/// 3.4 ns this way (`cargo bench --bench kernels`; 16 at once: 6.3, 4: 6.4).
/// Every sampler still sees the elements in the same order, so the minima,
/// ties included, are the same bits. In wasm, four: one SIMD128 register,
/// and the unrolled loop a quarter as large in the lite module's size budget.
/// The AVX-512 kernel takes sixteen ([`icws_wide`]).
#[cfg(not(target_arch = "wasm32"))]
const SAMPLERS_AT_ONCE: usize = 8;
#[cfg(target_arch = "wasm32")]
const SAMPLERS_AT_ONCE: usize = 4;

/// One ICWS draw: `(ln a, t)` of element `key` with weight `e^ln_w` under the
/// sampler whose seeds are given.
#[inline(always)]
fn draw(key: u32, ln_w: f32, r1: u32, r2: u32, c1: u32, c2: u32) -> (f32, f32) {
    let (h1, h2, h3, h4) = (fmix32(key ^ r1), fmix32(key ^ r2), fmix32(key ^ c1), fmix32(key ^ c2));
    let r = -ln(uniform(h1) * uniform(h2));
    let c = -ln(uniform(h3) * uniform(h4));
    let beta = uniform((h1 & 0xff) << 24 | (h2 & 0xff) << 16 | (h3 & 0xff) << 8 | (h4 & 0xff));
    // `t` stays a float in the loop (integer conversion is left to `finish`).
    // |ln w / r| < 1e8 for the weights and uniforms used; the clamp keeps `t`
    // in i32 range regardless.
    let t = (ln_w * recip(r) + beta).clamp(-1.0e9, 1.0e9).floor();
    (ln(c) - r * (t - beta + 1.0), t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::hash::mix64;

    #[test]
    fn icws_keeps_each_sampler_s_first_smallest_draw() {
        let keys: Vec<u32> = (0..300u64).map(|i| (mix64(i) >> 32) as u32).collect();
        let ln_w: Vec<f32> = (0..300).map(|i| ln(0.25 + (i % 17) as f32)).collect();
        type Icws = fn(&[u32], &[f32], &IcwsSeeds, &mut IcwsState);
        let widths: [(&str, Icws); 2] = [("icws", icws), ("icws_wide", icws_wide)];
        for ((name, icws), k) in widths.into_iter().flat_map(|w| [1, 7, 8, 16, 64, 130].map(|k| (w, k))) {
            let seeds = IcwsSeeds::new(5, k);
            let mut got = IcwsState::new(k);
            icws(&keys, &ln_w, &seeds, &mut got);
            for s in 0..k {
                let draws = keys
                    .iter()
                    .zip(&ln_w)
                    .map(|(&x, &w)| (draw(x, w, seeds.r1[s], seeds.r2[s], seeds.c1[s], seeds.c2[s]), x));
                let ((ln_a, t), x) = draws.fold(((f32::INFINITY, 0.0), 0), |m, d| if d.0 .0 < m.0 .0 { d } else { m });
                assert_eq!(
                    (got.ln_a[s].to_bits(), got.t[s].to_bits(), got.key[s]),
                    (ln_a.to_bits(), t.to_bits(), x),
                    "{name} k={k} s={s}"
                );
            }
        }
    }

    #[test]
    fn recip_is_accurate_over_the_range_used() {
        for &x in &[6e-8f32, 1e-5, 0.001, 0.3, 0.99, 1.0, 1.5, 2.0, 7.0, 33.0] {
            let err = (recip(x) as f64 * x as f64 - 1.0).abs();
            assert!(err < 2e-7, "recip({x}): relative error {err}");
        }
    }

    #[test]
    fn ln_is_accurate_over_the_range_used() {
        for &x in &[1e-14f32, 1e-7, 0.001, 0.3, 0.70710677, 1.0, 1.5, 2.0, 33.0, 1e6] {
            let want = (x as f64).ln();
            let got = ln(x) as f64;
            assert!((got - want).abs() <= 6e-5 * want.abs().max(1.0), "ln({x}) = {got}, want {want}");
        }
    }
}
