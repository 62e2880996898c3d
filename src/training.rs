//! Training the learned boundary from unlabelled corpora: the driver that
//! needs the whole pipeline (to sign and embed the pairs it makes), on top of
//! [`decide::augment`](crate::decide::augment), which makes the pairs, and
//! [`decide::train`](crate::decide::train), which fits the model.
//!
//! No evaluation label is used: every positive is a text and a corrupted copy
//! of it, every negative two different texts made to look alike. Each base
//! text makes one of each, so the classes stay balanced whatever the corpora.
//!
//! ```no_run
//! use semhash::{Config, Deduper};
//! use semhash::decide::train::TrainConfig;
//! use semhash::training::{train_boundary, BoundaryTraining};
//!
//! let corpus: Vec<String> = std::fs::read_to_string("verses.txt")?.lines().map(String::from).collect();
//! let options = BoundaryTraining { config: TrainConfig { steps: 500, ..Default::default() }, ..Default::default() };
//! // Without a semantic stage the model learns the lexical signals only.
//! let semantic = || Ok(Deduper::new(Config::default())?);
//! let trained = train_boundary(&[corpus], &[], &options, &semantic, None, &mut |_, _, _| {})?;
//! println!("{}", serde_json::to_string(&trained.model)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::decide::augment::{self, Rng, Template};
use crate::decide::features::{at, features, without_embeddings, Features, NAMES};
use crate::decide::fusion::{mask, Candidates, LearnedBoundary, VERSION};
use crate::decide::train::{self, Example, TrainConfig};
use crate::decide::{Decider, PairSignals};
use crate::sketch::semantic::SemanticSketch;
use crate::sketch::Signature;
use crate::util::Silent;
use crate::{Deduper, Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::Instant;

/// How training pairs are made, and the training knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoundaryTraining {
    /// Base texts per corpus (evenly spread over it); each makes a positive
    /// and a negative pair.
    pub per_corpus: usize,
    /// Share of swappable words a paraphrase rewords (see
    /// [`augment::corrupt`]).
    pub paraphrase_strength: f64,
    /// The fit itself.
    pub config: TrainConfig,
}

impl Default for BoundaryTraining {
    fn default() -> Self {
        // 0.8 was chosen over 0.5 on the F1 of the Bible dev pairs (models/README.md).
        BoundaryTraining { per_corpus: 3000, paraphrase_strength: 0.8, config: TrainConfig::default() }
    }
}

/// A training pair, before it is signed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MadePair {
    /// One text.
    pub a: String,
    /// The other.
    pub b: String,
    /// Whether `b` is a corrupted copy of `a` (else a look-alike).
    pub duplicate: bool,
    /// How it was made (a [`augment::Corruption`] or [`augment::Lookalike`] name).
    pub kind: String,
}

/// Makes a positive and a negative pair from `per_corpus` base texts of each
/// corpus. Neighbouring texts of a corpus should be related (verses of one
/// chapter, entries of one letter): they make the hard negatives. `templates`
/// wrap texts in web pages, for template-wrapped copies and for negatives
/// that share only a template. Deterministic.
pub fn make_pairs(corpora: &[Vec<String>], templates: &[Template], options: &BoundaryTraining) -> Vec<MadePair> {
    // Quotes to paste into two different texts: the short texts of the corpora.
    let quotes: Vec<String> = corpora
        .iter()
        .flatten()
        .filter(|t| (40..160).contains(&t.chars().count()))
        .step_by(97)
        .take(300)
        .cloned()
        .collect();
    let mut rng = Rng::new(0x7061_6972);
    let mut made = Vec::new();
    for corpus in corpora {
        for i in (0..corpus.len()).step_by(corpus.len().div_ceil(options.per_corpus.max(1)).max(1)) {
            let (copy, how) = augment::corrupt(&corpus[i], templates, options.paraphrase_strength, &mut rng);
            made.push(MadePair { a: corpus[i].clone(), b: copy, duplicate: true, kind: format!("{how:?}") });
            let (a, b, how) = augment::lookalike(corpus, i, templates, &quotes, &mut rng);
            made.push(MadePair { a, b, duplicate: false, kind: format!("{how:?}") });
        }
    }
    made
}

/// Training pairs as features (what a training cache keeps).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SignedPairs {
    /// Features, label, kind of pair.
    pub kept: Vec<(Features, bool, String)>,
    /// Negatives left out as probable duplicates inside the corpus.
    pub left_out: usize,
    /// Distinct texts signed.
    pub texts: usize,
    /// Texts embedded (the short ones, when there is a semantic stage).
    pub embedded: usize,
}

/// Signs the texts of `made` as one corpus, embeds the short ones as the
/// pipeline does, and turns each pair into features. A lookalike of
/// neighbours that the signals call a near copy (weighted similarity 0.8,
/// containment 0.95) is probably a true duplicate inside the corpus: unsure,
/// it is left out. Below that, similar neighbours (a package and its -dev
/// twin) are the hard negatives the boundary most needs.
///
/// `cache`, a directory, keeps the embeddings of texts signed before.
///
/// # Errors
///
/// A text the lexical stage refuses (see [`Deduper::sign_batch`]), an
/// encoder failure, or a cache that cannot be written.
pub fn sign_pairs(
    made: &[MadePair],
    lexical: &Deduper,
    semantic: &Deduper,
    cache: Option<&Path>,
) -> Result<SignedPairs> {
    let mut index_of: HashMap<&str, usize> = HashMap::new();
    let mut texts: Vec<&str> = Vec::new();
    let ids: Vec<(usize, usize)> = made
        .iter()
        .map(|m| {
            let mut id = |t| {
                *index_of.entry(t).or_insert_with(|| {
                    texts.push(t);
                    texts.len() - 1
                })
            };
            (id(m.a.as_str()), id(m.b.as_str()))
        })
        .collect();
    let mut sigs = lexical.sign_batch(&texts, &Silent)?;
    let embedded = embed_cached(semantic, &texts, &mut sigs, cache)?;
    let decide = &lexical.config().decide;
    let mut out = SignedPairs { kept: Vec::new(), left_out: 0, texts: texts.len(), embedded };
    for (m, &(a, b)) in made.iter().zip(&ids) {
        let s = PairSignals::between(&sigs[a], &sigs[b], decide.min_samples());
        let near_copy = s.weighted_sim >= 0.8 || s.a_in_b.unwrap_or(0.0).max(s.b_in_a.unwrap_or(0.0)) >= 0.95;
        if !m.duplicate && near_copy && matches!(m.kind.as_str(), "Adjacent" | "Nearest") {
            out.left_out += 1;
            continue;
        }
        out.kept.push((features(&s, decide.blocking().semantic_max_chars), m.duplicate, m.kind.clone()));
    }
    Ok(out)
}

/// Embeds the short texts as [`Deduper::embed_short`] does, reusing the
/// sketches of texts embedded before when `cache` (a directory) has them:
/// other augmentation settings change a few thousand texts, not all of them.
fn embed_cached(semantic: &Deduper, texts: &[&str], sigs: &mut [Signature], cache: Option<&Path>) -> Result<usize> {
    let file = cache.map(|dir| dir.join("sketches.json"));
    let mut known: HashMap<String, SemanticSketch> = file
        .as_ref()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let key = |t: &str| format!("{:032x}", crate::util::hash::hash128(t.as_bytes()));
    let missing: Vec<usize> = (0..texts.len()).filter(|&i| !known.contains_key(&key(texts[i]))).collect();
    let missing_texts: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
    let mut missing_sigs: Vec<_> = missing.iter().map(|&i| sigs[i].clone()).collect();
    semantic.embed_short(&missing_texts, &mut missing_sigs, &Silent)?;
    for (t, s) in missing_texts.iter().zip(missing_sigs) {
        if let Some(sketch) = s.semantic {
            known.insert(key(t), sketch);
        }
    }
    let max_chars = semantic.config().decide.blocking().semantic_max_chars;
    let mut embedded = 0;
    for (t, sig) in texts.iter().zip(sigs.iter_mut()) {
        if sig.char_len <= max_chars {
            sig.semantic = known.get(&key(t)).cloned();
            embedded += 1;
        }
    }
    if let Some(path) = &file {
        let bytes = serde_json::to_vec(&known).expect("sketches serialise");
        crate::util::checkpoint::write_atomic(path, &bytes)?;
    }
    Ok(embedded)
}

/// How the model did on the held-out pairs of one kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindAccuracy {
    /// Held-out pairs of this kind.
    pub pairs: u64,
    /// Of them, decided right at the model's threshold.
    pub right: u64,
    /// Of them, duplicates (all or none: a kind has one label).
    pub duplicates: u64,
}

impl KindAccuracy {
    /// Share decided right.
    pub fn accuracy(&self) -> f64 {
        self.right as f64 / self.pairs.max(1) as f64
    }
}

/// A trained boundary and how it was made.
#[derive(Clone, Debug)]
pub struct TrainedBoundary {
    /// The model, its provenance filled in (add the names of the corpora).
    pub model: LearnedBoundary,
    /// Accuracy on the held-out pairs (every tenth), by kind of pair.
    pub held_out: BTreeMap<String, KindAccuracy>,
}

/// Makes pairs from `corpora` ([`make_pairs`]), signs and embeds them with
/// the semantic stage of the deduper `semantic` makes ([`sign_pairs`]; called
/// only when `cache` lacks the signed pairs), and trains the boundary on nine
/// in ten, holding out the tenth to fit the temperature and measure it.
/// `log(member, step, loss)` follows the fit.
///
/// # Errors
///
/// A feature in `options.config.dropped` that does not exist, or what
/// [`sign_pairs`] and the cache meet.
pub fn train_boundary(
    corpora: &[Vec<String>],
    templates: &[Template],
    options: &BoundaryTraining,
    semantic: &dyn Fn() -> Result<Deduper>,
    cache: Option<&Path>,
    log: &mut dyn FnMut(usize, usize, f32),
) -> Result<TrainedBoundary> {
    let config = &options.config;
    if let Some(d) = config.dropped.iter().find(|d| !NAMES.contains(&d.as_str())) {
        return Err(Error::Config(format!("dropped feature {d:?}: not a feature; they are {NAMES:?}")));
    }
    if let Some(dir) = cache {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
    }
    let started = Instant::now();
    let lexical = Deduper::new(crate::Config::default())?;
    let made = make_pairs(corpora, templates, options);
    let signed = signed_cached(&made, &lexical, semantic, cache)?;
    let signed_seconds = started.elapsed().as_secs_f64();

    // Each embedded pair also trains as unembedded: the same pair meets the
    // decider without embeddings in lexical runs, and it must decide it then too.
    let kept: Vec<(Example, &str)> = signed
        .kept
        .iter()
        .flat_map(|(f, duplicate, kind)| {
            let plain = (f[at::HAS_EMBEDDING] > 0.0).then(|| without_embeddings(*f));
            std::iter::once(*f)
                .chain(plain)
                .map(move |f| (Example { features: f, duplicate: *duplicate }, kind.as_str()))
        })
        .collect();
    // Every tenth pair is held out: it fits the temperature and measures the model.
    let (held, fit): (Vec<_>, Vec<_>) = kept.iter().enumerate().partition(|(i, _)| i % 10 == 0);
    let examples = |set: &[(usize, &(Example, &str))]| -> Vec<Example> { set.iter().map(|(_, (e, _))| *e).collect() };
    let trained = Instant::now();
    let short_max_chars = lexical.config().decide.blocking().semantic_max_chars;
    let mut model =
        train::train(&examples(&fit), &examples(&held), config, Candidates::default(), short_max_chars, log);
    let train_seconds = trained.elapsed().as_secs_f64();

    let mut held_out: BTreeMap<String, KindAccuracy> = BTreeMap::new();
    for (_, (e, kind)) in &held {
        let mut f = e.features;
        mask(&mut f, &config.dropped);
        let right = (model.predict(&f).0.probability >= model.threshold) == e.duplicate;
        let entry = held_out.entry(kind.to_string()).or_default();
        entry.pairs += 1;
        entry.right += right as u64;
        entry.duplicates += e.duplicate as u64;
    }
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    kept.iter().for_each(|(_, k)| *counts.entry(k).or_default() += 1);
    model.provenance = serde_json::json!({
        "made_by": format!("semhash train-boundary {}", env!("CARGO_PKG_VERSION")),
        "per_corpus": options.per_corpus, "paraphrase_strength": options.paraphrase_strength,
        "pairs": kept.len(), "held_out": held.len(), "left_out_as_probable_duplicates": signed.left_out,
        "pairs_by_kind": counts, "texts": signed.texts, "embedded": signed.embedded,
        "config": config, "seconds": {"sign_and_embed": signed_seconds, "train": train_seconds},
    });
    Ok(TrainedBoundary { model, held_out })
}

/// [`sign_pairs`], or its result from `cache` when the same pairs were signed
/// the same way before.
fn signed_cached(
    made: &[MadePair],
    lexical: &Deduper,
    semantic: &dyn Fn() -> Result<Deduper>,
    cache: Option<&Path>,
) -> Result<SignedPairs> {
    // The features' names and the model version stand for how pairs become features.
    let how = format!("{NAMES:?} {VERSION}");
    let key = crate::util::hash::hash128(
        made.iter()
            .flat_map(|m| [m.a.as_str(), m.b.as_str(), &m.kind])
            .chain([how.as_str()])
            .collect::<Vec<_>>()
            .join("\u{1}")
            .as_bytes(),
    );
    let cached = cache.map(|dir| dir.join(format!("boundary-pairs-{key:032x}.json")));
    if let Some(bytes) = cached.as_ref().and_then(|p| std::fs::read(p).ok()) {
        return serde_json::from_slice(&bytes).map_err(|e| Error::Input(format!("training cache: {e}")));
    }
    let signed = sign_pairs(made, lexical, &semantic()?, cache)?;
    if let Some(path) = &cached {
        crate::util::checkpoint::write_atomic(path, &serde_json::to_vec(&signed).expect("pairs serialise"))?;
    }
    Ok(signed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Vec<String> {
        (0..200)
            .map(|i| format!("Entry {i}: the {} of the {} sat by the {} river", i * 7 % 13, i % 11, i * 3 % 17))
            .collect()
    }

    #[test]
    fn pairs_are_balanced_and_deterministic() {
        let options = BoundaryTraining { per_corpus: 50, ..Default::default() };
        let made = make_pairs(&[corpus()], &[], &options);
        assert_eq!(made.len(), 100);
        assert_eq!(made.iter().filter(|m| m.duplicate).count(), 50);
        assert_eq!(made, make_pairs(&[corpus()], &[], &options));
    }

    #[test]
    fn an_unknown_dropped_feature_is_refused() {
        let options = BoundaryTraining {
            config: TrainConfig { dropped: vec!["colour".into()], ..Default::default() },
            ..Default::default()
        };
        let semantic = || Deduper::new(crate::Config::default());
        let e = train_boundary(&[corpus()], &[], &options, &semantic, None, &mut |_, _, _| {}).unwrap_err();
        assert!(e.to_string().contains("\"colour\": not a feature"), "{e}");
    }
}
