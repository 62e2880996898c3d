//! Locality-sensitive hashing over MinHash sketches: band keys, and the
//! bucket table that serves incremental queries.

use super::Banding;
use crate::util::hash::PrehashedMap as HashMap;
use crate::util::hash::{combine, mix64};

/// Splits sketches into bands and hashes each band to a bucket key.
#[derive(Clone, Copy, Debug)]
pub struct BandHasher {
    banding: Banding,
    /// Distinguishes the keys of different sketch kinds sharing one table.
    domain: u64,
}

impl BandHasher {
    /// Keys for `banding`, seeded by `domain` so that a weighted band and a
    /// char band with equal values get different keys in a shared table.
    pub fn new(banding: Banding, domain: u64) -> Self {
        BandHasher { banding, domain }
    }

    /// The bands and rows it cuts sketches into.
    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// One key per band; none for an empty sketch.
    pub fn keys<'a>(&self, sketch: &'a [u32]) -> impl Iterator<Item = u64> + 'a {
        let (rows, domain) = (self.banding.rows, self.domain);
        let bands = if sketch.len() >= rows * self.banding.bands { self.banding.bands } else { 0 };
        (0..bands).map(move |b| {
            let seed = mix64(domain ^ (b as u64) << 32);
            sketch[b * rows..(b + 1) * rows].iter().fold(seed, |acc, &v| combine(acc, v as u64))
        })
    }
}

/// Bucket key → documents, for adding, removing and querying one document at a time.
#[derive(Clone, Debug, Default)]
pub struct BucketTable {
    buckets: HashMap<u64, Vec<u32>>,
}

impl BucketTable {
    /// Puts `doc` in the bucket of each key.
    pub fn insert(&mut self, keys: impl Iterator<Item = u64>, doc: u32) {
        keys.for_each(|k| self.buckets.entry(k).or_default().push(doc));
    }

    /// Takes `doc` out of the buckets of `keys` (the keys it was inserted
    /// under), dropping buckets left empty.
    pub fn remove(&mut self, keys: impl Iterator<Item = u64>, doc: u32) {
        for k in keys {
            if let Some(members) = self.buckets.get_mut(&k) {
                members.retain(|&d| d != doc);
                if members.is_empty() {
                    self.buckets.remove(&k);
                }
            }
        }
    }

    /// Members of the buckets under `keys`, at most `cap` from each bucket
    /// (the earliest added: for a hot document, its first copies).
    pub fn members(&self, keys: impl Iterator<Item = u64>, cap: usize, out: &mut Vec<u32>) {
        for k in keys {
            if let Some(members) = self.buckets.get(&k) {
                out.extend(members.iter().take(cap));
            }
        }
    }
}
