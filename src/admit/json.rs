//! A JSON object as a record: the fields every face reads the same way.
//!
//! The `semhash` command reads JSON Lines with these, and so does the Spark
//! job (through the Python package), so a malformed line, a float id or a
//! missing text gets the same message from either.

use serde_json::{Map, Value};
use std::ops::Range;

const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Where a line's record is: without its line ending, and past the
/// byte-order mark that many Windows tools start a UTF-8 file with (line 1
/// only). None for a blank line: blank lines separate nothing in JSON Lines,
/// and a trailing one is common.
pub fn record_in(line_no: u64, line: &[u8]) -> Option<Range<usize>> {
    let start = if line_no == 1 && line.starts_with(UTF8_BOM) { UTF8_BOM.len() } else { 0 };
    let end = line.iter().rposition(|&b| b != b'\n' && b != b'\r').map_or(0, |i| i + 1).max(start);
    (!line[start..end].iter().all(u8::is_ascii_whitespace)).then_some(start..end)
}

/// One line (without its newline) as a JSON object, or what is wrong with it.
///
/// A key given twice is refused: JSON parsers disagree on which value counts
/// (most keep the last without a word), so `{"id": 1, "text": "a", "text":
/// "b"}` would lose one of its texts silently.
pub fn parse_object(bytes: &[u8]) -> std::result::Result<Map<String, Value>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("invalid UTF-8 at byte {}", e.valid_up_to()))?;
    match serde_json::from_str::<Object>(text) {
        Ok(Object(object, None)) => Ok(object),
        Ok(Object(_, Some(key))) => Err(format!("key {key:?} appears twice in the object: which value counts is not clear")),
        // Valid JSON of another type: an array, a string, a number.
        Err(e) if e.is_data() => Err("expected a JSON object".into()),
        // serde_json calls an unpaired \uD800-\uDFFF escape "unexpected end of hex escape".
        Err(e) if e.to_string().contains("hex escape") && has_surrogate_escape(text) => Err(format!(
            "not valid JSON: a \\u escape of half a UTF-16 surrogate pair (\\uD800-\\uDFFF) without its other half is not text ({e})"
        )),
        Err(e) => Err(format!("not valid JSON ({e})")),
    }
}

/// A JSON object's fields, and the first key that it gives twice.
struct Object(Map<String, Value>, Option<String>);

impl<'de> serde::Deserialize<'de> for Object {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = Object;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut fields: A) -> std::result::Result<Object, A::Error> {
                let (mut object, mut twice) = (Map::new(), None);
                while let Some((key, value)) = fields.next_entry::<String, Value>()? {
                    if object.contains_key(&key) {
                        twice.get_or_insert(key);
                    } else {
                        object.insert(key, value);
                    }
                }
                Ok(Object(object, twice))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// Whether `text` holds a `\uD800`-`\uDFFF` escape.
fn has_surrogate_escape(text: &str) -> bool {
    text.as_bytes().windows(4).any(|w| {
        w[..2] == *b"\\u"
            && w[2].eq_ignore_ascii_case(&b'd')
            && matches!(w[3].to_ascii_lowercase(), b'8'..=b'9' | b'a'..=b'f')
    })
}

/// A field as an id: strings as they are, integers in their JSON spelling.
/// Other numbers are refused: `1.5` is no id, and an integer past 64 bits
/// would come back rounded (`1.2345678901234568e29`), changed without a word.
pub fn id_of(object: &Map<String, Value>, field: &str) -> std::result::Result<String, String> {
    match object.get(field) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Ok(n.to_string()),
        Some(Value::Number(n)) => Err(format!(
            "field {field:?} is {n}: a number id must be an integer of at most 64 bits (quote larger ones as a string)"
        )),
        Some(_) => Err(format!("field {field:?} must be a string or an integer")),
        None => Err(format!("missing id field {field:?}")),
    }
}

/// A field as text, taken out of the object.
pub fn take_text(object: &mut Map<String, Value>, field: &str) -> std::result::Result<String, String> {
    match object.remove(field) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(format!("field {field:?} must be a string")),
        None => Err(format!("missing text field {field:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_given_twice_is_refused_by_name() {
        for line in [&br#"{"id": 1, "text": "a", "text": "b"}"#[..], br#"{"id": 1, "text": "a", "te\u0078t": "b"}"#] {
            let err = parse_object(line).unwrap_err();
            assert!(err.contains("key \"text\" appears twice"), "{err}");
        }
        // Not the record's own keys: a nested object is a value like any other.
        let object = parse_object(br#"{"id": 1, "text": "a", "meta": {"k": 1, "k": 2}}"#).unwrap();
        assert_eq!((object["id"].as_u64(), object["text"].as_str()), (Some(1), Some("a")));
        for (line, want) in [
            (&b"[1, 2]"[..], "expected a JSON object"),
            (b"\"text\"", "expected a JSON object"),
            (b"{\"a\": ", "not valid JSON"),
        ] {
            assert!(parse_object(line).unwrap_err().contains(want), "{line:?}");
        }
    }

    #[test]
    fn a_record_is_read_without_its_line_ending_and_a_first_byte_order_mark() {
        let record = |no: u64, line: &'static [u8]| record_in(no, line).map(|r| &line[r]);
        assert_eq!(record(1, b"\xef\xbb\xbf{\"a\": 1}\r\n"), Some(&b"{\"a\": 1}"[..]));
        assert_eq!(record(2, b"\xef\xbb\xbf{}\n"), Some(&b"\xef\xbb\xbf{}"[..]), "a mark after line 1 is data");
        assert_eq!(record(3, b"{}\r"), Some(&b"{}"[..]));
        for blank in [&b""[..], b"\n", b" \t\r\n", b"\xef\xbb\xbf\n"] {
            assert_eq!(record_in(1, blank), None, "{blank:?}");
        }
    }
}
