use super::{NormText, Normalizer};
use serde::{Deserialize, Serialize};

/// `+` and `#` that end a word are part of its name: "C++", "C#", "F#",
/// "Notepad++" become "cplusplus", "csharp", "fsharp", "notepadplusplus".
///
/// Punctuation is otherwise noise between copies, but these two name
/// languages and products: without this step "bindings for C#", "bindings
/// for C++" and "bindings for C" are one text, an exact duplicate, and no
/// later stage can tell them apart. A sign counts as a suffix when it follows
/// a letter and no letter follows it ("C++17" keeps its digits; "a+b",
/// "#tag" and "18+" are left to the punctuation step). It runs after case
/// folding, so the spelled-out names are lower case like the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedSymbols;

impl Normalizer for NamedSymbols {
    fn normalize(&self, text: &mut NormText) {
        // Most texts have neither sign.
        if !text.any_byte(|b| b == b'+' || b == b'#') {
            return;
        }
        let named = named_signs(text.as_str());
        let mut at = 0;
        text.map_chars(|c, out| {
            match (named[at], c) {
                (true, '+') => out.push_str("plus"),
                (true, _) => out.push_str("sharp"),
                (false, c) => out.push(c),
            }
            at += 1;
        });
    }
}

/// For each character of `text`, whether it is a `+` or `#` ending the word
/// before it: a run of them right after a letter, with no letter after the
/// run. One pass, each run decided once when it ends.
fn named_signs(text: &str) -> Vec<bool> {
    let sign = |c: char| c == '+' || c == '#';
    let chars: Vec<char> = text.chars().collect();
    let mut named = vec![false; chars.len()];
    let mut i = 0;
    while i < chars.len() {
        if !sign(chars[i]) {
            i += 1;
            continue;
        }
        let end = (i..chars.len()).find(|&k| !sign(chars[k])).unwrap_or(chars.len());
        let after_letter = i > 0 && chars[i - 1].is_alphabetic();
        if after_letter && !chars.get(end).is_some_and(|c| c.is_alphabetic()) {
            named[i..end].fill(true);
        }
        i = end;
    }
    named
}

#[cfg(test)]
mod tests {
    use crate::normalize::Normalizers;

    fn norm(s: &str) -> String {
        Normalizers::default().text(s)
    }

    #[test]
    fn languages_named_by_a_sign_stay_apart() {
        assert_eq!(norm("Bindings for C++"), "bindings for cplusplus");
        assert_eq!(norm("Bindings for C#."), "bindings for csharp");
        assert_eq!(norm("bindings for C"), "bindings for c");
        assert_eq!(norm("an F# port of Notepad++"), "an fsharp port of notepadplusplus");
        assert_eq!(norm("C++17 ranges"), "cplusplus17 ranges");
    }

    #[test]
    fn signs_inside_or_before_words_are_punctuation() {
        assert_eq!(norm("a+b and #hashtag"), "a b and hashtag");
        assert_eq!(norm("rated 18+ only"), "rated 18 only");
        assert_eq!(norm("+ plus"), "plus");
    }

    #[test]
    fn spelled_out_signs_map_back_to_them() {
        let original = "for C++ users";
        let t = Normalizers::default().run(original);
        let start = t.as_str().find("cplusplus").unwrap();
        let span = t.original_span(original, start, start + "cplusplus".len());
        assert_eq!(&original[span], "C++");
    }
}
