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
        if !text.as_str().bytes().any(|b| b == b'+' || b == b'#') {
            return;
        }
        let chars: Vec<char> = text.as_str().chars().collect();
        let named: Vec<bool> = (0..chars.len()).map(|i| ends_a_name(&chars, i)).collect();
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

/// Whether `chars[i]` is a `+` or `#` ending the word before it: a run of
/// them right after a letter, with no letter after the run.
fn ends_a_name(chars: &[char], i: usize) -> bool {
    let sign = |c: char| c == '+' || c == '#';
    if !sign(chars[i]) {
        return false;
    }
    let start = (0..=i).rev().take_while(|&k| sign(chars[k])).last().unwrap_or(i);
    let end = (i..chars.len()).take_while(|&k| sign(chars[k])).last().unwrap_or(i) + 1;
    start > 0 && chars[start - 1].is_alphabetic() && !chars.get(end).is_some_and(|c| c.is_alphabetic())
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
