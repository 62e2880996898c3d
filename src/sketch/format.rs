//! The binary form of a [`Signature`]: versioned, fingerprinted, checksummed.
//!
//! ```text
//! offset  size  field
//! 0       4     magic "SHSG"
//! 4       2     format version (little-endian u16)
//! 6       2     flags: bit 0 set when a semantic part follows the lexical
//!               payload (other bits reserved, 0)
//! 8       16    fingerprint of the configuration and model files that made it
//! 24      4     payload length n (u32)
//! 28      n     payload: exact key (u128), char and word counts (u32),
//!               boilerplate share (f32 bits), char MinHash (u16 count + u32s),
//!               weighted MinHash (u16 count + u32s), passage samples (u32 count + u32s),
//!               heading numbers (u16 count + u32s), then with flag bit 0:
//!               code (u16 word count + u64s), int8 embedding (u16 count +
//!               bytes)
//! 28+n    8     xxh3-64 of bytes 0..28+n
//! ```
//!
//! All integers little-endian. Decoding refuses anything another version,
//! another configuration, a truncation or a flipped bit produced, with a
//! message that says which.

use super::Signature;
use crate::util::bytes::Reader;
use crate::{Error, Result};

/// The first four bytes of every encoded signature.
pub const MAGIC: [u8; 4] = *b"SHSG";
/// The format version this build writes; it reads no other. It is also part
/// of every configuration's fingerprint. Version 2 added the heading numbers.
pub const VERSION: u16 = 2;
const HEADER: usize = 28;
/// Flag bit: the payload ends with a semantic part.
const SEMANTIC: u16 = 1;

/// A 128-bit fingerprint of everything that shapes a signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fingerprint(pub [u8; 16]);

impl std::fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

impl Fingerprint {
    /// The fingerprint its `Display` wrote: 32 hex digits. `None` for
    /// anything else.
    pub fn parse_hex(s: &str) -> Option<Self> {
        if s.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Fingerprint(out))
    }
}

impl Signature {
    /// Encodes the signature with the fingerprint of the config that made it.
    pub fn to_bytes(&self, fingerprint: Fingerprint) -> Vec<u8> {
        let mut payload =
            Vec::with_capacity(40 + 4 * (self.char_minhash.len() + self.weighted_minhash.len() + self.passages.len()));
        payload.extend_from_slice(&self.exact.to_le_bytes());
        payload.extend_from_slice(&self.char_len.to_le_bytes());
        payload.extend_from_slice(&self.word_len.to_le_bytes());
        payload.extend_from_slice(&self.boilerplate_share.to_bits().to_le_bytes());
        for values in [&self.char_minhash, &self.weighted_minhash] {
            payload.extend_from_slice(&(values.len() as u16).to_le_bytes());
            values.iter().for_each(|v| payload.extend_from_slice(&v.to_le_bytes()));
        }
        payload.extend_from_slice(&(self.passages.len() as u32).to_le_bytes());
        self.passages.iter().for_each(|v| payload.extend_from_slice(&v.to_le_bytes()));
        payload.extend_from_slice(&(self.heading_numbers.len() as u16).to_le_bytes());
        self.heading_numbers.iter().for_each(|v| payload.extend_from_slice(&v.to_le_bytes()));
        if let Some(sem) = &self.semantic {
            payload.extend_from_slice(&(sem.code.len() as u16).to_le_bytes());
            sem.code.iter().for_each(|w| payload.extend_from_slice(&w.to_le_bytes()));
            payload.extend_from_slice(&(sem.embedding.len() as u16).to_le_bytes());
            payload.extend(sem.embedding.iter().map(|&x| x as u8));
        }
        let flags = if self.semantic.is_some() { SEMANTIC } else { 0 };

        let mut out = Vec::with_capacity(HEADER + payload.len() + 8);
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        out.extend_from_slice(&fingerprint.0);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&payload);
        let sum = crate::util::hash::hash64(0, &out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Decodes a signature, refusing one made under another fingerprint.
    /// `context` names the signature in errors (a store path, a record number).
    /// Returns the signature and the bytes it took, so that signatures can be
    /// read back to back.
    ///
    /// # Errors
    ///
    /// [`Error::BadMagic`] when the bytes are not a signature,
    /// [`Error::UnsupportedVersion`] for another format version,
    /// [`Error::FingerprintMismatch`] when another configuration or model
    /// made it, and [`Error::Corrupted`] when it is truncated, fails its
    /// checksum, has unknown flags, or its payload disagrees with its length.
    /// The checksum is checked before the fingerprint, so a damaged
    /// fingerprint reads as damage.
    pub fn from_bytes(bytes: &[u8], expected: Fingerprint, context: &str) -> Result<(Signature, usize)> {
        let ctx = || context.to_owned();
        if bytes.len() < 4 || bytes[..4] != MAGIC {
            return Err(Error::BadMagic { context: ctx() });
        }
        let mut r = Reader::new(bytes, context);
        r.skip(4)?;
        let version = r.u16()?;
        if version != VERSION {
            return Err(Error::UnsupportedVersion { context: ctx(), found: version, supported: VERSION });
        }
        let flags = r.u16()?;
        if flags & !SEMANTIC != 0 {
            return Err(r.malformed("flags"));
        }
        let found = Fingerprint(r.array::<16>()?);
        let len = r.u32()? as usize;
        let end = HEADER + len;
        if bytes.len() < end + 8 {
            return Err(r.truncated());
        }
        let stored = u64::from_le_bytes(bytes[end..end + 8].try_into().expect("8 bytes"));
        if crate::util::hash::hash64(0, &bytes[..end]) != stored {
            return Err(Error::Corrupted { context: ctx(), detail: "checksum mismatch".into() });
        }
        if found != expected {
            return Err(Error::FingerprintMismatch {
                context: ctx(),
                expected: expected.to_string(),
                found: found.to_string(),
            });
        }
        let exact = u128::from_le_bytes(r.array::<16>()?);
        let char_len = r.u32()?;
        let word_len = r.u32()?;
        let boilerplate_share = f32::from_bits(r.u32()?);
        let n = r.u16()? as usize;
        let char_minhash = r.u32s(n)?;
        let n = r.u16()? as usize;
        let weighted_minhash = r.u32s(n)?;
        let n = r.u32()? as usize;
        let passages = r.u32s(n)?;
        let n = r.u16()? as usize;
        let heading_numbers = r.u32s(n)?;
        let semantic = if flags & SEMANTIC != 0 {
            let n = r.u16()? as usize;
            let code = (0..n).map(|_| r.u64()).collect::<Result<Vec<u64>>>()?;
            let n = r.u16()? as usize;
            let embedding = r.take(n)?.iter().map(|&b| b as i8).collect();
            Some(crate::sketch::semantic::SemanticSketch { code, embedding })
        } else {
            None
        };
        if r.position() != end {
            return Err(r.malformed("payload length"));
        }
        let sig = Signature {
            exact,
            char_len,
            word_len,
            boilerplate_share,
            char_minhash,
            weighted_minhash,
            passages,
            heading_numbers,
            semantic,
        };
        Ok((sig, end + 8))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Signature {
        Signature {
            exact: 0x0123_4567_89ab_cdef_0011_2233_4455_6677,
            char_len: 42,
            word_len: 7,
            boilerplate_share: 0.25,
            char_minhash: vec![1, 2, 3],
            weighted_minhash: vec![4, 5],
            passages: vec![9, 10, 11, 12],
            heading_numbers: vec![3, 17],
            semantic: None,
        }
    }

    const FP: Fingerprint = Fingerprint([7; 16]);

    #[test]
    fn round_trips() {
        let bytes = sample().to_bytes(FP);
        let (back, used) = Signature::from_bytes(&bytes, FP, "test").unwrap();
        assert_eq!(back, sample());
        assert_eq!(used, bytes.len());
        let semantic = Signature {
            semantic: Some(crate::sketch::semantic::SemanticSketch {
                code: vec![u64::MAX, 3],
                embedding: vec![-127, 0, 5],
            }),
            ..sample()
        };
        let bytes = semantic.to_bytes(FP);
        assert_eq!(Signature::from_bytes(&bytes, FP, "test").unwrap(), (semantic, bytes.len()));
    }

    #[test]
    fn refuses_other_fingerprint_version_corruption_and_truncation() {
        let bytes = sample().to_bytes(FP);
        let err = Signature::from_bytes(&bytes, Fingerprint([8; 16]), "t").unwrap_err();
        assert!(matches!(err, Error::FingerprintMismatch { .. }), "{err}");

        let mut other_version = bytes.clone();
        other_version[4] = 9;
        let err = Signature::from_bytes(&other_version, FP, "t").unwrap_err();
        assert!(matches!(err, Error::UnsupportedVersion { found: 9, .. }), "{err}");

        let mut flipped = bytes.clone();
        flipped[40] ^= 1;
        let err = Signature::from_bytes(&flipped, FP, "t").unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");

        let err = Signature::from_bytes(&bytes[..bytes.len() - 3], FP, "t").unwrap_err();
        assert!(err.to_string().contains("truncated"), "{err}");

        let err = Signature::from_bytes(b"JUNKJUNK", FP, "t").unwrap_err();
        assert!(matches!(err, Error::BadMagic { .. }));
    }
}
