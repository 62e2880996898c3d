//! A long text's heading, reduced to the versions and models it names.
//!
//! Two package descriptions, two manual pages, two product pages of one site
//! share most of their text and differ in what the first line says they are
//! about: "Qt 5 base library" / "Qt 6 base library", "... for the amd64
//! architecture" / "... for riscv64". The weighted sketch sees a near copy;
//! the rubric sees "a different version, number ... that identifies a
//! different thing". The words of a heading that hold a digit are what names
//! such a thing, so the signature keeps them ([`numbered_words`]) and a pair
//! whose headings each name one the other lacks is not merged
//! ([`name_other_things`]). A heading that only adds a number ("Qt 5 base
//! library" / "Qt base library") is left to the other signals: one copy may
//! simply say more.
//!
//! Measured on the full Debian package descriptions (README, "Long texts"):
//! 408 of 11,204 non-exact links had such headings, 39 of 40 sampled of them
//! and 9 of 9 labelled were distinct; no link of the stress set, the
//! fortunes, GCIDE or the npm descriptions had them.

use super::tokens;
use crate::util::hash::key32;

/// A first line longer than this is prose, not a heading.
pub const HEADING_MAX_CHARS: usize = 300;

/// The heading of `original`: its first line, when more lines follow and
/// that line is at most [`HEADING_MAX_CHARS`]. Taken from the text as the
/// user wrote it, since normalization folds line breaks into spaces.
pub fn heading(original: &str) -> Option<&str> {
    let (first, rest) = original.trim().split_once('\n')?;
    (!rest.trim().is_empty() && first.chars().count() <= HEADING_MAX_CHARS).then_some(first)
}

/// Hashes of the words of `original`'s heading that hold a digit, sorted and
/// distinct, read after `normalize` (so that "Ｑｔ５" and "qt5" agree); empty
/// when it has no heading or its heading no number.
pub fn numbered_words(original: &str, normalize: impl Fn(&str) -> String) -> Vec<u32> {
    let Some(line) = heading(original).filter(|h| h.chars().any(char::is_numeric)) else {
        return Vec::new();
    };
    let line = normalize(line);
    let mut out: Vec<u32> = tokens::words(&line)
        .iter()
        .filter(|w| line[w.start as usize..w.end as usize].chars().any(char::is_numeric))
        .map(|w| key32(w.hash))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether two headings' [`numbered_words`] each hold one the other lacks:
/// they name different versions, architectures or models.
pub fn name_other_things(a: &[u32], b: &[u32]) -> bool {
    let lacks = |x: &[u32], y: &[u32]| x.iter().any(|w| y.binary_search(w).is_err());
    lacks(a, b) && lacks(b, a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::Normalizers;

    fn numbered(text: &str) -> Vec<u32> {
        let norm = Normalizers::default();
        numbered_words(text, |s| norm.text(s))
    }

    #[test]
    fn a_heading_is_a_short_first_line_with_more_after_it() {
        assert_eq!(heading("  Qt 5 base\nThe Qt toolkit.\n"), Some("Qt 5 base"));
        assert_eq!(heading("Qt 5 base library"), None, "one line is no heading");
        assert_eq!(heading("Qt 5 base\n   \n"), None, "nothing follows");
        assert_eq!(heading(&format!("{}\nmore", "x".repeat(HEADING_MAX_CHARS + 1))), None);
    }

    #[test]
    fn headings_naming_other_versions_are_told_apart() {
        let body = "\nThe Qt toolkit: widgets, networking and the event loop.";
        let qt5 = numbered(&format!("Qt 5 base library{body}"));
        let qt6 = numbered(&format!("Qt 6 base library{body}"));
        assert_eq!(qt5.len(), 1);
        assert!(name_other_things(&qt5, &qt6));
        assert!(!name_other_things(&qt5, &numbered(&format!("QT  5 base library!{body}"))), "same version");
        assert!(!name_other_things(&qt5, &numbered(&format!("Qt base library{body}"))), "one only adds");
        assert!(!name_other_things(&qt5, &numbered("Qt 6 base library, one line")), "no heading");
        assert_eq!(numbered(&format!("Ｑｔ５ base{body}")), numbered(&format!("qt5 base{body}")));
    }
}
