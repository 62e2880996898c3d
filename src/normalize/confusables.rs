use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};

/// Folds letters from other scripts that look like Latin letters (Cyrillic
/// `а`, Greek `ο`, Armenian `օ`, …) to the Latin letter they imitate, so a copy
/// "disguised" with homoglyphs hashes like the original.
///
/// Runs before case folding: `Н` imitates `H` while `н` imitates nothing, and
/// only the capital still says which. The table is the common subset of
/// Unicode's confusables (UTS #39) for Cyrillic, Greek and Armenian letters
/// whose prototype is a single Latin letter. It folds everywhere, not only in
/// mixed-script words: a word spelled entirely in look-alikes is the typical
/// disguise, and text in those scripts still folds consistently on both sides
/// of a comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confusables;

/// Sorted by code point for binary search.
const TABLE: &[(char, char)] = &[
    ('\u{0391}', 'A'),
    ('\u{0392}', 'B'),
    ('\u{0395}', 'E'),
    ('\u{0396}', 'Z'),
    ('\u{0397}', 'H'),
    ('\u{0399}', 'I'),
    ('\u{039A}', 'K'),
    ('\u{039C}', 'M'),
    ('\u{039D}', 'N'),
    ('\u{039F}', 'O'),
    ('\u{03A1}', 'P'),
    ('\u{03A4}', 'T'),
    ('\u{03A5}', 'Y'),
    ('\u{03A7}', 'X'),
    ('\u{03B1}', 'a'),
    ('\u{03B3}', 'y'),
    ('\u{03B9}', 'i'),
    ('\u{03BA}', 'k'),
    ('\u{03BD}', 'v'),
    ('\u{03BF}', 'o'),
    ('\u{03C1}', 'p'),
    ('\u{03C3}', 'o'),
    ('\u{03C5}', 'u'),
    ('\u{03C7}', 'x'),
    ('\u{03F2}', 'c'),
    ('\u{03F3}', 'j'),
    ('\u{03F9}', 'C'),
    ('\u{0405}', 'S'),
    ('\u{0406}', 'I'),
    ('\u{0408}', 'J'),
    ('\u{0410}', 'A'),
    ('\u{0412}', 'B'),
    ('\u{0415}', 'E'),
    ('\u{041A}', 'K'),
    ('\u{041C}', 'M'),
    ('\u{041D}', 'H'),
    ('\u{041E}', 'O'),
    ('\u{0420}', 'P'),
    ('\u{0421}', 'C'),
    ('\u{0422}', 'T'),
    ('\u{0423}', 'Y'),
    ('\u{0425}', 'X'),
    ('\u{0430}', 'a'),
    ('\u{0435}', 'e'),
    ('\u{043E}', 'o'),
    ('\u{0440}', 'p'),
    ('\u{0441}', 'c'),
    ('\u{0443}', 'y'),
    ('\u{0445}', 'x'),
    ('\u{0455}', 's'),
    ('\u{0456}', 'i'),
    ('\u{0458}', 'j'),
    ('\u{04AE}', 'Y'),
    ('\u{04AF}', 'y'),
    ('\u{04BB}', 'h'),
    ('\u{04C0}', 'I'),
    ('\u{04CF}', 'l'),
    ('\u{0501}', 'd'),
    ('\u{051A}', 'Q'),
    ('\u{051B}', 'q'),
    ('\u{051C}', 'W'),
    ('\u{051D}', 'w'),
    ('\u{0555}', 'O'),
    ('\u{0570}', 'h'),
    ('\u{057D}', 'u'),
    ('\u{0581}', 'g'),
    ('\u{0585}', 'o'),
];

fn fold(c: char) -> Option<char> {
    if c.is_ascii() {
        return None;
    }
    TABLE.binary_search_by_key(&c, |&(from, _)| from).ok().map(|i| TABLE[i].1)
}

impl Normalizer for Confusables {
    fn normalize(&self, text: &mut NormText) {
        if text.as_str().is_ascii() || !text.as_str().chars().any(|c| fold(c).is_some()) {
            return;
        }
        text.map_chars(|c, out| out.push(fold(c).unwrap_or(c)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_targets_latin() {
        assert!(TABLE.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(TABLE.iter().all(|&(_, to)| to.is_ascii_alphabetic()));
    }

    #[test]
    fn cyrillic_and_greek_disguises_fold() {
        let mut t = NormText::new("Рауpаl ΑΡΡLΕ сοοl");
        Confusables.normalize(&mut t);
        assert_eq!(t.as_str(), "Paypal APPLE cool");
    }
}
