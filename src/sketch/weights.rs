//! Shingle weights: IDF times token importance, with boilerplate discounted.
//!
//! A shingle that occurs in many documents says little about any one of them
//! (IDF). Some of those are worse than uninformative: the navigation, cookie
//! and footer text of a site template, or a viral quote pasted into many
//! unrelated documents, would make every page of that site look alike. They
//! are *boilerplate*, marked (not deleted) and weighted down.
//!
//! Telling boilerplate from a hot document is the subtle part: a document
//! copied 300 times with small edits also has shingles that occur in hundreds
//! of documents, and discounting those would leave only the edits to compare.
//! The difference is what else the holders contain. Template text sits in
//! documents that each have substantial content of their own; a hot
//! document's copies have almost nothing besides the shared text. So a
//! shingle is *widespread* when it is held by at least `boilerplate_min_docs`
//! documents that each have at least `own_content_min_shingles` shingles that
//! are not common themselves.
//!
//! Common phrases ("one of the", "this package contains") are widespread too,
//! yet a text is not boilerplate for using them. Boilerplate is a passage: in
//! each document, a shingle counts as boilerplate only inside a run of at least
//! `boilerplate_min_run` consecutive widespread shingles ([`CorpusStats::analyse`]).

use super::format::Fingerprint;
use super::Shingles;
use crate::util::bloom::GrowingBloom;
use crate::util::bytes::Reader;
use crate::util::hash::PrehashedMap as HashMap;
use serde::{Deserialize, Serialize};

/// How shingles are weighted; part of the signature fingerprint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WeightConfig {
    /// IDF is computed as if the corpus had this many more documents, none
    /// holding the shingle: keeps weights sane for a corpus of a few documents.
    pub idf_prior_docs: u32,
    /// A shingle held by this many documents with content of their own is boilerplate.
    pub boilerplate_min_docs: u32,
    /// Shingles held by fewer than `boilerplate_min_docs` documents that a
    /// document needs to count as having content of its own.
    pub own_content_min_shingles: u32,
    /// Consecutive widespread shingles that make a boilerplate passage.
    pub boilerplate_min_run: u32,
    /// Weight factor of a boilerplate shingle.
    pub boilerplate_discount: f32,
}

impl Default for WeightConfig {
    fn default() -> Self {
        WeightConfig {
            idf_prior_docs: 1000,
            boilerplate_min_docs: 5,
            own_content_min_shingles: 12,
            boilerplate_min_run: 4,
            boilerplate_discount: 0.01,
        }
    }
}

/// Document frequencies of a corpus's word shingles.
///
/// Built exactly from a whole batch ([`CorpusStats::from_corpus`]; the same
/// counts whatever the thread count) or grown one document at a time
/// ([`CorpusStats::add`], for a store that receives documents over days).
#[derive(Clone, Debug)]
pub struct CorpusStats {
    config: WeightConfig,
    docs: u64,
    /// `(df, content_df)` of every shingle held by two or more documents;
    /// `content_df` counts only holders with content of their own.
    shared: HashMap<u64, (u32, u32)>,
    /// Every shingle seen while streaming, to notice its second document.
    seen: Option<GrowingBloom>,
}

impl CorpusStats {
    /// Statistics of an empty corpus, ready to stream documents into.
    pub fn new(config: &WeightConfig) -> Self {
        CorpusStats {
            config: config.clone(),
            docs: 0,
            shared: HashMap::default(),
            seen: Some(GrowingBloom::new(1 << 16)),
        }
    }

    /// Exact statistics of a batch; `docs` holds each document's shingles
    /// (exact copies removed beforehand, so that a document pasted 10,000
    /// times counts once).
    pub fn from_corpus(config: &WeightConfig, docs: &[&[u64]]) -> Self {
        let distinct: Vec<Shingles> = crate::util::par::map(docs, |d| Shingles::from_unsorted(d.to_vec()));
        let docs = &distinct;
        // One copy into a buffer of the right size: a parallel collect of
        // each set's clone took as long as sorting the result.
        let mut all: Vec<u64> = Vec::with_capacity(docs.iter().map(|d| d.0.len()).sum());
        docs.iter().for_each(|d| all.extend_from_slice(&d.0));
        crate::util::par::sort(&mut all);
        let mut shared: HashMap<u64, (u32, u32)> =
            runs(&all).filter(|&(_, n)| n >= 2).map(|(h, n)| (h, (n, 0))).collect();
        drop(all);

        let df = |h: u64| shared.get(&h).map_or(1, |&(n, _)| n);
        let mut content: Vec<u64> = crate::util::par::flat_map_indexed(docs, |_, d| content_holder(config, &d.0, df));
        crate::util::par::sort(&mut content);
        for (h, n) in runs(&content) {
            if let Some(entry) = shared.get_mut(&h) {
                entry.1 = n;
            }
        }
        CorpusStats { config: config.clone(), docs: docs.len() as u64, shared, seen: None }
    }

    /// Statistics put together from counts made elsewhere (a cluster's
    /// aggregations; see [`crate::stages`]): `docs` distinct documents and
    /// `(shingle, df, content_df)` as [`CorpusStats::from_corpus`] counts
    /// them. Entries of shingles held by one document may be left out.
    ///
    /// Signing reads only the entries of the document's own shingles, so
    /// statistics holding just those (and the corpus's `docs`) sign it as the
    /// whole corpus's would.
    pub fn from_parts(config: &WeightConfig, docs: u64, entries: impl IntoIterator<Item = (u64, u32, u32)>) -> Self {
        let shared = entries.into_iter().filter(|e| e.1 >= 2).map(|(h, df, content)| (h, (df, content))).collect();
        CorpusStats { config: config.clone(), docs, shared, seen: None }
    }

    /// Counts one more document.
    pub fn add(&mut self, shingles: &[u64]) {
        let shingles = &Shingles::from_unsorted(shingles.to_vec());
        let min_docs = self.config.boilerplate_min_docs.max(2);
        let seen = self.seen.get_or_insert_with(|| GrowingBloom::new(1 << 16));
        for &h in &shingles.0 {
            if let Some(entry) = self.shared.get_mut(&h) {
                entry.0 += 1;
            } else if seen.insert(h as u128) {
                self.shared.insert(h, (2, 0));
            }
        }
        let own = shingles.0.iter().filter(|&&h| self.df(h) < min_docs).count() as u32;
        if own >= self.config.own_content_min_shingles {
            for h in &shingles.0 {
                if let Some(entry) = self.shared.get_mut(h) {
                    entry.1 += 1;
                }
            }
        }
        self.docs += 1;
    }

    /// Number of documents counted.
    pub fn docs(&self) -> u64 {
        self.docs
    }

    /// Documents holding the shingle (at least 1: the one asking).
    pub fn df(&self, shingle: u64) -> u32 {
        self.lookup(shingle).df
    }

    /// Whether the shingle is widespread: held by many documents with
    /// content of their own (see the module docs).
    pub fn is_widespread(&self, shingle: u64) -> bool {
        self.lookup(shingle).widespread
    }

    /// What the statistics say about one shingle, in one probe.
    pub fn lookup(&self, shingle: u64) -> ShingleStats {
        match self.shared.get(&shingle) {
            Some(&(df, content)) => ShingleStats { df, widespread: content >= self.config.boilerplate_min_docs.max(2) },
            None => ShingleStats { df: 1, widespread: false },
        }
    }

    /// A document's shingles with their statistics and boilerplate passages.
    pub fn analyse(&self, sequence: &[u64]) -> DocShingles {
        let distinct = Shingles::from_unsorted(sequence.to_vec()).0;
        let stats: Vec<ShingleStats> = distinct.iter().map(|&h| self.lookup(h)).collect();
        let position: Vec<u32> =
            sequence.iter().map(|h| distinct.binary_search(h).expect("every shingle is in the set") as u32).collect();
        let min_run = self.config.boilerplate_min_run.max(1) as usize;
        let mut runs = Vec::new();
        let mut i = 0;
        while i < sequence.len() {
            let start = i;
            while i < sequence.len() && stats[position[i] as usize].widespread {
                i += 1;
            }
            if i - start >= min_run {
                runs.push(start..i);
            }
            i += 1;
        }
        let mut boilerplate = vec![false; distinct.len()];
        for run in &runs {
            position[run.clone()].iter().for_each(|&p| boilerplate[p as usize] = true);
        }
        DocShingles { distinct, stats, boilerplate, position, runs }
    }

    /// A shingle's weight for consistent weighted sampling.
    pub fn weight(&self, shingle: ShingleStats, importance: f32, boilerplate: bool) -> f32 {
        let n = (self.docs + self.config.idf_prior_docs as u64) as f32;
        let df = shingle.df as f32;
        let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln().max(1e-3);
        let discount = if boilerplate { self.config.boilerplate_discount } else { 1.0 };
        idf * importance * discount
    }

    /// The statistics as bytes, for a store: magic `SHST`, format version,
    /// the fingerprint of the configuration, the counts, an xxh3-64 checksum.
    pub fn encode(&self, fingerprint: Fingerprint) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&STATS_MAGIC);
        out.extend_from_slice(&STATS_VERSION.to_le_bytes());
        out.extend_from_slice(&fingerprint.0);
        out.extend_from_slice(&self.docs.to_le_bytes());
        let mut entries: Vec<_> = self.shared.iter().collect();
        entries.sort_unstable_by_key(|(h, _)| **h);
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (h, (df, content)) in entries {
            out.extend_from_slice(&h.to_le_bytes());
            out.extend_from_slice(&df.to_le_bytes());
            out.extend_from_slice(&content.to_le_bytes());
        }
        out.push(self.seen.is_some() as u8);
        if let Some(seen) = &self.seen {
            seen.to_bytes(&mut out);
        }
        let sum = crate::util::hash::hash64(0, &out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads statistics written by [`CorpusStats::encode`], refusing those of
    /// another configuration, format or a damaged copy. `context` names them in errors.
    ///
    /// # Errors
    ///
    /// [`Error::Corrupted`](crate::Error::Corrupted) when the bytes are not
    /// statistics, fail their checksum or do not parse;
    /// [`Error::UnsupportedVersion`](crate::Error::UnsupportedVersion) for
    /// another format version; and
    /// [`Error::FingerprintMismatch`](crate::Error::FingerprintMismatch) when
    /// they were counted under another configuration.
    pub fn decode(bytes: &[u8], fingerprint: Fingerprint, config: &WeightConfig, context: &str) -> crate::Result<Self> {
        let corrupted = |detail: &str| crate::Error::Corrupted { context: context.to_owned(), detail: detail.into() };
        if bytes.len() < 30 || bytes[..4] != STATS_MAGIC {
            return Err(corrupted("not corpus statistics"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if crate::util::hash::hash64(0, body) != u64::from_le_bytes(sum.try_into().expect("8 bytes")) {
            return Err(corrupted("checksum mismatch"));
        }
        let mut r = Reader::new(body, context);
        r.skip(4)?;
        let version = r.u16()?;
        if version != STATS_VERSION {
            return Err(crate::Error::UnsupportedVersion {
                context: context.to_owned(),
                found: version,
                supported: STATS_VERSION,
            });
        }
        let found = Fingerprint(r.array::<16>()?);
        if found != fingerprint {
            return Err(crate::Error::FingerprintMismatch {
                context: context.to_owned(),
                expected: fingerprint.to_string(),
                found: found.to_string(),
            });
        }
        let docs = r.u64()?;
        let n = r.u64()? as usize;
        let mut shared = HashMap::with_capacity_and_hasher(n.min(1 << 24), Default::default());
        for _ in 0..n {
            let h = r.u64()?;
            shared.insert(h, (r.u32()?, r.u32()?));
        }
        let seen = match r.u8()? {
            0 => None,
            1 => Some(GrowingBloom::from_bytes(&mut r)?),
            _ => return Err(r.malformed("statistics flag")),
        };
        if !r.is_empty() {
            return Err(r.malformed("statistics length"));
        }
        Ok(CorpusStats { config: config.clone(), docs, shared, seen })
    }
}

const STATS_MAGIC: [u8; 4] = *b"SHST";
const STATS_VERSION: u16 = 1;

/// What the statistics say about one shingle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShingleStats {
    /// Documents holding it (at least 1).
    pub df: u32,
    /// Held by many documents with content of their own.
    pub widespread: bool,
}

/// One document's shingles as the statistics see them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocShingles {
    /// Distinct shingles, sorted.
    pub distinct: Vec<u64>,
    /// Statistics of each distinct shingle.
    pub stats: Vec<ShingleStats>,
    /// Whether each distinct shingle occurs inside a boilerplate passage.
    pub boilerplate: Vec<bool>,
    /// For each position of the sequence, the index of its shingle in `distinct`.
    pub position: Vec<u32>,
    /// Boilerplate passages: maximal runs of at least `boilerplate_min_run`
    /// consecutive widespread shingles, as ranges of sequence positions.
    pub runs: Vec<std::ops::Range<usize>>,
}

/// `(value, run length)` of each run of equal values in a sorted slice.
fn runs(sorted: &[u64]) -> impl Iterator<Item = (u64, u32)> + '_ {
    sorted.chunk_by(|a, b| a == b).map(|run| (run[0], run.len() as u32))
}

/// The shingles a document counts in `content_df`: its widespread ones
/// (`df` at least `boilerplate_min_docs`), when it has at least
/// `own_content_min_shingles` of its own; else none. `distinct` is the
/// document's shingle set, `df` the corpus's document frequency.
pub fn content_holder(config: &WeightConfig, distinct: &[u64], df: impl Fn(u64) -> u32) -> Vec<u64> {
    let min_docs = config.boilerplate_min_docs.max(2);
    let own = distinct.iter().filter(|&&h| df(h) < min_docs).count() as u32;
    if own < config.own_content_min_shingles {
        return Vec::new();
    }
    distinct.iter().copied().filter(|&h| df(h) >= min_docs).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(range: std::ops::Range<u64>, extra: &[u64]) -> Vec<u64> {
        range.chain(extra.iter().copied()).collect()
    }

    #[test]
    fn template_is_boilerplate_but_hot_text_is_not() {
        let config = WeightConfig::default();
        let template = [9_000, 9_001, 9_002, 9_003];
        // Six pages, each with its own content (20 shingles) and the same template.
        let pages: Vec<Vec<u64>> = (0..6).map(|i| doc(i * 100..i * 100 + 20, &template)).collect();
        // Six copies of one hot text (shingles 5000..5030), each with one small edit.
        let hot: Vec<Vec<u64>> = (0..6).map(|i| doc(5_000..5_030, &[7_000 + i])).collect();
        let all: Vec<&[u64]> = pages.iter().chain(&hot).map(|d| d.as_slice()).collect();
        let batch = CorpusStats::from_corpus(&config, &all);
        let mut streamed = CorpusStats::new(&config);
        all.iter().for_each(|d| streamed.add(d));
        for stats in [&batch, &streamed] {
            assert!(stats.is_widespread(9_000));
            assert!(!stats.is_widespread(5_010));
            assert!(!stats.is_widespread(3));
            assert_eq!(stats.df(5_010), 6);
            // The template is a run of four: boilerplate. Two of its shingles alone are a phrase.
            let page = stats.analyse(&pages[1]);
            assert_eq!(page.runs, vec![20..24]);
            assert_eq!(page.boilerplate.iter().filter(|&&b| b).count(), 4);
            assert!(stats.analyse(&[1, 9_000, 9_001, 2]).runs.is_empty());
            let (template, own) = (stats.lookup(9_000), stats.lookup(3));
            assert!(stats.weight(template, 1.0, true) < 0.1 * stats.weight(own, 1.0, false));
        }
    }

    #[test]
    fn serialises() {
        let config = WeightConfig::default();
        let mut s = CorpusStats::new(&config);
        s.add(&doc(0..30, &[]));
        s.add(&doc(10..40, &[]));
        let fp = Fingerprint([3; 16]);
        let bytes = s.encode(fp);
        let back = CorpusStats::decode(&bytes, fp, &config, "t").unwrap();
        assert_eq!(back.docs(), 2);
        assert_eq!(back.df(15), 2);
        assert_eq!(back.shared, s.shared);
        let err = CorpusStats::decode(&bytes, Fingerprint([4; 16]), &config, "t").unwrap_err();
        assert!(matches!(err, crate::Error::FingerprintMismatch { .. }), "{err}");
        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        assert!(CorpusStats::decode(&flipped, fp, &config, "t").unwrap_err().to_string().contains("checksum"));
    }
}
