//! Admitting input records into a batch: the one bad-input policy that every
//! face applies (the `semhash` command, the Python package), so that a bad
//! record gets the same message, and a duplicate id the same treatment,
//! wherever it comes in.
//!
//! A record is refused for what its reader found wrong (malformed, a missing
//! or mistyped field), for a text the pipeline will not take
//! ([`Deduper::check`]: empty, too long) or for an id seen before. With
//! [`OnError::Fail`] the first refusal stops the batch, naming where the
//! record was; with [`OnError::Skip`] it is set aside with its reason, and
//! every other record is admitted exactly once.

pub mod json;

use crate::{Deduper, Document, Error, Result};
use serde::Serialize;
use std::collections::HashMap;

/// What to do with a bad record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OnError {
    /// Stop with the error.
    #[default]
    Fail,
    /// Set it aside (listed in the report) and go on.
    Skip,
}

/// A record as its reader found it: where it was, its id, and its text or
/// what was wrong with it.
#[derive(Clone, Debug)]
pub struct Record {
    /// What an error message points at: a line or row (from 1), an array
    /// index (from 0, as the caller's language counts).
    pub position: u64,
    /// The id, when the reader found one.
    pub id: Option<String>,
    /// The text, or why the reader could not take one.
    pub text: std::result::Result<String, String>,
}

/// A record that was set aside.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Skipped {
    /// Its [`Record::position`].
    pub line: u64,
    /// Its id, when it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Why it was set aside.
    pub error: String,
}

/// Records admitted one at a time into a batch of documents.
pub struct Admission<'d> {
    deduper: &'d Deduper,
    /// What a position counts: "line", "row", "record".
    unit: &'static str,
    on_error: OnError,
    first_seen: HashMap<String, u64>,
    /// The documents admitted, in order.
    pub docs: Vec<Document>,
    /// The records set aside, in order.
    pub skipped: Vec<Skipped>,
}

impl<'d> Admission<'d> {
    /// An empty batch for `deduper`'s checks; `unit` names a position in messages.
    pub fn new(deduper: &'d Deduper, unit: &'static str, on_error: OnError) -> Self {
        Admission { deduper, unit, on_error, first_seen: HashMap::new(), docs: Vec::new(), skipped: Vec::new() }
    }

    /// Admits `record` or sets it aside; true when it was admitted.
    ///
    /// # Errors
    ///
    /// With [`OnError::Fail`], [`Error::Input`] for a bad record, naming its
    /// position, its id and what was wrong.
    pub fn offer(&mut self, record: Record) -> Result<bool> {
        let Record { position, id, text } = record;
        let verdict = text.and_then(|text| {
            let id = id.clone().ok_or("a record with text has no id")?;
            if let Some(first) = self.first_seen.get(&id) {
                return Err(format!("duplicate id {id:?} (first seen on {} {first})", self.unit));
            }
            self.deduper.check(&text).map_err(|e| e.to_string())?;
            self.first_seen.insert(id.clone(), position);
            Ok(Document { id, text })
        });
        match verdict {
            Ok(doc) => {
                self.docs.push(doc);
                Ok(true)
            }
            Err(error) => {
                let id_part = id.as_deref().map(|id| format!(" (id {id:?})")).unwrap_or_default();
                match self.on_error {
                    OnError::Fail => Err(Error::Input(format!("{} {position}{id_part}: {error}", self.unit))),
                    OnError::Skip => {
                        self.skipped.push(Skipped { line: position, id, error });
                        Ok(false)
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;

    fn record(position: u64, id: &str, text: &str) -> Record {
        Record { position, id: Some(id.into()), text: Ok(text.into()) }
    }

    #[test]
    fn bad_records_stop_the_batch_or_are_set_aside_with_their_reason() {
        let deduper = Deduper::new(Config::default()).unwrap();
        let records = || {
            [
                record(1, "a", "first text"),
                Record { position: 2, id: None, text: Err("not valid JSON".into()) },
                record(3, "b", ""),
                record(4, "a", "same id again"),
                record(5, "c", "last text"),
            ]
        };
        let mut skipping = Admission::new(&deduper, "line", OnError::Skip);
        let admitted: Vec<bool> = records().into_iter().map(|r| skipping.offer(r).unwrap()).collect();
        assert_eq!(admitted, [true, false, false, false, true]);
        let ids: Vec<&str> = skipping.docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["a", "c"]);
        assert!(
            skipping.skipped[2].error.contains("duplicate id \"a\" (first seen on line 1)"),
            "{:?}",
            skipping.skipped
        );

        let mut failing = Admission::new(&deduper, "row", OnError::Fail);
        let err = records().into_iter().try_for_each(|r| failing.offer(r).map(|_| ())).unwrap_err();
        assert_eq!(err.to_string(), "row 2: not valid JSON");
    }
}
