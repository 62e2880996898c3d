//! Stage 0 of the cascade: exact copies, found by their 128-bit key.

use crate::util::bloom::Bloom;
use crate::util::hash::PrehashedMap as HashMap;

/// Exact key → the first document that had it, behind a Bloom filter.
///
/// Most documents of a corpus are new; the filter answers "certainly new" for
/// them without a map probe, and the map settles the rest. A hot document
/// copied 10,000 times costs one signature and 9,999 lookups.
#[derive(Clone, Debug)]
pub struct ExactIndex {
    bloom: Bloom,
    first: HashMap<u128, u32>,
}

impl ExactIndex {
    /// An empty index sized for about `docs` documents (the Bloom filter
    /// for no fewer than 1,024).
    pub fn with_capacity(docs: u64) -> Self {
        ExactIndex {
            bloom: Bloom::with_capacity(docs.max(1024)),
            first: HashMap::with_capacity_and_hasher(docs as usize, Default::default()),
        }
    }

    /// Records `doc` under `key`, or returns the document that had it first.
    pub fn insert(&mut self, key: u128, doc: u32) -> Option<u32> {
        if !self.bloom.insert(key) {
            self.first.insert(key, doc);
            return None;
        }
        match self.first.get(&key) {
            Some(&earlier) => Some(earlier),
            None => {
                self.first.insert(key, doc);
                None
            }
        }
    }

    /// The document that holds `key`, if any.
    pub fn get(&self, key: u128) -> Option<u32> {
        if !self.bloom.contains(key) {
            return None;
        }
        self.first.get(&key).copied()
    }

    /// Forgets `doc` as the holder of `key`; `next` (another copy) takes its place.
    pub fn remove(&mut self, key: u128, doc: u32, next: Option<u32>) {
        if self.first.get(&key) == Some(&doc) {
            match next {
                Some(n) => self.first.insert(key, n),
                None => self.first.remove(&key),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_copy_finds_the_first() {
        let mut idx = ExactIndex::with_capacity(10);
        assert_eq!(idx.insert(42, 0), None);
        assert_eq!(idx.insert(7, 1), None);
        assert_eq!(idx.insert(42, 2), Some(0));
        assert_eq!(idx.get(42), Some(0));
        idx.remove(42, 0, Some(2));
        assert_eq!(idx.get(42), Some(2));
        idx.remove(42, 2, None);
        assert_eq!(idx.get(42), None);
    }
}
