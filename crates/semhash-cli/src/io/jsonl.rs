//! JSON Lines: one object per line.

use super::{file_or_stdio, InputOptions, Typed};
use arrow_schema::DataType;
pub use semhash::admit::json::{id_of, take_text};
use semhash::admit::json::{parse_object, record_in};
use semhash::admit::Record;
use semhash::{Error, Result};
use serde::Serialize;
use serde_json::{Map, Value};
use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// Lines longer than this are refused without being held in memory.
const MAX_LINE_BYTES: usize = 1 << 30;

/// Opens `path` (stdin for `None` or `-`); returns it with its name for messages.
pub fn open(path: Option<&Path>) -> Result<(Box<dyn Read>, String)> {
    Ok(match file_or_stdio(path) {
        Some(p) => {
            let name = p.display().to_string();
            (Box::new(File::open(p).map_err(|e| Error::io(format!("cannot open {name}"), e))?), name)
        }
        None => (Box::new(io::stdin().lock()), "stdin".to_owned()),
    })
}

pub(crate) fn read(
    source: impl Read,
    name: &str,
    options: &InputOptions,
    accept: &mut dyn FnMut(Typed) -> Result<()>,
) -> Result<()> {
    read_objects_from(source, name, &mut |line, object| {
        accept(match object {
            Ok(object) => document(line, object, options),
            Err(e) => Typed { record: Record { position: line, id: None, text: Err(e) }, id_type: None },
        })
    })
}

/// Lines parsed together, on all threads; callers still see them in order.
const BATCH_LINES: usize = 4096;

/// Calls `accept`, in order, with each non-blank line's JSON object, or what
/// was wrong with it. Lines are parsed in parallel batches.
pub fn read_objects(
    path: Option<&Path>,
    accept: &mut dyn FnMut(u64, std::result::Result<Map<String, Value>, String>) -> Result<()>,
) -> Result<()> {
    let (source, name) = open(path)?;
    read_objects_from(source, &name, accept)
}

/// [`read_objects`] from any reader; `name` names it in errors.
pub fn read_objects_from(
    source: impl Read,
    name: &str,
    accept: &mut dyn FnMut(u64, std::result::Result<Map<String, Value>, String>) -> Result<()>,
) -> Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, source);
    let mut line_no = 0u64;
    let mut batch: Vec<(u64, std::result::Result<Vec<u8>, String>)> = Vec::with_capacity(BATCH_LINES);
    let mut flush = |batch: &mut Vec<(u64, std::result::Result<Vec<u8>, String>)>| -> Result<()> {
        let parsed = semhash::util::par::map(batch, |(line, bytes)| {
            (*line, bytes.as_deref().map_err(Clone::clone).and_then(parse_object))
        });
        batch.clear();
        parsed.into_iter().try_for_each(|(line, object)| accept(line, object))
    };
    loop {
        let mut buf = Vec::new();
        line_no += 1;
        let (read, overflow) =
            read_line(&mut reader, &mut buf).map_err(|e| Error::io(format!("reading {name} line {line_no}"), e))?;
        if read == 0 {
            return flush(&mut batch);
        }
        if overflow {
            batch.push((line_no, Err(format!("line is longer than {MAX_LINE_BYTES} bytes"))));
        } else if let Some(record) = record_in(line_no, &buf) {
            buf.truncate(record.end);
            buf.drain(..record.start);
            batch.push((line_no, Ok(buf)));
        }
        if batch.len() >= BATCH_LINES {
            flush(&mut batch)?;
        }
    }
}

/// Reads through the next newline; keeps at most `MAX_LINE_BYTES` of it.
fn read_line(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<(usize, bool)> {
    let mut total = 0;
    loop {
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok((total, total > MAX_LINE_BYTES));
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if buf.len() + take <= MAX_LINE_BYTES {
            buf.extend_from_slice(&chunk[..take]);
        }
        total += take;
        reader.consume(take);
        if done {
            return Ok((total, total > MAX_LINE_BYTES));
        }
    }
}

fn document(line: u64, mut object: Map<String, Value>, options: &InputOptions) -> Typed {
    let id_type = match object.get(&options.id_field) {
        Some(Value::Number(n)) if n.is_i64() => Some(DataType::Int64),
        Some(Value::Number(_)) => Some(DataType::UInt64),
        _ => None,
    };
    match id_of(&object, &options.id_field) {
        Ok(id) => {
            let record = Record { position: line, text: take_text(&mut object, &options.text_field), id: Some(id) };
            Typed { record, id_type }
        }
        Err(e) => Typed { record: Record { position: line, id: None, text: Err(e) }, id_type: None },
    }
}

/// Writes one JSON object per line.
pub fn write<T: Serialize>(path: Option<&Path>, items: impl Iterator<Item = T>) -> Result<()> {
    let path = file_or_stdio(path);
    let name = path.map_or("stdout".to_owned(), |p| p.display().to_string());
    let io = |e| Error::io(format!("writing {name}"), e);
    let sink: Box<dyn Write> = match path {
        Some(p) => Box::new(File::create(p).map_err(io)?),
        None => Box::new(io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    for item in items {
        serde_json::to_writer(&mut out, &item).map_err(|e| io(e.into()))?;
        out.write_all(b"\n").map_err(io)?;
    }
    out.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts() -> InputOptions {
        InputOptions { id_field: "id".into(), text_field: "text".into(), on_error: super::super::OnError::Fail }
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let cases: [(&[u8], &str); 9] = [
            (b"{\"id\": 1, \"text\": \"x\"", "not valid JSON"),
            (b"[1, 2]", "expected a JSON object"),
            (b"{\"text\": \"x\"}", "missing id field \"id\""),
            (b"{\"id\": \"a\"}", "missing text field \"text\""),
            (b"{\"id\": \"a\", \"text\": 5}", "must be a string"),
            (b"{\"id\": \"a\", \"text\": \"\xff\"}", "invalid UTF-8 at byte 21"),
            (b"{\"id\": \"a\", \"text\": \"x \\ud800 y\"}", "without its other half"),
            (b"{\"id\": 1.5, \"text\": \"x\"}", "must be an integer"),
            (b"{\"id\": 123456789012345678901234567890, \"text\": \"x\"}", "quote larger ones as a string"),
        ];
        let parse = |bytes: &[u8]| match parse_object(bytes) {
            Ok(object) => document(3, object, &opts()),
            Err(e) => Typed { record: Record { position: 3, id: None, text: Err(e) }, id_type: None },
        };
        for (line, want) in cases {
            let err = parse(line).record.text.unwrap_err();
            assert!(err.contains(want), "{err} (want {want})");
        }
        let ok = parse(br#"{"id": 7, "text": "hi"}"#);
        assert_eq!((ok.record.id.as_deref(), ok.record.text.as_deref()), (Some("7"), Ok("hi")));
    }

    #[test]
    fn a_byte_order_mark_starts_the_first_line_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bom.jsonl");
        std::fs::write(&path, b"\xef\xbb\xbf{\"id\": \"a\", \"text\": \"x\"}\n\xef\xbb\xbf{\"id\": \"b\"}\n").unwrap();
        let mut seen = Vec::new();
        read_objects(Some(&path), &mut |line, object| {
            seen.push((line, object.map(|o| o["id"].clone())));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen[0], (1, Ok(Value::from("a"))));
        assert!(seen[1].1.as_ref().is_err_and(|e| e.contains("not valid JSON")), "{seen:?}");
    }

    #[test]
    fn long_lines_are_drained_not_kept() {
        let data = b"aaaa\nbb\n";
        let mut r = BufReader::with_capacity(2, &data[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (5, false));
        buf.clear();
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (3, false));
        assert_eq!(buf, b"bb\n");
    }
}
