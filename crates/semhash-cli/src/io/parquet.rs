//! Parquet through Arrow: a string (or integer) id column and a string text column in;
//! one row per document out.

use super::{IdTypes, InputOptions, Typed};
use arrow_array::cast::AsArray;
use arrow_array::types::{ArrowPrimitiveType, Int32Type, Int64Type, UInt32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, Float32Array, PrimitiveArray, RecordBatch, StringArray, UInt32Array};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use semhash::admit::Record;
use semhash::pipeline::DocResult;
use semhash::{Error, Result};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

pub(crate) fn read(path: &Path, options: &InputOptions, accept: &mut dyn FnMut(Typed) -> Result<()>) -> Result<()> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| Error::io(format!("cannot open {name}"), e))?;
    let bad = |e: &dyn std::fmt::Display| Error::Input(format!("{name}: not a readable Parquet file ({e})"));
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| bad(&e))?
        .with_batch_size(8192)
        .build()
        .map_err(|e| bad(&e))?;
    let mut row = 0u64;
    for batch in reader {
        let batch = batch.map_err(|e| bad(&e))?;
        let column = |field: &str| {
            batch.column_by_name(field).cloned().ok_or_else(|| {
                let have: Vec<_> = batch.schema().fields().iter().map(|f| f.name().clone()).collect();
                Error::Input(format!("{name}: no column {field:?} (columns: {})", have.join(", ")))
            })
        };
        let (ids, texts) = (column(&options.id_field)?, column(&options.text_field)?);
        let id_type = ids.data_type().is_integer().then(|| ids.data_type().clone());
        for i in 0..batch.num_rows() {
            row += 1;
            let id = match value_as_string(&ids, i, true) {
                Ok(Some(id)) => id,
                Ok(None) => {
                    let record = Record {
                        position: row,
                        id: None,
                        text: Err(format!("id column {:?} is null", options.id_field)),
                    };
                    accept(Typed { record, id_type: None })?;
                    continue;
                }
                Err(e) => return Err(Error::Input(format!("{name}: id column {:?}: {e}", options.id_field))),
            };
            let text = match value_as_string(&texts, i, false) {
                Ok(Some(t)) => Ok(t),
                Ok(None) => Err(format!("text column {:?} is null", options.text_field)),
                Err(e) => return Err(Error::Input(format!("{name}: text column {:?}: {e}", options.text_field))),
            };
            accept(Typed { record: Record { position: row, id: Some(id), text }, id_type: id_type.clone() })?;
        }
    }
    Ok(())
}

/// The value at `i` as a string; integers allowed for ids.
fn value_as_string(array: &ArrayRef, i: usize, integers: bool) -> std::result::Result<Option<String>, String> {
    if array.is_null(i) {
        return Ok(None);
    }
    let value = match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(i).to_owned(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(i).to_owned(),
        DataType::Utf8View => array.as_string_view().value(i).to_owned(),
        DataType::Int32 if integers => array.as_primitive::<Int32Type>().value(i).to_string(),
        DataType::Int64 if integers => array.as_primitive::<Int64Type>().value(i).to_string(),
        DataType::UInt32 if integers => array.as_primitive::<UInt32Type>().value(i).to_string(),
        DataType::UInt64 if integers => array.as_primitive::<UInt64Type>().value(i).to_string(),
        other => {
            return Err(format!(
                "unsupported type {other} (expected a string{})",
                if integers { " or integer" } else { "" }
            ))
        }
    };
    Ok(Some(value))
}

/// Writes the results, the id columns of the input's integer type when
/// every id was an integer ([`IdTypes`]).
pub(crate) fn write(path: &Path, results: &[DocResult], ids: &IdTypes) -> Result<()> {
    let name = path.display().to_string();
    let fail = |e: &dyn std::fmt::Display| Error::Input(format!("writing {name}: {e}"));
    let id_type = ids.column_type(results.iter().map(|r| r.id.as_str()));
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", id_type.clone(), false),
        Field::new("cluster", DataType::UInt32, false),
        Field::new("representative", id_type.clone(), false),
        Field::new("relation", DataType::Utf8, false),
        Field::new("score", DataType::Float32, false),
        Field::new("parent", id_type.clone(), true),
    ]));
    let file = File::create(path).map_err(|e| Error::io(format!("cannot create {name}"), e))?;
    let mut writer = ArrowWriter::try_new(file, schema.clone(), None).map_err(|e| fail(&e))?;
    for chunk in results.chunks(65_536) {
        let relation =
            |r: &DocResult| serde_json::to_value(r.relation).ok().and_then(|v| v.as_str().map(str::to_owned));
        let columns: Vec<ArrayRef> = vec![
            id_column(&id_type, chunk.iter().map(|r| Some(r.id.as_str()))),
            Arc::new(UInt32Array::from_iter_values(chunk.iter().map(|r| r.cluster))),
            id_column(&id_type, chunk.iter().map(|r| Some(r.representative.as_str()))),
            Arc::new(StringArray::from_iter(chunk.iter().map(relation))),
            Arc::new(Float32Array::from_iter_values(chunk.iter().map(|r| r.score))),
            id_column(&id_type, chunk.iter().map(|r| r.parent.as_deref())),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).map_err(|e| fail(&e))?;
        writer.write(&batch).map_err(|e| fail(&e))?;
    }
    writer.close().map_err(|e| fail(&e))?;
    Ok(())
}

/// Ids as a column of `id_type` (an integer type only when every id is one).
fn id_column<'a>(id_type: &DataType, ids: impl Iterator<Item = Option<&'a str>>) -> ArrayRef {
    fn integers<'a, T: ArrowPrimitiveType>(ids: impl Iterator<Item = Option<&'a str>>) -> ArrayRef
    where
        T::Native: std::str::FromStr,
    {
        let parse = |id: &str| id.parse::<T::Native>().ok().expect("an id noted as an integer of this type parses");
        Arc::new(ids.map(|id| id.map(parse)).collect::<PrimitiveArray<T>>())
    }
    match id_type {
        DataType::Int32 => integers::<Int32Type>(ids),
        DataType::Int64 => integers::<Int64Type>(ids),
        DataType::UInt32 => integers::<UInt32Type>(ids),
        DataType::UInt64 => integers::<UInt64Type>(ids),
        _ => Arc::new(StringArray::from_iter(ids)),
    }
}
