//! Data parallelism where the build has threads (`parallel` feature), plain
//! iteration where it has not (wasm32): callers write one version.

#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// `items.iter().map(f).collect()`, on all threads when available.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    return items.par_iter().map(f).collect();
    #[cfg(not(feature = "parallel"))]
    return items.iter().map(f).collect();
}

/// `items.iter().enumerate().flat_map(f).collect()`, on all threads when available.
pub fn flat_map_indexed<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> Vec<R> + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    return items.par_iter().enumerate().flat_map_iter(|(i, t)| f(i, t)).collect();
    #[cfg(not(feature = "parallel"))]
    return items.iter().enumerate().flat_map(|(i, t)| f(i, t)).collect();
}

/// Unstable sort, on all threads when available.
pub fn sort<T: Ord + Send>(items: &mut [T]) {
    #[cfg(feature = "parallel")]
    items.par_sort_unstable();
    #[cfg(not(feature = "parallel"))]
    items.sort_unstable();
}
