//! The stage functions over Arrow record batches, for engines that move
//! data as Arrow (Spark's `mapInArrow`, Ray Data's `map_batches`, Dask,
//! Polars, DuckDB): a batch of rows in, a batch out, each kernel running
//! the [`Stages`] function of its stage on every row. The engine does the
//! joins and aggregations between kernels, as in the module docs above.
//!
//! Columns are found by name, so a batch may carry more. Texts may be any
//! Arrow string type and bytes any binary type. Arrow engines do not all
//! have unsigned integers (Spark has none), so 64-bit hashes travel as
//! `Int64` (bit for bit), positions as `Int64` (or `Int32`), exact keys as
//! 16 bytes, signatures as their versioned, fingerprinted bytes and a
//! short text's reading as [`packed`] bytes.
//!
//! | kernel | in | out (one row per row in, unless said) | the engine then |
//! | --- | --- | --- | --- |
//! | [`exact_keys`] | `text` | `exact_key` | groups by it |
//! | [`prepare`] | `text` (a distinct text) | `shingles: list<int64>`, `prepared: binary` | counts texts per shingle (`df`) |
//! | [`content_shingles`] | `shingles`; a table `shingle`, `df` | `content: list<int64>` | counts texts per content shingle (`content_df`) |
//! | [`statistics`] | a table `shingle`, `df`, `content_df` | a [`CorpusStats`] to sign under | – |
//! | [`sign`] | `prepared` | `signature`, `reading` (null for a long text) | – |
//! | [`keys`] | `signature` | `band_keys`, `passage_keys: list<int64>` | groups `position`, `copies` by key |
//! | [`bucket_pairs`] | `key`, `position`, `copies`: every member of each key | `key`, `a`, `b`: the key's candidate pairs | unions band pairs; keeps passage pairs of enough keys |
//! | [`word_keys`] | `reading` | `words`, `contexts`, `fillers: list<int64>` | counts texts per word; distinct fillers per context |
//! | [`word_stats`] | tables `word`, `texts` and `context`, `fillers` | a [`WordStats`] to verify under | – |
//! | [`verify`] | `a`, `b`, `a_signature`, `b_signature`, `a_reading`, `b_reading` | `a`, `b`, `relation`, `score`: the pairs that are links (duplicates, and pairs kept apart: `none`) | connected components of links and exact copies |
//! | [`cluster_component`] | `a`, `b`, `relation`, `score`: one component's links | `position`, `representative`, `parent`, `relation`, `score` | numbers clusters ([`number_clusters`](super::number_clusters)) |
//!
//! A table argument ([`content_shingles`], [`statistics`], [`word_stats`])
//! must hold (at least) the entries of the batch's own texts: the whole
//! corpus's table on every worker, or the rows the engine joined to each
//! text.

use super::{packed, Side, Stages};
use crate::cluster::Link;
use crate::decide::align::WordStats;
use crate::decide::Relation;
use crate::sketch::{CorpusStats, Signature};
use crate::{Error, Result};
use arrow_array::builder::{BinaryBuilder, Float32Builder, Int64Builder, ListBuilder, StringBuilder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Float64Type, Int32Type, Int64Type, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use std::collections::HashMap;
use std::sync::Arc;

fn column<'b>(batch: &'b RecordBatch, name: &str) -> Result<&'b ArrayRef> {
    batch.column_by_name(name).ok_or_else(|| {
        let names: Vec<&str> = batch.schema_ref().fields().iter().map(|f| f.name().as_str()).collect();
        Error::Input(format!("the batch has no column {name:?} (it has {names:?})"))
    })
}

fn wrong_type(name: &str, found: &DataType, wanted: &str) -> Error {
    Error::Input(format!("column {name:?} holds {found}, not {wanted}"))
}

fn null_at(name: &str, row: usize) -> Error {
    Error::Input(format!("column {name:?} is null at row {row}"))
}

/// A column that has no nulls.
fn without_nulls<'b>(batch: &'b RecordBatch, name: &str) -> Result<&'b ArrayRef> {
    let c = column(batch, name)?;
    match (0..c.len()).find(|&i| c.is_null(i)) {
        Some(i) => Err(null_at(name, i)),
        None => Ok(c),
    }
}

/// A column of any Arrow string type, with no nulls.
fn strings<'b>(batch: &'b RecordBatch, name: &str) -> Result<Vec<&'b str>> {
    let c = column(batch, name)?;
    let values: Vec<Option<&str>> = match c.data_type() {
        DataType::Utf8 => c.as_string::<i32>().iter().collect(),
        DataType::LargeUtf8 => c.as_string::<i64>().iter().collect(),
        DataType::Utf8View => c.as_string_view().iter().collect(),
        other => return Err(wrong_type(name, other, "strings")),
    };
    values.into_iter().enumerate().map(|(i, v)| v.ok_or_else(|| null_at(name, i))).collect()
}

/// The `text` column, each text one the pipeline takes (not empty, not
/// over `limits.max_doc_bytes`), as [`crate::Deduper::check`] says.
fn texts<'b>(stages: &Stages, batch: &'b RecordBatch) -> Result<Vec<&'b str>> {
    let texts = strings(batch, "text")?;
    for (row, text) in texts.iter().enumerate() {
        stages.deduper.check(text).map_err(|e| Error::Input(format!("column \"text\" at row {row}: {e}")))?;
    }
    Ok(texts)
}

/// A column of any Arrow binary type; nulls stay `None`.
fn bytes<'b>(batch: &'b RecordBatch, name: &str) -> Result<Vec<Option<&'b [u8]>>> {
    let c = column(batch, name)?;
    Ok(match c.data_type() {
        DataType::Binary => c.as_binary::<i32>().iter().collect(),
        DataType::LargeBinary => c.as_binary::<i64>().iter().collect(),
        DataType::BinaryView => c.as_binary_view().iter().collect(),
        DataType::FixedSizeBinary(_) => c.as_fixed_size_binary().iter().collect(),
        other => return Err(wrong_type(name, other, "bytes")),
    })
}

/// A column of bytes with no nulls.
fn required_bytes<'b>(batch: &'b RecordBatch, name: &str) -> Result<Vec<&'b [u8]>> {
    let values = bytes(batch, name)?;
    values.into_iter().enumerate().map(|(i, v)| v.ok_or_else(|| null_at(name, i))).collect()
}

/// An integer column with no nulls, as `i64`.
fn integers(batch: &RecordBatch, name: &str) -> Result<Vec<i64>> {
    let c = without_nulls(batch, name)?;
    Ok(match c.data_type() {
        DataType::Int64 => c.as_primitive::<Int64Type>().values().to_vec(),
        DataType::Int32 => c.as_primitive::<Int32Type>().values().iter().map(|&v| v as i64).collect(),
        DataType::UInt32 => c.as_primitive::<UInt32Type>().values().iter().map(|&v| v as i64).collect(),
        other => return Err(wrong_type(name, other, "integers")),
    })
}

/// A float column with no nulls, as `f32` (a score).
fn floats(batch: &RecordBatch, name: &str) -> Result<Vec<f32>> {
    let c = without_nulls(batch, name)?;
    Ok(match c.data_type() {
        DataType::Float32 => c.as_primitive::<Float32Type>().values().to_vec(),
        DataType::Float64 => c.as_primitive::<Float64Type>().values().iter().map(|&v| v as f32).collect(),
        other => return Err(wrong_type(name, other, "floats")),
    })
}

/// Hashes: 64 bits carried as `Int64`.
fn hashes(batch: &RecordBatch, name: &str) -> Result<Vec<u64>> {
    Ok(integers(batch, name)?.into_iter().map(|v| v as u64).collect())
}

/// Counts and positions: integers in `u32`.
fn u32s(batch: &RecordBatch, name: &str) -> Result<Vec<u32>> {
    integers(batch, name)?
        .into_iter()
        .map(|v| {
            u32::try_from(v).map_err(|_| Error::Input(format!("column {name:?} holds {v}, not a position or count")))
        })
        .collect()
}

/// A column of lists of hashes (`list<int64>` or `large_list<int64>`).
fn hash_lists(batch: &RecordBatch, name: &str) -> Result<Vec<Vec<u64>>> {
    let c = column(batch, name)?;
    let rows: Vec<Option<ArrayRef>> = match c.data_type() {
        DataType::List(_) => c.as_list::<i32>().iter().collect(),
        DataType::LargeList(_) => c.as_list::<i64>().iter().collect(),
        other => return Err(wrong_type(name, other, "lists of int64")),
    };
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let row = row.ok_or_else(|| null_at(name, i))?;
            let values =
                row.as_primitive_opt::<Int64Type>().ok_or_else(|| wrong_type(name, row.data_type(), "int64"))?;
            Ok(values.values().iter().map(|&v| v as u64).collect())
        })
        .collect()
}

fn list_of(rows: impl IntoIterator<Item = Vec<u64>>) -> ArrayRef {
    let mut out = ListBuilder::new(Int64Builder::new());
    for row in rows {
        row.into_iter().for_each(|v| out.values().append_value(v as i64));
        out.append(true);
    }
    Arc::new(out.finish())
}

fn binary_of<B: AsRef<[u8]>>(rows: impl IntoIterator<Item = Option<B>>) -> ArrayRef {
    let mut out = BinaryBuilder::new();
    rows.into_iter().for_each(|row| out.append_option(row));
    Arc::new(out.finish())
}

fn int64_of(rows: impl IntoIterator<Item = Option<i64>>) -> ArrayRef {
    let mut out = Int64Builder::new();
    rows.into_iter().for_each(|row| out.append_option(row));
    Arc::new(out.finish())
}

fn relations_of(rows: impl IntoIterator<Item = Relation>) -> ArrayRef {
    let mut out = StringBuilder::new();
    rows.into_iter().for_each(|r| out.append_value(r.name()));
    Arc::new(out.finish())
}

fn scores_of(rows: impl IntoIterator<Item = f32>) -> ArrayRef {
    let mut out = Float32Builder::new();
    rows.into_iter().for_each(|s| out.append_value(s));
    Arc::new(out.finish())
}

fn batch_of(columns: Vec<(&str, ArrayRef)>) -> Result<RecordBatch> {
    RecordBatch::try_from_iter(columns).map_err(|e| Error::Input(format!("building a batch: {e}")))
}

/// `(key, count)` pairs of two columns of a table.
fn counts(table: &RecordBatch, key: &str, count: &str) -> Result<impl Iterator<Item = (u64, u32)>> {
    Ok(hashes(table, key)?.into_iter().zip(u32s(table, count)?))
}

fn signature(stages: &Stages, bytes: &[u8]) -> Result<Signature> {
    Ok(Signature::from_bytes(bytes, stages.deduper.fingerprint(), "a signature in the batch")?.0)
}

/// `text` -> `exact_key` (16 bytes, little-endian).
pub fn exact_keys(stages: &Stages, batch: &RecordBatch) -> Result<RecordBatch> {
    let keys = texts(stages, batch)?.into_iter().map(|t| Some(stages.exact_key(t).to_le_bytes()));
    batch_of(vec![("exact_key", binary_of(keys))])
}

/// `text` -> `exact_key`, `shingles` (each once: what `df` counts) and
/// `prepared` (the text normalized and shingled, [`packed`]) for the sign
/// stage.
pub fn prepare(stages: &Stages, batch: &RecordBatch) -> Result<RecordBatch> {
    let prepared: Vec<_> = texts(stages, batch)?.into_iter().map(|t| stages.prepare(t)).collect();
    batch_of(vec![
        ("exact_key", binary_of(prepared.iter().map(|p| Some(p.exact.to_le_bytes())))),
        ("shingles", list_of(prepared.iter().map(|p| stages.shingles(p)))),
        ("prepared", binary_of(prepared.iter().map(|p| Some(packed::encode(p))))),
    ])
}

/// `shingles` -> `content`: the shingles each text counts in `content_df`,
/// given a `df` table (`shingle`, `df`) holding the batch's shingles.
pub fn content_shingles(stages: &Stages, batch: &RecordBatch, df: &RecordBatch) -> Result<RecordBatch> {
    let df: HashMap<u64, u32> = counts(df, "shingle", "df")?.collect();
    let content = hash_lists(batch, "shingles")?
        .into_iter()
        .map(|shingles| {
            let missing = shingles.iter().find(|s| !df.contains_key(s));
            match missing {
                Some(s) => Err(Error::Input(format!("the df table has no shingle {}", *s as i64))),
                None => Ok(stages.content_shingles(&shingles, |s| df[&s])),
            }
        })
        .collect::<Result<Vec<_>>>()?;
    batch_of(vec![("content", list_of(content))])
}

/// Corpus statistics of `docs` distinct texts from a table of `shingle`,
/// `df`, `content_df`, for a worker to load once and [`sign`] under.
pub fn statistics(stages: &Stages, docs: u64, table: &RecordBatch) -> Result<CorpusStats> {
    let content = u32s(table, "content_df")?;
    let rows = counts(table, "shingle", "df")?.zip(content).map(|((s, df), content)| (s, df, content));
    Ok(stages.statistics(docs, rows))
}

/// `prepared` -> `signature`, and `reading` for a short text (null for a
/// long one: its signature decides).
pub fn sign(stages: &Stages, batch: &RecordBatch, stats: &CorpusStats) -> Result<RecordBatch> {
    let fingerprint = stages.deduper.fingerprint();
    let mut signatures = Vec::with_capacity(batch.num_rows());
    let mut readings = Vec::with_capacity(batch.num_rows());
    for bytes in required_bytes(batch, "prepared")? {
        let signature = stages.sign(&packed::decode(bytes)?, stats);
        readings.push(if stages.is_short(&signature) { Some(packed::reading(bytes)?) } else { None });
        signatures.push(Some(signature.to_bytes(fingerprint)));
    }
    batch_of(vec![("signature", binary_of(signatures)), ("reading", binary_of(readings))])
}

/// `signature` -> `band_keys` (one shared makes a candidate pair) and
/// `passage_keys` ([`Stages::min_shared_passages`] shared make one).
pub fn keys(stages: &Stages, batch: &RecordBatch) -> Result<RecordBatch> {
    let signatures =
        required_bytes(batch, "signature")?.into_iter().map(|b| signature(stages, b)).collect::<Result<Vec<_>>>()?;
    batch_of(vec![
        ("band_keys", list_of(signatures.iter().map(|s| stages.band_keys(s)))),
        ("passage_keys", list_of(signatures.iter().map(|s| stages.passage_keys(s)))),
    ])
}

/// `key`, `position`, `copies` of every distinct text under each key (all
/// of a key's rows in this batch: a group of a group-by) -> `key`, `a`,
/// `b`: each key's candidate pairs, the lower position first (a hot
/// bucket's members are paired with its most copied text only).
pub fn bucket_pairs(stages: &Stages, batch: &RecordBatch) -> Result<RecordBatch> {
    let mut buckets: HashMap<u64, Vec<(u32, u32)>> = HashMap::new();
    let rows = hashes(batch, "key")?.into_iter().zip(u32s(batch, "position")?).zip(u32s(batch, "copies")?);
    for ((key, position), copies) in rows {
        buckets.entry(key).or_default().push((position, copies));
    }
    let mut keys: Vec<u64> = buckets.keys().copied().collect();
    keys.sort_unstable();
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for key in keys {
        let members = buckets.get_mut(&key).expect("a key of the map");
        members.sort_unstable();
        members.dedup();
        for (a, b) in stages.bucket_pairs(members) {
            out.0.push(Some(key as i64));
            out.1.push(Some(a as i64));
            out.2.push(Some(b as i64));
        }
    }
    batch_of(vec![("key", int64_of(out.0)), ("a", int64_of(out.1)), ("b", int64_of(out.2))])
}

/// `reading` -> `words` (each once), and `contexts` with `fillers` (its
/// `(context, filler)` pairs): what a short text adds to the word
/// statistics. A null reading (a long text) adds nothing.
pub fn word_keys(stages: &Stages, batch: &RecordBatch) -> Result<RecordBatch> {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for reading in bytes(batch, "reading")? {
        let keys = match reading {
            Some(r) => stages.word_keys(&packed::decode_reading(r)?.reading()),
            None => Default::default(),
        };
        out.0.push(keys.words);
        out.1.push(keys.fillers.iter().map(|f| f.0).collect());
        out.2.push(keys.fillers.iter().map(|f| f.1).collect());
    }
    batch_of(vec![("words", list_of(out.0)), ("contexts", list_of(out.1)), ("fillers", list_of(out.2))])
}

/// Word statistics of `short_docs` short texts from a table of `word`,
/// `texts` (texts holding it) and one of `context`, `fillers` (distinct
/// fillers seen in it), for [`verify`].
pub fn word_stats(stages: &Stages, short_docs: u64, words: &RecordBatch, contexts: &RecordBatch) -> Result<WordStats> {
    Ok(stages.word_stats(short_docs, counts(words, "word", "texts")?, counts(contexts, "context", "fillers")?))
}

/// Candidate pairs `a` < `b` with both sides' `signature` and `reading`
/// -> the pairs that are links (duplicates, and pairs kept apart with
/// relation `none`): `a`, `b`, `relation`, `score`.
pub fn verify(stages: &Stages, batch: &RecordBatch, words: &WordStats) -> Result<RecordBatch> {
    let (a, b) = (u32s(batch, "a")?, u32s(batch, "b")?);
    let signatures = [required_bytes(batch, "a_signature")?, required_bytes(batch, "b_signature")?];
    let readings = [bytes(batch, "a_reading")?, bytes(batch, "b_reading")?];
    let mut links: Vec<Link> = Vec::new();
    for row in 0..batch.num_rows() {
        if a[row] >= b[row] {
            return Err(Error::Input(format!(
                "row {row}: pair ({}, {}) is not read from the lower position",
                a[row], b[row]
            )));
        }
        let sides = [0, 1].map(|s| -> Result<_> {
            let sig = signature(stages, signatures[s][row])?;
            let reading = match (stages.is_short(&sig), readings[s][row]) {
                (true, Some(r)) => Some(packed::decode_reading(r)?),
                (true, None) => return Err(Error::Input(format!("row {row}: a short text without its reading"))),
                (false, _) => None,
            };
            Ok((sig, reading))
        });
        let [sa, sb] = sides;
        let ((sig_a, read_a), (sig_b, read_b)) = (sa?, sb?);
        let (read_a, read_b) = (read_a.as_ref().map(|r| r.reading()), read_b.as_ref().map(|r| r.reading()));
        let side_a = Side { position: a[row], signature: &sig_a, words: read_a.as_ref() };
        let side_b = Side { position: b[row], signature: &sig_b, words: read_b.as_ref() };
        links.extend(stages.verify(words, &side_a, &side_b));
    }
    batch_of(vec![
        ("a", int64_of(links.iter().map(|l| Some(l.a as i64)))),
        ("b", int64_of(links.iter().map(|l| Some(l.b as i64)))),
        ("relation", relations_of(links.iter().map(|l| l.relation))),
        ("score", scores_of(links.iter().map(|l| l.score))),
    ])
}

/// The links of one connected component (`a`, `b`, `relation`, `score`;
/// exact copies linked to their head with relation "exact") -> each
/// member's `position`, `representative`, `parent` (null for the
/// representative), `relation` and `score`, by position. A document in no
/// link is its own cluster's representative.
pub fn cluster_component(stages: &Stages, links: &RecordBatch) -> Result<RecordBatch> {
    let (a, b, score) = (u32s(links, "a")?, u32s(links, "b")?, floats(links, "score")?);
    let links = strings(links, "relation")?
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let relation =
                Relation::from_name(name).ok_or_else(|| Error::Input(format!("not a relation: {name:?}")))?;
            Ok(Link { a: a[i], b: b[i], relation, score: score[i] })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut positions: Vec<u32> = links.iter().flat_map(|l| [l.a, l.b]).collect();
    positions.sort_unstable();
    positions.dedup();
    let placed = stages.cluster_component(&positions, &links);
    batch_of(vec![
        ("position", int64_of(placed.iter().map(|(at, _)| Some(*at as i64)))),
        ("representative", int64_of(placed.iter().map(|(_, p)| Some(p.representative as i64)))),
        ("parent", int64_of(placed.iter().map(|(_, p)| p.parent.map(|q| q as i64)))),
        ("relation", relations_of(placed.iter().map(|(_, p)| p.relation))),
        ("score", scores_of(placed.iter().map(|(_, p)| p.score))),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, Deduper};
    use arrow_array::{Int64Array, LargeStringArray, StringArray, StringViewArray};

    const FOX: &str = "The quick brown fox jumps over the lazy dog near the river bank";
    const FOX_EDITED: &str = "The quick brown fox jumped over the lazy dog near the river bank";

    fn deduper() -> Deduper {
        Deduper::new(Config::default()).unwrap()
    }

    fn texts(column: ArrayRef) -> RecordBatch {
        batch_of(vec![("text", column)]).unwrap()
    }

    fn message(e: Error) -> String {
        e.to_string()
    }

    #[test]
    fn every_string_type_gives_the_row_function_s_keys() {
        let d = deduper();
        let stages = Stages::new(&d).unwrap();
        let want: Vec<Option<Vec<u8>>> =
            [FOX, FOX_EDITED].iter().map(|t| Some(stages.exact_key(t).to_le_bytes().to_vec())).collect();
        let columns: [ArrayRef; 3] = [
            Arc::new(StringArray::from(vec![FOX, FOX_EDITED])),
            Arc::new(LargeStringArray::from(vec![FOX, FOX_EDITED])),
            Arc::new(StringViewArray::from(vec![FOX, FOX_EDITED])),
        ];
        for column in columns {
            let kind = column.data_type().clone();
            let out = exact_keys(&stages, &texts(column)).unwrap();
            let got: Vec<Option<Vec<u8>>> =
                out.column(0).as_binary::<i32>().iter().map(|k| k.map(<[u8]>::to_vec)).collect();
            assert_eq!(got, want, "{kind}");
        }
    }

    #[test]
    fn bad_batches_are_refused_by_name() {
        let d = deduper();
        let stages = Stages::new(&d).unwrap();
        let other = batch_of(vec![("body", Arc::new(StringArray::from(vec![FOX])) as ArrayRef)]).unwrap();
        assert!(message(exact_keys(&stages, &other).unwrap_err()).contains(r#"no column "text" (it has ["body"])"#));
        let null = texts(Arc::new(StringArray::from(vec![Some(FOX), None])));
        assert!(message(prepare(&stages, &null).unwrap_err()).contains(r#"column "text" is null at row 1"#));
        let numbers = texts(Arc::new(Int64Array::from(vec![1])));
        assert!(message(exact_keys(&stages, &numbers).unwrap_err()).contains(r#"column "text" holds Int64"#));
        let blank = texts(Arc::new(StringArray::from(vec![FOX, "  "])));
        assert!(message(exact_keys(&stages, &blank).unwrap_err()).contains(r#"column "text" at row 1: text is empty"#));
        let mut small = Config::default();
        small.limits.max_doc_bytes = 20;
        let small = Deduper::new(small).unwrap();
        let huge = prepare(&Stages::new(&small).unwrap(), &texts(Arc::new(StringArray::from(vec![FOX]))));
        assert!(message(huge.unwrap_err()).contains("over the limit of 20 bytes"));
        let garbled = batch_of(vec![("signature", binary_of([Some(b"SHSG")]))]).unwrap();
        assert!(message(keys(&stages, &garbled).unwrap_err()).contains("a signature in the batch"));
    }

    #[test]
    fn a_pair_signed_and_verified_in_batches_is_the_row_function_s_link() {
        let d = deduper();
        let stages = Stages::new(&d).unwrap();
        let prepared = prepare(&stages, &texts(Arc::new(StringArray::from(vec![FOX, FOX_EDITED])))).unwrap();
        // Each text counts its own shingles once: the statistics of this two-text corpus.
        let mut df: HashMap<u64, u32> = HashMap::new();
        hash_lists(&prepared, "shingles").unwrap().iter().flatten().for_each(|&s| *df.entry(s).or_default() += 1);
        let table = batch_of(vec![
            ("shingle", int64_of(df.keys().map(|&s| Some(s as i64)))),
            ("df", int64_of(df.values().map(|&n| Some(n as i64)))),
            ("content_df", int64_of(df.values().map(|_| Some(0)))),
        ])
        .unwrap();
        let stats = statistics(&stages, 2, &table).unwrap();
        let signed = sign(&stages, &prepared, &stats).unwrap();
        let column = |name: &str| signed.column_by_name(name).unwrap().clone();
        let pair = batch_of(vec![
            ("a", int64_of([Some(0)])),
            ("b", int64_of([Some(1)])),
            ("a_signature", column("signature").slice(0, 1)),
            ("b_signature", column("signature").slice(1, 1)),
            ("a_reading", column("reading").slice(0, 1)),
            ("b_reading", column("reading").slice(1, 1)),
        ])
        .unwrap();
        let words =
            word_stats(&stages, 2, &batch_of(vec![("word", int64_of([])), ("texts", int64_of([]))]).unwrap(), &{
                batch_of(vec![("context", int64_of([])), ("fillers", int64_of([]))]).unwrap()
            })
            .unwrap();
        let links = verify(&stages, &pair, &words).unwrap();

        let p: Vec<_> = [FOX, FOX_EDITED].iter().map(|t| stages.prepare(t)).collect();
        let sigs: Vec<_> = p.iter().map(|p| stages.sign(p, &stats)).collect();
        let readings: Vec<_> = p.iter().map(|p| stages.reading(p)).collect();
        let side = |i: usize| Side { position: i as u32, signature: &sigs[i], words: Some(&readings[i]) };
        let want = stages.verify(&words, &side(0), &side(1)).expect("a near duplicate");
        assert_eq!(links.num_rows(), 1);
        assert_eq!(links.column(2).as_string::<i32>().value(0), want.relation.name());
        assert_eq!(links.column(3).as_primitive::<Float32Type>().value(0), want.score);

        let placed = cluster_component(&stages, &links).unwrap();
        assert_eq!(placed.column(1).as_primitive::<Int64Type>().values().to_vec(), vec![0, 0], "one representative");
        assert!(placed.column(2).is_null(0) && placed.column(2).as_primitive::<Int64Type>().value(1) == 0);
    }
}
