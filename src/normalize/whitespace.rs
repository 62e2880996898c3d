use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};

/// Collapses every run of whitespace (spaces, tabs, line breaks, and the
/// Unicode spaces NFKC leaves) to one ASCII space and trims both ends, so line
/// wrapping and indentation do not count as differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Whitespace;

impl Normalizer for Whitespace {
    fn normalize(&self, text: &mut NormText) {
        let mut pending_space = false;
        let mut started = false;
        text.map_chars(|c, out| {
            if c.is_whitespace() {
                pending_space = started;
            } else {
                started = true;
                if pending_space {
                    out.push(' ');
                    pending_space = false;
                }
                out.push(c);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_collapse_and_ends_trim() {
        let mut t = NormText::new(" \t a \n\n b\u{3000}c  ");
        Whitespace.normalize(&mut t);
        assert_eq!(t.as_str(), "a b c");
    }
}
