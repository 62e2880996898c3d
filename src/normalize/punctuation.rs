use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};

/// What to do with characters that are neither letters, digits, marks nor
/// whitespace (punctuation and symbols).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PunctuationPolicy {
    /// Leave them.
    Keep,
    /// Delete them (`don't` → `dont`, but also `a,b` → `ab`).
    Remove,
    /// Turn each into a space (`a,b` and `a, b` agree once whitespace collapses).
    #[default]
    Space,
}

/// Applies a [`PunctuationPolicy`]. Copies that differ only in punctuation
/// (`n.:` against `N!:`) are the same text to a reader.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Punctuation {
    /// What happens to them; turned into spaces by default, so that `a,b`
    /// stays two words.
    #[serde(default)]
    pub policy: PunctuationPolicy,
}

fn is_kept(c: char) -> bool {
    if c.is_ascii() {
        return is_kept_byte(c as u8);
    }
    c.is_alphanumeric() || c.is_whitespace() || unicode_normalization::char::is_combining_mark(c)
}

/// [`is_kept`] for an ASCII byte.
pub(super) fn is_kept_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || super::whitespace::is_ascii_space(b)
}

impl Normalizer for Punctuation {
    fn normalize(&self, text: &mut NormText) {
        let replacement = match self.policy {
            PunctuationPolicy::Keep => return,
            PunctuationPolicy::Remove => None,
            PunctuationPolicy::Space => Some(' '),
        };
        // ASCII text in one pass, whether it holds punctuation or not.
        let ascii = match replacement {
            Some(r) => text.map_ascii_in_place(|b| if is_kept_byte(b) { b } else { r as u8 }),
            None => text.map_ascii(|b, out| {
                if is_kept_byte(b) {
                    out.push(b)
                }
            }),
        };
        if ascii || text.as_str().chars().all(is_kept) {
            return;
        }
        text.map_chars(|c, out| match (is_kept(c), replacement) {
            (true, _) => out.push(c),
            (false, Some(r)) => out.push(r),
            (false, None) => {}
        });
    }
}
