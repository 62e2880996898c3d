//! Multi-index hashing: all codes within Hamming distance R of a query,
//! without scanning them all (Norouzi et al., 2012).
//!
//! Cut the K bits into m substrings. If two codes differ in at most R bits,
//! then by pigeonhole at least one substring differs in at most ⌊R/m⌋ bits.
//! So: one hash table per substring; a query looks up every value within
//! ⌊R/m⌋ of each of its substrings, and the union, filtered by the full
//! distance, is exactly the set of codes within R. Shorter substrings mean more
//! tables and fewer probes each.
//!
//! Exact search stops paying at wide radii: for pairs at cosine 0.6 or above
//! the shipped projection's 99th percentile distance is 50 of 128 bits, and
//! ⌊50/8⌋ = 6 would be 14,893 probes per 16-bit table, more work than
//! comparing every pair. So the probes per
//! substring are capped (`max_probe`, default 2: 137 probes per table): codes
//! within `m · (max_probe + 1) − 1` bits are still all found, wider ones when
//! their differences are uneven enough that one substring is within the cap.
//! `semhash train-sph` reports the recall this gives on true pairs.

use crate::sketch::semantic::hamming;
use crate::util::hash::{mix64, PrehashedMap};

/// Codes indexed by substrings.
#[derive(Clone, Debug)]
pub struct MultiIndex {
    substring_bits: u32,
    substrings: u32,
    radius: u32,
    probe: u32,
    /// XOR masks of every value within `probe` bits of a substring: the
    /// values a query looks up in each table.
    masks: Vec<u64>,
    /// Key: [`MultiIndex::key`] of the substring number and value. Each
    /// list holds code numbers in ascending order (they are inserted so).
    tables: PrehashedMap<u64, Vec<u32>>,
    codes: Vec<Option<Vec<u64>>>,
}

impl MultiIndex {
    /// An index of `bits`-bit codes, answering queries within `radius`,
    /// probing at most `max_probe` bits away in each substring.
    pub fn new(bits: u32, substring_bits: u32, radius: u32, max_probe: u32) -> Self {
        let substring_bits = substring_bits.clamp(1, 32);
        let substrings = bits.div_ceil(substring_bits);
        let probe = (radius / substrings).min(max_probe);
        let mut masks = Vec::new();
        for_each_within(0, substring_bits, probe, &mut |m| masks.push(m));
        MultiIndex {
            substring_bits,
            substrings,
            radius,
            probe,
            masks,
            tables: PrehashedMap::default(),
            codes: Vec::new(),
        }
    }

    /// The Hamming radius queries answer within.
    pub fn radius(&self) -> u32 {
        self.radius
    }

    fn substring(&self, code: &[u64], s: u32) -> u64 {
        let (start, width) = (s * self.substring_bits, self.substring_bits);
        let (word, bit) = ((start / 64) as usize, start % 64);
        let mut v = code.get(word).copied().unwrap_or(0) >> bit;
        if bit + width > 64 {
            v |= code.get(word + 1).copied().unwrap_or(0) << (64 - bit);
        }
        v & ((1u64 << width) - 1)
    }

    /// Substring number in the top byte, value below, mixed: a query makes
    /// over a thousand lookups, and a bijective mix is a cheaper hash than
    /// SipHash that still spreads the keys over the map's buckets.
    fn key(s: u32, value: u64) -> u64 {
        mix64((s as u64) << 56 | value)
    }

    /// Adds code number `doc` (numbers are dense: the next one is `len()`).
    pub fn insert(&mut self, doc: u32, code: &[u64]) {
        for s in 0..self.substrings {
            self.tables.entry(Self::key(s, self.substring(code, s))).or_default().push(doc);
        }
        if self.codes.len() <= doc as usize {
            self.codes.resize(doc as usize + 1, None);
        }
        self.codes[doc as usize] = Some(code.to_vec());
    }

    /// Removes code number `doc`.
    pub fn remove(&mut self, doc: u32) {
        let Some(code) = self.codes.get_mut(doc as usize).and_then(Option::take) else { return };
        for s in 0..self.substrings {
            if let Some(list) = self.tables.get_mut(&Self::key(s, self.substring(&code, s))) {
                list.retain(|&d| d != doc);
            }
        }
    }

    /// Would a query for `a` probe the bucket of `b`? (For measuring recall.)
    pub fn would_probe(&self, a: &[u64], b: &[u64]) -> bool {
        (0..self.substrings).any(|s| (self.substring(a, s) ^ self.substring(b, s)).count_ones() <= self.probe)
    }

    /// Share of `pairs` (indices into `codes`) that blocking proposes:
    /// probed, and within the radius.
    pub fn blocking_recall(&self, codes: &[Vec<u64>], pairs: &[(usize, usize)]) -> f64 {
        let pair = |&(a, b): &(usize, usize)| (&codes[a], &codes[b]);
        let proposed =
            pairs.iter().map(pair).filter(|(a, b)| self.would_probe(a, b) && hamming(a, b) <= self.radius).count();
        proposed as f64 / pairs.len().max(1) as f64
    }

    /// Indexed codes within the radius of `code` (all of them when the
    /// probes are not capped), with their distance, by number.
    pub fn query(&self, code: &[u64]) -> Vec<(u32, u32)> {
        self.query_from(code, 0)
    }

    /// [`MultiIndex::query`] among the codes numbered `first` or above.
    fn query_from(&self, code: &[u64], first: u32) -> Vec<(u32, u32)> {
        self.probe(code, first, |s, v| self.bucket(s, v), |d| self.codes[d as usize].as_deref())
    }

    /// The codes whose substring `s` is `value`, ascending.
    fn bucket(&self, s: u32, value: u64) -> &[u32] {
        self.tables.get(&Self::key(s, value)).map_or(&[], Vec::as_slice)
    }

    /// The codes numbered `first` or above within the radius of `code`, with
    /// their distance, by number: `bucket(s, v)` lists (ascending) the codes
    /// whose substring `s` is `v`, and `code_of` gives a code by number.
    fn probe<'i>(
        &self,
        code: &[u64],
        first: u32,
        bucket: impl Fn(u32, u64) -> &'i [u32],
        code_of: impl Fn(u32) -> Option<&'i [u64]>,
    ) -> Vec<(u32, u32)> {
        let mut seen: Vec<u32> = Vec::new();
        for s in 0..self.substrings {
            let value = self.substring(code, s);
            for m in &self.masks {
                let list = bucket(s, value ^ m);
                seen.extend_from_slice(&list[list.partition_point(|&d| d < first)..]);
            }
        }
        // Measured first, as most of what the probes bring is out of reach.
        let mut near: Vec<(u32, u32)> = seen
            .into_iter()
            .filter_map(|d| {
                let h = hamming(code_of(d)?, code);
                (h <= self.radius).then_some((d, h))
            })
            .collect();
        near.sort_unstable();
        near.dedup();
        near
    }

    /// All pairs `(a, b)`, `a < b`, of `codes` within the radius of each other.
    ///
    /// The batch knows every code before the first query, so where the
    /// semantic stage can run (builds with the `encoder` feature) each table
    /// is an array of buckets laid out once (`Buckets`) rather than a hash
    /// map: a query makes over a thousand lookups, and on the 52,000 short
    /// texts of the 100k bench documents the map's scattered reads took 7.7
    /// of the semantic stage's 17 seconds. The pairs are the same. Other
    /// builds (the lite wasm module, at its size budget) keep the maps.
    pub fn pairs(codes: &[&[u64]], template: &MultiIndex) -> Vec<(u32, u32)> {
        #[cfg(feature = "encoder")]
        let query = {
            let tables: Vec<Buckets> = (0..template.substrings)
                .map(|s| Buckets::new(codes.iter().map(|c| template.substring(c, s)), template.substring_bits))
                .collect();
            move |code: &[u64], first| {
                template.probe(code, first, |s, v| tables[s as usize].get(v), |d| Some(codes[d as usize]))
            }
        };
        #[cfg(not(feature = "encoder"))]
        let query = {
            let mut index = template.clone();
            codes.iter().enumerate().for_each(|(i, c)| index.insert(i as u32, c));
            move |code: &[u64], first| index.query_from(code, first)
        };
        crate::util::par::flat_map_indexed(codes, |a, code| {
            query(code, a as u32 + 1).into_iter().map(|(b, _)| (a as u32, b)).collect()
        })
    }
}

#[cfg(feature = "encoder")]
/// One substring's table for a batch: the code numbers of each bucket,
/// ascending, stored one bucket after another, and where each bucket starts.
/// A substring value is its bucket when there are enough buckets for every
/// value (16-bit substrings in a batch of more than 16,384 codes); wider
/// ones are hashed into twice as many buckets as there are codes, and the
/// codes another value brings along are dropped by the distance check like
/// any probe's.
struct Buckets {
    /// Bits of the bucket number.
    bits: u32,
    /// Whether values are hashed to their bucket (wider than `bits`).
    hashed: bool,
    /// `starts[k]..starts[k + 1]`: bucket `k`'s part of `docs`.
    starts: Vec<u32>,
    docs: Vec<u32>,
}

#[cfg(feature = "encoder")]
impl Buckets {
    /// At most 2^22 buckets (16 MiB of starts).
    fn new(values: impl ExactSizeIterator<Item = u64> + Clone, value_bits: u32) -> Self {
        let wanted = (2 * values.len()).next_power_of_two().trailing_zeros().clamp(8, 22);
        let bits = value_bits.min(wanted);
        let (starts, docs) = (vec![0; (1 << bits) + 1], vec![0; values.len()]);
        let mut table = Buckets { bits, hashed: value_bits > bits, starts, docs };
        for v in values.clone() {
            let k = table.bucket(v);
            table.starts[k + 1] += 1;
        }
        for k in 1..table.starts.len() {
            table.starts[k] += table.starts[k - 1];
        }
        // Filled in code order, so each bucket is ascending.
        let mut next = table.starts.clone();
        for (doc, v) in values.enumerate() {
            let k = table.bucket(v);
            table.docs[next[k] as usize] = doc as u32;
            next[k] += 1;
        }
        table
    }

    fn bucket(&self, value: u64) -> usize {
        if self.hashed {
            (mix64(value) >> (64 - self.bits)) as usize
        } else {
            value as usize
        }
    }

    /// The codes whose substring value is in the bucket of `value`.
    fn get(&self, value: u64) -> &[u32] {
        let k = self.bucket(value);
        &self.docs[self.starts[k] as usize..self.starts[k + 1] as usize]
    }
}

/// Calls `f` with every `bits`-bit value within Hamming distance `r` of `value`.
fn for_each_within(value: u64, bits: u32, r: u32, f: &mut dyn FnMut(u64)) {
    fn flip(value: u64, from: u32, bits: u32, left: u32, f: &mut dyn FnMut(u64)) {
        f(value);
        if left == 0 {
            return;
        }
        for b in from..bits {
            flip(value ^ (1 << b), b + 1, bits, left - 1, f);
        }
    }
    flip(value, 0, bits, r, f);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_exactly_the_codes_within_the_radius() {
        let mut x = 11u64;
        let mut next = || {
            x = crate::util::hash::mix64(x);
            x
        };
        let base: Vec<Vec<u64>> = (0..50).map(|_| vec![next(), next()]).collect();
        // Each base code with 0..40 bits flipped at random positions.
        let mut codes = base.clone();
        for (i, c) in base.iter().enumerate() {
            let mut v = c.clone();
            for _ in 0..i % 40 {
                let b = next() % 128;
                v[(b / 64) as usize] ^= 1 << (b % 64);
            }
            codes.push(v);
        }
        let refs: Vec<&[u64]> = codes.iter().map(|c| c.as_slice()).collect();
        let radius = 20;
        let mut brute = Vec::new();
        for a in 0..refs.len() {
            for b in a + 1..refs.len() {
                if hamming(refs[a], refs[b]) <= radius {
                    brute.push((a as u32, b as u32));
                }
            }
        }
        assert!(brute.len() >= 25, "the test needs pairs inside the radius: {}", brute.len());
        // Substrings of 8, 16 and 24 bits (a batch of 100 has 256 buckets a
        // table: values are their bucket, then hashed); probes enough for
        // every pair, then capped.
        for (substring_bits, max_probe) in [(8, 8), (16, 8), (24, 8), (8, 0), (16, 1), (24, 1)] {
            let template = MultiIndex::new(128, substring_bits, radius, max_probe);
            let mut found = MultiIndex::pairs(&refs, &template);
            found.sort_unstable();
            // The batch finds what the incremental index's queries find.
            let mut index = template.clone();
            refs.iter().enumerate().for_each(|(i, c)| index.insert(i as u32, c));
            let mut queried: Vec<(u32, u32)> = (0..refs.len() as u32)
                .flat_map(|a| {
                    index.query(refs[a as usize]).into_iter().filter(move |&(b, _)| b > a).map(move |(b, _)| (a, b))
                })
                .collect();
            queried.sort_unstable();
            assert_eq!(found, queried, "{substring_bits}-bit substrings, probes capped at {max_probe}");
            if max_probe == 8 {
                assert_eq!(found, brute, "{substring_bits}-bit substrings");
            }
        }
    }

    #[test]
    fn capped_probes_still_find_every_code_within_the_guaranteed_radius() {
        let index = MultiIndex::new(128, 16, 40, 1);
        // 15 differing bits, at most 1 in some substring: probed; 16, two per substring: not.
        let a = [0u64, 0];
        let spread = |per: u32, n: u32| {
            let mut c = [0u64, 0];
            for s in 0..n {
                for b in 0..per.min(16) {
                    let bit = s * 16 + b;
                    c[(bit / 64) as usize] |= 1 << (bit % 64);
                }
            }
            c
        };
        assert!(index.would_probe(&a, &spread(2, 7)));
        assert!(!index.would_probe(&a, &spread(2, 8)));
    }

    #[test]
    fn removed_codes_are_not_found() {
        let mut index = MultiIndex::new(64, 16, 4, 2);
        index.insert(0, &[0xffff]);
        index.insert(1, &[0xfffe]);
        assert_eq!(index.query(&[0xffff]), vec![(0, 0), (1, 1)]);
        index.remove(0);
        assert_eq!(index.query(&[0xffff]), vec![(1, 1)]);
    }

    #[test]
    fn probes_every_value_within_r_once() {
        let mut seen = Vec::new();
        for_each_within(0, 16, 2, &mut |v| seen.push(v));
        let n = seen.len();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!((n, seen.len()), (1 + 16 + 120, 137));
    }
}
