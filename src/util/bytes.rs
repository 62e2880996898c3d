//! Reading the project's binary formats (signatures, stores, model files).

use crate::{Error, Result};

/// A bounds-checked little-endian reader whose errors name what was being read.
///
/// A read past the end fails with [`Error::Corrupted`] (`truncated at byte
/// N`) instead of panicking: the bytes come from files and hosts, and a
/// damaged file must be refused, not crash the reader.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
    context: &'a str,
}

impl<'a> Reader<'a> {
    /// Reads `bytes` from the start; `context` (a file, a stored id) names
    /// them in every error.
    pub fn new(bytes: &'a [u8], context: &'a str) -> Self {
        Reader { bytes, pos: 0, context }
    }

    /// Reads a model file laid out as `magic`, its fields, then the xxh3-64
    /// of everything before: checks the magic, that it holds at least
    /// `min_len` bytes and the checksum, and reads the fields after the
    /// magic (the checksum left out).
    ///
    /// # Errors
    ///
    /// [`Error::BadMagic`] for other bytes, [`Error::Corrupted`] for a file
    /// cut short or damaged.
    pub fn checksummed(bytes: &'a [u8], magic: [u8; 4], min_len: usize, context: &'a str) -> Result<Self> {
        let corrupted = |detail: &str| Error::Corrupted { context: context.to_owned(), detail: detail.to_owned() };
        if bytes.len() < 4 || bytes[..4] != magic {
            return Err(Error::BadMagic { context: context.to_owned() });
        }
        if bytes.len() < min_len.max(12) {
            return Err(corrupted("truncated"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if crate::util::hash::hash64(0, body).to_le_bytes() != sum {
            return Err(corrupted("checksum mismatch"));
        }
        Ok(Reader { bytes: body, pos: 4, context })
    }

    /// Bytes read so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether every byte has been read. Readers check this at the end of a
    /// format, so that trailing bytes are refused, not ignored.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The error for bytes that end early, at the current position.
    pub fn truncated(&self) -> Error {
        Error::Corrupted { context: self.context.to_owned(), detail: format!("truncated at byte {}", self.pos) }
    }

    /// The error for a field that was read but makes no sense: `bad {what}
    /// at byte N`.
    pub fn malformed(&self, what: &str) -> Error {
        Error::Corrupted { context: self.context.to_owned(), detail: format!("bad {what} at byte {}", self.pos) }
    }

    /// The next `n` bytes.
    ///
    /// # Errors
    ///
    /// [`Reader::truncated`] when fewer are left; nothing is consumed then.
    /// Every other read fails the same way.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or_else(|| self.truncated())?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// Skips `n` bytes.
    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.take(n).map(|_| ())
    }

    /// The next `N` bytes, as an array.
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("length checked"))
    }

    /// The next byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// The next little-endian `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    /// The next little-endian `u32`.
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// The next little-endian `u64`.
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// The next `n` little-endian `u32`s. A count too large to be a length
    /// (from a damaged header) is a truncation, not an overflow.
    pub fn u32s(&mut self, n: usize) -> Result<Vec<u32>> {
        let raw = self.take(n.checked_mul(4).ok_or_else(|| self.truncated())?)?;
        Ok(raw.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
    }
}
