use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// Unicode NFKC: compatibility forms (ligatures, full-width letters,
/// superscripts, the non-breaking space) become their plain equivalents and
/// accents are composed, so two encodings of the same text agree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nfkc;

impl Normalizer for Nfkc {
    fn normalize(&self, text: &mut NormText) {
        // Fast path: most text is already NFKC and then nothing moves.
        if text.as_str().is_ascii()
            || unicode_normalization::is_nfkc_quick(text.as_str().chars()) == unicode_normalization::IsNormalized::Yes
        {
            return;
        }
        text.map_sequences(|seq, out| seq.nfkc().for_each(|c| out.push(c)));
    }
}
