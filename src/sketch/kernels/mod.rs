//! The hot loops of sketching, behind one interface.
//!
//! Signing a document means hashing every shingle under every one of K
//! permutations (MinHash) or drawing K consistent weighted samples per
//! shingle (CWS): that inner loop over K is where the time goes. Both loops
//! are written once, in [`portable`], as straight-line arithmetic over slices
//! of equal length with no branches in the loop body, so LLVM vectorises them.
//! This module compiles that same code again with AVX2 and with AVX-512 and
//! picks the widest version the CPU has at run time; on wasm32 the portable
//! version is vectorised by `-C target-feature=+simd128`.
//!
//! The kernels use only integer operations and IEEE `+ - * /` on `f32` (no
//! fused multiply-add, no platform `ln`): every version gives the same bits
//! on every machine, which the tests check on random inputs.
//!
//! Comparing semantic sketches (Hamming distance of codes, int8 dot products)
//! is the hot loop of semantic blocking and lives here for the same reason:
//! one probe of the CPU, one place that may run `unsafe` feature-gated code.

pub mod portable;

/// One implementation of the kernels, and only ever one this CPU runs: a
/// value comes from probing the CPU ([`Kernel::best`], [`Kernel::available`],
/// [`Kernel::named`]) or is the portable one, so safe code cannot reach an
/// instruction set the CPU lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Isa);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    /// Compiled for the target's baseline (SSE2 on x86-64, SIMD128 on wasm when enabled).
    Portable,
    /// The same code compiled with AVX2 (x86-64 only).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// The same code compiled with AVX-512F.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

/// Names a kernel to use instead of the fastest (tests, benchmarks): `portable`, `avx2` or `avx512`.
pub const KERNEL_ENV: &str = "SEMHASH_KERNEL";

impl Kernel {
    /// The baseline kernel, which every CPU runs.
    pub const PORTABLE: Kernel = Kernel(Isa::Portable);

    /// The kernel runs use: the one [`KERNEL_ENV`] names when this CPU runs
    /// it, else the fastest this CPU runs. Probed once per process.
    pub fn best() -> Kernel {
        static BEST: std::sync::OnceLock<Kernel> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| {
            let named = std::env::var(KERNEL_ENV).ok().and_then(|n| Kernel::named(&n));
            named.unwrap_or_else(|| *Kernel::available().last().expect("portable is always available"))
        })
    }

    /// Every kernel this CPU runs, slowest first (for tests and benchmarks).
    pub fn available() -> Vec<Kernel> {
        #[cfg(target_arch = "x86_64")]
        return [
            Some(Isa::Portable),
            (std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")).then_some(Isa::Avx2),
            (std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("popcnt"))
                .then_some(Isa::Avx512),
        ]
        .into_iter()
        .flatten()
        .map(Kernel)
        .collect();
        #[cfg(not(target_arch = "x86_64"))]
        return vec![Kernel::PORTABLE];
    }

    /// The kernel of that [`name`](Kernel::name), if this CPU runs it.
    pub fn named(name: &str) -> Option<Kernel> {
        Kernel::available().into_iter().find(|k| k.name().eq_ignore_ascii_case(name))
    }

    /// `Portable`, `Avx2` or `Avx512` (as a run's report says).
    pub fn name(self) -> &'static str {
        match self.0 {
            Isa::Portable => "Portable",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => "Avx2",
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => "Avx512",
        }
    }
}

/// Declares each kernel once: a method of [`Kernel`] that runs the
/// [`portable`] function of that name, or the same source compiled with AVX2
/// (and `popcnt`, which every AVX2 CPU has) or with AVX-512F.
///
/// `#[target_feature]` lets LLVM use wider registers for the same source:
/// eight (AVX2) or sixteen (AVX-512) `u32`/`f32` lanes per instruction instead
/// of four, and with AVX-512 twice the registers, which the ICWS loop's
/// constants need.
/// A kernel may name another [`portable`] function of the same signature
/// for AVX-512 (`=> avx512: name`) where a wider register changes how the
/// source is best written, not only how it compiles.
macro_rules! kernels {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? $(=> avx512: $wide:ident)?;)*) => {
        impl Kernel {
            $($(#[$doc])* pub fn $name(self, $($arg: $ty),*) $(-> $ret)? {
                match self.0 {
                    Isa::Portable => portable::$name($($arg),*),
                    // SAFETY: a `Kernel` of these holds only after `available`
                    // saw the CPU report the features.
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx2 => unsafe { x86::avx2::$name($($arg),*) },
                    #[cfg(target_arch = "x86_64")]
                    Isa::Avx512 => unsafe { x86::avx512::$name($($arg),*) },
                }
            })*
        }

        #[cfg(target_arch = "x86_64")]
        mod x86 {
            pub mod avx2 {
                use super::super::*;
                $(#[target_feature(enable = "avx2,popcnt")]
                pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? { portable::$name($($arg),*) })*
            }
            pub mod avx512 {
                use super::super::*;
                $(#[target_feature(enable = "avx512f,popcnt")]
                pub unsafe fn $name($($arg: $ty),*) $(-> $ret)? { (first!($(portable::$wide,)? portable::$name))($($arg),*) })*
            }
        }
    };
}

/// The first of its arguments.
#[cfg(target_arch = "x86_64")]
macro_rules! first {
    ($first:path $(, $rest:path)*) => {
        $first
    };
}

kernels! {
    /// `sig[k] = min(sig[k], min over x in keys of fmix32(x ^ seeds[k]))`.
    fn minhash(keys: &[u32], seeds: &[u32], sig: &mut [u32]);
    /// Folds weighted elements into the running ICWS minima; see [`portable::icws`].
    fn icws(keys: &[u32], ln_weights: &[f32], seeds: &IcwsSeeds, state: &mut IcwsState) => avx512: icws_wide;
    /// Bits that differ between two packed codes; see [`portable::hamming`].
    fn hamming(a: &[u64], b: &[u64]) -> u32;
    /// `[a·b, a·a, b·b]` of two int8 vectors; see [`portable::dot_i8`].
    fn dot_i8(a: &[i8], b: &[i8]) -> [i32; 3];
}

/// Per-sampler seeds of the four hashes behind the ICWS random variables.
#[derive(Clone, Debug)]
///
/// Kept as four columns, one value per sampler, so that the loop over the
/// samplers reads contiguous slices, which LLVM vectorises.
pub struct IcwsSeeds {
    /// First hash of `r ~ Gamma(2, 1)`.
    pub r1: Vec<u32>,
    /// Second hash of `r`.
    pub r2: Vec<u32>,
    /// First hash of `c ~ Gamma(2, 1)`.
    pub c1: Vec<u32>,
    /// Second hash of `c`. `β` comes from the low bytes of all four.
    pub c2: Vec<u32>,
}

impl IcwsSeeds {
    /// Seeds for `k` samplers, all drawn from `seed`.
    pub fn new(seed: u64, k: usize) -> Self {
        let all = crate::util::hash::seeds(seed, 4 * k);
        let part = |i: usize| all[i * k..(i + 1) * k].to_vec();
        IcwsSeeds { r1: part(0), r2: part(1), c1: part(2), c2: part(3) }
    }

    /// The number of samplers.
    pub fn len(&self) -> usize {
        self.r1.len()
    }

    /// Whether there are no samplers.
    pub fn is_empty(&self) -> bool {
        self.r1.is_empty()
    }
}

/// The running minimum of each of the K samplers: the smallest `ln a` seen,
/// and the element and quantised weight `t` that produced it.
#[derive(Clone, Debug)]
pub struct IcwsState {
    /// The smallest `ln a` each sampler has seen (infinity before any element).
    pub ln_a: Vec<f32>,
    /// An integer, kept as `f32` (exactly) so the loop needs no conversion.
    pub t: Vec<f32>,
    /// The element (its 32-bit key) that gave each minimum.
    pub key: Vec<u32>,
}

impl IcwsState {
    /// The state of `k` samplers before any element: every minimum infinite.
    pub fn new(k: usize) -> Self {
        IcwsState { ln_a: vec![f32::INFINITY; k], t: vec![0.0; k], key: vec![0; k] }
    }

    /// The K samples as 32-bit values: equal exactly when both the element and
    /// `t` agree, which happens with probability equal to the weighted Jaccard.
    pub fn finish(&self) -> Vec<u32> {
        self.key
            .iter()
            .zip(&self.t)
            .map(|(&key, &t)| crate::util::hash::fmix32(key ^ crate::util::hash::fmix32(t as i32 as u32 ^ 0x7f4a_7c15)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::hash::{mix64, seeds};

    fn random_u32(n: usize, seed: u64) -> Vec<u32> {
        (0..n as u64).map(|i| (mix64(seed ^ i) >> 7) as u32).collect()
    }

    #[test]
    fn a_kernel_is_found_by_its_name_only_where_the_cpu_runs_it() {
        for kernel in Kernel::available() {
            assert_eq!(Kernel::named(&kernel.name().to_lowercase()), Some(kernel));
        }
        assert_eq!(Kernel::named("portable"), Some(Kernel::PORTABLE));
        assert_eq!(Kernel::named("neon"), None);
        assert!(Kernel::available().contains(&Kernel::best()));
    }

    #[test]
    fn every_kernel_agrees_with_portable_bit_for_bit() {
        for k in [1, 7, 64, 128, 130] {
            let keys = random_u32(500, k as u64);
            let ln_w: Vec<f32> = random_u32(500, 99).iter().map(|&x| (x % 4000) as f32 / 1000.0 - 2.0).collect();
            let s = seeds(3, k);
            let icws_seeds = IcwsSeeds::new(11, k);
            let mut want_sig = vec![u32::MAX; k];
            Kernel::PORTABLE.minhash(&keys, &s, &mut want_sig);
            let mut want = IcwsState::new(k);
            Kernel::PORTABLE.icws(&keys, &ln_w, &icws_seeds, &mut want);
            for kernel in Kernel::available() {
                let mut sig = vec![u32::MAX; k];
                kernel.minhash(&keys, &s, &mut sig);
                assert_eq!(sig, want_sig, "{kernel:?} minhash k={k}");
                let mut got = IcwsState::new(k);
                kernel.icws(&keys, &ln_w, &icws_seeds, &mut got);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got.t), bits(&want.t), "{kernel:?} icws t k={k}");
                assert_eq!(got.key, want.key, "{kernel:?} icws key k={k}");
                assert_eq!(
                    got.ln_a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                    want.ln_a.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
                );
            }
        }
    }

    #[test]
    fn every_kernel_compares_codes_and_embeddings_as_portable_does() {
        for n in [0, 1, 2, 4, 31, 384, 1000] {
            let words = |seed| random_u32(2 * n, seed).chunks(2).map(|c| (c[0] as u64) << 32 | c[1] as u64).collect();
            let (a, b): (Vec<u64>, Vec<u64>) = (words(5), words(6));
            let bytes = |seed| random_u32(n, seed).iter().map(|&x| x as i8).collect::<Vec<i8>>();
            let (x, y) = (bytes(7), bytes(8));
            let (want_h, want_d) = (Kernel::PORTABLE.hamming(&a, &b), Kernel::PORTABLE.dot_i8(&x, &y));
            let naive: u32 =
                a.iter().zip(&b).map(|(p, q)| (0..64).filter(|i| (p ^ q) >> i & 1 == 1).count() as u32).sum();
            assert_eq!(want_h, naive, "n={n}");
            let dot = |p: &[i8], q: &[i8]| p.iter().zip(q).map(|(&s, &t)| s as i32 * t as i32).sum::<i32>();
            assert_eq!(want_d, [dot(&x, &y), dot(&x, &x), dot(&y, &y)], "n={n}");
            for kernel in Kernel::available() {
                assert_eq!(kernel.hamming(&a, &b), want_h, "{kernel:?} hamming n={n}");
                assert_eq!(kernel.dot_i8(&x, &y), want_d, "{kernel:?} dot_i8 n={n}");
            }
        }
    }
}
