//! The native half of the `semhash_llm` Python package: the same library the
//! `semhash` command runs, called with plain Python values. The Python half
//! (`python/semhash_llm/__init__.py`) reads lists, pandas and pyarrow into
//! records and shapes the results; everything that decides is here, in Rust,
//! with the bad-input policy of [`semhash::admit`].
//!
//! No panic may cross into Python: every entry point returns a `PyResult`,
//! and library errors become `SemHashError` (bad input or configuration,
//! a `ValueError`) or `OSError` (files).

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use semhash::admit::{Admission, OnError, Record};
use semhash::decide::Comparison;
use semhash::store::{FileStore, IdKind, Incremental};
use semhash::util::Silent;
use semhash::{Config, Deduper, Document, Error};
use std::collections::HashSet;
use std::time::Duration;

mod arrow;
mod stages;

create_exception!(_native, SemHashError, PyValueError, "Bad input or configuration: the message says what and where.");

fn py_error(e: Error) -> PyErr {
    match e {
        Error::Io { .. } => PyOSError::new_err(e.to_string()),
        other => SemHashError::new_err(other.to_string()),
    }
}

fn deduper(config: Option<&str>) -> PyResult<Deduper> {
    let config = config.map_or_else(|| Ok(Config::default()), Config::from_json).map_err(py_error)?;
    if config.semantic.enabled || config.semantic.attention_weights {
        return Err(SemHashError::new_err(
            "the semantic stage (semantic in the configuration) is not in the Python package yet: the semhash command has it",
        ));
    }
    Deduper::new(config).map_err(py_error)
}

fn on_error(policy: &str) -> PyResult<OnError> {
    match policy {
        "fail" => Ok(OnError::Fail),
        "skip" => Ok(OnError::Skip),
        other => Err(SemHashError::new_err(format!("on_error must be \"fail\" or \"skip\", got {other:?}"))),
    }
}

/// A record read by the Python half: (position from 1, id spelled as a
/// string, text) or, where the reader found something wrong, the error in
/// place of the text.
type PyRecord = (u64, Option<String>, Option<String>, Option<String>);

fn record((position, id, text, error): PyRecord) -> Record {
    let text = match (text, error) {
        (_, Some(error)) => Err(error),
        (Some(text), None) => Ok(text),
        (None, None) => Err("no text".into()),
    };
    Record { position, id, text }
}

/// Admits `records` into a batch (fail or skip on a bad one).
fn admit<'d>(deduper: &'d Deduper, records: Vec<PyRecord>, policy: &str) -> PyResult<Admission<'d>> {
    let mut admission = Admission::new(deduper, "record", on_error(policy)?);
    for r in records {
        admission.offer(record(r)).map_err(py_error)?;
    }
    Ok(admission)
}

/// One result row: (id, cluster, representative, relation, score, parent).
type Row = (String, u32, String, String, f32, Option<String>);
/// A record set aside: (position, id, error).
type SkippedRow = (u64, Option<String>, String);

/// De-duplicates one batch: its rows in input order, the records set aside
/// and the run's counts (JSON).
#[pyfunction]
#[pyo3(signature = (records, config=None, on_error="fail"))]
fn dedup(
    py: Python<'_>,
    records: Vec<PyRecord>,
    config: Option<&str>,
    on_error: &str,
) -> PyResult<(Vec<Row>, Vec<SkippedRow>, String)> {
    let deduper = deduper(config)?;
    let admission = admit(&deduper, records, on_error)?;
    let skipped = admission.skipped.iter().map(|s| (s.line, s.id.clone(), s.error.clone())).collect();
    let docs = admission.docs;
    let outcome = py.detach(|| deduper.dedup(&docs, &Silent)).map_err(py_error)?;
    let rows = outcome
        .docs
        .into_iter()
        .map(|r| (r.id, r.cluster, r.representative, r.relation.name().into(), r.score, r.parent))
        .collect();
    let stats = serde_json::to_string(&outcome.stats).expect("counts serialise");
    Ok((rows, skipped, stats))
}

/// Compares two texts: the verdict and its signals, as JSON.
#[pyfunction]
#[pyo3(signature = (a, b, config=None))]
fn compare(a: &str, b: &str, config: Option<&str>) -> PyResult<String> {
    let deduper = deduper(config)?;
    for text in [a, b] {
        deduper.check(text).map_err(py_error)?;
    }
    let ((verdict, signals), unmatched) = deduper.explain(&[(a, b)]).map_err(py_error)?.remove(0);
    let comparison = Comparison::new(&verdict, signals).with_unmatched(unmatched);
    Ok(serde_json::to_string(&comparison).expect("a comparison serialises"))
}

/// Signatures kept in a store directory, added to and queried over time.
/// One process writes a store at a time (the store's lock).
#[pyclass(unsendable)]
struct Index {
    inner: Incremental<FileStore>,
}

#[pymethods]
impl Index {
    #[new]
    #[pyo3(signature = (path, config=None, lock_timeout=60.0))]
    fn new(path: std::path::PathBuf, config: Option<&str>, lock_timeout: f64) -> PyResult<Self> {
        if !(lock_timeout >= 0.0 && lock_timeout.is_finite()) {
            return Err(SemHashError::new_err(format!("lock_timeout must be seconds >= 0, got {lock_timeout}")));
        }
        let deduper = deduper(config)?;
        let file = FileStore::open_writer(&path, deduper.fingerprint(), Duration::from_secs_f64(lock_timeout))
            .map_err(py_error)?;
        Ok(Index { inner: Incremental::open(deduper, file).map_err(py_error)? })
    }

    /// Signs and stores the admitted records (`integers`: the ids given as
    /// integers, spelled); returns those set aside.
    #[pyo3(signature = (records, on_error="fail", integers=HashSet::new()))]
    fn add(&mut self, records: Vec<PyRecord>, on_error: &str, integers: HashSet<String>) -> PyResult<Vec<SkippedRow>> {
        let admission = admit(self.inner.deduper(), records, on_error)?;
        let skipped = admission.skipped.iter().map(|s| (s.line, s.id.clone(), s.error.clone())).collect();
        let docs = admission.docs;
        let kind = |d: &Document| if integers.contains(&d.id) { IdKind::Integer } else { IdKind::Text };
        self.inner.add_with_kinds(&docs, kind).map_err(py_error)?;
        Ok(skipped)
    }

    /// What in the store a text duplicates, best first: (id, whether it was
    /// added as an integer, relation, score).
    fn query(&self, text: &str) -> PyResult<Vec<(String, bool, String, f32)>> {
        let matches = self.inner.query(text).map_err(py_error)?;
        Ok(matches.into_iter().map(|m| (m.id, m.kind == IdKind::Integer, m.relation.name().into(), m.score)).collect())
    }

    /// Forgets documents; for each id, whether it was stored.
    fn remove(&mut self, ids: Vec<String>) -> PyResult<Vec<bool>> {
        self.inner.remove(&ids).map_err(py_error)
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    fn __contains__(&self, id: &str) -> bool {
        self.inner.contains(id)
    }
}

/// The configuration with every default, as JSON (what `semhash config` prints).
#[pyfunction]
fn default_config() -> String {
    serde_json::to_string_pretty(&Config::default()).expect("the configuration serialises")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("SemHashError", m.py().get_type::<SemHashError>())?;
    m.add_function(wrap_pyfunction!(dedup, m)?)?;
    m.add_function(wrap_pyfunction!(compare, m)?)?;
    m.add_function(wrap_pyfunction!(default_config, m)?)?;
    m.add_class::<Index>()?;
    m.add_class::<stages::Stages>()?;
    m.add_class::<arrow::Kernels>()?;
    m.add_class::<stages::CountTable>()?;
    m.add_class::<stages::Statistics>()?;
    m.add_class::<stages::WordTable>()?;
    m.add_function(wrap_pyfunction!(stages::merge_fillers, m)?)?;
    m.add_function(wrap_pyfunction!(stages::split_counts, m)?)?;
    m.add_function(wrap_pyfunction!(stages::split_fillers, m)?)?;
    m.add_function(wrap_pyfunction!(stages::context_counts, m)?)?;
    m.add_function(wrap_pyfunction!(stages::merge_counts, m)?)?;
    m.add_function(wrap_pyfunction!(stages::counts_at_least, m)?)?;
    m.add_function(wrap_pyfunction!(stages::pairs_of, m)?)?;
    m.add_function(wrap_pyfunction!(stages::pair_count, m)?)?;
    Ok(())
}
