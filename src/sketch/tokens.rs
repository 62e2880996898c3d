//! Words and shingles of normalized text.
//!
//! Word shingles (word n-grams) carry the token-level signal and the passage
//! samples; character n-grams carry the character-level signal, which
//! survives typos in short texts where one changed letter breaks several word
//! shingles.

use crate::util::hash::{combine, hash64, mix64};

const WORD_SEED: u64 = 0x5348_574f_5244_0001; // "SHWORD"

/// A word of normalized text: its byte span and its hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word {
    /// Byte offset of its first byte in the text.
    pub start: u32,
    /// Byte offset just past its last byte.
    pub end: u32,
    /// Hash of its bytes: shingles are made from these, never from the text.
    pub hash: u64,
}

/// Han, kana and Hangul are written without spaces: each character is a word.
fn is_unspaced_script(c: char) -> bool {
    // Most characters are below every range: one comparison for them.
    c >= '\u{3040}'
        && matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af
        | 0xf900..=0xfaff | 0x20000..=0x2fa1f)
}

/// Splits normalized text into words at whitespace (and around each character
/// of scripts written without spaces).
pub fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::with_capacity(text.len() / 5 + 1);
    let mut start = None;
    let mut push = |s: usize, e: usize| {
        out.push(Word { start: s as u32, end: e as u32, hash: hash64(WORD_SEED, &text.as_bytes()[s..e]) })
    };
    for (i, c) in text.char_indices() {
        if c.is_whitespace() || is_unspaced_script(c) {
            if let Some(s) = start.take() {
                push(s, i);
            }
            if !c.is_whitespace() {
                push(i, i + c.len_utf8());
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        push(s, text.len());
    }
    out
}

/// Hashes of the word n-grams, in text order. The i-th shingle spans words
/// `i..i + n`. A text of fewer than `n` words is one shingle of all its words.
pub fn word_shingles(words: &[Word], n: usize) -> Vec<u64> {
    let n = n.max(1);
    if words.is_empty() {
        return Vec::new();
    }
    let width = n.min(words.len());
    words.windows(width).map(|w| w.iter().fold(n as u64, |acc, word| combine(acc, word.hash))).collect()
}

/// Hashes of the character n-grams of the text (spaces included), in order.
/// A text of fewer than `n` characters is one shingle.
pub fn char_shingles(text: &str, n: usize) -> Vec<u64> {
    let n = n.max(1);
    let chars: Vec<u32> = text.chars().map(u32::from).collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let width = n.min(chars.len());
    chars
        .windows(width)
        .map(|w| {
            let packed = w.iter().fold(0x6368_6172u64 ^ n as u64, |acc, &c| acc.wrapping_mul(0x1_0000_01b3) ^ c as u64);
            mix64(packed)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_on_spaces_and_cjk() {
        let t = "ab 漢字 cd";
        let w: Vec<&str> = words(t).iter().map(|w| &t[w.start as usize..w.end as usize]).collect();
        assert_eq!(w, ["ab", "漢", "字", "cd"]);
    }

    #[test]
    fn shingles_are_position_free_and_order_sensitive() {
        let a = word_shingles(&words("x y z the cat sat"), 3);
        let b = word_shingles(&words("the cat sat"), 3);
        assert_eq!(a.len(), 4);
        assert_eq!(a[3], b[0]);
        let c = word_shingles(&words("sat cat the"), 3);
        assert_ne!(b[0], c[0]);
    }

    #[test]
    fn short_texts_still_get_one_shingle() {
        assert_eq!(word_shingles(&words("hi there"), 3).len(), 1);
        assert_eq!(char_shingles("abc", 5).len(), 1);
        assert!(char_shingles("", 5).is_empty());
        assert_eq!(char_shingles("abcdef", 5).len(), 2);
    }
}
