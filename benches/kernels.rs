//! Throughput of the sketching kernels, each against the portable build.
//!
//! `cargo bench --bench kernels` prints, for the unweighted MinHash and the
//! ICWS loop, nanoseconds per (element × permutation) for every kernel this
//! CPU runs and the speed-up over `Portable` (the baseline x86-64 build:
//! SSE2 only). Each figure is the best of several repetitions.

use semhash::sketch::kernels::{portable, IcwsSeeds, IcwsState, Kernel};
use semhash::util::hash::{mix64, seeds};
use std::hint::black_box;
use std::time::Instant;

const ELEMENTS: usize = 100;
const PERMS: usize = 128;
const DOCS: usize = 2_000;

fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let docs: Vec<Vec<u32>> = (0..DOCS as u64)
        .map(|d| {
            let mut keys: Vec<u32> = (0..ELEMENTS as u64).map(|i| (mix64(d << 20 ^ i) >> 32) as u32).collect();
            keys.sort_unstable();
            keys
        })
        .collect();
    let ln_w: Vec<f32> = (0..ELEMENTS).map(|i| portable::ln(0.5 + (i % 13) as f32)).collect();
    let minhash_seeds = seeds(1, PERMS);
    let icws_seeds = IcwsSeeds::new(2, PERMS);
    let work = (DOCS * ELEMENTS * PERMS) as f64;

    println!("{:<10} {:>16} {:>9} {:>16} {:>9}", "kernel", "minhash ns/op", "speed-up", "icws ns/op", "speed-up");
    let mut base = (0.0, 0.0);
    for kernel in Kernel::available() {
        let minhash = best_of(5, || {
            for keys in &docs {
                let mut sig = vec![u32::MAX; PERMS];
                kernel.minhash(keys, &minhash_seeds, &mut sig);
                black_box(&sig);
            }
        }) / work
            * 1e9;
        let icws = best_of(3, || {
            for keys in &docs {
                let mut state = IcwsState::new(PERMS);
                kernel.icws(keys, &ln_w, &icws_seeds, &mut state);
                black_box(&state);
            }
        }) / work
            * 1e9;
        if kernel == Kernel::PORTABLE {
            base = (minhash, icws);
        }
        println!(
            "{:<10} {:>16.3} {:>8.2}x {:>16.3} {:>8.2}x",
            kernel.name(),
            minhash,
            base.0 / minhash,
            icws,
            base.1 / icws
        );
    }
    println!("({DOCS} documents x {ELEMENTS} elements x {PERMS} permutations per repetition)");
}
