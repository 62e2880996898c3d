//! Reading documents and writing results: JSONL and Parquet (native builds).
//!
//! Input errors name the line (JSONL) or row (Parquet) and what was wrong.
//! With [`OnError::Skip`] a bad record is set aside with its reason and the
//! rest goes on; every valid document is kept exactly once.

pub mod jsonl;
mod parquet;

use arrow_schema::DataType;
use semhash::admit::{self, Admission, OnError, Skipped};
use semhash::pipeline::DocResult;
use semhash::store::IdKind;
use semhash::{Deduper, Document, Error, Result};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashSet;
use std::path::Path;

/// File formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Parquet,
}

impl Format {
    /// Parquet for a `.parquet` or `.pq` path, JSONL otherwise (and for stdin).
    pub fn guess(path: Option<&Path>) -> Format {
        match path.and_then(|p| p.extension()).and_then(|e| e.to_str()) {
            Some("parquet" | "pq") => Format::Parquet,
            _ => Format::Jsonl,
        }
    }
}

/// How to read input records.
#[derive(Clone, Debug)]
pub struct InputOptions {
    pub id_field: String,
    pub text_field: String,
    pub on_error: OnError,
}

/// A record as a reader found it ([`admit::Record`]) and the integer type
/// its id was written as (`None`: a string).
pub struct Typed {
    pub record: admit::Record,
    pub id_type: Option<DataType>,
}

/// Documents read, and the records set aside.
#[derive(Debug)]
pub struct Loaded {
    pub docs: Vec<Document>,
    pub skipped: Vec<Skipped>,
    pub id_types: IdTypes,
}

/// Which ids the input wrote as integers, so that the output writes them
/// back as integers: the core holds every id as its spelling, but a user who
/// joins the output on an integer id column must find integers there.
#[derive(Clone, Debug, Default)]
pub struct IdTypes {
    integers: HashSet<String>,
    /// The integer type of them all (a Parquet id column's, or the JSON
    /// numbers' range); `Utf8` when they differ.
    column: Option<DataType>,
}

impl IdTypes {
    fn note(&mut self, id: &str, id_type: Option<&DataType>) {
        if let Some(t) = id_type {
            self.integers.insert(id.to_owned());
            self.column = match self.column.take() {
                None => Some(t.clone()),
                Some(c) if c == *t => Some(c),
                Some(_) => Some(DataType::Utf8),
            };
        }
    }

    /// How the input wrote `id`, for a store to keep.
    pub fn kind(&self, id: &str) -> IdKind {
        if self.integers.contains(id) {
            IdKind::Integer
        } else {
            IdKind::Text
        }
    }

    /// The id as the input wrote it: a JSON integer or a string.
    pub fn json(&self, id: &str) -> Value {
        id_json(id, self.kind(id))
    }

    /// The Arrow type of an id column holding `ids`: the input's integer
    /// type when every one of them was an integer, a string otherwise.
    fn column_type<'a>(&self, mut ids: impl Iterator<Item = &'a str>) -> DataType {
        match &self.column {
            Some(t) if ids.all(|id| self.integers.contains(id)) => t.clone(),
            _ => DataType::Utf8,
        }
    }
}

/// An id as JSON: an integer's spelling as a number, anything else a string.
pub fn id_json(id: &str, kind: IdKind) -> Value {
    let integer = || id.parse::<i64>().map(Value::from).or_else(|_| id.parse::<u64>().map(Value::from)).ok();
    (kind == IdKind::Integer).then(integer).flatten().unwrap_or_else(|| Value::from(id))
}

/// Reads documents from `path` (stdin for `None` or `-`) and admits them
/// into a batch for `deduper` ([`admit`]: bad records and repeated ids).
pub fn read_documents(
    path: Option<&Path>,
    format: Format,
    options: &InputOptions,
    deduper: &Deduper,
) -> Result<Loaded> {
    match format {
        Format::Jsonl => {
            let (source, name) = jsonl::open(path)?;
            read_jsonl_documents(source, &name, options, deduper)
        }
        Format::Parquet => {
            let path = path.ok_or_else(|| Error::Input("Parquet input must be a file, not stdin".into()))?;
            admit_all("row", options, deduper, |accept| parquet::read(path, options, accept))
        }
    }
}

/// [`read_documents`] for JSONL from any reader; `name` names it in errors.
pub fn read_jsonl_documents(
    source: impl std::io::Read,
    name: &str,
    options: &InputOptions,
    deduper: &Deduper,
) -> Result<Loaded> {
    admit_all("line", options, deduper, |accept| jsonl::read(source, name, options, accept))
}

/// Admits every record a reader finds; `unit` names a record's position.
fn admit_all(
    unit: &'static str,
    options: &InputOptions,
    deduper: &Deduper,
    read: impl FnOnce(&mut dyn FnMut(Typed) -> Result<()>) -> Result<()>,
) -> Result<Loaded> {
    let mut admission = Admission::new(deduper, unit, options.on_error);
    let mut id_types = IdTypes::default();
    read(&mut |Typed { record, id_type }: Typed| -> Result<()> {
        let id = record.id.clone();
        if admission.offer(record)? {
            id_types.note(&id.expect("an admitted record has an id"), id_type.as_ref());
        }
        Ok(())
    })?;
    Ok(Loaded { docs: admission.docs, skipped: admission.skipped, id_types })
}

/// Writes one result per document to `path` (stdout for `None` or `-`),
/// its ids as the input wrote them.
pub fn write_results(path: Option<&Path>, format: Format, results: &[DocResult], ids: &IdTypes) -> Result<()> {
    match format {
        Format::Jsonl => jsonl::write(path, results.iter().map(|r| result_row(r, ids))),
        Format::Parquet => parquet::write(
            path.ok_or_else(|| Error::Input("Parquet output must be a file, not stdout".into()))?,
            results,
            ids,
        ),
    }
}

/// A result as written to JSONL: its fields in `DocResult`'s order, its ids
/// as the input wrote them.
#[derive(Serialize)]
struct ResultRow {
    id: Value,
    cluster: u32,
    representative: Value,
    relation: semhash::decide::Relation,
    score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<Value>,
}

fn result_row(r: &DocResult, ids: &IdTypes) -> ResultRow {
    ResultRow {
        id: ids.json(&r.id),
        cluster: r.cluster,
        representative: ids.json(&r.representative),
        relation: r.relation,
        score: r.score,
        parent: r.parent.as_deref().map(|p| ids.json(p)),
    }
}

/// `None` for `-`, the path otherwise.
pub fn file_or_stdio(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| p.as_os_str() != "-")
}
