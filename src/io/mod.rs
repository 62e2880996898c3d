//! Reading documents and writing results: JSONL and Parquet (native builds).
//!
//! Input errors name the line (JSONL) or row (Parquet) and what was wrong.
//! With [`OnError::Skip`] a bad record is set aside with its reason and the
//! rest goes on; every valid document is kept exactly once.

pub mod jsonl;
mod parquet;

use crate::pipeline::DocResult;
use crate::{Document, Error, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// What to do with a bad record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnError {
    /// Stop with the error.
    #[default]
    Fail,
    /// Set it aside (listed in the report) and go on.
    Skip,
}

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

/// A record that was set aside.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skipped {
    /// Line (JSONL) or row (Parquet), from 1.
    pub line: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub error: String,
}

/// A raw record before validation: its position, id and text, or what was wrong.
pub(crate) struct Record {
    pub line: u64,
    pub id: Option<String>,
    pub text: std::result::Result<String, String>,
}

/// Documents read, and the records set aside.
#[derive(Debug, Default)]
pub struct Loaded {
    pub docs: Vec<Document>,
    pub skipped: Vec<Skipped>,
}

/// Reads documents from `path` (stdin for `None` or `-`), applying `check`
/// to each text and refusing duplicate ids.
pub fn read_documents(
    path: Option<&Path>,
    format: Format,
    options: &InputOptions,
    check: &dyn Fn(&str) -> Result<()>,
) -> Result<Loaded> {
    let mut loaded = Loaded::default();
    let mut first_line: HashMap<String, u64> = HashMap::new();
    let unit = if format == Format::Parquet { "row" } else { "line" };
    let mut accept = |record: Record| -> Result<()> {
        let verdict = record.text.and_then(|text| {
            let id = record.id.clone().expect("a record with text has an id");
            if let Some(first) = first_line.get(&id) {
                return Err(format!("duplicate id {id:?} (first seen on {unit} {first})"));
            }
            check(&text).map_err(|e| e.to_string())?;
            first_line.insert(id.clone(), record.line);
            Ok(Document { id, text })
        });
        match verdict {
            Ok(doc) => loaded.docs.push(doc),
            Err(error) => {
                let id_part = record.id.as_deref().map(|id| format!(" (id {id:?})")).unwrap_or_default();
                let message = format!("{unit} {}{id_part}: {error}", record.line);
                match options.on_error {
                    OnError::Fail => return Err(Error::Input(message)),
                    OnError::Skip => loaded.skipped.push(Skipped { line: record.line, id: record.id, error }),
                }
            }
        }
        Ok(())
    };
    match format {
        Format::Jsonl => jsonl::read(path, options, &mut accept)?,
        Format::Parquet => parquet::read(
            path.ok_or_else(|| Error::Input("Parquet input must be a file, not stdin".into()))?,
            options,
            &mut accept,
        )?,
    }
    Ok(loaded)
}

/// Writes one result per document to `path` (stdout for `None` or `-`).
pub fn write_results(path: Option<&Path>, format: Format, results: &[DocResult]) -> Result<()> {
    match format {
        Format::Jsonl => jsonl::write(path, results.iter()),
        Format::Parquet => parquet::write(
            path.ok_or_else(|| Error::Input("Parquet output must be a file, not stdout".into()))?,
            results,
        ),
    }
}

/// `None` for `-`, the path otherwise.
pub fn file_or_stdio(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| p.as_os_str() != "-")
}
