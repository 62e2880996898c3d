use super::{NormText, Normalizer};
use caseless::Caseless;
use serde::{Deserialize, Serialize};

/// Unicode full case folding (`ß` → `ss`, `Σ`/`ς` → `σ`), the caseless match of
/// the Unicode standard; plain lower-casing misses some of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CaseFold;

impl Normalizer for CaseFold {
    fn normalize(&self, text: &mut NormText) {
        if text.map_ascii_in_place(|b| b.to_ascii_lowercase()) {
            return;
        }
        text.map_chars(|c, out| {
            if c.is_ascii() {
                out.push(c.to_ascii_lowercase());
            } else {
                std::iter::once(c).default_case_fold().for_each(|f| out.push(f));
            }
        });
    }
}
