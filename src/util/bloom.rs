//! A Bloom filter: "certainly new" or "maybe seen" in a few bits per item.

use crate::util::hash::mix64;

/// A fixed-size Bloom filter over 128-bit keys (hashes already).
///
/// Used in front of the exact-duplicate map, where most documents are new and
/// the filter answers for them without touching the map (or the disk, for a
/// file-backed store), and to notice the second sighting of a shingle when
/// document frequencies are counted as documents stream in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bloom {
    bits: Vec<u64>,
    hashes: u32,
}

impl Bloom {
    /// A filter for about `items` keys at about 1% false positives.
    pub fn with_capacity(items: u64) -> Self {
        // 9.6 bits and 7 hashes per item give 1%; round the table to a power of two.
        let bits = ((items.max(64) as f64 * 9.6) as u64).next_power_of_two().max(1024);
        Bloom { bits: vec![0; (bits / 64) as usize], hashes: 7 }
    }

    fn positions(&self, key: u128) -> impl Iterator<Item = usize> + '_ {
        let mask = self.bits.len() as u64 * 64 - 1;
        let h1 = mix64(key as u64 ^ 0x426c_6f6f_6d31);
        let h2 = mix64((key >> 64) as u64 ^ h1) | 1;
        (0..self.hashes as u64).map(move |i| (h1.wrapping_add(i.wrapping_mul(h2)) & mask) as usize)
    }

    /// Adds a key; returns whether it may have been present before.
    pub fn insert(&mut self, key: u128) -> bool {
        let mut present = true;
        let positions: Vec<usize> = self.positions(key).collect();
        for p in positions {
            let (word, bit) = (p / 64, 1u64 << (p % 64));
            present &= self.bits[word] & bit != 0;
            self.bits[word] |= bit;
        }
        present
    }

    /// False means certainly never inserted.
    pub fn contains(&self, key: u128) -> bool {
        self.positions(key).all(|p| self.bits[p / 64] & (1u64 << (p % 64)) != 0)
    }

    /// Appends the filter to `out` (hash count, word count, the words; all
    /// little-endian), as [`Bloom::from_bytes`] reads it.
    pub fn to_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.hashes.to_le_bytes());
        out.extend_from_slice(&(self.bits.len() as u64).to_le_bytes());
        self.bits.iter().for_each(|w| out.extend_from_slice(&w.to_le_bytes()));
    }

    /// Reads a filter written by [`Bloom::to_bytes`].
    ///
    /// # Errors
    ///
    /// [`Error::Corrupted`](crate::Error::Corrupted) when the bytes end
    /// early or the header cannot be a filter's: no words, a word count
    /// that is not a power of two (positions are masked, not divided), or 0
    /// or more than 32 hashes.
    pub fn from_bytes(r: &mut crate::util::bytes::Reader<'_>) -> Result<Self, crate::Error> {
        let hashes = r.u32()?;
        let words = r.u64()? as usize;
        if words == 0 || !words.is_power_of_two() || hashes == 0 || hashes > 32 {
            return Err(r.malformed("bloom filter header"));
        }
        let bits = (0..words).map(|_| r.u64()).collect::<Result<_, _>>()?;
        Ok(Bloom { bits, hashes })
    }
}

/// A Bloom filter that grows with what it holds: when its newest layer has
/// taken as many keys as it was sized for, a layer twice as large is added.
/// A key is "maybe seen" if any layer says so. A store that starts small and
/// grows over months pays memory in proportion to what it has seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrowingBloom {
    /// Each layer with the keys it has taken and the number it was sized for.
    layers: Vec<(Bloom, u64, u64)>,
}

impl GrowingBloom {
    /// Starts with one layer for `items` keys.
    pub fn new(items: u64) -> Self {
        let items = items.max(1024);
        GrowingBloom { layers: vec![(Bloom::with_capacity(items), 0, items)] }
    }

    /// Adds a key; returns whether it may have been present before.
    pub fn insert(&mut self, key: u128) -> bool {
        if self.layers.iter().any(|(b, _, _)| b.contains(key)) {
            return true;
        }
        let (bloom, count, capacity) = self.layers.last_mut().expect("at least one layer");
        bloom.insert(key);
        *count += 1;
        if *count >= *capacity {
            let next = *capacity * 2;
            self.layers.push((Bloom::with_capacity(next), 0, next));
        }
        false
    }

    /// Appends the filter to `out` (layer count, then each layer's key
    /// count, capacity and filter), as [`GrowingBloom::from_bytes`] reads it.
    pub fn to_bytes(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        for (bloom, count, capacity) in &self.layers {
            out.extend_from_slice(&count.to_le_bytes());
            out.extend_from_slice(&capacity.to_le_bytes());
            bloom.to_bytes(out);
        }
    }

    /// Reads a filter written by [`GrowingBloom::to_bytes`].
    ///
    /// # Errors
    ///
    /// [`Error::Corrupted`](crate::Error::Corrupted) when the bytes end
    /// early, the layer count is 0 or over 64 (each layer doubles, so 64 is
    /// already beyond any real store), or a layer is not a filter.
    pub fn from_bytes(r: &mut crate::util::bytes::Reader<'_>) -> Result<Self, crate::Error> {
        let n = r.u32()?;
        if n == 0 || n > 64 {
            return Err(r.malformed("bloom layer count"));
        }
        let mut layers = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let (count, capacity) = (r.u64()?, r.u64()?);
            layers.push((Bloom::from_bytes(r)?, count, capacity));
        }
        Ok(GrowingBloom { layers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserted_keys_are_found_and_new_ones_mostly_not() {
        let mut b = Bloom::with_capacity(1000);
        for k in 0..1000u128 {
            assert!(!b.insert(k * 7919) || k > 0, "first insert into an empty filter is new");
        }
        assert!((0..1000u128).all(|k| b.contains(k * 7919)));
        let false_hits = (0..10_000u128).filter(|k| b.contains(k * 7919 + 1_000_000_000)).count();
        assert!(false_hits < 300, "{false_hits} false positives in 10k");
    }

    #[test]
    fn growing_filter_adds_layers_and_keeps_old_keys() {
        let mut b = GrowingBloom::new(1024);
        assert!((0..5000u128).all(|k| !b.insert(k * 104_729) || k > 0));
        assert!(b.layers.len() >= 3, "{} layers", b.layers.len());
        assert!((0..5000u128).all(|k| b.insert(k * 104_729)), "every key is still seen");
        let mut bytes = Vec::new();
        b.to_bytes(&mut bytes);
        let back = GrowingBloom::from_bytes(&mut crate::util::bytes::Reader::new(&bytes, "t")).unwrap();
        assert_eq!(back, b);
    }
}
