use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};

/// Collapses every run of whitespace (spaces, tabs, line breaks, and the
/// Unicode spaces NFKC leaves) to one ASCII space and trims both ends, so line
/// wrapping and indentation do not count as differences.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Whitespace;

/// `char::is_whitespace` for an ASCII byte (`u8::is_ascii_whitespace`
/// leaves out the vertical tab).
pub(crate) fn is_ascii_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

impl Normalizer for Whitespace {
    fn normalize(&self, text: &mut NormText) {
        let mut runs = Runs::default();
        let ascii = text.map_ascii(|b, out| {
            let (space, keep) = runs.step(is_ascii_space(b));
            if space {
                out.push(b' ');
            }
            if keep {
                out.push(b);
            }
        });
        if !ascii {
            text.map_chars(|c, out| {
                let (space, keep) = runs.step(c.is_whitespace());
                if space {
                    out.push(' ');
                }
                if keep {
                    out.push(c);
                }
            });
        }
    }
}

/// Where the text is in its runs of whitespace.
#[derive(Default)]
struct Runs {
    /// A run of whitespace after a word is waiting for the next word.
    pending_space: bool,
    /// A word has been seen: leading whitespace is dropped.
    started: bool,
}

impl Runs {
    /// For the next character, whitespace or not: whether a space goes
    /// before it, and whether it is kept.
    fn step(&mut self, whitespace: bool) -> (bool, bool) {
        if whitespace {
            self.pending_space = self.started;
            return (false, false);
        }
        self.started = true;
        (std::mem::take(&mut self.pending_space), true)
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
