//! Data parallelism where the build has threads (`parallel` feature), plain
//! iteration where it has not (wasm32): callers write one version.
//!
//! Handing work to the thread pool from outside it wakes a worker and waits
//! on a latch: tens of microseconds, more than a few documents' worth of
//! normalizing, signing or verifying. So [`map`], [`flat_map_indexed`] and
//! [`sort`], which are given cheap items, stay on the calling thread below
//! [`POOL_FROM`] items (a `compare` of one pair, a query of one document, a
//! small batch); [`map_heavy`] is for items that cost milliseconds each
//! (a chunk of texts through the encoder) and always uses the pool.

#[cfg(feature = "parallel")]
use rayon::prelude::*;

/// The fewest cheap items worth handing to the thread pool.
pub const POOL_FROM: usize = 32;

/// `items.iter().map(f).collect()`, on all threads when available and worth it.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if items.len() >= POOL_FROM {
        return items.par_iter().map(f).collect();
    }
    items.iter().map(f).collect()
}

/// `items.iter().map(f).collect()` with every item its own task on all
/// threads when available, however few: for items that cost milliseconds.
pub fn map_heavy<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    return items.par_iter().with_max_len(1).map(f).collect();
    #[cfg(not(feature = "parallel"))]
    return items.iter().map(f).collect();
}

/// `items.iter().enumerate().flat_map(f).collect()`, on all threads when
/// available and worth it.
pub fn flat_map_indexed<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> Vec<R> + Sync + Send) -> Vec<R> {
    #[cfg(feature = "parallel")]
    if items.len() >= POOL_FROM {
        return items.par_iter().enumerate().flat_map_iter(|(i, t)| f(i, t)).collect();
    }
    items.iter().enumerate().flat_map(|(i, t)| f(i, t)).collect()
}

/// Unstable sort, on all threads when available and worth it. On one
/// thread the standard library's sort: rayon's takes 1.3 to 1.9 times as
/// long there (7 million hashes: 148 ms against 79), while on two it is
/// as fast or faster.
pub fn sort<T: Ord + Send>(items: &mut [T]) {
    #[cfg(feature = "parallel")]
    if items.len() >= POOL_FROM && rayon::current_num_threads() > 1 {
        items.par_sort_unstable();
        return;
    }
    items.sort_unstable();
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    #[test]
    fn few_cheap_items_stay_on_the_calling_thread() {
        let few = vec![0u8; super::POOL_FROM - 1];
        assert!(super::map(&few, |_| rayon::current_thread_index()).iter().all(Option::is_none));
        assert!(super::flat_map_indexed(&few, |_, _| vec![rayon::current_thread_index()]).iter().all(Option::is_none));
        assert!(super::map_heavy(&few[..2], |_| rayon::current_thread_index()).iter().all(Option::is_some));
        let many = vec![0u8; super::POOL_FROM];
        assert!(super::map(&many, |_| rayon::current_thread_index()).iter().all(Option::is_some));
    }
}
