//! [`semhash::stages::arrow`] for Python engines that move data as Arrow
//! (`python/semhash_llm/arrow.py` wraps it for pyarrow). Batches cross in
//! both directions through the Arrow PyCapsule interface: no copy, and no
//! tie to one pyarrow (or pyo3) version.

use super::stages::{Statistics, WordTable};
use super::{deduper, py_error, SemHashError};
use arrow_array::ffi::{from_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use semhash::stages::arrow as kernels;
use semhash::Deduper;

/// A batch as the PyCapsule interface hands it over: `(schema, array)`.
type Capsules<'py> = (Bound<'py, PyCapsule>, Bound<'py, PyCapsule>);

/// The batch behind an object with `__arrow_c_array__` (a
/// `pyarrow.RecordBatch`).
fn batch_of(data: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    let (schema, array): Capsules = data.call_method0("__arrow_c_array__")?.extract()?;
    let schema = schema.pointer_checked(Some(c"arrow_schema"))?.cast::<FFI_ArrowSchema>();
    let array = array.pointer_checked(Some(c"arrow_array"))?.cast::<FFI_ArrowArray>();
    // SAFETY: the capsules' names promise an Arrow C schema and array. The
    // array is moved out of its capsule (which is left released, as the
    // protocol has it); the schema is only read, while its capsule lives.
    let data = unsafe { from_ffi(FFI_ArrowArray::from_raw(array.as_ptr()), schema.as_ref()) }
        .map_err(|e| SemHashError::new_err(format!("not an Arrow batch: {e}")))?;
    if !matches!(data.data_type(), arrow_schema::DataType::Struct(_)) {
        return Err(SemHashError::new_err(format!("not a record batch but an array of {}", data.data_type())));
    }
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// A batch handed to Python as `(schema, array)` capsules, for
/// `pyarrow.record_batch` to take over.
fn capsules(py: Python<'_>, batch: RecordBatch) -> PyResult<Capsules<'_>> {
    let data = StructArray::from(batch).into_data();
    let schema = FFI_ArrowSchema::try_from(data.data_type())
        .map_err(|e| SemHashError::new_err(format!("exporting a batch: {e}")))?;
    Ok((
        PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
        PyCapsule::new_with_value(py, FFI_ArrowArray::new(&data), c"arrow_array")?,
    ))
}

/// The stage functions of one (lexical) pipeline over Arrow batches.
#[pyclass(frozen)]
pub struct Kernels {
    deduper: Deduper,
}

impl Kernels {
    fn stages(&self) -> semhash::stages::Stages<'_> {
        semhash::stages::Stages::new(&self.deduper).expect("checked when made")
    }

    /// `kernel` on one batch, the batch out as capsules.
    fn run<'py>(
        &self,
        data: &Bound<'py, PyAny>,
        kernel: impl FnOnce(&semhash::stages::Stages, &RecordBatch) -> semhash::Result<RecordBatch>,
    ) -> PyResult<Capsules<'py>> {
        let batch = batch_of(data)?;
        capsules(data.py(), kernel(&self.stages(), &batch).map_err(py_error)?)
    }
}

#[pymethods]
impl Kernels {
    #[new]
    #[pyo3(signature = (config=None))]
    fn new(config: Option<&str>) -> PyResult<Self> {
        let deduper = deduper(config)?;
        semhash::stages::Stages::new(&deduper).map_err(py_error)?;
        Ok(Kernels { deduper })
    }

    /// Shared passage keys that make a candidate pair.
    #[getter]
    fn min_shared_passages(&self) -> usize {
        self.stages().min_shared_passages()
    }

    fn exact_keys<'py>(&self, batch: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        self.run(batch, kernels::exact_keys)
    }

    fn prepare<'py>(&self, batch: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        self.run(batch, kernels::prepare)
    }

    fn content_shingles<'py>(&self, batch: &Bound<'py, PyAny>, df: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        let df = batch_of(df)?;
        self.run(batch, |s, b| kernels::content_shingles(s, b, &df))
    }

    fn statistics(&self, docs: u64, table: &Bound<'_, PyAny>) -> PyResult<Statistics> {
        let stats = kernels::statistics(&self.stages(), docs, &batch_of(table)?).map_err(py_error)?;
        Ok(Statistics::from(stats))
    }

    fn sign<'py>(&self, batch: &Bound<'py, PyAny>, stats: PyRef<'py, Statistics>) -> PyResult<Capsules<'py>> {
        self.run(batch, |s, b| kernels::sign(s, b, stats.corpus()))
    }

    fn keys<'py>(&self, batch: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        self.run(batch, kernels::keys)
    }

    fn bucket_pairs<'py>(&self, batch: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        self.run(batch, kernels::bucket_pairs)
    }

    fn word_keys<'py>(&self, batch: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        self.run(batch, kernels::word_keys)
    }

    fn word_stats(
        &self,
        short_docs: u64,
        words: &Bound<'_, PyAny>,
        contexts: &Bound<'_, PyAny>,
    ) -> PyResult<WordTable> {
        let stats = kernels::word_stats(&self.stages(), short_docs, &batch_of(words)?, &batch_of(contexts)?);
        Ok(WordTable::from(stats.map_err(py_error)?))
    }

    fn verify<'py>(&self, batch: &Bound<'py, PyAny>, words: PyRef<'py, WordTable>) -> PyResult<Capsules<'py>> {
        self.run(batch, |s, b| kernels::verify(s, b, words.words()))
    }

    fn cluster_component<'py>(&self, links: &Bound<'py, PyAny>) -> PyResult<Capsules<'py>> {
        self.run(links, kernels::cluster_component)
    }
}
