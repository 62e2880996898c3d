//! The student's tokenizer on ASCII text, without `tokenizers`' bookkeeping.
//!
//! `tokenizers` keeps, for every character it normalizes, where it came from
//! in the original text (for offsets), and looks up Unicode categories for
//! each. For the static table, which needs only token ids, that was 3.3 of
//! the 3.4 seconds it took to embed the 52,000 short texts of the 100k bench
//! documents. On ASCII text BERT's pipeline is a few byte rules (below), so
//! [`AsciiWordPiece`] applies them directly and looks words up in the same
//! vocabulary; any other text, and any text holding one of the tokenizer's
//! added tokens ("[SEP]"), goes through `tokenizers` as before. Either way the
//! ids are `tokenizers`' own: the tests compare the two on every fixture.
//!
//! BERT uncased on ASCII, as `BertNormalizer`, `BertPreTokenizer` and
//! `WordPiece` define it:
//! - control bytes are dropped, except tab, line feed and carriage return,
//!   which become spaces; letters are lowercased (accents and Chinese
//!   characters are not ASCII);
//! - words are split at spaces, and every punctuation byte is a word of its own;
//! - each word is cut greedily into the longest vocabulary entries, pieces
//!   after the first prefixed with `##`; a word with a piece not in the
//!   vocabulary, or longer than `max_input_chars_per_word`, is one unknown token.

use tokenizers::models::ModelWrapper;
use tokenizers::normalizers::NormalizerWrapper;
use tokenizers::pre_tokenizers::PreTokenizerWrapper;
use tokenizers::{Model, Tokenizer};

/// BERT uncased WordPiece on ASCII text ([module docs](self)), looking
/// words up in the vocabulary of the tokenizer it was made from.
pub(crate) struct AsciiWordPiece {
    unknown: u32,
    prefix: String,
    max_chars: usize,
    /// The contents of the tokenizer's added tokens, which it finds in a
    /// text before normalizing it.
    added: Vec<String>,
}

impl AsciiWordPiece {
    /// The fast path for `tokenizer`, when it is BERT uncased WordPiece with
    /// an unknown token; `None` for any other tokenizer.
    pub(crate) fn of(tokenizer: &Tokenizer) -> Option<Self> {
        let bert_uncased = matches!(tokenizer.get_normalizer(),
            Some(NormalizerWrapper::BertNormalizer(n)) if n.clean_text && n.lowercase);
        let bert_words = matches!(tokenizer.get_pre_tokenizer(), Some(PreTokenizerWrapper::BertPreTokenizer(_)));
        let ModelWrapper::WordPiece(model) = tokenizer.get_model() else { return None };
        if !(bert_uncased && bert_words) {
            return None;
        }
        Some(AsciiWordPiece {
            unknown: model.token_to_id(&model.unk_token)?,
            prefix: model.continuing_subword_prefix.clone(),
            max_chars: model.max_input_chars_per_word,
            added: tokenizer.get_added_tokens_decoder().into_values().map(|t| t.content).collect(),
        })
    }

    /// The token ids of `text` by `tokenizer` (the one this was made from),
    /// or `None` when it is not ASCII or holds an added token: `tokenizers`
    /// must do it.
    pub(crate) fn ids(&self, tokenizer: &Tokenizer, text: &str) -> Option<Vec<u32>> {
        if !text.is_ascii() || self.added.iter().any(|t| text.contains(t.as_str())) {
            return None;
        }
        let normalized: String = text
            .bytes()
            .filter_map(|b| match b {
                b'\t' | b'\n' | b'\r' => Some(' '),
                0..=0x1f | 0x7f => None,
                _ => Some(b.to_ascii_lowercase() as char),
            })
            .collect();
        let vocab = tokenizer.get_model();
        let (mut ids, mut piece) = (Vec::new(), String::new());
        for word in normalized.split(' ') {
            let mut start = 0;
            for (i, b) in word.bytes().enumerate() {
                if b.is_ascii_punctuation() {
                    self.word(vocab, &word[start..i], &mut piece, &mut ids);
                    self.word(vocab, &word[i..i + 1], &mut piece, &mut ids);
                    start = i + 1;
                }
            }
            self.word(vocab, &word[start..], &mut piece, &mut ids);
        }
        Some(ids)
    }

    /// Appends the WordPiece ids of one word (none for an empty one);
    /// `piece` is scratch space.
    fn word(&self, vocab: &ModelWrapper, word: &str, piece: &mut String, ids: &mut Vec<u32>) {
        if word.is_empty() {
            return;
        }
        if word.len() > self.max_chars {
            ids.push(self.unknown);
            return;
        }
        let first = ids.len();
        let mut start = 0;
        while start < word.len() {
            let found = (start + 1..=word.len()).rev().find_map(|end| {
                piece.clear();
                if start > 0 {
                    piece.push_str(&self.prefix);
                }
                piece.push_str(&word[start..end]);
                vocab.token_to_id(piece).map(|id| (id, end))
            });
            let Some((id, end)) = found else {
                ids.truncate(first);
                ids.push(self.unknown);
                return;
            };
            ids.push(id);
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer() -> Tokenizer {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/models/tokenizer.json");
        super::super::load_tokenizer(&std::fs::read(path).expect("models/tokenizer.json")).unwrap()
    }

    /// Texts of every kind of ASCII: each byte alone and inside a word,
    /// punctuation runs, long and unknown words, the repository's corpora and
    /// random bytes.
    fn texts() -> Vec<String> {
        let mut texts: Vec<String> =
            (0u8..128).flat_map(|b| [format!("{}", b as char), format!("ab{}cd e", b as char)]).collect();
        texts.extend(
            [
                "",
                "   ",
                "Hello, World!",
                "node.js can't -- parse JSON5 (v2.1.0)?!",
                "\tTabs\r\nand\x0bvertical\x0cfeeds\x1funit\x7fdel",
                "unaffable unbelievably supercalifragilisticexpialidocious",
                "zzzzqqqxxj xqzv",
                "@scope/package_name#readme ~~~ $$$ ^^^ `code`",
                "end [sep] of it",
            ]
            .map(String::from),
        );
        texts.push("a".repeat(100));
        texts.push("a".repeat(101));
        texts.push(format!("{} and {}", "x".repeat(100), "y".repeat(101)));
        for file in ["tests/data/sample.jsonl", "tests/data/injection.jsonl"] {
            let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
            for line in std::fs::read_to_string(path).unwrap().lines() {
                let doc: serde_json::Value = serde_json::from_str(line).unwrap();
                texts.push(doc["text"].as_str().unwrap().to_owned());
            }
        }
        let mut x = 7u64;
        for _ in 0..2000 {
            let len = (crate::util::hash::mix64(x) % 40) as usize;
            texts.push(
                (0..len)
                    .map(|_| {
                        x = crate::util::hash::mix64(x);
                        // Letters mostly, then spaces, punctuation and control bytes.
                        match x % 10 {
                            0..=5 => (b'a' + (x >> 8) as u8 % 26) as char,
                            6 => ' ',
                            _ => ((x >> 16) % 128) as u8 as char,
                        }
                    })
                    .collect(),
            );
        }
        texts
    }

    #[test]
    fn gives_the_ids_tokenizers_gives() {
        let tokenizer = tokenizer();
        let fast = AsciiWordPiece::of(&tokenizer).expect("the student's tokenizer is BERT uncased WordPiece");
        let mut took = 0;
        for text in texts() {
            let want = tokenizer.encode(text.as_str(), false).unwrap().get_ids().to_vec();
            if let Some(got) = fast.ids(&tokenizer, &text) {
                assert_eq!(got, want, "{text:?}");
                took += 1;
            }
        }
        assert!(took > 2000, "the fast path took {took} texts");
    }

    #[test]
    fn leaves_other_text_and_added_tokens_to_tokenizers() {
        let tokenizer = tokenizer();
        let fast = AsciiWordPiece::of(&tokenizer).unwrap();
        assert_eq!(fast.ids(&tokenizer, "café au lait"), None);
        assert_eq!(fast.ids(&tokenizer, "end [SEP] of it"), None);
        assert!(fast.ids(&tokenizer, "end [sep] of it").is_some(), "added tokens match as written");
    }
}
