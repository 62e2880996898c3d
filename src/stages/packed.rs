//! The bytes a text travels in between an engine's stages, so that it is
//! normalized and shingled once (in the sign stage) rather than in every
//! stage that reads it.
//!
//! A *prepared* text, little-endian: exact key (16 bytes), word count and
//! shingle count `n` (4 bytes each), the `n` shingles (8 bytes each), the
//! heading-number count `h` (4 bytes) and the `h` heading numbers (4 bytes
//! each), then the text's *reading*. A reading is the chunk count `m` (4 bytes), the `m`
//! chunks (2 bytes each) and the normalized text: all that the word
//! statistics and the alignment read of a short text. After signing, a
//! short text travels as its reading and a long one as nothing (its
//! signature decides).

use crate::decide::align::Reading;
use crate::sketch::Prepared;
use crate::{Error, Result};

const HEAD: usize = 16 + 2 * 4;

/// A prepared text as bytes.
pub fn encode(p: &Prepared) -> Vec<u8> {
    let mut out = Vec::with_capacity(
        HEAD + 8 * p.sequence.len() + 4 + 4 * p.heading_numbers.len() + 4 + 2 * p.chunks.len() + p.normalized.len(),
    );
    out.extend_from_slice(&p.exact.to_le_bytes());
    out.extend_from_slice(&p.words.to_le_bytes());
    out.extend_from_slice(&(p.sequence.len() as u32).to_le_bytes());
    p.sequence.iter().for_each(|s| out.extend_from_slice(&s.to_le_bytes()));
    out.extend_from_slice(&(p.heading_numbers.len() as u32).to_le_bytes());
    p.heading_numbers.iter().for_each(|h| out.extend_from_slice(&h.to_le_bytes()));
    out.extend_from_slice(&(p.chunks.len() as u32).to_le_bytes());
    p.chunks.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
    out.extend_from_slice(p.normalized.as_bytes());
    out
}

fn bad(what: &str, bytes: &[u8]) -> Error {
    Error::Input(format!("not {what}: {} bytes that do not read as one", bytes.len()))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Where the heading numbers and the reading of a prepared text start.
fn offsets(bytes: &[u8]) -> Result<(usize, usize)> {
    let short = || bad("a prepared text", bytes);
    // Saturating: a damaged count must read as damage, not wrap on wasm32.
    let numbers = HEAD.saturating_add(8usize.saturating_mul(u32_at(bytes.get(..HEAD).ok_or_else(short)?, 20) as usize));
    let count = bytes.get(numbers..numbers.saturating_add(4)).ok_or_else(short)?;
    let reading = (numbers + 4).saturating_add(4usize.saturating_mul(u32_at(count, 0) as usize));
    (reading <= bytes.len()).then_some((numbers, reading)).ok_or_else(short)
}

/// The reading of a prepared text ([`encode`]), as bytes.
pub fn reading(bytes: &[u8]) -> Result<&[u8]> {
    Ok(&bytes[offsets(bytes)?.1..])
}

/// A prepared text from its bytes ([`encode`]).
pub fn decode(bytes: &[u8]) -> Result<Prepared> {
    let (numbers, reading) = offsets(bytes)?;
    let DecodedReading { chunks, text } = decode_reading(&bytes[reading..])?;
    let sequence = bytes[HEAD..numbers].chunks_exact(8);
    let heading_numbers = bytes[numbers + 4..reading].chunks_exact(4);
    Ok(Prepared {
        exact: u128::from_le_bytes(bytes[..16].try_into().expect("16 bytes")),
        normalized: text.to_owned(),
        words: u32_at(bytes, 16),
        sequence: sequence.map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes"))).collect(),
        chunks,
        heading_numbers: heading_numbers.map(|h| u32_at(h, 0)).collect(),
    })
}

/// A reading's chunks and normalized text, for [`DecodedReading::reading`].
pub struct DecodedReading<'r> {
    chunks: Vec<u16>,
    text: &'r str,
}

impl DecodedReading<'_> {
    /// The text to read for the alignment.
    pub fn reading(&self) -> Reading<'_> {
        Reading::new(self.text, &self.chunks)
    }
}

/// A reading from its bytes ([`reading`]).
pub fn decode_reading(bytes: &[u8]) -> Result<DecodedReading<'_>> {
    let m = bytes.get(..4).map(|b| u32_at(b, 0) as usize).ok_or_else(|| bad("a reading", bytes))?;
    let chunks = bytes.get(4..4 + 2 * m).ok_or_else(|| bad("a reading", bytes))?;
    let text = std::str::from_utf8(&bytes[4 + 2 * m..]).map_err(|_| bad("a reading", bytes))?;
    let chunks = chunks.chunks_exact(2).map(|c| u16::from_le_bytes(c.try_into().expect("2 bytes"))).collect();
    Ok(DecodedReading { chunks, text })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_text_round_trips_and_damage_is_refused() {
        let p = Prepared {
            exact: 0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            normalized: "qt 5 core module".into(),
            words: 4,
            sequence: vec![1, u64::MAX],
            chunks: vec![0, 0, 1, 2],
            heading_numbers: vec![7, 9],
        };
        let bytes = encode(&p);
        let back = decode(&bytes).unwrap();
        assert_eq!(
            (back.exact, back.normalized.as_str(), back.words, &back.sequence, &back.chunks, &back.heading_numbers),
            (p.exact, p.normalized.as_str(), p.words, &p.sequence, &p.chunks, &p.heading_numbers)
        );
        assert_eq!(decode_reading(reading(&bytes).unwrap()).unwrap().text, "qt 5 core module");
        for cut in [10, HEAD + 8, HEAD + 16 + 2] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
    }
}
