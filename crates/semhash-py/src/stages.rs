//! [`semhash::stages`] for Python engines (the Spark job in
//! `python/semhash_llm/spark.py`): each method takes a batch of rows as
//! plain lists and gives one result per row. Spark has no unsigned types, so
//! 64-bit hashes travel as `i64` (bit for bit) and exact keys as 16 bytes;
//! signatures travel as their versioned, fingerprinted bytes.

use super::{deduper, py_error, relation_name, SemHashError};
use pyo3::prelude::*;
use semhash::cluster::Link;
use semhash::decide::Relation;
use semhash::sketch::{Prepared, Signature};
use semhash::stages::Side;
use semhash::Deduper;

/// A link as Python holds it: (a, b, relation, score).
type PyLink = (u32, u32, String, f32);
/// A placement: (position, representative, parent, relation, score).
type PyPlacement = (u32, u32, Option<u32>, String, f32);
/// A text to sign, with `(shingle, df, content_df)` of its shingles.
type PyToSign = (String, Vec<(i64, u32, u32)>);
/// A text's word keys: its words, and (context, filler) of each position.
type PyWordKeys = (Vec<i64>, Vec<(i64, i64)>);
/// One side of a pair to verify: (position, text, signature, word counts
/// `(word, texts)` and context counts `(context, fillers)` of its own words).
type PySide = (u32, String, Vec<u8>, Vec<(i64, u32)>, Vec<(i64, u32)>);

fn signed(v: &[u64]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

fn relation(name: &str) -> PyResult<Relation> {
    serde_json::from_value(serde_json::Value::from(name))
        .map_err(|_| SemHashError::new_err(format!("not a relation: {name:?}")))
}

/// The stage functions of one (lexical) pipeline.
#[pyclass(frozen)]
pub struct Stages {
    deduper: Deduper,
}

impl Stages {
    fn stages(&self) -> semhash::stages::Stages<'_> {
        semhash::stages::Stages::new(&self.deduper).expect("checked when made")
    }

    fn signature(&self, bytes: &[u8]) -> PyResult<Signature> {
        let fingerprint = self.deduper.fingerprint();
        Ok(Signature::from_bytes(bytes, fingerprint, "a signature from the engine").map_err(py_error)?.0)
    }

    fn prepare(&self, text: &str) -> Prepared {
        self.stages().prepare(text)
    }
}

#[pymethods]
impl Stages {
    #[new]
    #[pyo3(signature = (config=None))]
    fn new(config: Option<&str>) -> PyResult<Self> {
        let deduper = deduper(config)?;
        semhash::stages::Stages::new(&deduper).map_err(py_error)?;
        Ok(Stages { deduper })
    }

    /// Why each text cannot be de-duplicated (empty, too long), or None.
    fn check(&self, texts: Vec<String>) -> Vec<Option<String>> {
        texts.iter().map(|t| self.deduper.check(t).err().map(|e| e.to_string())).collect()
    }

    /// The exact key of each text (16 bytes).
    fn exact_keys(&self, texts: Vec<String>) -> Vec<Vec<u8>> {
        texts.iter().map(|t| self.prepare(t).exact.to_le_bytes().to_vec()).collect()
    }

    /// Each distinct text's shingles, each once (what `df` counts).
    fn shingles(&self, texts: Vec<String>) -> Vec<Vec<i64>> {
        texts.iter().map(|t| signed(&self.stages().shingles(&self.prepare(t)))).collect()
    }

    /// The shingles each text counts in `content_df`, given its shingles'
    /// `df` in the same order.
    fn content_shingles(&self, rows: Vec<(Vec<i64>, Vec<u32>)>) -> Vec<Vec<i64>> {
        rows.into_iter()
            .map(|(shingles, df)| {
                let unsigned: Vec<u64> = shingles.iter().map(|&s| s as u64).collect();
                let df: std::collections::HashMap<u64, u32> = unsigned.iter().copied().zip(df).collect();
                signed(&self.stages().content_shingles(&unsigned, |s| df.get(&s).copied().unwrap_or(1)))
            })
            .collect()
    }

    /// Signatures (bytes) of distinct texts: `docs` in the corpus, and for
    /// each text the `(shingle, df, content_df)` of its shingles.
    fn sign(&self, docs: u64, rows: Vec<PyToSign>) -> Vec<Vec<u8>> {
        let fingerprint = self.deduper.fingerprint();
        rows.iter()
            .map(|(text, counts)| {
                let counts = counts.iter().map(|&(s, df, content)| (s as u64, df, content));
                self.stages().sign(&self.prepare(text), docs, counts).to_bytes(fingerprint)
            })
            .collect()
    }

    /// Band keys and passage keys of each signature.
    fn keys(&self, signatures: Vec<Vec<u8>>) -> PyResult<Vec<(Vec<i64>, Vec<i64>)>> {
        signatures
            .iter()
            .map(|b| {
                let sig = self.signature(b)?;
                Ok((signed(&self.stages().band_keys(&sig)), signed(&self.stages().passage_keys(&sig))))
            })
            .collect()
    }

    /// The candidate pairs of one key's bucket of `(position, copies)`.
    fn bucket_pairs(&self, mut members: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
        members.sort_unstable();
        members.dedup();
        self.stages().bucket_pairs(&members)
    }

    /// Shared passage keys that make a candidate pair.
    fn min_shared_passages(&self) -> usize {
        self.stages().min_shared_passages()
    }

    /// The word keys of each short text (None for a long one).
    fn word_keys(&self, rows: Vec<(String, Vec<u8>)>) -> PyResult<Vec<Option<PyWordKeys>>> {
        rows.iter()
            .map(|(text, sig)| {
                if !self.stages().is_short(&self.signature(sig)?) {
                    return Ok(None);
                }
                let keys = self.stages().word_keys(&self.prepare(text));
                let fillers = keys.fillers.iter().map(|&(c, f)| (c as i64, f as i64)).collect();
                Ok(Some((signed(&keys.words), fillers)))
            })
            .collect()
    }

    /// The link each candidate pair makes, or None: `(a, b)` sides with
    /// `a` at the lower position, and `short_docs` the short texts counted
    /// in the word statistics.
    fn verify(&self, short_docs: u64, pairs: Vec<(PySide, PySide)>) -> PyResult<Vec<Option<PyLink>>> {
        let stages = self.stages();
        pairs
            .into_iter()
            .map(|(a, b)| {
                if a.0 >= b.0 {
                    return Err(SemHashError::new_err(format!(
                        "a pair is read from the lower position: ({}, {})",
                        a.0, b.0
                    )));
                }
                let words =
                    a.3.iter().chain(&b.3).map(|&(w, n)| (w as u64, n)).collect::<std::collections::HashMap<_, _>>();
                let contexts =
                    a.4.iter().chain(&b.4).map(|&(c, n)| (c as u64, n)).collect::<std::collections::HashMap<_, _>>();
                let stats = stages.word_stats(short_docs, words, contexts);
                let (pa, pb) = (stages.prepare(&a.1), stages.prepare(&b.1));
                let (sa, sb) = (self.signature(&a.2)?, self.signature(&b.2)?);
                let side_a = Side {
                    position: a.0,
                    signature: &sa,
                    words: stages.is_short(&sa).then(|| stages.read(&stats, &pa)),
                };
                let side_b = Side {
                    position: b.0,
                    signature: &sb,
                    words: stages.is_short(&sb).then(|| stages.read(&stats, &pb)),
                };
                let link = stages.verify(&side_a, &side_b);
                Ok(link.map(|l| (l.a, l.b, relation_name(l.relation), l.score)))
            })
            .collect()
    }

    /// Star clustering of one connected component: `positions` of all its
    /// members (any order), its links (exact copies linked to their head
    /// with relation "exact").
    fn cluster_component(&self, mut positions: Vec<u32>, links: Vec<PyLink>) -> PyResult<Vec<PyPlacement>> {
        positions.sort_unstable();
        positions.dedup();
        let links = links
            .iter()
            .map(|(a, b, r, score)| {
                let inside = |p: &u32| positions.binary_search(p).is_ok();
                if !inside(a) || !inside(b) {
                    return Err(SemHashError::new_err(format!("link ({a}, {b}) leaves the component")));
                }
                Ok(Link { a: *a, b: *b, relation: relation(r)?, score: *score })
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(self
            .stages()
            .cluster_component(&positions, &links)
            .into_iter()
            .map(|(at, p)| (at, p.representative, p.parent, relation_name(p.relation), p.score))
            .collect())
    }
}
