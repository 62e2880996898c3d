use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};

/// Removes characters that render as nothing: zero-width spaces and joiners,
/// the soft hyphen, direction marks, the byte-order mark, variation selectors
/// and control characters other than whitespace. A zero-width space inside a
/// word must not split it, so these go before punctuation and whitespace
/// handling see them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invisible;

pub(crate) fn is_invisible(c: char) -> bool {
    if c.is_ascii() {
        return is_invisible_byte(c as u8);
    }
    matches!(c,
        '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
        | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
        | '\u{ffa0}' | '\u{e0000}'..='\u{e0fff}')
        || (c.is_control() && !c.is_whitespace())
}

/// [`is_invisible`] for an ASCII byte: a control character other than whitespace.
pub(super) fn is_invisible_byte(b: u8) -> bool {
    b.is_ascii_control() && !super::whitespace::is_ascii_space(b)
}

impl Normalizer for Invisible {
    fn normalize(&self, text: &mut NormText) {
        let found = if text.as_str().is_ascii() {
            text.any_byte(is_invisible_byte)
        } else {
            text.as_str().chars().any(is_invisible)
        };
        if !found {
            return;
        }
        text.map_chars(|c, out| {
            if !is_invisible(c) {
                out.push(c)
            }
        });
    }
}
