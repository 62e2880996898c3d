//! Meaning without a transformer: a static embedding table (issue 15).
//!
//! Each vocabulary token has one row, distilled from the student by running
//! the token alone through it (model2vec's recipe; `models/static_table.py`
//! builds the table and says how). A text's embedding is the sum of its
//! tokens' rows, L2-normalised: one table lookup per token instead of three
//! transformer layers, so it embeds about as fast as the lexical stages sign.
//! The rows carry smooth-inverse-frequency weights, so frequent tokens ("a",
//! "for", "the") move the sum little and rare ones (the subject) much.
//!
//! The sum is normalised, the table's **centre** (the mean of such sums
//! over unlabelled corpora) subtracted, and the result normalised again:
//! every sum shares that common direction, and without taking it out any two
//! texts would have a cosine near 0.25 (after it, near 0), so thresholds and
//! blocking radii would not mean what they mean for the student.
//!
//! All of it is `f32` arithmetic in a fixed order with no fused
//! multiply-add, so native and wasm give the same bits.
//!
//! ```text
//! offset  size        field
//! 0       4           magic "SHST"
//! 4       4           version (u32, 1)
//! 8       4           tokens n (u32)
//! 12      4           dims d (u32)
//! 16      4·n         scale of each row (f32; the SIF weight folded in, 0 for special tokens)
//! …       n·d         rows (i8), token by token
//! …       4·d         centre (f32)
//! …       8           xxh3-64 of everything before
//! ```

use crate::util::bytes::Reader;
use crate::util::hash::hash64;
use crate::{Error, Result};

const MAGIC: [u8; 4] = *b"SHST";
const VERSION: u32 = 1;

/// One int8 row per token with its scale.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticTable {
    dims: usize,
    scale: Vec<f32>,
    rows: Vec<i8>,
    centre: Vec<f32>,
}

impl StaticTable {
    /// Reads a table file (format in the module docs).
    ///
    /// # Errors
    ///
    /// [`Error::BadMagic`], [`Error::UnsupportedVersion`] or
    /// [`Error::Corrupted`] (checksum, length, a scale that is not a finite
    /// number ≥ 0), each naming `context`.
    pub fn from_bytes(bytes: &[u8], context: &str) -> Result<Self> {
        let corrupted = |detail: &str| Error::Corrupted { context: context.to_owned(), detail: detail.to_owned() };
        let mut r = Reader::checksummed(bytes, MAGIC, 24, context)?;
        let version = r.u32()?;
        if version != VERSION {
            let found = u16::try_from(version).unwrap_or(u16::MAX);
            return Err(Error::UnsupportedVersion { context: context.to_owned(), found, supported: VERSION as u16 });
        }
        let (tokens, dims) = (r.u32()? as usize, r.u32()? as usize);
        let scale: Vec<f32> = r.u32s(tokens)?.into_iter().map(f32::from_bits).collect();
        let rows =
            r.take(tokens.checked_mul(dims).ok_or_else(|| corrupted("size"))?)?.iter().map(|&b| b as i8).collect();
        let centre: Vec<f32> = r.u32s(dims)?.into_iter().map(f32::from_bits).collect();
        if !r.is_empty() {
            return Err(r.malformed("length"));
        }
        if tokens == 0 || dims == 0 {
            return Err(corrupted("no rows"));
        }
        if scale.iter().any(|s| !(s.is_finite() && *s >= 0.0)) {
            return Err(corrupted("a row's scale is not a finite number >= 0"));
        }
        if centre.iter().any(|c| !c.is_finite()) {
            return Err(corrupted("the centre is not finite"));
        }
        Ok(StaticTable { dims, scale, rows, centre })
    }

    /// The file's bytes (what [`StaticTable::from_bytes`] reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for n in [VERSION, self.scale.len() as u32, self.dims as u32] {
            bytes.extend_from_slice(&n.to_le_bytes());
        }
        self.scale.iter().for_each(|s| bytes.extend_from_slice(&s.to_le_bytes()));
        bytes.extend(self.rows.iter().map(|&x| x as u8));
        self.centre.iter().for_each(|c| bytes.extend_from_slice(&c.to_le_bytes()));
        let sum = hash64(0, &bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        bytes
    }

    /// Embedding dimensions.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Rows (vocabulary size).
    pub fn tokens(&self) -> usize {
        self.scale.len()
    }

    /// The embedding of a text's token `ids`: their rows summed, normalised,
    /// centred and normalised again (see the module docs). All zeros when no
    /// id has a row with weight (only special or out-of-table tokens): such
    /// a text has no direction, and its cosine with anything is 0.
    pub fn embed_ids(&self, ids: &[u32]) -> Vec<f32> {
        let mut sum = vec![0f32; self.dims];
        for &id in ids {
            let Some(&scale) = self.scale.get(id as usize) else { continue };
            let row = &self.rows[id as usize * self.dims..][..self.dims];
            for (s, &x) in sum.iter_mut().zip(row) {
                *s += scale * x as f32;
            }
        }
        if !normalise(&mut sum) {
            return sum;
        }
        sum.iter_mut().zip(&self.centre).for_each(|(x, c)| *x -= c);
        normalise(&mut sum);
        sum
    }
}

/// Scales `v` to length 1; false (and `v` left as it is) when it is all zero.
fn normalise(v: &mut [f32]) -> bool {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    norm > 0.0
}

/// Texts to embeddings by a [`StaticTable`] over the student's tokenizer.
pub struct StaticEmbedder {
    tokenizer: tokenizers::Tokenizer,
    /// The tokenizer's ids without `tokenizers` where the text allows.
    fast: Option<super::wordpiece::AsciiWordPiece>,
    table: StaticTable,
}

impl StaticEmbedder {
    /// The embedder of a table file and the `tokenizer.json` it was built over.
    ///
    /// # Errors
    ///
    /// What [`StaticTable::from_bytes`] refuses; [`Error::Config`] when the
    /// tokenizer does not load or its vocabulary is not the table's size
    /// (a table built over another tokenizer).
    pub fn from_bytes(table: &[u8], tokenizer_json: &[u8]) -> Result<Self> {
        let table = StaticTable::from_bytes(table, "static table")?;
        let tokenizer = super::load_tokenizer(tokenizer_json)?;
        let vocab = tokenizer.get_vocab_size(true);
        if vocab != table.tokens() {
            return Err(Error::Config(format!(
                "the static table has {} rows but tokenizer.json {vocab} tokens: it was built over another tokenizer",
                table.tokens()
            )));
        }
        Ok(StaticEmbedder { fast: super::wordpiece::AsciiWordPiece::of(&tokenizer), tokenizer, table })
    }

    /// The token ids of `text`, as the tokenizer gives them.
    fn ids(&self, text: &str) -> Result<Vec<u32>> {
        if let Some(ids) = self.fast.as_ref().and_then(|fast| fast.ids(&self.tokenizer, text)) {
            return Ok(ids);
        }
        let enc = self.tokenizer.encode(text, false).map_err(|e| Error::Input(format!("tokenizing: {e}")))?;
        Ok(enc.get_ids().to_vec())
    }
}

impl crate::semantic::Embedder for StaticEmbedder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        texts.iter().map(|text| Ok(self.table.embed_ids(&self.ids(text)?))).collect()
    }

    fn dims(&self) -> usize {
        self.table.dims()
    }
}

/// The semantic stage of a static table: the table file, the
/// `tokenizer.json` it was built over and a projection trained on its
/// embeddings (`semhash train-sph --embedder static`). Its model hash covers
/// all three, so signatures of the student's stage are refused beside these.
///
/// # Errors
///
/// What [`StaticEmbedder::from_bytes`] and
/// [`Projection::from_bytes`](crate::semantic::Projection::from_bytes)
/// refuse, and [`Error::Config`] when the projection's dimensions are not
/// the table's.
pub fn static_stage(table: &[u8], tokenizer_json: &[u8], projection: &[u8]) -> Result<crate::semantic::Stage> {
    let embedder = StaticEmbedder::from_bytes(table, tokenizer_json)?;
    let projection = crate::semantic::Projection::from_bytes(projection, "projection")?;
    let hash = super::model_hash(&[b"static", table, tokenizer_json, &projection.to_bytes()]);
    crate::semantic::Stage::new(std::sync::Arc::new(embedder), projection, hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> StaticTable {
        StaticTable {
            dims: 3,
            scale: vec![0.0, 0.5, 2.0, 1.0],
            rows: vec![9, 9, 9, 2, 0, 0, 0, 1, 0, -1, -1, 0],
            centre: vec![0.0, 0.0, 0.0],
        }
    }

    #[test]
    fn a_text_is_the_normalised_weighted_sum_of_its_rows_less_the_centre() {
        let mut t = table();
        // 0.5·(2,0,0) + 2·(0,1,0) = (1,2,0); the special row (scale 0) and an id past the table add nothing.
        let n = 5f32.sqrt();
        let near = |got: Vec<f32>, want: [f32; 3]| got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6);
        assert!(near(t.embed_ids(&[1, 2, 0, 99]), [1.0 / n, 2.0 / n, 0.0]));
        assert_eq!(t.embed_ids(&[0]), vec![0.0; 3], "only special tokens: no direction");
        assert_eq!(t.embed_ids(&[]), vec![0.0; 3]);
        // Centred: (1,2,0)/√5 − (1/√5, 0, 0) = (0, 2/√5, 0), normalised.
        t.centre = vec![1.0 / n, 0.0, 0.0];
        assert!(near(t.embed_ids(&[1, 2]), [0.0, 1.0, 0.0]));
    }

    #[test]
    fn a_table_file_reads_back_and_damage_is_refused_by_name() {
        let bytes = table().to_bytes();
        assert_eq!(StaticTable::from_bytes(&bytes, "t").unwrap(), table());
        for cut in [0, 3, 20, bytes.len() - 1] {
            assert!(StaticTable::from_bytes(&bytes[..cut], "t").is_err(), "cut at {cut}");
        }
        let mut flipped = bytes.clone();
        flipped[30] ^= 4;
        assert!(matches!(StaticTable::from_bytes(&flipped, "t"), Err(Error::Corrupted { .. })));
        let mut negative = table();
        negative.scale[1] = -1.0;
        assert!(matches!(StaticTable::from_bytes(&negative.to_bytes(), "t"), Err(Error::Corrupted { .. })));
        let projection = crate::semantic::Projection::random(8, 3, 1).to_bytes();
        assert!(matches!(StaticTable::from_bytes(&projection, "t"), Err(Error::BadMagic { .. })));
    }
}
