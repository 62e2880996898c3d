//! [`semhash::stages`] for Python engines (the Spark job in
//! `python/semhash_llm/spark.py`): each method takes a batch of rows as
//! plain lists and gives one result per row. Spark has no unsigned types, so
//! 64-bit hashes travel as `i64` (bit for bit) and exact keys as 16 bytes;
//! signatures travel as their versioned, fingerprinted bytes.
//!
//! Corpus statistics can also travel whole, for a corpus whose statistics
//! fit in memory: a partition counts its texts into a [`counts`] table
//! (bytes), the engine merges the tables and hands the result to every
//! worker, which loads it once as a [`CountTable`].

use super::{deduper, py_error, SemHashError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use semhash::admit::json::{id_of, parse_object, record_in, take_text};
use semhash::cluster::Link;
use semhash::decide::align::WordStats;
use semhash::decide::Relation;
use semhash::sketch::{CorpusStats, Prepared, Signature};
use semhash::stages::packed::{self, DecodedReading};
use semhash::stages::Side;
use semhash::util::hash::PrehashedMap;
use semhash::Deduper;
use serde_json::Value;
use std::collections::HashMap;

/// An id as its JSON gave it.
#[derive(IntoPyObject)]
enum Id {
    Text(String),
    Signed(i64),
    Unsigned(u64),
}

/// A record read from JSON Lines: (line, id, its spelling, text, error).
type PyRecord = (u64, Option<Id>, Option<String>, Option<String>, Option<String>);
/// A link as Python holds it: (a, b, relation, score).
type PyLink = (u32, u32, String, f32);
/// A placement: (position, representative, parent, relation, score).
type PyPlacement = (u32, u32, Option<u32>, String, f32);
/// A signed text: (position, its reading, signature).
type PySigned = (u32, PyBackedBytes, PyBackedBytes);
/// A signature and the text's reading, as the sign stage gives them.
type PySignedText = (Vec<u8>, Vec<u8>);

fn signed(v: &[u64]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

fn relation(name: &str) -> PyResult<Relation> {
    Relation::from_name(name).ok_or_else(|| SemHashError::new_err(format!("not a relation: {name:?}")))
}

/// Counts by hash (a shingle's `df` or content count) as bytes: sorted
/// `(hash u64, count u32)` records, little-endian, 12 bytes each.
mod counts {
    pub const RECORD: usize = 12;

    pub fn encode(counts: &[(u64, u32)]) -> Vec<u8> {
        let mut out = Vec::with_capacity(counts.len() * RECORD);
        for &(h, n) in counts {
            out.extend_from_slice(&h.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Option<impl Iterator<Item = (u64, u32)> + '_> {
        bytes.len().is_multiple_of(RECORD).then(|| {
            bytes.chunks_exact(RECORD).map(|r| {
                (
                    u64::from_le_bytes(r[..8].try_into().expect("8 bytes")),
                    u32::from_le_bytes(r[8..].try_into().expect("4 bytes")),
                )
            })
        })
    }

    /// Each hash once with its occurrences counted, sorted.
    pub fn tally(mut hashes: Vec<u64>) -> Vec<(u64, u32)> {
        hashes.sort_unstable();
        let mut out: Vec<(u64, u32)> = Vec::new();
        for h in hashes {
            match out.last_mut() {
                Some((last, n)) if *last == h => *n += 1,
                _ => out.push((h, 1)),
            }
        }
        out
    }
}

fn decode_counts(bytes: &[u8]) -> PyResult<impl Iterator<Item = (u64, u32)> + '_> {
    counts::decode(bytes)
        .ok_or_else(|| SemHashError::new_err(format!("a count table of {} bytes is not whole records", bytes.len())))
}

/// Two count tables merged: the counts of a hash in both added.
#[pyfunction]
pub fn merge_counts(a: &[u8], b: &[u8]) -> PyResult<Vec<u8>> {
    let (mut a, mut b) = (decode_counts(a)?.peekable(), decode_counts(b)?.peekable());
    let mut out = Vec::new();
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                let (h, n) = (x.0, x.1.saturating_add(y.1));
                a.next();
                b.next();
                (h, n)
            }
            (Some(x), Some(y)) if x.0 < y.0 => a.next().expect("peeked"),
            (Some(_), Some(_)) | (None, Some(_)) => b.next().expect("peeked"),
            (Some(_), None) => a.next().expect("peeked"),
            (None, None) => break,
        };
        out.push(next);
    }
    Ok(counts::encode(&out))
}

/// The entries of a count table with a count of at least `least`.
#[pyfunction]
pub fn counts_at_least(table: &[u8], least: u32) -> PyResult<Vec<u8>> {
    let kept: Vec<(u64, u32)> = decode_counts(table)?.filter(|&(_, n)| n >= least).collect();
    Ok(counts::encode(&kept))
}

/// A count table cut by hash into the engine's partitions (of `parts`), so
/// that each part is summed where it lands.
#[pyfunction]
pub fn split_counts(table: &[u8], parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
    let mut out = vec![Vec::new(); parts.max(1) as usize];
    for (hash, n) in decode_counts(table)? {
        let block = &mut out[routed::part(hash, parts)];
        block.extend_from_slice(&hash.to_le_bytes());
        block.extend_from_slice(&n.to_le_bytes());
    }
    Ok(routed::blocks(out))
}

/// A count table loaded for lookups (a hash it lacks counts `absent`).
#[pyclass(frozen)]
pub struct CountTable {
    // Keyed by hashes already, so not hashed again.
    counts: PrehashedMap<u64, u32>,
}

#[pymethods]
impl CountTable {
    #[new]
    fn new(table: &[u8]) -> PyResult<Self> {
        Ok(CountTable { counts: decode_counts(table)?.collect() })
    }

    fn __len__(&self) -> usize {
        self.counts.len()
    }
}

impl CountTable {
    fn get(&self, hash: u64, absent: u32) -> u32 {
        self.counts.get(&hash).copied().unwrap_or(absent)
    }
}

/// The corpus statistics loaded for signing ([`Stages::statistics`]).
#[pyclass(frozen)]
pub struct Statistics {
    stats: CorpusStats,
}

impl From<CorpusStats> for Statistics {
    fn from(stats: CorpusStats) -> Self {
        Statistics { stats }
    }
}

impl Statistics {
    pub fn corpus(&self) -> &CorpusStats {
        &self.stats
    }
}

/// `(context, filler)` sets as bytes: sorted, distinct 16-byte records.
fn decode_fillers(bytes: &[u8]) -> PyResult<impl Iterator<Item = (u64, u64)> + '_> {
    if !bytes.len().is_multiple_of(16) {
        return Err(SemHashError::new_err(format!("a filler set of {} bytes is not whole records", bytes.len())));
    }
    Ok(bytes.chunks_exact(16).map(|r| {
        (
            u64::from_le_bytes(r[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(r[8..].try_into().expect("8 bytes")),
        )
    }))
}

fn encode_fillers(mut fillers: Vec<(u64, u64)>) -> Vec<u8> {
    fillers.sort_unstable();
    fillers.dedup();
    fillers.iter().flat_map(|(c, f)| c.to_le_bytes().into_iter().chain(f.to_le_bytes())).collect()
}

/// Two `(context, filler)` sets merged.
#[pyfunction]
pub fn merge_fillers(a: &[u8], b: &[u8]) -> PyResult<Vec<u8>> {
    Ok(encode_fillers(decode_fillers(a)?.chain(decode_fillers(b)?).collect()))
}

/// A `(context, filler)` set cut by context into the engine's partitions
/// (of `parts`), so that each context's fillers meet in one.
#[pyfunction]
pub fn split_fillers(set: &[u8], parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
    let mut out: Vec<Vec<(u64, u64)>> = vec![Vec::new(); parts.max(1) as usize];
    for (context, filler) in decode_fillers(set)? {
        out[routed::part(context, parts)].push((context, filler));
    }
    Ok(routed::blocks(out.into_iter().map(encode_fillers).collect()))
}

/// The count table of a `(context, filler)` set: each context with its
/// number of distinct fillers.
#[pyfunction]
pub fn context_counts(set: &[u8]) -> PyResult<Vec<u8>> {
    Ok(counts::encode(&counts::tally(decode_fillers(set)?.map(|(context, _)| context).collect())))
}

/// The word statistics of a corpus's short texts, loaded for verifying.
#[pyclass(frozen)]
pub struct WordTable {
    stats: WordStats,
}

impl From<WordStats> for WordTable {
    fn from(stats: WordStats) -> Self {
        WordTable { stats }
    }
}

impl WordTable {
    pub fn words(&self) -> &WordStats {
        &self.stats
    }
}

/// Records as bytes, each routed to one of the engine's partitions
/// (candidate keys and pairs, sides, and the statistics joined through
/// shuffles): a partition's map task sends one block per partition, so a
/// shuffle moves a few large blocks rather than a row per key, and the
/// grouping happens here.
mod routed {
    /// A band key: one shared makes a candidate pair.
    pub const BAND: u8 = 0;
    /// A passage key: enough of them shared make a candidate pair.
    pub const PASSAGE: u8 = 1;
    /// Key records: tag u8, key u64, position u32, copies u32.
    pub const KEY: usize = 17;
    /// Pair records: tag u8, a u32, b u32.
    pub const PAIR: usize = 9;
    /// A candidate pair sent to its lower side's partition, which sends
    /// that side on to the higher side's ([`VERIFY`] meets it there).
    pub const TO_LOWER: u8 = 2;
    /// A candidate pair sent to its higher side's partition, which keeps
    /// that side for verifying there.
    pub const TO_HIGHER: u8 = 3;
    /// A candidate pair to verify where both its sides arrive.
    pub const VERIFY: u8 = 4;
    /// A side record: tag u8, position u32, reading bytes u32, signature
    /// bytes u32, counts bytes u32, the reading ([`super::packed`]), the
    /// signature, and the word and context counts of a short text's own
    /// words when they are joined to it rather than broadcast: [`COUNT`]
    /// bytes each, tag ([`WORD_COUNT`] or [`CONTEXT_COUNT`]), key u64, count u32.
    pub const SIDE: u8 = 5;
    const SIDE_HEAD: usize = 17;
    pub const COUNT: usize = 13;
    /// The word records, all [`WORD`] bytes: tag u8, key u64, filler u64,
    /// text u32, count u32. A short text holds a word (key), to the word's
    /// partition:
    pub const HOLDS_WORD: u8 = 6;
    /// A short text fills a context (key) with a filler, to the context's partition:
    pub const FILLS: u8 = 7;
    /// A word's texts, to a text that holds it:
    pub const WORD_COUNT: u8 = 8;
    /// A context's distinct fillers, to a text that fills it:
    pub const CONTEXT_COUNT: u8 = 9;
    pub const WORD: usize = 25;

    // The corpus statistics joined to each text through shuffles, for a
    // corpus whose tables do not fit a worker: a text's record goes to its
    // head's home partition and stays there from step to step, and a
    // shingle's records go to the shingle's partition, where the texts that
    // hold it are counted.

    /// A prepared text: tag u8, head u32, copies u32, bytes u32, the text
    /// ([`super::packed`]).
    pub const TEXT: u8 = 10;
    const TEXT_HEAD: usize = 13;
    /// The shingle records, all [`SHINGLE`] bytes: tag u8, shingle u64,
    /// head u32, df u32, content u32. A text holds a shingle (to the
    /// shingle's partition):
    pub const HOLDS: u8 = 11;
    /// A shared shingle's df, to a text that holds it:
    pub const DF: u8 = 12;
    /// Whether (content 1) or not a shared shingle counts as the text's
    /// content, to the shingle's partition:
    pub const CONTENT: u8 = 13;
    /// A shared shingle's df and content count, to a text that holds it:
    pub const COUNTS: u8 = 14;
    pub const SHINGLE: usize = 21;

    /// A shingle record's fields.
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub struct Shingle {
        pub shingle: u64,
        pub head: u32,
        pub df: u32,
        pub content: u32,
    }

    /// The partition that holds a position's side.
    pub fn home(position: u32, parts: u32) -> usize {
        part(u64::from(position), parts)
    }

    /// The partition of a hash (keys are hashes already; spread the bits).
    pub fn part(hash: u64, parts: u32) -> usize {
        ((hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % u64::from(parts.max(1))) as usize
    }

    /// The blocks that hold something, by partition.
    pub fn blocks(out: Vec<Vec<u8>>) -> Vec<(u32, Vec<u8>)> {
        out.into_iter().enumerate().filter(|(_, b)| !b.is_empty()).map(|(i, b)| (i as u32, b)).collect()
    }

    pub fn u32_at(r: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(r[at..at + 4].try_into().expect("4 bytes"))
    }

    pub fn push_pair(block: &mut Vec<u8>, tag: u8, a: u32, b: u32) {
        block.push(tag);
        block.extend_from_slice(&a.to_le_bytes());
        block.extend_from_slice(&b.to_le_bytes());
    }

    pub fn push_side(block: &mut Vec<u8>, position: u32, reading: &[u8], signature: &[u8], counts: &[u8]) {
        block.push(SIDE);
        for n in [position, reading.len() as u32, signature.len() as u32, counts.len() as u32] {
            block.extend_from_slice(&n.to_le_bytes());
        }
        block.extend_from_slice(reading);
        block.extend_from_slice(signature);
        block.extend_from_slice(counts);
    }

    /// Appends a count record to a side's counts.
    pub fn push_count(counts: &mut Vec<u8>, tag: u8, key: u64, count: u32) {
        counts.push(tag);
        counts.extend_from_slice(&key.to_le_bytes());
        counts.extend_from_slice(&count.to_le_bytes());
    }

    /// A side's counts `(tag, key, count)` (whole records: [`read`] checks).
    pub fn counts(counts: &[u8]) -> impl Iterator<Item = (u8, u64, u32)> + '_ {
        counts
            .chunks_exact(COUNT)
            .map(|r| (r[0], u64::from_le_bytes(r[1..9].try_into().expect("8 bytes")), u32_at(r, 9)))
    }

    pub fn push_text(block: &mut Vec<u8>, head: u32, copies: u32, packed: &[u8]) {
        block.push(TEXT);
        for n in [head, copies, packed.len() as u32] {
            block.extend_from_slice(&n.to_le_bytes());
        }
        block.extend_from_slice(packed);
    }

    pub fn push_shingle(block: &mut Vec<u8>, tag: u8, r: Shingle) {
        block.push(tag);
        block.extend_from_slice(&r.shingle.to_le_bytes());
        for n in [r.head, r.df, r.content] {
            block.extend_from_slice(&n.to_le_bytes());
        }
    }

    pub fn push_word(block: &mut Vec<u8>, tag: u8, key: u64, filler: u64, text: u32, count: u32) {
        block.push(tag);
        block.extend_from_slice(&key.to_le_bytes());
        block.extend_from_slice(&filler.to_le_bytes());
        block.extend_from_slice(&text.to_le_bytes());
        block.extend_from_slice(&count.to_le_bytes());
    }

    /// A record of a block that mixes pairs and sides.
    pub enum Record<'b> {
        Pair {
            tag: u8,
            a: u32,
            b: u32,
        },
        /// `whole` is the record as sent, to pass on unchanged.
        Side {
            position: u32,
            reading: &'b [u8],
            signature: &'b [u8],
            counts: &'b [u8],
            whole: &'b [u8],
        },
        Word {
            tag: u8,
            key: u64,
            filler: u64,
            text: u32,
            count: u32,
        },
        /// `whole` is the record as sent, to pass on unchanged.
        Text {
            head: u32,
            copies: u32,
            packed: &'b [u8],
            whole: &'b [u8],
        },
        Shingle {
            tag: u8,
            fields: Shingle,
        },
    }

    /// The records of a block of pairs and sides, or why it is not one.
    pub fn read(mut block: &[u8]) -> impl Iterator<Item = Result<Record<'_>, String>> {
        std::iter::from_fn(move || {
            let record = next(&mut block);
            if record.is_err() {
                block = &[];
            }
            record.transpose()
        })
    }

    fn cut<'b>(block: &mut &'b [u8], n: usize) -> Result<&'b [u8], String> {
        let (head, rest) = block.split_at_checked(n).ok_or_else(|| format!("a record cut short ({n} bytes wanted)"))?;
        *block = rest;
        Ok(head)
    }

    fn next<'b>(block: &mut &'b [u8]) -> Result<Option<Record<'b>>, String> {
        let Some(&tag) = block.first() else { return Ok(None) };
        Ok(Some(match tag {
            SIDE => {
                let head = block.get(..SIDE_HEAD).ok_or("a side record cut short")?;
                let (reading_len, signature_len) = (u32_at(head, 5) as usize, u32_at(head, 9) as usize);
                let whole = cut(block, SIDE_HEAD + reading_len + signature_len + u32_at(head, 13) as usize)?;
                let (reading, rest) = whole[SIDE_HEAD..].split_at(reading_len);
                let (signature, counts) = rest.split_at(signature_len);
                if counts.len() % COUNT != 0 {
                    return Err("a side's counts are not whole records".to_owned());
                }
                Record::Side { position: u32_at(whole, 1), reading, signature, counts, whole }
            }
            TO_LOWER | TO_HIGHER | VERIFY => {
                let r = cut(block, PAIR)?;
                Record::Pair { tag, a: u32_at(r, 1), b: u32_at(r, 5) }
            }
            HOLDS_WORD | FILLS | WORD_COUNT | CONTEXT_COUNT => {
                let r = cut(block, WORD)?;
                let u64_at = |at: usize| u64::from_le_bytes(r[at..at + 8].try_into().expect("8 bytes"));
                Record::Word { tag, key: u64_at(1), filler: u64_at(9), text: u32_at(r, 17), count: u32_at(r, 21) }
            }
            TEXT => {
                let head = block.get(..TEXT_HEAD).ok_or("a text record cut short")?;
                let whole = cut(block, TEXT_HEAD + u32_at(head, 9) as usize)?;
                Record::Text { head: u32_at(whole, 1), copies: u32_at(whole, 5), packed: &whole[TEXT_HEAD..], whole }
            }
            HOLDS | DF | CONTENT | COUNTS => {
                let r = cut(block, SHINGLE)?;
                let shingle = u64::from_le_bytes(r[1..9].try_into().expect("8 bytes"));
                Record::Shingle {
                    tag,
                    fields: Shingle { shingle, head: u32_at(r, 9), df: u32_at(r, 13), content: u32_at(r, 17) },
                }
            }
            other => return Err(format!("not a record tag: {other}")),
        }))
    }
}

fn records<'b>(blocks: &'b [Vec<u8>], size: usize, what: &str) -> PyResult<impl Iterator<Item = &'b [u8]>> {
    if let Some(b) = blocks.iter().find(|b| b.len() % size != 0) {
        return Err(SemHashError::new_err(format!("a block of {what} of {} bytes is not whole records", b.len())));
    }
    Ok(blocks.iter().flat_map(move |b| b.chunks_exact(size)))
}

/// The blocks of one partition's `(partition, block)` rows, taken one at a
/// time, so that the engine's copy of each can go before the next arrives.
fn taken(rows: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    rows.try_iter()?.map(|row| Ok(row?.extract::<(u32, Vec<u8>)>()?.1)).collect()
}

/// A side as read from a block: reading, signature, counts, and the record whole.
type SideRecord<'b> = (&'b [u8], &'b [u8], &'b [u8], &'b [u8]);

/// A word record's fields: tag, key, filler, text, count.
type WordRecord = (u8, u64, u64, u32, u32);

/// A prepared text as read from a block: head, copies, the text
/// ([`packed`]), and the record whole.
type TextRecord<'b> = (u32, u32, &'b [u8], &'b [u8]);

/// What a partition's blocks hold: sides by position, pairs `(tag, a,
/// b)`, word records, prepared texts and shingle records `(tag, fields)`.
#[derive(Default)]
struct Met<'b> {
    sides: HashMap<u32, SideRecord<'b>>,
    pairs: Vec<(u8, u32, u32)>,
    words: Vec<WordRecord>,
    texts: Vec<TextRecord<'b>>,
    shingles: Vec<(u8, routed::Shingle)>,
}

/// The records in a partition's blocks.
fn met(blocks: &[Vec<u8>]) -> PyResult<Met<'_>> {
    let mut met = Met::default();
    for record in blocks.iter().flat_map(|block| routed::read(block)) {
        match record.map_err(SemHashError::new_err)? {
            routed::Record::Side { position, reading, signature, counts, whole } => {
                met.sides.insert(position, (reading, signature, counts, whole));
            }
            routed::Record::Pair { tag, a, b } => met.pairs.push((tag, a, b)),
            routed::Record::Word { tag, key, filler, text, count } => met.words.push((tag, key, filler, text, count)),
            routed::Record::Text { head, copies, packed, whole } => met.texts.push((head, copies, packed, whole)),
            routed::Record::Shingle { tag, fields } => met.shingles.push((tag, fields)),
        }
    }
    Ok(met)
}

/// A partition's blocks read ([`met`]), with what stays at its home (each
/// text and side record) passed on to it among `out`'s blocks.
fn met_passing_on<'b>(blocks: &'b [Vec<u8>], out: &mut [Vec<u8>], parts: u32) -> PyResult<Met<'b>> {
    let met = met(blocks)?;
    let homed =
        met.texts.iter().map(|t| (t.0, t.3)).chain(met.sides.iter().map(|(&position, side)| (position, side.3)));
    for (position, whole) in homed {
        out[routed::home(position, parts)].extend_from_slice(whole);
    }
    Ok(met)
}

/// One partition's blocks of statistics records with each shingle's records
/// of the `asked` tag grouped: `answer` of a group gives its records' new
/// `(df, content)` (or None: no answer), and each goes back to its text's
/// home with the `answered` tag. Texts pass on.
fn answer_holders(
    rows: &Bound<'_, PyAny>,
    parts: u32,
    (asked, answered): (u8, u8),
    answer: impl Fn(&[routed::Shingle]) -> Option<(u32, u32)>,
) -> PyResult<Vec<(u32, Vec<u8>)>> {
    let blocks = taken(rows)?;
    let mut out = vec![Vec::new(); parts.max(1) as usize];
    let shingles = met_passing_on(&blocks, &mut out, parts)?.shingles;
    let mut of: Vec<routed::Shingle> = shingles.iter().filter(|(t, _)| *t == asked).map(|&(_, r)| r).collect();
    of.sort_unstable();
    for holders in of.chunk_by(|x, y| x.shingle == y.shingle) {
        let Some((df, content)) = answer(holders) else { continue };
        for &r in holders {
            routed::push_shingle(&mut out[routed::home(r.head, parts)], answered, routed::Shingle { df, content, ..r });
        }
    }
    Ok(routed::blocks(out))
}

/// Each text's shingle records of one tag, by head.
fn by_head(shingles: &[(u8, routed::Shingle)], tag: u8) -> HashMap<u32, Vec<routed::Shingle>> {
    let mut of: HashMap<u32, Vec<routed::Shingle>> = HashMap::new();
    for &(_, r) in shingles.iter().filter(|(t, _)| *t == tag) {
        of.entry(r.head).or_default().push(r);
    }
    of
}

fn missing_side(position: u32) -> PyErr {
    SemHashError::new_err(format!("the side of position {position} did not reach its pairs"))
}

/// The candidate pairs `(a, b)` in a block from [`Stages::candidate_pairs`].
#[pyfunction]
pub fn pairs_of(block: &[u8]) -> PyResult<Vec<(u32, u32)>> {
    routed::read(block)
        .filter_map(|record| match record {
            Ok(routed::Record::Pair { tag: routed::TO_LOWER, a, b }) => Some(Ok((a, b))),
            Ok(_) => None,
            Err(e) => Some(Err(SemHashError::new_err(e))),
        })
        .collect()
}

/// How many candidate pairs a block from [`Stages::candidate_pairs`] holds.
#[pyfunction]
pub fn pair_count(block: &[u8]) -> PyResult<usize> {
    routed::read(block).try_fold(0, |n, record| match record {
        Ok(routed::Record::Pair { tag: routed::TO_LOWER, .. }) => Ok(n + 1),
        Ok(_) => Ok(n),
        Err(e) => Err(SemHashError::new_err(e)),
    })
}

/// The stage functions of one (lexical) pipeline.
#[pyclass(frozen)]
pub struct Stages {
    deduper: Deduper,
}

impl Stages {
    fn stages(&self) -> semhash::stages::Stages<'_> {
        semhash::stages::Stages::new(&self.deduper).expect("checked when made")
    }

    fn signature(&self, bytes: &[u8]) -> PyResult<Signature> {
        let fingerprint = self.deduper.fingerprint();
        Ok(Signature::from_bytes(bytes, fingerprint, "a signature from the engine").map_err(py_error)?.0)
    }

    fn prepare(&self, text: &str) -> Prepared {
        self.stages().prepare(text)
    }

    /// A prepared text ([`packed`]) signed under `stats`: its signature as
    /// bytes, with its reading when the text is short (all the later
    /// stages need of it).
    fn sign_packed(&self, p: &[u8], stats: &CorpusStats) -> PyResult<PySignedText> {
        let signature = self.stages().sign(&packed::decode(p).map_err(py_error)?, stats);
        let reading = if self.stages().is_short(&signature) {
            packed::reading(p).map_err(py_error)?.to_vec()
        } else {
            Vec::new()
        };
        Ok((signature.to_bytes(self.deduper.fingerprint()), reading))
    }

    /// A side's signature and, for a short text, its reading decoded.
    fn side<'r>(&self, reading: &'r [u8], signature: &[u8]) -> PyResult<(Signature, Option<DecodedReading<'r>>)> {
        let signature = self.signature(signature)?;
        let read = match self.stages().is_short(&signature) {
            true => Some(packed::decode_reading(reading).map_err(py_error)?),
            false => None,
        };
        Ok((signature, read))
    }
}

#[pymethods]
impl Stages {
    #[new]
    #[pyo3(signature = (config=None))]
    fn new(config: Option<&str>) -> PyResult<Self> {
        let deduper = deduper(config)?;
        semhash::stages::Stages::new(&deduper).map_err(py_error)?;
        Ok(Stages { deduper })
    }

    /// One file of JSON Lines, read as the command reads it: for each
    /// non-blank line, `(line, id, its spelling, text, None)`, or `(line,
    /// None, None, None, what was wrong)` for a malformed record or a text
    /// the pipeline will not take (empty, too long). The id is as the JSON
    /// gave it (a number stays a number); its spelling is what the core
    /// compares. Reading the file here spares a Python pass per line.
    fn read_jsonl(&self, data: &[u8], id_field: &str, text_field: &str) -> Vec<PyRecord> {
        let lines = data.split(|&b| b == b'\n').zip(1u64..);
        let records = lines.filter_map(|(line, no)| record_in(no, line).map(|r| (no, &line[r])));
        records
            .map(|(no, bytes)| {
                let record = parse_object(bytes).and_then(|mut object| {
                    let spelled = id_of(&object, id_field)?;
                    let id = match object.get(id_field) {
                        // `id_of` took only numbers that are integers of 64 bits.
                        Some(Value::Number(n)) => n.as_i64().map(Id::Signed).or_else(|| n.as_u64().map(Id::Unsigned)),
                        _ => Some(Id::Text(spelled.clone())),
                    };
                    let text = take_text(&mut object, text_field)?;
                    self.deduper.check(&text).map_err(|e| e.to_string())?;
                    Ok((id, spelled, text))
                });
                match record {
                    Ok((id, spelled, text)) => (no, id, Some(spelled), Some(text), None),
                    Err(error) => (no, None, None, None, Some(error)),
                }
            })
            .collect()
    }

    /// The exact key of each text (16 bytes).
    fn exact_keys(&self, texts: Vec<String>) -> Vec<Vec<u8>> {
        texts.iter().map(|t| self.stages().exact_key(t).to_le_bytes().to_vec()).collect()
    }

    /// Statistics through shuffles, step 1 of 5: prepared distinct texts
    /// `(head, copies, packed)` ([`Stages::prepare_texts`]), each sent to
    /// its home partition (of `parts`), and a [`routed::HOLDS`] record for
    /// each of its shingles to the shingle's.
    fn route_held(&self, rows: Vec<(u32, u32, PyBackedBytes)>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        for (head, copies, p) in &rows {
            routed::push_text(&mut out[routed::home(*head, parts)], *head, *copies, p);
            for shingle in self.stages().shingles(&packed::decode(p).map_err(py_error)?) {
                let r = routed::Shingle { shingle, head: *head, df: 0, content: 0 };
                routed::push_shingle(&mut out[routed::part(shingle, parts)], routed::HOLDS, r);
            }
        }
        Ok(routed::blocks(out))
    }

    /// Step 2: in one partition's blocks, each shingle's holders counted
    /// (its `df`); a shingle of two texts or more sends its `df` to each
    /// ([`routed::DF`]). Only those travel on: a shingle of one text has df 1
    /// and no content count, which signing assumes of any it is not told.
    fn held_df(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        answer_holders(rows, parts, (routed::HOLDS, routed::DF), |holders| {
            (holders.len() >= 2).then_some((holders.len() as u32, 0))
        })
    }

    /// Step 3: each text of one partition, with the `df` of its shared
    /// shingles, says of each whether it counts as the text's content
    /// ([`routed::CONTENT`], to the shingle's partition).
    fn held_content(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let blocks = taken(rows)?;
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        let Met { texts, shingles, .. } = met_passing_on(&blocks, &mut out, parts)?;
        let mut shared = by_head(&shingles, routed::DF);
        for (head, _, p, _) in texts {
            let Some(shared) = shared.remove(&head) else { continue };
            let df: HashMap<u64, u32> = shared.iter().map(|r| (r.shingle, r.df)).collect();
            let own = self.stages().shingles(&packed::decode(p).map_err(py_error)?);
            let content: std::collections::HashSet<u64> =
                self.stages().content_shingles(&own, |s| df.get(&s).copied().unwrap_or(1)).into_iter().collect();
            for r in shared {
                let r = routed::Shingle { content: u32::from(content.contains(&r.shingle)), ..r };
                routed::push_shingle(&mut out[routed::part(r.shingle, parts)], routed::CONTENT, r);
            }
        }
        Ok(routed::blocks(out))
    }

    /// Step 4: in one partition's blocks, each shared shingle's content
    /// count (`content_df`), sent with its `df` to each text that holds it
    /// ([`routed::COUNTS`]).
    fn held_counts(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        answer_holders(rows, parts, (routed::CONTENT, routed::COUNTS), |holders| {
            Some((holders[0].df, holders.iter().map(|r| r.content).sum()))
        })
    }

    /// Step 5: each text of one partition signed under the counts of its
    /// shared shingles, `docs` distinct texts in the corpus: `(head,
    /// copies, (signature, reading))` ([`Stages::sign_packed`]).
    fn sign_held(&self, rows: &Bound<'_, PyAny>, docs: u64) -> PyResult<Vec<(u32, u32, PySignedText)>> {
        let blocks = taken(rows)?;
        let Met { texts, shingles, .. } = met(&blocks)?;
        let mut counts = by_head(&shingles, routed::COUNTS);
        texts
            .into_iter()
            .map(|(head, copies, p, _)| {
                let own = counts.remove(&head).unwrap_or_default();
                let stats = self.stages().statistics(docs, own.iter().map(|r| (r.shingle, r.df, r.content)));
                Ok((head, copies, self.sign_packed(p, &stats)?))
            })
            .collect()
    }

    /// Each text prepared (normalized and shingled) as bytes, for the
    /// passes of the sign stage that follow: counting its shingles, its
    /// content shingles, then signing it.
    fn prepare_texts(&self, texts: Vec<String>) -> Vec<Vec<u8>> {
        texts.iter().map(|t| packed::encode(&self.prepare(t))).collect()
    }

    /// The `df` table of distinct texts ([`Stages::prepare_texts`]): each
    /// shingle with the number of them that hold it.
    fn count_shingles(&self, prepared: Vec<PyBackedBytes>) -> PyResult<Vec<u8>> {
        let mut all = Vec::new();
        for p in &prepared {
            all.extend(self.stages().shingles(&packed::decode(p).map_err(py_error)?));
        }
        Ok(counts::encode(&counts::tally(all)))
    }

    /// The content count table of distinct texts ([`Stages::prepare_texts`])
    /// under the corpus's `df` (a shingle it lacks has df 1), for the
    /// shingles of two texts or more (no other's is read).
    fn count_content(&self, prepared: Vec<PyBackedBytes>, df: &CountTable) -> PyResult<Vec<u8>> {
        let mut all = Vec::new();
        for p in &prepared {
            let shingles = self.stages().shingles(&packed::decode(p).map_err(py_error)?);
            let content = self.stages().content_shingles(&shingles, |s| df.get(s, 1));
            all.extend(content.into_iter().filter(|&s| df.get(s, 1) >= 2));
        }
        Ok(counts::encode(&counts::tally(all)))
    }

    /// The corpus statistics of `docs` distinct texts from the corpus's
    /// `df` and content tables, for a worker to load once and sign all its
    /// texts under ([`Stages::sign_prepared`]).
    fn statistics(&self, docs: u64, df: &[u8], content: &[u8]) -> PyResult<Statistics> {
        let content: PrehashedMap<u64, u32> = decode_counts(content)?.collect();
        let counts = decode_counts(df)?.map(|(s, n)| (s, n, content.get(&s).copied().unwrap_or(0)));
        Ok(Statistics { stats: self.stages().statistics(docs, counts) })
    }

    /// Signatures of distinct texts ([`Stages::prepare_texts`]) under the
    /// corpus's statistics, with their readings ([`Stages::sign_packed`]).
    fn sign_prepared(&self, prepared: Vec<PyBackedBytes>, stats: &Statistics) -> PyResult<Vec<PySignedText>> {
        (prepared.iter()).map(|p| self.sign_packed(p, &stats.stats)).collect()
    }

    /// Band keys and passage keys of each signature.
    fn keys(&self, signatures: Vec<Vec<u8>>) -> PyResult<Vec<(Vec<i64>, Vec<i64>)>> {
        signatures
            .iter()
            .map(|b| {
                let sig = self.signature(b)?;
                Ok((signed(&self.stages().band_keys(&sig)), signed(&self.stages().passage_keys(&sig))))
            })
            .collect()
    }

    /// The band and passage keys of signed texts `(position, copies,
    /// signature)`, as blocks of key records by partition (of `parts`).
    fn route_keys(&self, rows: Vec<(u32, u32, Vec<u8>)>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        for (position, copies, sig) in rows {
            let sig = self.signature(&sig)?;
            let stages = self.stages();
            for (tag, keys) in [(routed::BAND, stages.band_keys(&sig)), (routed::PASSAGE, stages.passage_keys(&sig))] {
                for key in keys {
                    let block = &mut out[routed::part(key, parts)];
                    block.push(tag);
                    block.extend_from_slice(&key.to_le_bytes());
                    block.extend_from_slice(&position.to_le_bytes());
                    block.extend_from_slice(&copies.to_le_bytes());
                }
            }
        }
        Ok(routed::blocks(out))
    }

    /// The pairs of every key's bucket in one partition's `(partition,
    /// block)` rows of key records, as blocks of pair records by partition.
    fn bucket_pairs(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let blocks = taken(rows)?;
        let mut keyed: Vec<(u8, u64, u32, u32)> = records(&blocks, routed::KEY, "keys")?
            .map(|r| {
                let key = u64::from_le_bytes(r[1..9].try_into().expect("8 bytes"));
                (r[0], key, routed::u32_at(r, 9), routed::u32_at(r, 13))
            })
            .collect();
        keyed.sort_unstable();
        keyed.dedup();
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        for bucket in keyed.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)).filter(|b| b.len() > 1) {
            let members: Vec<(u32, u32)> = bucket.iter().map(|&(_, _, at, copies)| (at, copies)).collect();
            for (a, b) in self.stages().bucket_pairs(&members) {
                let block = &mut out[routed::part((u64::from(a) << 32) | u64::from(b), parts)];
                block.push(bucket[0].0);
                block.extend_from_slice(&a.to_le_bytes());
                block.extend_from_slice(&b.to_le_bytes());
            }
        }
        Ok(routed::blocks(out))
    }

    /// The candidate pairs in one partition's `(partition, block)` rows of
    /// pair records: those of a band bucket, and those of at least
    /// [`semhash::stages::Stages::min_shared_passages`] passage buckets;
    /// each once, and sent to both its sides' partitions (of `parts`), where
    /// [`Stages::send_sides`] meets them with the sides.
    fn candidate_pairs(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let blocks = taken(rows)?;
        let mut tagged: Vec<(u32, u32, u8)> = records(&blocks, routed::PAIR, "pairs")?
            .map(|r| (routed::u32_at(r, 1), routed::u32_at(r, 5), r[0]))
            .collect();
        tagged.sort_unstable();
        let least = self.stages().min_shared_passages();
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        for same in tagged.chunk_by(|x, y| (x.0, x.1) == (y.0, y.1)) {
            if same.iter().any(|t| t.2 == routed::BAND)
                || same.iter().filter(|t| t.2 == routed::PASSAGE).count() >= least
            {
                let (a, b) = (same[0].0, same[0].1);
                routed::push_pair(&mut out[routed::home(a, parts)], routed::TO_LOWER, a, b);
                routed::push_pair(&mut out[routed::home(b, parts)], routed::TO_HIGHER, a, b);
            }
        }
        Ok(routed::blocks(out))
    }

    /// Signed texts `(position, reading, signature)` as side records, each
    /// sent to its position's partition (of `parts`).
    fn route_sides(&self, rows: Vec<PySigned>, parts: u32) -> Vec<(u32, Vec<u8>)> {
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        for (position, reading, signature) in rows {
            routed::push_side(&mut out[routed::home(position, parts)], position, &reading, &signature, &[]);
        }
        routed::blocks(out)
    }

    /// Word statistics through shuffles, step 1: signed texts `(position,
    /// reading, signature)` as side records to their home partitions (of
    /// `parts`), and for each short one a record of each of its words to
    /// the word's partition and of each `(context, filler)` to the
    /// context's.
    fn route_words(&self, rows: Vec<PySigned>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        for (position, reading, signature) in &rows {
            routed::push_side(&mut out[routed::home(*position, parts)], *position, reading, signature, &[]);
            let Some(text) = self.side(reading, signature)?.1 else { continue };
            let keys = self.stages().word_keys(&text.reading());
            for w in keys.words {
                routed::push_word(&mut out[routed::part(w, parts)], routed::HOLDS_WORD, w, 0, *position, 0);
            }
            let mut fillers = keys.fillers;
            fillers.sort_unstable();
            fillers.dedup();
            for (c, f) in fillers {
                routed::push_word(&mut out[routed::part(c, parts)], routed::FILLS, c, f, *position, 0);
            }
        }
        Ok(routed::blocks(out))
    }

    /// Step 2: in one partition's blocks, each word's texts and each
    /// context's distinct fillers counted and sent to every short text that
    /// holds the word or fills the context (to its home); sides pass on.
    fn answer_words(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let blocks = taken(rows)?;
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        let mut words = met_passing_on(&blocks, &mut out, parts)?.words;
        words.sort_unstable();
        for (asked, answered) in [(routed::HOLDS_WORD, routed::WORD_COUNT), (routed::FILLS, routed::CONTEXT_COUNT)] {
            let of = words.iter().filter(|w| w.0 == asked);
            for group in of.collect::<Vec<_>>().chunk_by(|x, y| x.1 == y.1) {
                // A word's records are one per text; a context's, one per (filler, text).
                let count = match asked {
                    routed::HOLDS_WORD => group.len(),
                    _ => group.chunk_by(|x, y| x.2 == y.2).count(),
                } as u32;
                let mut texts: Vec<u32> = group.iter().map(|w| w.3).collect();
                texts.sort_unstable();
                texts.dedup();
                for text in texts {
                    routed::push_word(&mut out[routed::home(text, parts)], answered, group[0].1, 0, text, count);
                }
            }
        }
        Ok(routed::blocks(out))
    }

    /// One partition's `(partition, block)` rows of sides and candidate pairs (from
    /// [`Stages::candidate_pairs`] and [`Stages::route_sides`]): each pair
    /// goes to its higher side's partition to be verified, with its lower
    /// side; a higher side stays. A side travels once per partition that
    /// needs it. Blocks by partition (of `parts`).
    fn send_sides(&self, rows: &Bound<'_, PyAny>, parts: u32) -> PyResult<Vec<(u32, Vec<u8>)>> {
        let blocks = taken(rows)?;
        let Met { sides, pairs, words, .. } = met(&blocks)?;
        // The counts of a side's own words, when they were joined to it
        // ([`Stages::answer_words`]), travel in its record.
        let mut counts: HashMap<u32, Vec<u8>> = HashMap::new();
        for (tag, key, _, text, count) in words {
            routed::push_count(counts.entry(text).or_default(), tag, key, count);
        }
        let mut with_counts: HashMap<u32, Vec<u8>> = HashMap::new();
        for (position, own) in &counts {
            let &(reading, signature, _, _) = sides.get(position).ok_or_else(|| missing_side(*position))?;
            let record = with_counts.entry(*position).or_default();
            routed::push_side(record, *position, reading, signature, own);
        }
        let mut out = vec![Vec::new(); parts.max(1) as usize];
        let mut sent = std::collections::HashSet::new();
        for (tag, a, b) in pairs {
            let there = routed::home(b, parts);
            let side = match tag {
                routed::TO_LOWER => {
                    routed::push_pair(&mut out[there], routed::VERIFY, a, b);
                    a
                }
                routed::TO_HIGHER => b,
                _ => return Err(SemHashError::new_err(format!("pair ({a}, {b}) has no side to send yet"))),
            };
            let &(_, _, _, whole) = sides.get(&side).ok_or_else(|| missing_side(side))?;
            if sent.insert((side, there)) {
                out[there].extend_from_slice(with_counts.get(&side).map_or(whole, Vec::as_slice));
            }
        }
        Ok(routed::blocks(out))
    }

    /// The links the pairs to verify in one partition's `(partition, block)`
    /// rows (from [`Stages::send_sides`]) make under the corpus's word
    /// statistics: `words` when broadcast, else those of `short_docs` short
    /// texts with the counts each side carries. Each side is read once.
    #[pyo3(signature = (rows, words=None, short_docs=0))]
    fn verify_blocks(
        &self,
        rows: &Bound<'_, PyAny>,
        words: Option<PyRef<'_, WordTable>>,
        short_docs: u64,
    ) -> PyResult<Vec<PyLink>> {
        let blocks = taken(rows)?;
        let Met { sides, pairs: tagged, .. } = met(&blocks)?;
        let mut pairs = tagged
            .into_iter()
            .map(|(tag, a, b)| match tag {
                routed::VERIFY => Ok((a, b)),
                _ => Err(SemHashError::new_err(format!("pair ({a}, {b}) has not met its sides"))),
            })
            .collect::<PyResult<Vec<_>>>()?;
        pairs.sort_unstable();
        let stages = self.stages();
        let mut read = HashMap::new();
        for &position in pairs.iter().flat_map(|(a, b)| [a, b]) {
            if let std::collections::hash_map::Entry::Vacant(slot) = read.entry(position) {
                let &(reading, signature, counts, _) = sides.get(&position).ok_or_else(|| missing_side(position))?;
                slot.insert((self.side(reading, signature)?, counts));
            }
        }
        // Each short side is read once, and only if one of its pairs is aligned.
        let readings: HashMap<u32, _> =
            read.iter().filter_map(|(&position, ((_, text), _))| Some((position, text.as_ref()?.reading()))).collect();
        let side = |position| Side { position, signature: &read[&position].0 .0, words: readings.get(&position) };
        // Joined counts: a pair's statistics are its two sides' (a text is
        // read only against its own words' counts, the corpus's either way).
        let joined = |a: u32, b: u32| {
            let mut words = HashMap::new();
            let mut contexts = HashMap::new();
            for (tag, key, count) in routed::counts(read[&a].1).chain(routed::counts(read[&b].1)) {
                match tag {
                    routed::WORD_COUNT => words.insert(key, count),
                    _ => contexts.insert(key, count),
                };
            }
            stages.word_stats(short_docs, words, contexts)
        };
        let verdict = |&(a, b): &(u32, u32)| match &words {
            Some(table) => stages.verify(&table.stats, &side(a), &side(b)),
            None => stages.verify(&joined(a, b), &side(a), &side(b)),
        };
        Ok(pairs.iter().filter_map(verdict).map(|l| (l.a, l.b, l.relation.name().into(), l.score)).collect())
    }

    /// What the short texts among `(reading, signature)` rows add to the word
    /// statistics: how many they are, the table of their words (texts
    /// holding each) and the set of their `(context, filler)` pairs.
    fn count_words(&self, rows: Vec<(PyBackedBytes, PyBackedBytes)>) -> PyResult<(u64, Vec<u8>, Vec<u8>)> {
        let (mut short, mut words, mut fillers) = (0u64, Vec::new(), Vec::new());
        for (text, sig) in rows {
            if let Some(text) = self.side(&text, &sig)?.1 {
                let keys = self.stages().word_keys(&text.reading());
                short += 1;
                words.extend(keys.words);
                fillers.extend(keys.fillers);
            }
        }
        Ok((short, counts::encode(&counts::tally(words)), encode_fillers(fillers)))
    }

    /// The word statistics of `short_docs` short texts from their summed
    /// word table and context table ([`context_counts`]).
    fn word_table(&self, short_docs: u64, words: &[u8], contexts: &[u8]) -> PyResult<WordTable> {
        Ok(WordTable { stats: self.stages().word_stats(short_docs, decode_counts(words)?, decode_counts(contexts)?) })
    }

    /// Star clustering of one connected component: `positions` of all its
    /// members (any order), its links (exact copies linked to their head
    /// with relation "exact").
    fn cluster_component(&self, mut positions: Vec<u32>, links: Vec<PyLink>) -> PyResult<Vec<PyPlacement>> {
        positions.sort_unstable();
        positions.dedup();
        let links = links
            .iter()
            .map(|(a, b, r, score)| {
                let inside = |p: &u32| positions.binary_search(p).is_ok();
                if !inside(a) || !inside(b) {
                    return Err(SemHashError::new_err(format!("link ({a}, {b}) leaves the component")));
                }
                Ok(Link { a: *a, b: *b, relation: relation(r)?, score: *score })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(self
            .stages()
            .cluster_component(&positions, &links)
            .into_iter()
            .map(|(at, p)| (at, p.representative, p.parent, p.relation.name().into(), p.score))
            .collect())
    }
}
