//! Stage 1: normalization.
//!
//! Duplicates hide behind differences a reader does not see: a ligature or a
//! full-width letter (NFKC), a Cyrillic `а` in place of a Latin `a`
//! (confusables), upper case, a zero-width space, a non-breaking space or a
//! line break where another copy has a plain space. Each normalizer removes one
//! such difference; [`Normalizers`] runs them in order. Every stage keeps the
//! alignment to the original text (see [`NormText`]) so spans can be shown to a
//! user in their own text.
//!
//! The normalized text is the input of every signature, so normalization is
//! part of the signature's fingerprint: changing the list changes the config
//! fingerprint and old signatures are refused.

mod case;
mod confusables;
mod invisible;
mod punctuation;
mod symbols;
mod text;
mod unicode;
mod whitespace;

pub use case::CaseFold;
pub use confusables::Confusables;
pub use invisible::Invisible;
pub use punctuation::{Punctuation, PunctuationPolicy};
pub use symbols::NamedSymbols;
pub use text::{Emit, NormText};
pub use unicode::Nfkc;
pub use whitespace::Whitespace;

use serde::{Deserialize, Serialize};

/// One normalization stage: rewrites the text in place, keeping alignment.
pub trait Normalizer {
    /// Rewrites `text` in place, carrying its alignment to the original along.
    fn normalize(&self, text: &mut NormText);
}

/// Any normalizer, as it appears in a [`Config`](crate::Config).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum NormalizerWrapper {
    /// Compatibility forms to plain ones, accents composed ([`Nfkc`]).
    Nfkc(Nfkc),
    /// Characters that render as nothing removed ([`Invisible`]).
    Invisible(Invisible),
    /// Look-alike letters of other scripts to Latin ([`Confusables`]).
    Confusables(Confusables),
    /// Unicode full case folding ([`CaseFold`]).
    CaseFold(CaseFold),
    /// `+` and `#` ending a word spelled out: "C++" is not "C" ([`NamedSymbols`]).
    NamedSymbols(NamedSymbols),
    /// Punctuation kept, removed or turned into spaces ([`Punctuation`]).
    Punctuation(Punctuation),
    /// Whitespace runs collapsed to one space, ends trimmed ([`Whitespace`]).
    Whitespace(Whitespace),
}

impl Normalizer for NormalizerWrapper {
    fn normalize(&self, text: &mut NormText) {
        match self {
            Self::Nfkc(n) => n.normalize(text),
            Self::Invisible(n) => n.normalize(text),
            Self::Confusables(n) => n.normalize(text),
            Self::CaseFold(n) => n.normalize(text),
            Self::NamedSymbols(n) => n.normalize(text),
            Self::Punctuation(n) => n.normalize(text),
            Self::Whitespace(n) => n.normalize(text),
        }
    }
}

/// The normalizers of a pipeline, applied in order.
///
/// The default chain makes copies that differ only in what a reader does
/// not see agree exactly, and [`Normalizers::run`] still points back into
/// the text as the user wrote it:
///
/// ```rust
/// use semhash::normalize::Normalizers;
///
/// let chain = Normalizers::default();
/// // Full-width letters, shouting, a zero-width space, a no-break space, a
/// // tab, a dash, and a Cyrillic `о` in "brown".
/// let disguised = "ＴＨＥ  Quick\u{200b} br\u{43e}wn\u{a0}fox\t— JUMPS!";
/// assert_eq!(chain.text(disguised), "the quick brown fox jumps");
/// assert_eq!(chain.text("The quick brown fox jumps."), "the quick brown fox jumps");
///
/// // A span of the normalized text maps back to the original characters.
/// let normalized = chain.run(disguised);
/// let start = normalized.as_str().find("brown").unwrap();
/// let span = normalized.original_span(disguised, start, start + "brown".len());
/// assert_eq!(&disguised[span], "br\u{43e}wn");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Normalizers(pub Vec<NormalizerWrapper>);

impl Default for Normalizers {
    /// NFKC, then invisible characters out, look-alikes to Latin (before case
    /// folding, since `Н` and `н` resemble different Latin letters), case fold,
    /// the signs that end a name spelled out ("c++"), punctuation to spaces,
    /// and whitespace collapsed last so that what the earlier stages turned
    /// into spaces collapses too.
    fn default() -> Self {
        Normalizers(vec![
            NormalizerWrapper::Nfkc(Nfkc),
            NormalizerWrapper::Invisible(Invisible),
            NormalizerWrapper::Confusables(Confusables),
            NormalizerWrapper::CaseFold(CaseFold),
            NormalizerWrapper::NamedSymbols(NamedSymbols),
            NormalizerWrapper::Punctuation(Punctuation::default()),
            NormalizerWrapper::Whitespace(Whitespace),
        ])
    }
}

impl Normalizer for Normalizers {
    fn normalize(&self, text: &mut NormText) {
        self.0.iter().for_each(|n| n.normalize(text));
    }
}

impl Normalizers {
    /// Normalizes `original`, keeping the alignment.
    pub fn run(&self, original: &str) -> NormText {
        let mut text = NormText::new(original);
        self.normalize(&mut text);
        text
    }

    /// Normalizes `original` when no span will be asked for.
    pub fn text(&self, original: &str) -> String {
        let mut text = NormText::untracked(original);
        self.normalize(&mut text);
        text.into_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(s: &str) -> String {
        let n = Normalizers::default();
        let text = n.text(s);
        assert_eq!(n.run(s).into_string(), text, "tracked and untracked agree");
        text
    }

    #[test]
    fn perturbed_copies_normalize_to_the_same_text() {
        let plain = norm("A businessman is a hybrid of a dancer and a calculator. -- Paul Valery");
        assert_eq!(plain, "a businessman is a hybrid of a dancer and a calculator paul valery");
        for variant in [
            "A BUSINESSMAN IS A HYBRID OF A DANCER AND A CALCULATOR! -- PAUL VALERY",
            "A\u{a0}businessman\u{200b} is a\thybrid of a dancer\nand a calculator. -- Paul Valery",
            "А businеssmаn is а hybrid оf а dаnсеr аnd а саlсulаtоr. -- Pаul Vаlеry",
            "Ａ businessman is a hybrid of a dancer and a calculator. -- Paul Valery",
        ] {
            assert_eq!(norm(variant), plain, "{variant:?}");
        }
    }

    #[test]
    fn config_round_trips_through_json() {
        let n = Normalizers::default();
        let json = serde_json::to_string(&n).unwrap();
        assert!(json.contains(r#"{"type":"nfkc"}"#), "{json}");
        let back: Normalizers = serde_json::from_str(&json).unwrap();
        assert_eq!(back, n);
    }

    /// The byte-at-a-time rules for ASCII text say what the character rules say.
    #[test]
    fn ascii_byte_rules_agree_with_the_character_rules() {
        type Rules = (&'static str, fn(u8) -> bool, fn(char) -> bool);
        let rules: [Rules; 3] = [
            ("whitespace", whitespace::is_ascii_space, |c| c.is_whitespace()),
            ("kept", punctuation::is_kept_byte, |c| c.is_alphanumeric() || c.is_whitespace()),
            ("invisible", invisible::is_invisible_byte, |c| c.is_control() && !c.is_whitespace()),
        ];
        for (name, byte_rule, char_rule) in rules {
            for b in 0..128u8 {
                assert_eq!(byte_rule(b), char_rule(b as char), "{name} {b:#x}");
            }
        }
    }

    /// ASCII text takes byte-at-a-time paths through the normalizers; a
    /// non-ASCII letter appended sends the same text down the per-character
    /// ones, which must give the same words.
    #[test]
    fn ascii_texts_normalize_as_unicode_ones_do() {
        const ALPHABET: &[u8] = b"aZ9 +#-.,!'\t\n\x0b\x0c\r\x1f\x7f\x00_(C";
        for i in 0..4000u64 {
            let h = crate::util::hash::mix64(i);
            let len = (h % 12) as usize;
            let ascii: String = (0..len)
                .map(|k| ALPHABET[(crate::util::hash::mix64(h ^ k as u64) % ALPHABET.len() as u64) as usize] as char)
                .collect();
            let want = format!("{} é", norm(&ascii));
            assert_eq!(norm(&format!("{ascii} é")), want.trim_start(), "{ascii:?}");
        }
    }

    #[test]
    fn spans_of_ascii_text_point_into_original() {
        let original = "  Hello,\t\x7f  WORLD!! ";
        let t = Normalizers::default().run(original);
        assert_eq!(t.as_str(), "hello world");
        let start = t.as_str().find("world").unwrap();
        assert_eq!(&original[t.original_span(original, start, t.as_str().len())], "WORLD");
        assert_eq!(&original[t.original_span(original, 0, 5)], "Hello");
    }

    #[test]
    fn span_of_normalized_word_points_into_original() {
        let original = "Hello,\u{a0}\u{200b}WÖRLD!";
        let t = Normalizers::default().run(original);
        assert_eq!(t.as_str(), "hello wörld");
        let start = t.as_str().find("wörld").unwrap();
        let span = t.original_span(original, start, t.as_str().len());
        assert_eq!(&original[span], "WÖRLD");
    }
}
