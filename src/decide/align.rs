//! What differs between two short texts, weighed by how much it says.
//!
//! Short texts of one genre share templates: "Python SDK for AWS
//! Eventbridge" and "Python SDK for AWS Opensearch" have most of their
//! characters in common, yet name different products. Counting shared
//! n-grams measures the template; the decision has to look at what is *left
//! over* once the two texts are aligned, and ask how much information it
//! carries. A different product, API or version is a rare word (high
//! information); "a", "the" or "simple" is a common one.
//!
//! The alignment anchors on the longest common subsequence of words, matches
//! equal words out of order, then reads each gap between anchors as
//! characters: a gap an edit or so from its counterpart is a typo, a split or
//! a joined word ("node js" / "nodejs"). Inflected forms of one word
//! ("parse" / "parses") and leftover words that are a typo of one another
//! are paired last. What stays unmatched on
//! each side is the *residue*; each word weighs its information, the IDF of
//! the word in the corpus scaled to [0, 1] (`WordStats::information`); a
//! word with a digit weighs 1 (a version or a model: "Spectrum 2 UI").
//!
//! A typo and another name can be one letter apart: "sever" / "server", but
//! "psd" / "psi", "mysql" / "mssql", "react" / "preact". What the corpus
//! says of the words tells them apart:
//!
//! - digits never differ in a typo ("mat2" / "mat3");
//! - a code written in capitals in a text that is not ("RH", "ODT",
//!   "KOI8-U") and found in `CODE_DOCS` texts or more is never garbled:
//!   "RH" / "LH" are two cursor themes even in otherwise copied texts, while
//!   a shouted word garbled in a copied quote ("ROBTOS") is in one text;
//! - so are two names, each in two texts or more and rare in the corpus
//!   ("kWnn" / "cWnn", "libsvtav1enc" / "libsvtav1dec"; `NAME_INFORMATION`);
//! - a misspelling is rare; two established words ("react", "preact") are
//!   both common (for single words; see `gap_is_perturbation` for gaps);
//! - a template's slot is where names differ: "TypeScript definitions for
//!   ___" is followed by thousands of different words in a corpus of package
//!   descriptions, while the words around a typo in a quote occur around
//!   nothing else. A word whose context (two words on each side) holds at
//!   least `SLOT_FILLERS` different words in the corpus is never matched up
//!   to an edit.
//!
//! Edits need words spelled alike beside them: between texts that are not
//! copies, the words matched up to an edit may carry at most
//! `EDITS_PER_EXACT` times the information of the words matched exactly.
//! In a dictionary, "Unheeded \\Unheeded\\ See {heeded}." and "Unweeded
//! \\Unweeded\\ See {weeded}." are an edit apart in every word but "see".
//!
//! How much the two texts share tells a copy from a template. Texts that
//! share at least [`COPIED`] of information (a quote's rare words) are one
//! text copied, so a garbled word between them is a perturbation: a gap may
//! then be an edit per four characters apart, and a word two edits from
//! five letters. Texts that share less (a template and a name or two) get
//! no such benefit of the doubt, and a gap of one word against one word
//! both established in the corpus (in `ESTABLISHED_DOCS` texts or more:
//! "set" / "get", "mysql" / "mssql") is two words, not a typo; between
//! copies, two established words are still held to one edit per eight
//! characters ("ordered" / "unordered" is not a garbled word).
//!
//! Word order rarely names another thing ("Mermaid plugin for markdown-it" /
//! "markdown-it plugin for mermaid"), except across a direction word:
//! "radians to degrees" is not "degrees to radians". Words match only on the
//! same side of "to", "from" and "into" (English). Nor inside a name: words
//! joined without a space in the original ("json-buffer", "cookie_js",
//! "English-Polish") are a name, and its parts in another order name
//! another thing ("buffer-json", "Polish-English"); a word of a name is
//! matched only where its neighbours in the name are beside it in the other
//! text too, as when the whole name moved ([`chunks`] tells which words
//! were joined).
//!
//! Not done, measured: letting a text of 15 words or more be *reworded*
//! (aligned similarity >= 0.6, no unmatched word above 0.7 of information)
//! raised the Bible pairs' F1 from 0.09 to 0.46, but the package
//! descriptions it linked were mostly distinct: long templates with another
//! name in them ("... a Quill JS viewer" / "... a Leaflet map"), where names
//! are common words of the corpus. Telling a synonym from another name
//! needs meaning, not counts. Also measured: allowing an edit only where
//! the two texts share a rare word exactly (evidence that one was copied
//! from the other) kept more names apart (precision of labelled links 0.87
//! against 0.81) but cost 5 points of recall on the stress set's perturbed
//! quotes (0.924 to 0.873).
//! Also measured (2026-12-02): refusing, between non-copies, a gap of
//! one short word against another (under four characters: "RH" / "LH",
//! "XFS" / "JFS") unless a rare spelling of an established word changed
//! one labelled link of the Debian summaries and lost one stress pair: the
//! Debian package families that differ by a code ("... (RH, opaque)",
//! "KOI8-U" / "KOI8-R") share enough rare words to count as copies.

use crate::sketch::tokens::words;
use crate::util::hash::{combine, PrehashedMap as HashMap};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// A word seen in at most this many texts may be a misspelling of another.
const RARE_DOCS: u32 = 2;

/// Information two texts share (weighted by IDF, so a template's frequent
/// words count for little) from which they are one text copied. Chosen on
/// the stress set's perturbed quotes and the labelled links of the package
/// descriptions: 3.5 to 4.5 kept the same sampled precision.
pub const COPIED: f32 = 4.0;

/// Between texts that are not copies, the information matched only up to
/// an edit (a typo, a split word) may be at most this many times what
/// matched exactly, or the edits are not taken: a garbled copy keeps most
/// of its words spelled right, while texts that agree only up to an edit in
/// every word that tells them apart are two things of one template
/// ("Unheeded \\Unheeded\\ See {heeded}." / "Unweeded \\Unweeded\\ See
/// {weeded}.", "rshd and rlogind" / "rsh and rlogin"). 1.5 to 2.0 parted
/// the same dictionary entries and no stress pair; 1.0 lost two of the
/// stress set's garbled quotes (README, "Two more sources").
const EDITS_PER_EXACT: f32 = 1.5;

/// A word in at least this many texts is established: two of them one edit
/// apart are two words ("set" / "get"), unless the texts are copies.
const ESTABLISHED_DOCS: u32 = 3;

/// A word written in capitals (in a text that is not) and found in at least
/// this many texts is a code: two codes an edit apart are two things
/// ("RH" / "LH", "ODT" / "ODP", "KOI8-U" / "KOI8-R"), copies or not.
const CODE_DOCS: u32 = 2;

/// Information from which a word attested in [`CODE_DOCS`] texts or more
/// is a name, not a common word: two such names an edit apart are two
/// things, copies or not ("kWnn" / "cWnn", "libsvtav1enc" /
/// "libsvtav1dec"), while a typo in a copied quote that makes another
/// common word ("form" / "from") is still one. A name against a spelling
/// in one text ("libgdk-3" / "libgtk-3") still reads as a garbled copy.
/// Scaled by the corpus's size (it is an IDF): more texts, more texts per
/// name. 0.65 to 0.8 gave the same links on the Debian summaries and lost
/// the same one stress pair.
const NAME_INFORMATION: f32 = 0.75;

/// Bytes that join words without a space in names: "json-buffer",
/// "cookie_js", "lodash.merge". Not "/", which in prose is "or"
/// ("decoding/encoding").
const JOINERS: &[u8] = b"-_.";

/// Marks a chunk whose piece joins words with one of [`JOINERS`]: a name.
const NAME: u16 = 0x8000;

/// Marks a chunk whose piece is written in capitals in a text that is not:
/// a code or an acronym ("RH", "ODT", "KOI8-U"), or a shouted word.
const CAPS: u16 = 0x4000;

/// Which whitespace-separated piece of `original` each word of its
/// normalized form came from (its index, with `NAME` set when the piece
/// holds one of `JOINERS`, and `CAPS` when it is written in capitals, two
/// Latin letters or more and no other letter, in a text that has lower
/// case), `normalize` being the normalizer that made it and `words` its
/// word count. Empty when no piece holds two words or capitals, or when the
/// pieces normalized alone do not add up to the text's words (the alignment
/// then takes every word for a piece of its own).
pub fn chunks(original: &str, words: u32, normalize: impl Fn(&str) -> String) -> Vec<u16> {
    let mut out = Vec::with_capacity(words as usize);
    let mut joined = false;
    let mut coded = false;
    let mixed = original.bytes().any(|b| b.is_ascii_lowercase());
    for (k, piece) in original.split_whitespace().enumerate() {
        // Letters and digits between punctuation, the most pieces, are one
        // word: only the others are normalized alone to count theirs.
        let core = piece.trim_matches(|c: char| c.is_ascii_punctuation());
        let n = if !core.is_empty() && core.bytes().all(|b| b.is_ascii_alphanumeric()) {
            1
        } else {
            crate::sketch::tokens::words(&normalize(piece)).len()
        };
        let name = if core.bytes().any(|b| JOINERS.contains(&b)) { NAME } else { 0 };
        // ASCII only: the codes seen are Latin, and Unicode's case tables
        // would cost the wasm module more than the rule does.
        let mut letters = core.chars().filter(|c| c.is_alphabetic());
        let caps = mixed && letters.clone().nth(1).is_some() && letters.all(|c| c.is_ascii_uppercase());
        joined |= n > 1;
        coded |= caps;
        out.extend(std::iter::repeat_n(k.min(CAPS as usize - 1) as u16 | name | if caps { CAPS } else { 0 }, n));
    }
    if (joined || coded) && out.len() == words as usize {
        out
    } else {
        Vec::new()
    }
}

/// Document frequencies of the words of a corpus of short texts.
#[derive(Clone, Debug, Default)]
pub struct WordStats {
    docs: u64,
    /// Pseudo-documents holding no word (as `WeightConfig::idf_prior_docs`):
    /// keeps a corpus of two texts from calling every word fully informative.
    prior_docs: u32,
    /// By word hash: (texts holding the word, 0); by context hash ([`context`]):
    /// (0, different words filling that position in the corpus), for the
    /// contexts that are slots (at least [`SLOT_FILLERS`]). One table of
    /// the type the corpus statistics use (a 64-bit collision between a word
    /// and a context is negligible), so the wasm module carries one hash map.
    counts: HashMap<u64, (u32, u32)>,
}

/// Words of context on each side of a position.
const CONTEXT: usize = 2;
/// Different words in one context that make it a template's slot.
const SLOT_FILLERS: u32 = 3;
const EDGE: u64 = 0x4544_4745_4544_4745; // "EDGEEDGE"

/// Hash of the context of position `i`: the `CONTEXT` words on either side
/// of it (the edges of the text count as words).
fn context(hashes: &[u64], i: usize) -> u64 {
    let at = |j: isize| if j < 0 || j as usize >= hashes.len() { EDGE } else { hashes[j as usize] };
    let i = i as isize;
    (1..=CONTEXT as isize).fold(0x534c_4f54, |acc, k| combine(combine(acc, at(i - k)), at(i + k)))
}

impl WordStats {
    /// Counts each word once per text; `texts` are normalized, exact copies removed.
    pub fn from_texts<'a>(texts: impl IntoIterator<Item = &'a str>, prior_docs: u32) -> Self {
        let mut stats = WordStats { docs: 0, prior_docs, counts: HashMap::default() };
        // By context: tags of the first two different fillers it has had,
        // then `SLOT` once it has a third. That is all a slot needs, and one
        // entry per context, where a set of every (context, word) would hold
        // one per word of the corpus. A tag is 32 bits of the filler's hash
        // and never 0 (empty); two fillers of one context sharing a tag
        // (odds of 2^-31) would count as one.
        const SLOT: u32 = u32::MAX;
        const _: () = assert!(SLOT_FILLERS == 3, "two tags and a mark count three fillers");
        let mut fillers: HashMap<u64, (u32, u32)> = HashMap::default();
        for text in texts {
            let keys = WordKeys::of(text);
            for (c, filler) in keys.fillers {
                let tag = (filler as u32).clamp(1, SLOT - 1);
                let (first, second) = fillers.entry(c).or_default();
                match (*first, *second) {
                    (0, _) => *first = tag,
                    (f, 0) if f != tag => *second = tag,
                    (f, s) if f != tag && s != tag => *second = SLOT,
                    _ => {}
                }
            }
            for h in keys.words {
                stats.counts.entry(h).or_default().0 += 1;
            }
            stats.docs += 1;
        }
        for (c, _) in fillers.into_iter().filter(|&(_, (_, second))| second == SLOT) {
            stats.counts.entry(c).or_default().1 = SLOT_FILLERS;
        }
        stats
    }

    /// Statistics put together from counts made elsewhere (a cluster's
    /// aggregations; see [`crate::stages`]): `docs` texts, `(word, texts
    /// holding it)` summed over [`WordKeys::words`], and `(context,
    /// different fillers)` counted over the distinct [`WordKeys::fillers`].
    /// Reading a text needs only the entries of its own words and contexts.
    pub fn from_parts(
        docs: u64,
        prior_docs: u32,
        words: impl IntoIterator<Item = (u64, u32)>,
        contexts: impl IntoIterator<Item = (u64, u32)>,
    ) -> Self {
        let mut counts: HashMap<u64, (u32, u32)> = HashMap::default();
        for (h, n) in words {
            counts.entry(h).or_default().0 += n;
        }
        for (c, n) in contexts {
            counts.entry(c).or_default().1 += n;
        }
        WordStats { docs, prior_docs, counts }
    }

    /// Whether position `i` of a text (its word hashes) is a template's slot:
    /// a context in which the corpus has at least `SLOT_FILLERS` different words.
    fn is_slot(&self, hashes: &[u64], i: usize) -> bool {
        self.counts.get(&context(hashes, i)).map_or(0, |c| c.1) >= SLOT_FILLERS
    }

    fn df(&self, hash: u64) -> u32 {
        self.counts.get(&hash).map_or(0, |c| c.0)
    }

    /// IDF of a word scaled to [0, 1]: 1 for a word no other text holds, near
    /// 0 for one that every text holds.
    fn idf(&self, hash: u64) -> f32 {
        let total = (self.docs + self.prior_docs as u64).max(2) as f64;
        let idf = (total / (self.df(hash) as f64 + 1.0)).ln();
        (idf / total.ln()).clamp(0.0, 1.0) as f32
    }
}

/// What one text adds to [`WordStats`]: the counts are sums and distinct
/// counts of these over the corpus's texts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordKeys {
    /// The text's distinct word hashes, sorted.
    pub words: Vec<u64>,
    /// `(context, filler)` of each position: its context's hash, and that
    /// context combined with the word in it (distinct fillers of a context
    /// tell a template's slot).
    pub fillers: Vec<(u64, u64)>,
}

impl WordKeys {
    /// The keys of a normalized text.
    pub fn of(text: &str) -> Self {
        let hashes: Vec<u64> = words(text).iter().map(|w| w.hash).collect();
        let fillers = (0..hashes.len())
            .map(|i| {
                let c = context(&hashes, i);
                (c, combine(c, hashes[i]))
            })
            .collect();
        let mut words = hashes;
        words.sort_unstable();
        words.dedup();
        WordKeys { words, fillers }
    }
}

/// The aligned difference of two texts, in units of information.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Differences {
    /// Information of the words the two texts share (typos included).
    pub matched: f32,
    /// Information of the words of the first text left unmatched.
    pub residue_a: f32,
    /// Information of the words of the second text left unmatched.
    pub residue_b: f32,
}

/// Below this char similarity two short texts share too little to be one
/// text up to edits (the least of the stress set's perturbed copies and of
/// the labelled package-description duplicates is 0.37): they are not
/// aligned, which spares the alignment the candidates that share little (on
/// the 100k bench corpus, a third of its time).
pub const MIN_CHAR_SIMILARITY: f32 = 0.3;

/// Whether two short texts of this char similarity are aligned ([`MIN_CHAR_SIMILARITY`]).
pub fn worth_aligning(char_sim: f32) -> bool {
    char_sim >= MIN_CHAR_SIMILARITY
}

impl Differences {
    /// Two texts not aligned ([`worth_aligning`]): nothing in common.
    pub fn apart() -> Self {
        Differences { matched: 0.0, residue_a: 1.0, residue_b: 1.0 }
    }

    /// Weighted Dice similarity: 1 when nothing is left over.
    pub fn similarity(&self) -> f32 {
        let total = 2.0 * self.matched + self.residue_a + self.residue_b;
        if total <= 0.0 {
            1.0
        } else {
            2.0 * self.matched / total
        }
    }

    /// Information one text has that the other lacks (the larger residue).
    pub fn added(&self) -> f32 {
        self.residue_a.max(self.residue_b)
    }

    /// Information on *both* sides that did not align (the smaller residue):
    /// one thing put in place of another.
    pub fn replaced(&self) -> f32 {
        self.residue_a.min(self.residue_b)
    }
}

/// A word of a text read for alignment, with what the corpus says of it.
#[derive(Clone, Debug)]
struct Token<'t> {
    text: &'t str,
    hash: u64,
    /// The word without its inflection ([`stem`]).
    stem: &'t str,
    /// Texts of the corpus holding the word.
    df: u32,
    /// [`WordStats::information`] of the word.
    info: f32,
    /// Whether the word fills a template's slot ([`WordStats::is_slot`]).
    slot: bool,
    /// Its characters, counted, and their set folded into 64 bits: what
    /// [`is_typo`] refuses on before it compares characters.
    letters: u32,
    letter_set: u64,
    /// The piece of the original text it came from ([`chunks`]): words of
    /// one piece were joined without a space.
    chunk: usize,
    /// Whether a neighbour came from the same piece ("color(s)", "json-buffer").
    attached: bool,
    /// How many direction words ("to", "from", "into") come before it: a word
    /// that changes side changes its role ("radians to degrees").
    side: u8,
    /// Set while aligning: paired with a word of the other text.
    matched: bool,
    /// Set while aligning: paired only up to an edit (a typo, a split word).
    edited: bool,
}

/// Words that give what follows them another role than what precedes them.
const DIRECTIONS: [&str; 3] = ["to", "from", "into"];

impl Token<'_> {
    /// Whether it is part of a name ([`NAME`]: "json-buffer", not "color(s)").
    fn in_name(&self) -> bool {
        self.attached && self.chunk & NAME as usize != 0
    }

    /// Whether it is a code: written in capitals in a text that is not
    /// ([`CAPS`]), and in `CODE_DOCS` texts or more. A shouted word garbled
    /// in a copy ("ROBTOS") is in one text; "ODT" and "ODP" are in several.
    fn coded(&self) -> bool {
        self.chunk & CAPS as usize != 0 && self.df >= CODE_DOCS
    }

    /// The word and its role: equal for the same word in the same role.
    fn key(&self) -> (u64, u8) {
        (self.hash, self.side)
    }

    /// The same word in the same role.
    fn same(&self, other: &Token) -> bool {
        self.key() == other.key()
    }

    /// Whether it ends in "-ed" (English): a participle, what was done to
    /// a thing. A rare one is another word than its base or its "-ing"
    /// ("unwasted" / "unwasting", "uncleared" / "unclear", "cocooned" /
    /// "cocoon"); two established ones are one word put another way
    /// ("Extended Angular CLI" / "Extending angular cli").
    fn participle(&self) -> bool {
        self.text.ends_with("ed")
    }
}

/// A short text read for alignment: its words, each with what the corpus
/// says of it. Read once per text, aligned with many.
#[derive(Clone, Debug)]
pub struct Words<'t> {
    tokens: Vec<Token<'t>>,
    /// The word hashes, sorted: which words the other text shares.
    sorted: Vec<u64>,
    /// A bit per word, its hash's low six: a word whose bit the other text
    /// lacks is not in it (a quick refusal before comparing words).
    bits: u64,
    /// How many direction words the text has.
    directions: u8,
}

impl WordStats {
    /// What a word says about its text: its IDF; all there is for a word
    /// with a digit, which names a version, a size or a model ("Spectrum 2").
    fn information(&self, text: &str, hash: u64) -> f32 {
        if text.chars().any(char::is_numeric) {
            1.0
        } else {
            self.idf(hash)
        }
    }

    /// Reads a normalized text for [`differences`]; `chunks` as [`chunks`] made them.
    pub fn read<'t>(&self, text: &'t str, chunks: &[u16]) -> Words<'t> {
        let words = words(text);
        let hashes: Vec<u64> = words.iter().map(|w| w.hash).collect();
        let attached =
            |i: usize| chunks.get(i).is_some_and(|&c| (i > 0 && chunks[i - 1] == c) || chunks.get(i + 1) == Some(&c));
        let mut side = 0u8;
        let tokens = words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let text = &text[w.start as usize..w.end as usize];
                let (letters, letter_set) = letters(text);
                let token = Token {
                    text,
                    hash: w.hash,
                    stem: stem(text),
                    df: self.df(w.hash),
                    info: self.information(text, w.hash),
                    slot: self.is_slot(&hashes, i),
                    letters,
                    letter_set,
                    chunk: chunks.get(i).map_or(i, |&c| c as usize),
                    attached: attached(i),
                    side,
                    matched: false,
                    edited: false,
                };
                side = side.saturating_add(DIRECTIONS.contains(&text) as u8);
                token
            })
            .collect();
        let bits = hashes.iter().fold(0, |bits, h| bits | 1 << (h & 63));
        let mut sorted = hashes;
        sorted.sort_unstable();
        Words { tokens, sorted, bits, directions: side }
    }
}

/// A short text to read for [`differences`] the first time a pair needs it,
/// then kept: most candidate pairs share too little to be aligned, and a
/// text in many pairs is read once. The batch and the distributed stages
/// keep one per text.
pub struct Reading<'t> {
    text: &'t str,
    chunks: &'t [u16],
    words: OnceLock<Words<'t>>,
}

impl<'t> Reading<'t> {
    /// A normalized text and its [`chunks`], not read yet.
    pub fn new(text: &'t str, chunks: &'t [u16]) -> Self {
        Reading { text, chunks, words: OnceLock::new() }
    }

    /// The normalized text.
    pub fn text(&self) -> &'t str {
        self.text
    }

    /// The text read against `stats` ([`WordStats::read`]): the first call
    /// reads it, later ones get the same words (the statistics must be the same).
    pub fn words(&self, stats: &WordStats) -> &Words<'t> {
        self.words.get_or_init(|| stats.read(self.text, self.chunks))
    }
}

/// Aligns two texts and weighs what stays unmatched.
///
/// The alignment breaks ties by order (which common subsequence, which of
/// two fitting words is paired), so it always runs with the texts in one
/// order, that of their word hashes: swapping the texts swaps the residues
/// and nothing else, and a pair's verdict does not depend on which text
/// came first.
pub fn differences(a: &Words, b: &Words) -> Differences {
    aligned_either_way(a, b).0
}

/// The words [`differences`] left unmatched on each side, with their
/// information: what tells the two texts apart, in the order of the texts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Unmatched {
    /// Words of the first text the second lacks.
    pub a: Vec<(String, f32)>,
    /// Words of the second text the first lacks.
    pub b: Vec<(String, f32)>,
}

/// What [`differences`] left unmatched in `a` and in `b` (as normalized).
pub fn unmatched_words(a: &Words, b: &Words) -> Unmatched {
    aligned_words(a, b).unmatched()
}

/// One word of a text as [`differences`] aligned it.
#[derive(Clone, Debug, PartialEq)]
pub struct AlignedWord {
    /// The word, as normalized.
    pub word: String,
    /// Its information ([`WordStats`]: the IDF scaled to [0, 1]).
    pub information: f32,
    /// Whether the alignment paired it with a word of the other text.
    pub matched: bool,
}

/// Every word of two texts as [`differences`] aligned them, in the order
/// of each text: what a judge is told of a pair ([`crate::judge::Pair`]),
/// so that its opinion is about what differs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AlignedWords {
    /// The first text's words.
    pub a: Vec<AlignedWord>,
    /// The second text's words.
    pub b: Vec<AlignedWord>,
}

impl AlignedWords {
    /// The words left unmatched on each side, with their information.
    pub fn unmatched(&self) -> Unmatched {
        let left =
            |w: &[AlignedWord]| w.iter().filter(|x| !x.matched).map(|x| (x.word.clone(), x.information)).collect();
        Unmatched { a: left(&self.a), b: left(&self.b) }
    }
}

/// [`differences`]' alignment of `a` and `b`, word by word.
pub fn aligned_words(a: &Words, b: &Words) -> AlignedWords {
    let read = |t: Vec<Token>| {
        t.into_iter()
            .map(|x| AlignedWord { word: x.text.to_owned(), information: x.info, matched: x.matched })
            .collect()
    };
    let (_, ta, tb) = aligned_either_way(a, b);
    AlignedWords { a: read(ta), b: read(tb) }
}

/// [`aligned`] in the order of the texts' word hashes ([`differences`]),
/// its results given back in the order `a`, `b`.
fn aligned_either_way<'t>(a: &Words<'t>, b: &Words<'t>) -> (Differences, Vec<Token<'t>>, Vec<Token<'t>>) {
    if a.tokens.iter().map(|t| t.hash).gt(b.tokens.iter().map(|t| t.hash)) {
        let (d, tb, ta) = aligned(b, a);
        return (Differences { residue_a: d.residue_b, residue_b: d.residue_a, ..d }, ta, tb);
    }
    aligned(a, b)
}

/// [`differences`] with the texts in the order given, and each text's words
/// as the alignment left them ([`Token::matched`]).
fn aligned<'t>(a: &Words<'t>, b: &Words<'t>) -> (Differences, Vec<Token<'t>>, Vec<Token<'t>>) {
    let (mut ta, mut tb) = (a.tokens.clone(), b.tokens.clone());
    // Roles count when both texts have as many direction words: in "but to
    // our God" / "unto our God" every word would otherwise change side.
    if a.directions != b.directions {
        ta.iter_mut().chain(tb.iter_mut()).for_each(|x| x.side = 0);
    }
    let mut matched = 0.0;

    // The longest common subsequence of words anchors the alignment; the
    // runs between anchors are the gaps where the texts differ.
    let anchors = common_subsequence((&ta, a), (&tb, b));
    for &(i, j) in &anchors {
        (ta[i].matched, tb[j].matched) = (true, true);
        matched += ta[i].info;
    }
    // Equal words out of order ("X plugin for Y" / "Y plugin for X"): only
    // words both texts may have can pair.
    let bits = a.bits & b.bits;
    matched += pair_up(&mut ta, &mut tb, &|x| bits >> (x.hash & 63) & 1 == 1, &|x, y| y.same(x), false);
    // What the two texts share so far says whether they are copies.
    let copied = matched >= COPIED;
    let mut edited = 0.0;
    // A gap that reads the same up to an edit or so, spaces aside: a typo,
    // a split or joined word ("node js" / "nodejs", "ha sno" / "has no").
    let starts = std::iter::once((0, 0)).chain(anchors.iter().map(|&(i, j)| (i + 1, j + 1)));
    let ends = anchors.iter().copied().chain(std::iter::once((ta.len(), tb.len())));
    for ((sa, sb), (ea, eb)) in starts.zip(ends) {
        let (ga, gb) = (&mut ta[sa..ea], &mut tb[sb..eb]);
        if !(ga.is_empty() && gb.is_empty()) && gap_is_perturbation(ga, gb, copied) {
            edited += residue(ga).min(residue(gb));
            ga.iter_mut()
                .chain(gb.iter_mut())
                .filter(|x| !x.matched)
                .for_each(|x| (x.matched, x.edited) = (true, true));
        }
    }
    // The same word inflected ("parse" / "parses", "scroll" / "scrolling"),
    // after the gaps: "thins" / "thin s" is a split word, not "thin" and an "s".
    // Not inside a name unless the texts are copies: "redux-actions" and
    // "redux-action" are two packages. Nor a rare participle against
    // another form ([`Token::participle`]).
    let inflected = |x: &Token, y: &Token| {
        x.side == y.side
            && x.stem == y.stem
            && (copied || !(x.in_name() || y.in_name()))
            && (x.participle() == y.participle() || x.df.min(y.df) >= ESTABLISHED_DOCS)
    };
    let stemmed = |x: &Token| x.stem.len() >= 3;
    matched += pair_up(&mut ta, &mut tb, &stemmed, &inflected, false);
    // Typos among what is left, wherever they are: one spelling of each is
    // rare, so without a rare word left there is none.
    let rare_left = |t: &[Token]| t.iter().any(|x| !x.matched && x.df <= RARE_DOCS && could_be_typo(x));
    if rare_left(&ta) || rare_left(&tb) {
        edited += pair_up(&mut ta, &mut tb, &could_be_typo, &|x, y| is_typo(x, y, copied), true);
    }
    // Edits need words spelled alike beside them ([`EDITS_PER_EXACT`]).
    if copied || edited <= EDITS_PER_EXACT * matched {
        matched += edited;
    } else {
        ta.iter_mut().chain(tb.iter_mut()).filter(|x| x.edited).for_each(|x| (x.matched, x.edited) = (false, false));
        // A gap an edit apart may be one word inflected ("parses" / "parse").
        matched += pair_up(&mut ta, &mut tb, &stemmed, &inflected, false);
    }
    (Differences { matched, residue_a: residue(&ta), residue_b: residue(&tb) }, ta, tb)
}

/// Pairs each unmatched word of `ta` with the first unmatched word of `tb`
/// that `fits` it without breaking a name ([`breaks_name`]), marking them
/// [`Token::edited`] when `edit` says the fit is up to an edit;
/// returns the information they share (the smaller of the two). Only words
/// that are `eligible` are tried: it must hold of both words of any pair that
/// `fits`, and spares trying every word against every other.
fn pair_up(
    ta: &mut [Token],
    tb: &mut [Token],
    eligible: &dyn Fn(&Token) -> bool,
    fits: &dyn Fn(&Token, &Token) -> bool,
    edit: bool,
) -> f32 {
    let free = |t: &[Token]| -> Vec<usize> { (0..t.len()).filter(|&k| !t[k].matched && eligible(&t[k])).collect() };
    let (fa, mut fb) = (free(ta), free(tb));
    let mut shared = 0.0;
    for i in fa {
        if fb.is_empty() {
            break;
        }
        if let Some(at) = fb.iter().position(|&j| fits(&ta[i], &tb[j]) && !breaks_name(ta, i, tb, j)) {
            let j = fb.remove(at);
            (ta[i].matched, tb[j].matched) = (true, true);
            (ta[i].edited, tb[j].edited) = (edit, edit);
            shared += ta[i].info.min(tb[j].info);
        }
    }
    shared
}

/// Whether pairing `ta[i]` with `tb[j]` breaks a name: a word joined to a
/// neighbour in the original must have that neighbour beside it, on the
/// same side, in the other text too. A name moved whole ("markdown-it")
/// keeps them; its parts reordered ("buffer-json", "Greek-Polish") do not.
fn breaks_name(ta: &[Token], i: usize, tb: &[Token], j: usize) -> bool {
    let at = |t: &[Token], k: usize, step: isize| k.checked_add_signed(step).filter(|&n| n < t.len());
    // The neighbour at `step` of word `k`, when it belongs to the same name.
    let joined = |t: &[Token], k: usize, step: isize| {
        at(t, k, step).filter(|&n| t[k].in_name() && t[n].chunk == t[k].chunk).map(|n| t[n].hash)
    };
    let beside = |t: &[Token], k: usize, step: isize| at(t, k, step).map(|n| t[n].hash);
    [-1, 1].into_iter().any(|step| {
        joined(ta, i, step).is_some_and(|h| beside(tb, j, step) != Some(h))
            || joined(tb, j, step).is_some_and(|h| beside(ta, i, step) != Some(h))
    })
}

/// A word without its English inflection: "-ing", "-ed", "-es" or "-s", then
/// a final "e" ("parses", "parsed", "parsing", "parse" -> "pars"). Words with
/// digits are names and keep every letter, and so are words whose stem has
/// no vowel: an acronym's last letter is part of it ("https" is not the
/// plural of "http", nor "ftps" of "ftp").
fn stem(word: &str) -> &str {
    if word.chars().any(|c| !c.is_alphabetic()) || word.ends_with("ss") {
        return word;
    }
    let base = ["ing", "ed", "es", "s"].iter().find_map(|s| word.strip_suffix(s)).unwrap_or(word);
    if !base.contains(['a', 'e', 'i', 'o', 'u', 'y']) {
        return word;
    }
    base.strip_suffix('e').unwrap_or(base)
}

/// Information of the unmatched words.
fn residue(t: &[Token]) -> f32 {
    t.iter().filter(|x| !x.matched).map(|x| x.info).sum()
}

/// Index pairs of a longest common subsequence of equal words; each text as
/// its tokens and its words. Words of one text that the other lacks cannot
/// be in it: the table is built over the shared ones only.
fn common_subsequence(a: (&[Token], &Words), b: (&[Token], &Words)) -> Vec<(usize, usize)> {
    // Each shared word as its position and its key ([`Token::key`]); a word
    // whose bit the other text lacks is not searched for.
    let shared = |x: &[Token], other: &Words| -> (Vec<usize>, Vec<(u64, u8)>) {
        (0..x.len())
            .filter(|&i| other.bits >> (x[i].hash & 63) & 1 == 1 && other.sorted.binary_search(&x[i].hash).is_ok())
            .map(|i| (i, x[i].key()))
            .unzip()
    };
    let ((ia, ka), (ib, kb)) = (shared(a.0, b.1), shared(b.0, a.1));
    // A common start and a common end are matched word for word: the table
    // is needed only between them (for copies, little or nothing).
    let start = ka.iter().zip(&kb).take_while(|(x, y)| x == y).count();
    let end = ka[start..].iter().rev().zip(kb[start..].iter().rev()).take_while(|(x, y)| x == y).count();
    let mut out: Vec<(usize, usize)> = (0..start).map(|k| (ia[k], ib[k])).collect();
    let (ka, kb) = (&ka[start..ka.len() - end], &kb[start..kb.len() - end]);
    let (n, m) = (ka.len(), kb.len());
    // len[i * w + j]: the longest common subsequence of ka[i..] and kb[j..].
    let w = m + 1;
    let mut len = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        let (row, below) = len[i * w..(i + 2) * w].split_at_mut(w);
        for j in (0..m).rev() {
            row[j] = if ka[i] == kb[j] { below[j + 1] + 1 } else { below[j].max(row[j + 1]) };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if ka[i] == kb[j] {
            out.push((ia[start + i], ib[start + j]));
            (i, j) = (i + 1, j + 1);
        } else if len[(i + 1) * w + j] >= len[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out.extend((0..end).map(|k| (ia[start + n + k], ib[start + m + k])));
    out
}

/// Two gaps whose unmatched words, spaces removed, are an edit per eight
/// characters apart (per four between copies; at least one) with the same
/// digits, none in a slot, and not one established word against another
/// unless the texts are copies. Asking, as the single-word test does, that
/// a word of the gaps be rare lost 3% of the stress set's perturbed quotes
/// (typos that make common words: "is" / "si"); between copies that
/// happens, between templates it is another name.
fn gap_is_perturbation(ga: &[Token], gb: &[Token], copied: bool) -> bool {
    let (la, lb) = (unmatched(ga), unmatched(gb));
    // One side may be empty: a stray letter ("war,s" / "war") is one edit;
    // between texts that are not copies, only one attached to a word in the
    // original ("color(s)"), not one standing alone ("uni-app x types") nor
    // one joined into a name ("react-s-alert", "B-spline", "Saxon-B").
    if la.is_empty() && lb.is_empty() {
        return false;
    }
    let loose = |l: &[&Token]| l.iter().any(|x| !x.attached || x.in_name());
    if !copied && ((la.is_empty() && loose(&lb)) || (lb.is_empty() && loose(&la))) {
        return false;
    }
    if la.iter().chain(&lb).any(|x| x.slot) {
        return false;
    }
    // One word against one: what the corpus says of the two words decides.
    let words = match (la.as_slice(), lb.as_slice()) {
        ([x], [y]) => Some((x, y)),
        _ => None,
    };
    if words.is_some_and(|(x, y)| two_names(x, y)) {
        return false;
    }
    let established = words.is_some_and(|(x, y)| x.df.min(y.df) >= ESTABLISHED_DOCS);
    if established && !copied {
        return false;
    }
    let joined = |l: &[&Token]| l.iter().flat_map(|x| x.text.chars()).collect::<Vec<char>>();
    let (a, b) = (joined(&la), joined(&lb));
    // One code for another, unless only the spaces differ ("RDF/JS" / "RDFJS").
    let codes = |l: &[&Token]| !l.is_empty() && l.iter().all(|x| x.coded());
    if codes(&la) && codes(&lb) && a != b {
        return false;
    }
    if !same_digits(&a, &b) {
        return false;
    }
    let limit = (a.len().max(b.len()) / if copied && !established { 4 } else { 8 }).max(1);
    edit_distance(&a, &b, limit) <= limit
}

/// The words of a gap left unmatched.
fn unmatched<'g, 't>(gap: &'g [Token<'t>]) -> Vec<&'g Token<'t>> {
    gap.iter().filter(|x| !x.matched).collect()
}

/// Whether a word may be a typo of some other ([`is_typo`]): not in a
/// slot, and four bytes or more (which at least four characters need).
fn could_be_typo(x: &Token) -> bool {
    !x.slot && x.text.len() >= 4
}

/// One edit for words of four letters or more, two from eight (from five
/// between copies); the same digits; one spelling rare in the corpus.
fn is_typo(x: &Token, y: &Token, copied: bool) -> bool {
    if !could_be_typo(x) || !could_be_typo(y) || x.side != y.side || x.df.min(y.df) > RARE_DOCS || two_names(x, y) {
        return false;
    }
    // Lengths further apart than the edits allowed, or more characters new
    // to either word (an edit brings in one at most), are no typo.
    let (n, m) = (x.letters, y.letters);
    let allowed: u32 = if n.min(m) >= if copied { 5 } else { 8 } { 2 } else { 1 };
    if (x.coded() && y.coded())
        || n.min(m) < 4
        || n.abs_diff(m) > allowed
        || new_letters(x.letter_set, y.letter_set).max(new_letters(y.letter_set, x.letter_set)) > allowed
    {
        return false;
    }
    let (a, b): (Vec<char>, Vec<char>) = (x.text.chars().collect(), y.text.chars().collect());
    same_digits(&a, &b) && edit_distance(&a, &b, allowed as usize) <= allowed as usize
}

/// Two names of the corpus's own: each attested ([`CODE_DOCS`] texts or
/// more, where a misspelling is mostly in one) and rare enough to name one
/// thing ([`NAME_INFORMATION`]). An edit apart they are two things.
fn two_names(x: &Token, y: &Token) -> bool {
    x.df.min(y.df) >= CODE_DOCS && x.info.min(y.info) >= NAME_INFORMATION
}

/// A word's characters, counted, and their set folded into 64 bits.
fn letters(word: &str) -> (u32, u64) {
    word.chars().fold((0, 0), |(n, set), c| (n + 1, set | 1 << (c as u32 % 64)))
}

/// How many characters of set `p` set `q` lacks, at least ([`letters`]): no
/// more than the edits from one word to the other, as an edit brings in one
/// character at most.
fn new_letters(p: u64, q: u64) -> u32 {
    (p & !q).count_ones()
}

/// Whether two words have the same digits in the same order: a typo never
/// changes them.
fn same_digits(a: &[char], b: &[char]) -> bool {
    a.iter().filter(|c| c.is_numeric()).eq(b.iter().filter(|c| c.is_numeric()))
}

/// Optimal string alignment distance (Levenshtein with adjacent
/// transpositions), or `limit + 1` once it must exceed `limit`. Only the
/// band of cells within `limit` of the diagonal can stay within it: the
/// others are not computed (a gap of a hundred characters costs a band, not
/// a square).
fn edit_distance(a: &[char], b: &[char], limit: usize) -> usize {
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let over = limit + 1;
    // Rows i - 2, i - 1 and i, each `width` long, live at (i % 3) * width;
    // cells outside the band hold `over`.
    let width = b.len() + 1;
    let mut rows = vec![over; 3 * width];
    (0..width.min(over)).for_each(|j| rows[j] = j);
    for i in 1..=a.len() {
        let (prev2, prev, cur) = (((i + 1) % 3) * width, ((i - 1) % 3) * width, (i % 3) * width);
        let (lo, hi) = (i.saturating_sub(limit).max(1), (i + limit).min(b.len()));
        // The cells left of the band (and the row's start) as the band's edge sees them.
        rows[cur + lo - 1] = if lo == 1 && i <= limit { i } else { over };
        let mut best = rows[cur + lo - 1];
        for j in lo..=hi {
            let cost = (a[i - 1] != b[j - 1]) as usize;
            let mut d = (rows[prev + j] + 1).min(rows[cur + j - 1] + 1).min(rows[prev + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[prev2 + j - 2] + 1);
            }
            rows[cur + j] = d.min(over);
            best = best.min(d);
        }
        if hi < b.len() {
            rows[cur + hi + 1] = over; // the cell right of the band, read by the next row
        }
        if best > limit {
            return over;
        }
    }
    rows[(a.len() % 3) * width + b.len()].min(over)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn differences(a: &str, b: &str, stats: &WordStats) -> Differences {
        super::differences(&stats.read(a, &[]), &stats.read(b, &[]))
    }

    fn distance(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        edit_distance(&a, &b, 3)
    }

    #[test]
    fn edit_distance_counts_transpositions_as_one() {
        assert_eq!(distance("server", "sever"), 1);
        assert_eq!(distance("form", "from"), 1);
        assert_eq!(distance("rest", "result"), 2);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("abcdefgh", "hgfedcba"), 4, "past the limit: limit + 1");
    }

    /// Optimal string alignment distance from every cell of the table, no
    /// band, no early exit.
    fn full(a: &[char], b: &[char]) -> usize {
        let mut d = vec![vec![0; b.len() + 1]; a.len() + 1];
        (0..=a.len()).for_each(|i| d[i][0] = i);
        (0..=b.len()).for_each(|j| d[0][j] = j);
        for i in 1..=a.len() {
            for j in 1..=b.len() {
                let cost = (a[i - 1] != b[j - 1]) as usize;
                d[i][j] = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
                }
            }
        }
        d[a.len()][b.len()]
    }

    #[test]
    fn new_letters_never_exceed_the_edits() {
        // Words of up to 12 characters out of 100 (more than the set's 64
        // bits, so that characters share bits), each against a copy with up
        // to three random edits.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        let char_of = |k: usize| char::from_u32(0x61 + k as u32).unwrap();
        for _ in 0..5000 {
            let a: Vec<char> = (0..next(13)).map(|_| char_of(next(100))).collect();
            let mut b = a.clone();
            for _ in 0..next(4) {
                let at = next(b.len() as u64 + 1);
                match next(4) {
                    0 if at < b.len() => b[at] = char_of(next(100)),
                    1 => b.insert(at, char_of(next(100))),
                    2 if at < b.len() => drop(b.remove(at)),
                    _ if at + 1 < b.len() => b.swap(at, at + 1),
                    _ => {}
                }
            }
            let (sa, sb) = (letters(&a.iter().collect::<String>()).1, letters(&b.iter().collect::<String>()).1);
            let edits = full(&a, &b) as u32;
            assert!(new_letters(sa, sb) <= edits && new_letters(sb, sa) <= edits, "{a:?} {b:?}");
        }
    }

    #[test]
    fn the_band_gives_the_distance_of_the_whole_table() {
        // Words of up to 30 letters out of three, so that many pairs are a
        // few edits apart and the band is narrower than the table.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut word = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (0..seed % 31).map(|k| b"abc"[(seed >> ((8 + 2 * k) % 56)) as usize % 3] as char).collect::<Vec<char>>()
        };
        for _ in 0..3000 {
            let (a, b) = (word(), word());
            let whole = full(&a, &b);
            for limit in 0..6 {
                assert_eq!(edit_distance(&a, &b, limit), whole.min(limit + 1), "{a:?} {b:?} within {limit}");
            }
        }
    }

    /// A corpus in which template words are common and names are not.
    fn corpus() -> WordStats {
        let mut texts = vec![
            "python sdk for aws eventbridge",
            "python sdk for aws opensearch",
            "react wrapper for preact",
            "node js wrapper for fingerprint server api",
        ];
        let mut filler: Vec<String> = (0..50).map(|i| format!("python sdk for aws and react server n{i}")).collect();
        filler.extend((0..5).map(|i| format!("preact hooks p{i}")));
        texts.extend(filler.iter().map(String::as_str));
        WordStats::from_texts(texts, 0)
    }

    #[test]
    fn a_different_name_is_a_large_residue_on_both_sides() {
        let stats = corpus();
        let d = differences("python sdk for aws eventbridge", "python sdk for aws opensearch", &stats);
        assert!(d.replaced() > 0.8, "{d:?}");
        let wrapper = differences("python sdk for aws eventbridge", "python sdk for aws eventbridge for react", &stats);
        assert!(wrapper.replaced() == 0.0 && wrapper.added() < d.added(), "{wrapper:?}");
    }

    /// Ties (which common subsequence, which of two fitting words) are
    /// broken by order; swapping two texts must only swap their residues.
    #[test]
    fn swapping_the_texts_swaps_the_residues() {
        let stats = corpus();
        let vocabulary = [
            "python", "pyhton", "sdk", "for", "to", "aws", "server", "sever", "servers", "react", "preact", "parse",
            "parses", "node", "js", "nodejs", "n1", "n2", "wrapper", "wraper",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut text = || {
            let mut next = || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let len = 1 + next() % 7;
            (0..len).map(|_| vocabulary[(next() % vocabulary.len() as u64) as usize]).collect::<Vec<_>>().join(" ")
        };
        let texts: Vec<String> = (0..150).map(|_| text()).collect();
        for a in &texts {
            for b in &texts {
                let (ab, ba) = (differences(a, b, &stats), differences(b, a, &stats));
                assert_eq!(
                    (ab.matched, ab.residue_a, ab.residue_b),
                    (ba.matched, ba.residue_b, ba.residue_a),
                    "{a:?} / {b:?}"
                );
            }
        }
    }

    #[test]
    fn typos_splits_and_order_leave_nothing_over() {
        let stats = corpus();
        let d = differences(
            "node js wrapper for fingerprint server api",
            "nodejs wrapper for fingerprint sever api",
            &stats,
        );
        assert_eq!((d.residue_a, d.residue_b), (0.0, 0.0), "{d:?}");
        assert_eq!(d.similarity(), 1.0);
        let reordered = differences("mermaid plugin for markdown", "markdown plugin for mermaid", &stats);
        assert_eq!(reordered.similarity(), 1.0);
    }

    #[test]
    fn a_slot_of_a_template_is_never_a_typo() {
        let mut texts: Vec<String> = ["psd", "psi", "chalk", "glob", "yargs"]
            .iter()
            .map(|x| format!("typescript definitions for {x}"))
            .collect();
        texts.push("the quick brown fox jumps over the lazy dog".into());
        let stats = WordStats::from_texts(texts.iter().map(String::as_str), 0);
        let names = differences("typescript definitions for psd", "typescript definitions for psi", &stats);
        assert!(names.replaced() > 0.5, "{names:?}");
        let typo = differences(
            "the quick brown fox jumps over the lazy dog",
            "the quick brwon fox jumps over the lazy dog",
            &stats,
        );
        assert_eq!(typo.similarity(), 1.0, "{typo:?}");
    }

    #[test]
    fn a_word_that_changes_side_of_a_direction_changes_its_role() {
        let stats = WordStats::default();
        let swapped = differences("convert radians to degrees", "convert degrees to radians", &stats);
        assert!(swapped.replaced() > 0.5, "{swapped:?}");
        let reordered = differences("mermaid plugin for markdown", "markdown plugin for mermaid", &stats);
        assert_eq!(reordered.similarity(), 1.0, "{reordered:?}");
        // Only one text has a direction word: the words after it keep their role.
        let reworded = differences("but to our god we set a watch", "nevertheless unto our god we set a watch", &stats);
        assert!(reworded.matched > reworded.added() + reworded.replaced(), "{reworded:?}");
    }

    #[test]
    fn inflections_are_one_word() {
        assert_eq!(stem("parses"), stem("parse"));
        assert_eq!(stem("scrolling"), stem("scroll"));
        assert_eq!(stem("jumped"), stem("jumps"));
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("vue3"), "vue3");
        assert_ne!(stem("https"), stem("http"), "an acronym's last letter is part of it");
        assert_eq!(stem("urls"), stem("url"));
        let d = differences("parses curl commands", "parse curl command", &WordStats::default());
        assert_eq!(d.similarity(), 1.0, "{d:?}");
        // Participles that are established words are the same word put another way.
        let texts = ["extended angular cli", "extending angular cli"].map(|t| t.to_owned());
        let others = (0..30).map(|i| format!("{} x{i}", if i < 3 { "extended extending" } else { "other" }));
        let corpus = texts.iter().cloned().chain(others);
        let stats = WordStats::from_texts(corpus.collect::<Vec<_>>().iter().map(String::as_str), 0);
        let d = differences(&texts[0], &texts[1], &stats);
        assert_eq!(d.similarity(), 1.0, "{d:?}");
    }

    /// Lowercase, punctuation to spaces: enough of the normalizer for [`chunks`].
    fn fold(text: &str) -> String {
        let spaced: String =
            text.to_lowercase().chars().map(|c| if c.is_ascii_punctuation() { ' ' } else { c }).collect();
        spaced.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Both texts as [`Deduper::prepare`](crate::Deduper::prepare) reads them:
    /// normalized, with their chunks.
    fn compare(a: &str, b: &str, stats: &WordStats) -> Differences {
        let (fa, fb) = (fold(a), fold(b));
        let chunks_of = |original: &str, folded: &str| chunks(original, words(folded).len() as u32, fold);
        super::differences(&stats.read(&fa, &chunks_of(a, &fa)), &stats.read(&fb, &chunks_of(b, &fb)))
    }

    #[test]
    fn the_unmatched_words_are_what_tells_two_texts_apart_in_their_order() {
        let texts = ["python sdk for aws eventbridge", "python sdk for aws opensearch", "python sdk for aws"];
        let stats = WordStats::from_texts(texts, 0);
        let [a, b, c] = texts.map(|t| stats.read(t, &[]));
        let names = |w: &[(String, f32)]| w.iter().map(|(x, _)| x.clone()).collect::<Vec<_>>();
        let info = |w: &[(String, f32)]| w.iter().map(|(_, i)| i).sum::<f32>();
        // Both orders, so that the alignment runs once as given and once swapped.
        for (x, y, only_x, only_y) in [(&a, &b, "eventbridge", "opensearch"), (&b, &a, "opensearch", "eventbridge")] {
            let (u, d) = (unmatched_words(x, y), super::differences(x, y));
            assert_eq!((names(&u.a), names(&u.b)), (vec![only_x.to_owned()], vec![only_y.to_owned()]));
            assert!((info(&u.a) - d.residue_a).abs() < 1e-6 && (info(&u.b) - d.residue_b).abs() < 1e-6, "{u:?} {d:?}");
        }
        let added = unmatched_words(&c, &a);
        assert_eq!((names(&added.a), names(&added.b)), (vec![], vec!["eventbridge".to_owned()]));
        assert_eq!(unmatched_words(&a, &a), Unmatched::default());
    }

    #[test]
    fn chunks_tell_which_words_were_joined() {
        assert_eq!(chunks("types for json-buffer.", 4, fold), vec![0, 1, 2 | NAME, 2 | NAME]);
        assert_eq!(chunks("the color(s) here", 4, fold), vec![0, 1, 1, 2], "joined, not a name");
        assert_eq!(chunks("types for json buffer.", 4, fold), Vec::<u16>::new(), "nothing joined");
        assert_eq!(chunks("types for json-buffer", 5, fold), Vec::<u16>::new(), "pieces that do not add up");
        assert_eq!(chunks("themes (RH, opaque)", 3, fold), vec![0, 1 | CAPS, 2]);
        assert_eq!(chunks("fonts KOI8-U for X", 5, fold), vec![0, 1 | NAME | CAPS, 1 | NAME | CAPS, 2, 3]);
        assert_eq!(chunks("A quote by I", 4, fold), Vec::<u16>::new(), "one capital letter is not a code");
        assert_eq!(chunks("THE TEXT SHOUTED", 3, fold), Vec::<u16>::new(), "capitals everywhere are no code");
    }

    #[test]
    fn two_names_an_edit_apart_are_two_things_even_between_copies() {
        let mut texts: Vec<String> = (0..1000).map(|i| format!("filler w{i}")).collect();
        texts.extend(
            [
                "header files and static library for kwnn",
                "header files and static library for cwnn",
                "freewnn library for kwnn",
                "freewnn library for cwnn",
                "the quick fox jumps over kwnn twice a day",
                "the quick fox jumps over kwmn twice a day",
            ]
            .map(String::from),
        );
        let stats = WordStats::from_texts(texts.iter().map(String::as_str), 0);
        let names = differences(&texts[1000], &texts[1001], &stats);
        assert!(names.matched >= COPIED && names.replaced() > 0.0, "kwnn / cwnn: {names:?}");
        let garbled = differences(&texts[1004], &texts[1005], &stats);
        assert_eq!(garbled.similarity(), 1.0, "a name garbled in one text: {garbled:?}");
    }

    #[test]
    fn two_codes_an_edit_apart_are_two_things_even_between_copies() {
        let texts = [
            "mouse pointer themes with a comic art feeling (RH, opaque)",
            "mouse pointer themes with a comic art feeling (LH, opaque)",
            "mouse pointer themes with a comic art feeling (RH, translucent)",
            "mouse pointer themes with a comic art feeling (LH, translucent)",
            "I can't think about that: it doesn't go with ROBOTS making BRICKS",
            "I can't think about that: it doesn't go with ROBTOS making BRICKS",
            "A basic implementation of the RDF/JS Data Model",
            "A basic implementation of the RDFJS Data Model",
            "Set for RDF/JS Terms",
            "Map for RDFJS Sinks",
        ];
        let folded: Vec<String> = texts.iter().map(|t| fold(t)).collect();
        let stats = WordStats::from_texts(folded.iter().map(String::as_str), 0);
        let codes = compare(texts[0], texts[1], &stats);
        assert!(codes.replaced() > 0.0, "RH / LH: {codes:?}");
        let shouted = compare(texts[4], texts[5], &stats);
        assert_eq!(shouted.similarity(), 1.0, "a shouted word garbled once: {shouted:?}");
        let spaced = compare(texts[6], texts[7], &stats);
        assert_eq!(spaced.similarity(), 1.0, "only the spaces differ: {spaced:?}");
    }

    #[test]
    fn a_letter_standing_alone_or_an_inflection_in_a_name_is_another_thing() {
        let stats = corpus();
        let product = compare("uni-app x types", "uni-app types", &stats);
        assert!(product.added() > 0.5, "{product:?}");
        let joined = compare("python sdk for react-s-alert", "python sdk for react-alert", &stats);
        assert!(joined.added() > 0.5, "a letter joined into a name: {joined:?}");
        let plural = compare("color(s) picker", "color picker", &stats);
        assert_eq!(plural.similarity(), 1.0, "{plural:?}");
        // "actions" and "action" both established: not a typo of one another.
        let mut texts: Vec<String> = (0..4).flat_map(|i| [format!("actions n{i}"), format!("action m{i}")]).collect();
        texts.extend((0..20).map(|i| format!("python sdk for redux w{i}")));
        let stats = WordStats::from_texts(texts.iter().map(String::as_str), 0);
        let package = compare("python sdk for redux-actions", "python sdk for redux-action", &stats);
        assert!(package.replaced() > 0.5, "{package:?}");
        let prose = compare("python sdk for redux actions", "python sdk for redux action", &stats);
        assert_eq!(prose.similarity(), 1.0, "{prose:?}");
    }

    #[test]
    fn reordered_parts_of_a_name_name_another_thing() {
        let stats = corpus();
        let names = compare("python sdk for json-buffer", "python sdk for buffer_json", &stats);
        assert!(names.replaced() > 0.5, "{names:?}");
        let moved_part = compare("polish-modern greek dictionary", "modern greek-polish dictionary", &stats);
        assert!(moved_part.replaced() > 0.5, "{moved_part:?}");
        // The same words swapped in prose, or moved as a whole compound, are one text.
        let prose = differences("python sdk for json buffer", "python sdk for buffer json", &stats);
        assert_eq!(prose.similarity(), 1.0, "{prose:?}");
        let moved = compare("mermaid plugin for markdown-it", "markdown-it plugin for mermaid", &stats);
        assert_eq!(moved.similarity(), 1.0, "{moved:?}");
    }

    /// A corpus of short texts in which "set", "get", "utility", "to", "the"
    /// and "value" are common, never in the context "utility to _ the value"
    /// (so that it is no slot), beside two quotes.
    fn templates_and_a_quote() -> WordStats {
        let mut texts: Vec<String> =
            ["set", "get"].iter().flat_map(|verb| (0..4).map(move |i| format!("{verb} n{i}"))).collect();
        texts.extend((0..20).flat_map(|i| [format!("utility to w{i}"), format!("the value v{i}")]));
        texts.push("and on the seventh day he exited from append mode".into());
        texts.push("you can always tell luck from ability by its duration".into());
        WordStats::from_texts(texts.iter().map(String::as_str), 0)
    }

    #[test]
    fn one_established_word_for_another_is_a_name_unless_the_texts_are_copies() {
        let stats = templates_and_a_quote();
        let template = differences("utility to set the value", "utility to get the value", &stats);
        assert!(template.matched < COPIED && template.replaced() > 0.0, "{template:?}");
        let copy = differences(
            "you can always set luck from ability by its duration",
            "you can always get luck from ability by its duration",
            &stats,
        );
        assert_eq!(copy.similarity(), 1.0, "{copy:?}");
    }

    #[test]
    fn a_word_garbled_twice_is_a_perturbation_between_copies_only() {
        let stats = templates_and_a_quote();
        let copy = differences(
            "and on the seventh day he exited from append mode",
            "and on the seoveth day he exited from append mode",
            &stats,
        );
        assert!(copy.matched >= COPIED && copy.similarity() == 1.0, "{copy:?}");
        // Two edits across a split ("new york" / "enwryork") are the gap's to forgive.
        let split = differences(
            "breakfast in london dinner in new york luggage in brazil",
            "breakfast in london dinner in enwryork luggage in brazil",
            &stats,
        );
        assert!(split.matched >= COPIED && split.similarity() == 1.0, "{split:?}");
        let short = differences("the seventh day", "the seoveth day", &stats);
        assert!(short.replaced() > 0.0, "{short:?}");
    }

    #[test]
    fn edits_need_words_spelled_alike_beside_them() {
        // A dictionary's cross-references: "see" in every entry, each headword in one.
        let mut texts: Vec<String> = ["heeded", "weeded", "salted", "salved", "wasting", "wasted"]
            .iter()
            .map(|w| format!("un{w} un{w} see {w}"))
            .collect();
        texts.extend((0..40).map(|i| format!("entry{i}{} other{i}", if i % 4 == 0 { " see" } else { "" })));
        texts.push("the cat sat on the warm mat by the door".into());
        let stats = WordStats::from_texts(texts.iter().map(String::as_str), 0);
        for (a, b) in [(0, 1), (2, 3)] {
            let d = differences(&texts[a], &texts[b], &stats);
            assert!(d.matched < COPIED && d.replaced() > 1.0, "{} / {}: {d:?}", texts[a], texts[b]);
        }
        // Nor are the inflected forms of a rare word, when one is a participle.
        let d = differences(&texts[4], &texts[5], &stats);
        assert!(d.replaced() > 0.0, "{d:?}");
        // A typo beside words spelled right is still one.
        let typo =
            differences("the cat sat on the warm mat by the door", "the cat sat on the wram mat by the door", &stats);
        assert!(typo.similarity() == 1.0, "{typo:?}");
    }

    #[test]
    fn common_words_and_digits_are_not_typos() {
        let stats = corpus();
        // Both spellings are established words: "preact" is another library, not a misspelling.
        let word = |w: &'static str| stats.read(w, &[]).tokens.remove(0);
        assert!(!is_typo(&word("react"), &word("preact"), false));
        assert!(is_typo(&word("sever"), &word("server"), false), "a misspelling of a common word");
        let v = differences("mat2 helpers", "mat3 helpers", &WordStats::default());
        assert!(v.replaced() > 0.0, "{v:?}");
    }
}
