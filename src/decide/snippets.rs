//! Viral snippets: one passage pasted into many otherwise different documents.
//!
//! Such documents are not duplicates of each other (each has its own
//! content), so they must not merge; but the passage itself is worth
//! reporting. Its shingles form a boilerplate run in every host (see
//! [`CorpusStats::analyse`]); within a run, where the document
//! frequency jumps by more than a factor of two one passage ends and another
//! begins. The shingles that straddle a passage's edges mix it with each
//! host's own text and are rarer than the passage (though they can be common
//! too: a quote followed by "This package provides" in a dozen hosts), so
//! every host yields the same run for the passage itself, and runs are grouped
//! by their content. Site templates are passages of this kind too and are
//! reported alongside.

use crate::sketch::{tokens, CorpusStats};
use crate::util::hash::combine;
use serde::{Deserialize, Serialize};

/// Knobs of snippet reporting; not part of the signature fingerprint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SnippetConfig {
    /// Report passages held by at least this many documents in different clusters.
    pub min_docs: u32,
    /// Shortest passage reported, in words.
    pub min_words: u32,
    /// At most this many snippets in a report, the most widespread first.
    pub max_reported: u32,
}

impl Default for SnippetConfig {
    fn default() -> Self {
        SnippetConfig { min_docs: 5, min_words: 8, max_reported: 1000 }
    }
}

/// A reported snippet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Snippet {
    /// The passage, as it reads in the first document holding it.
    pub text: String,
    /// Its length in words.
    pub words: u32,
    /// Ids of every document holding it (exact copies included).
    pub docs: Vec<String>,
}

/// One occurrence of a shared passage in a document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Occurrence {
    /// Identifies the passage's content.
    pub key: u64,
    /// The document holding it, by input position.
    pub doc: u32,
    /// Byte span in the normalized text.
    pub start: u32,
    /// End of that span (exclusive).
    pub end: u32,
    /// Its length in words.
    pub words: u32,
}

/// Shared passages of one document, given its word-shingle sequence.
pub fn occurrences(
    doc: u32,
    normalized: &str,
    shingles: &[u64],
    word_ngram: usize,
    stats: &CorpusStats,
    config: &SnippetConfig,
) -> Vec<Occurrence> {
    let analysed = stats.analyse(shingles);
    let n = word_ngram.max(1);
    if analysed.runs.is_empty() {
        return Vec::new();
    }
    let df = |i: usize| analysed.stats[analysed.position[i] as usize].df;
    let words = tokens::words(normalized);
    if words.len() < n {
        return Vec::new();
    }
    let level = |a: u32, b: u32| a.max(b) <= 2 * a.min(b);
    let mut out = Vec::new();
    for run in analysed.runs.iter().cloned() {
        let mut start = run.start;
        for i in run.start + 1..=run.end {
            if i < run.end && level(df(i - 1), df(i)) {
                continue;
            }
            let word_count = (i - start + n - 1) as u32;
            if word_count >= config.min_words {
                out.push(Occurrence {
                    key: shingles[start..i].iter().fold(0, |acc, &h| combine(acc, h)),
                    doc,
                    start: words[start].start,
                    end: words[i - 1 + n - 1].end,
                    words: word_count,
                });
            }
            start = i;
        }
    }
    out
}

/// Groups occurrences by passage: each group's occurrences sorted by document.
/// Keeps passages in at least `min_docs` documents, the most widespread first.
pub fn group(mut all: Vec<Occurrence>, config: &SnippetConfig) -> Vec<Vec<Occurrence>> {
    crate::util::par::sort(&mut all);
    let mut groups: Vec<Vec<Occurrence>> = all
        .chunk_by(|a, b| a.key == b.key)
        .map(|g| {
            let mut g = g.to_vec();
            g.dedup_by_key(|o| o.doc);
            g
        })
        .filter(|g| g.len() >= config.min_docs as usize)
        .collect();
    groups.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].doc.cmp(&b[0].doc)));
    groups
}
