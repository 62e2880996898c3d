//! One file per command, each wiring library calls; what several share
//! (reading documents and pairs, writing JSON) is here.

mod compare;
mod dedup;
mod eval;
mod judge;
mod store;
mod train_boundary;
mod train_sph;

use super::args::*;
use super::build::*;
use super::progress::Bar;
use crate::io::{self, jsonl, Format, InputOptions, Loaded};
use semhash::admit::{Admission, OnError, Record};
use semhash::decide::{Decider, PairSignals};
use semhash::eval::PairMetrics;
use semhash::judge::JudgeConfig;
use semhash::{Config, Deduper, Document, Error, Result};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::path::Path;
use std::time::Instant;

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Dedup(a) => dedup::dedup(a),
        Command::Compare(a) => compare::compare(a),
        Command::Sign(a) => store::sign(a),
        Command::Query(a) => store::query(a),
        Command::Remove(a) => store::remove(a),
        Command::Eval(a) => eval::eval(a),
        Command::Judge(a) => judge::judge(a),
        Command::TrainSph(a) => train_sph::train_sph(a),
        Command::TrainBoundary(a) => train_boundary::train_boundary(a),
        Command::Config(a) => {
            let config = pipeline(&a)?;
            println!("{}", serde_json::to_string_pretty(&config).expect("config serialises"));
            Ok(())
        }
    }
}

pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))
}

pub(crate) fn format_of(flag: Option<FormatArg>, path: Option<&Path>) -> Format {
    match flag {
        Some(FormatArg::Jsonl) => Format::Jsonl,
        Some(FormatArg::Parquet) => Format::Parquet,
        None => Format::guess(io::file_or_stdio(path)),
    }
}

pub(crate) fn on_error(flag: &OnErrorFlag) -> OnError {
    match flag.on_error {
        OnErrorArg::Fail => OnError::Fail,
        OnErrorArg::Skip => OnError::Skip,
    }
}

pub(crate) fn read_docs(input: &InputArgs, deduper: &Deduper) -> Result<Loaded> {
    let options = InputOptions {
        id_field: input.id_field.clone(),
        text_field: input.text_field.clone(),
        on_error: on_error(&input.on_error),
    };
    let path = input.input.as_deref();
    let loaded = io::read_documents(path, format_of(input.input_format, path), &options, deduper)?;
    for s in &loaded.skipped {
        eprintln!("semhash: warning: skipped line {}: {}", s.line, s.error);
    }
    Ok(loaded)
}

pub(crate) fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).expect("report serialises");
    std::fs::write(path, text + "\n").map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// A pair line: its texts, pass-through id and label.
pub(crate) struct PairLine {
    line: u64,
    id: Option<Value>,
    a: String,
    b: String,
    label: Option<bool>,
}

pub(crate) fn read_pairs(path: Option<&Path>, on_error: OnError, need_label: bool) -> Result<Vec<PairLine>> {
    let mut pairs = Vec::new();
    jsonl::read_objects(path, &mut |line, object| {
        let parsed = object.and_then(|mut o: Map<String, Value>| {
            let label = match o.get("label") {
                Some(Value::Bool(b)) => Some(*b),
                Some(Value::Number(n)) if n.as_f64() == Some(0.0) || n.as_f64() == Some(1.0) => {
                    Some(n.as_f64() == Some(1.0))
                }
                Some(_) => return Err("field \"label\" must be 0, 1, true or false".into()),
                None if need_label => return Err("missing field \"label\"".into()),
                None => None,
            };
            let (a, b) = (jsonl::take_text(&mut o, "a")?, jsonl::take_text(&mut o, "b")?);
            Ok(PairLine { line, id: o.get("id").cloned(), a, b, label })
        });
        match (parsed, on_error) {
            (Ok(p), _) => pairs.push(p),
            (Err(e), OnError::Fail) => return Err(Error::Input(format!("line {line}: {e}"))),
            (Err(e), OnError::Skip) => eprintln!("semhash: warning: skipped line {line}: {e}"),
        }
        Ok(())
    })?;
    Ok(pairs)
}

/// One line on what the judge did (dedup, compare and eval print it).
pub(crate) fn judge_summary(j: &semhash::judge::JudgeStats) -> String {
    format!(
        "judge {}: {} calls for {} candidate pairs ({:.2}%; {} uncertain offered), {} verdicts changed, {} failed",
        j.judge,
        j.calls,
        j.candidates,
        100.0 * j.used,
        j.uncertain,
        j.changed,
        j.failed
    )
}

/// At most `n` items, evenly spread over `items`.
pub(crate) fn spread<T>(items: &[T], n: usize) -> Vec<&T> {
    let step = items.len().div_ceil(n.max(1)).max(1);
    items.iter().step_by(step).collect()
}
