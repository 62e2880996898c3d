//! The cascade, end to end: documents in, clusters and snippets out.
//!
//! [`Deduper::dedup`] runs one batch: normalize → exact copies settled by key
//! (stage 0) → corpus statistics over the distinct texts → signatures →
//! candidates from the index → verdicts → clusters, plus viral snippets.
//! [`Deduper::compare`] scores given pairs. Incremental use (add today, query
//! tomorrow) goes through [`crate::store`].

use crate::cluster::{cluster, Link};
use crate::decide::align::AlignedWords;
use crate::decide::{
    align, snippets, Decider, Differences, PairSignals, Reading, Relation, Snippet, Verdict, WordStats, Words,
};
use crate::index::MultiIndex;
use crate::index::{candidate_pairs, Banding, Blocker, ExactIndex, SignatureIndex};
use crate::semantic::Stage;
use crate::sketch::{heading, CorpusStats, Fingerprint, Prepared, Signature, Signer};
#[cfg(not(target_arch = "wasm32"))]
use crate::util::checkpoint::Checkpoints;
use crate::util::{Progress, Silent};
use crate::{Config, Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;

/// One input document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Document {
    /// The caller's name for it, by which results refer to it; distinct
    /// within a batch.
    pub id: String,
    /// The text as the user has it: normalization happens inside, and
    /// snippets are reported in this text's own characters.
    pub text: String,
}

/// Where one document landed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DocResult {
    /// The document's id.
    pub id: String,
    /// Its cluster, numbered from 0 in the order of each cluster's first
    /// document.
    pub cluster: u32,
    /// Id of the document kept for the cluster: the one the others
    /// duplicate. Usually the first in input order; the most copied text
    /// when there are many copies (see [`crate::cluster`]).
    pub representative: String,
    /// Relation of this document to `parent` (`none` for a representative).
    pub relation: Relation,
    /// Score of the verdict that linked it to `parent`: 1 for an exact
    /// copy, 0 for a representative.
    pub score: f32,
    /// Id of the document this one was found a duplicate of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// Counts and timings of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunStats {
    /// Documents in the batch.
    pub documents: u64,
    /// Distinct texts after normalization: only these are signed and
    /// compared, exact copies being settled by their key.
    pub distinct_texts: u64,
    /// Clusters, single documents included.
    pub clusters: u64,
    /// Documents with a parent: all but the representatives.
    pub duplicates: u64,
    /// Documents by their relation to their parent.
    pub relations: BTreeMap<String, u64>,
    /// Pairs of distinct texts the lexical index proposed.
    pub candidate_pairs: u64,
    /// Of those, pairs the decider (and judge) found duplicates.
    pub accepted_pairs: u64,
    /// Viral snippets reported.
    pub snippets_found: u64,
    /// Texts the semantic stage embedded (lexical cluster representatives only).
    pub semantic_encoded: u64,
    /// Of those, texts whose embeddings an earlier, interrupted run had kept
    /// in the work directory ([`Deduper::with_checkpoints`]): loaded, not
    /// encoded again.
    pub semantic_resumed: u64,
    /// Pairs the semantic codes proposed among those.
    pub semantic_candidate_pairs: u64,
    /// Of those, pairs found duplicates.
    pub semantic_accepted_pairs: u64,
    /// Hamming radius of semantic blocking.
    pub semantic_radius: Option<u32>,
    /// What the verifier did ([`Deduper::with_verifier`]), when there is one.
    #[cfg(feature = "encoder")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_verified: Option<Verified>,
    /// Second opinions asked for, with a judge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<crate::judge::JudgeStats>,
    /// LSH bands and rows of the weighted MinHash, chosen from the
    /// decider's threshold.
    pub weighted_banding: Option<Banding>,
    /// LSH bands and rows of the char MinHash.
    pub char_banding: Option<Banding>,
    /// The sketch kernel that ran: `Portable`, `Avx2` or `Avx512` (the
    /// fastest this CPU runs, unless `SEMHASH_KERNEL` names another).
    pub kernel: String,
    /// Wall time of each stage, in milliseconds (none on wasm32).
    pub timings_ms: BTreeMap<String, f64>,
}

/// The result of [`Deduper::dedup`].
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// One result per input document, in input order.
    pub docs: Vec<DocResult>,
    /// Passages shared by documents of several clusters, the most
    /// widespread first.
    pub snippets: Vec<Snippet>,
    /// Counts and timings.
    pub stats: RunStats,
}

/// A second, more exact embedder for the semantic pairs the stage's own is
/// unsure of ([`Deduper::with_verifier`]).
#[cfg(feature = "encoder")]
#[derive(Clone)]
pub struct Verifier {
    /// The more exact embedder (the student, behind the static table) with
    /// its own hyperplanes.
    pub stage: Stage,
    /// Share of a run's documents it may embed, in [0, 1].
    pub budget: f32,
}

#[cfg(feature = "encoder")]
impl Verifier {
    /// The budget when none is given: the student embeds at most one
    /// document in twenty.
    pub const DEFAULT_BUDGET: f32 = 0.05;
}

/// What a [`Verifier`] did in one run.
#[cfg(feature = "encoder")]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Verified {
    /// Semantic pairs within [`VERIFY_MARGINS`] of the decision.
    pub unsure_pairs: u64,
    /// Of those, pairs decided again on the verifier's embeddings (both
    /// texts within the budget).
    pub pairs: u64,
    /// Of those, pairs whose verdict changed.
    pub changed: u64,
    /// Texts the verifier embedded.
    pub embedded: u64,
    /// The documents of the run: `embedded` is at most `budget` of them.
    pub documents: u64,
}

/// Cosine steps, nearest first, by which a semantic pair's verdict may flip
/// and still count as unsure. On the labelled package-description pairs
/// whose static-table cosine is 0.7 or more, the table's and the student's
/// cosines differ by 0.049 at the median and 0.13 at the 90th percentile,
/// so a pair further than a tenth from the decision is left to the table.
#[cfg(feature = "encoder")]
pub const VERIFY_MARGINS: [f32; 3] = [0.02, 0.05, 0.1];

/// A configured pipeline.
///
/// Built from a [`Config`], optionally with a semantic stage and a judge;
/// [`Deduper::dedup`] runs a batch, [`Deduper::compare`] scores given pairs,
/// and a [`crate::store::Incremental`] uses one for documents that arrive
/// over time.
///
/// ```rust
/// use semhash::{util::Silent, Config, Deduper, Document};
///
/// let doc = |id: &str, text: &str| Document { id: id.into(), text: text.into() };
/// let docs = [
///     doc("original", "The river flooded the lower town after three days of heavy rain, and the old \
///                      stone bridge was closed to all traffic while engineers inspected its arches."),
///     doc("other", "Linkers join object files and libraries into one executable program."),
///     // A repost: one word dropped, other punctuation and case.
///     doc("repost", "the river flooded the lower town after three days of rain -- and the old \
///                    stone bridge was closed to all traffic while engineers inspected its arches!"),
/// ];
///
/// let outcome = Deduper::new(Config::default())?.dedup(&docs, &Silent)?;
/// let [original, other, repost] = &outcome.docs[..] else { unreachable!() };
/// assert_eq!(repost.cluster, original.cluster);
/// assert_eq!(repost.parent.as_deref(), Some("original"));
/// assert!(repost.relation.is_duplicate());
/// assert_ne!(other.cluster, original.cluster);
/// assert_eq!(outcome.stats.clusters, 2);
/// # Ok::<(), semhash::Error>(())
/// ```
pub struct Deduper {
    config: Config,
    signer: Signer,
    /// Chosen once: picking the bandings integrates the LSH curve of every
    /// (bands, rows) split, milliseconds that a small batch or a store's
    /// single query must not pay each time.
    blocker: Blocker,
    fingerprint: Fingerprint,
    semantic: Option<Stage>,
    #[cfg(feature = "encoder")]
    verifier: Option<Verifier>,
    judge: Option<crate::judge::Stage>,
    #[cfg(not(target_arch = "wasm32"))]
    checkpoints: Option<Box<dyn Checkpoints>>,
}

impl Deduper {
    /// A lexical pipeline for `config`; [`Deduper::with_semantic`] and
    /// [`Deduper::with_judge`] add the other stages.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when [`Config::validate`] refuses `config`: a
    /// pipeline never starts on values that cannot work.
    pub fn new(config: Config) -> Result<Self> {
        config.validate()?;
        let signer = Signer::new(&config.sketch);
        let blocker = Blocker::new(&config.sketch, &config.decide.blocking(), &config.index);
        let fingerprint = config.fingerprint();
        Ok(Deduper {
            config,
            signer,
            blocker,
            fingerprint,
            semantic: None,
            #[cfg(feature = "encoder")]
            verifier: None,
            judge: None,
            #[cfg(not(target_arch = "wasm32"))]
            checkpoints: None,
        })
    }

    /// Adds the semantic stage. Signatures then carry the model files' hash in
    /// their fingerprint, so a store refuses to mix them with lexical ones or
    /// with another model's.
    pub fn with_semantic(mut self, stage: Stage) -> Self {
        self.mix_fingerprint(b"semantic", stage.model_hash);
        self.semantic = Some(stage);
        self.config.semantic.enabled = true;
        self
    }

    /// Adds a verifier behind the semantic stage: the semantic pairs whose
    /// verdict would flip if their cosine moved by [`VERIFY_MARGINS`] are
    /// embedded again by `verifier` (nearest the decision first, as long as
    /// the texts it embeds stay within its budget of the run's documents)
    /// and decided on its embeddings. The paper's cascade: the static table
    /// for every text, the student for the few pairs that need it. The
    /// signatures keep the stage's sketches, so the fingerprint is unchanged.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] for a budget outside [0, 1].
    #[cfg(feature = "encoder")]
    pub fn with_verifier(mut self, verifier: Verifier) -> Result<Self> {
        if !(0.0..=1.0).contains(&verifier.budget) {
            return Err(Error::Config(format!("the verifier's budget must be in [0, 1], got {}", verifier.budget)));
        }
        self.verifier = Some(verifier);
        Ok(self)
    }

    /// Keeps finished work of `dedup` in `checkpoints` (the semantic stage's
    /// embeddings, nearly all of a semantic run's time, and the judge's
    /// verdicts, its slowest and costliest calls), and loads what an
    /// earlier run over the same input kept: a run that was killed resumes
    /// where it stopped, with the same result as one that never stopped.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_checkpoints(mut self, checkpoints: Box<dyn Checkpoints>) -> Self {
        self.checkpoints = Some(checkpoints);
        self
    }

    /// Asks `stage`'s judge about the verdicts a learned decider is unsure
    /// of, in `dedup` and [`Deduper::second_opinions`] (stores keep no texts
    /// to show a judge). An error with the threshold rules: they state no
    /// uncertainty to pick pairs by.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the decider is not the learned boundary.
    pub fn with_judge(mut self, stage: crate::judge::Stage) -> Result<Self> {
        self.set_judge(Some(stage))?;
        Ok(self)
    }

    /// As [`Deduper::with_judge`]; `None` removes the judge.
    ///
    /// # Errors
    ///
    /// As [`Deduper::with_judge`]; the judge is unchanged then.
    pub fn set_judge(&mut self, stage: Option<crate::judge::Stage>) -> Result<()> {
        if stage.is_some() {
            self.config.check_judge_fits()?;
        }
        self.judge = stage;
        Ok(())
    }

    /// Second opinions on `verdicts` (`texts(i)`: pair i's texts, `words(i)`
    /// how the alignment paired their words; all of them the budget's base):
    /// those in the judge's band, within its budget, merged with the judge's
    /// verdict ([`crate::judge::merge`]); the merged probability decides at
    /// the model's threshold. A verdict the judge turns into a duplicate takes
    /// its relation, or `fallback`. Without a judge, nothing changes.
    pub fn second_opinions<'t>(
        &self,
        verdicts: &mut [Verdict],
        texts: impl Fn(usize) -> (&'t str, &'t str),
        words: impl Fn(usize) -> Option<AlignedWords>,
        fallback: Relation,
    ) -> Option<crate::judge::JudgeReport> {
        let stage = self.judge.as_ref()?;
        // The merged probability decides where the model's own does (a
        // judge is only set beside a decider that states probabilities).
        let threshold = self.config.decide.probability_threshold()?;
        let uncertain: Vec<crate::judge::Uncertain<'t>> = verdicts
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let c = v.confidence.filter(|c| c.uncertainty >= stage.band)?;
                let (a, b) = texts(i);
                Some(crate::judge::Uncertain {
                    index: i,
                    a,
                    b,
                    p: c.probability,
                    uncertainty: c.uncertainty,
                    threshold,
                })
            })
            .collect();
        let ask = |judge: &dyn crate::judge::Judge| {
            crate::judge::judge_uncertain_with_words(judge, verdicts.len(), &uncertain, &stage.budget, &words)
        };
        let report = match self.checkpoints() {
            Some(checkpoints) => {
                let identity = serde_json::to_string(&self.config.judge).expect("a config serialises");
                ask(&crate::judge::Remembered::new(stage.judge.as_ref(), checkpoints, &identity))
            }
            None => ask(stage.judge.as_ref()),
        };
        // A failed call leaves the model's verdict as it was.
        for d in report.decisions.iter().filter(|d| d.judgement.is_some()) {
            let v = &mut verdicts[d.index];
            v.score = d.p;
            if let Some(c) = &mut v.confidence {
                c.probability = d.p;
            }
            let said = d.judgement.as_ref().and_then(|j| j.relation).filter(|r| r.is_duplicate());
            v.relation = match (d.p >= threshold, v.relation.is_duplicate()) {
                (true, false) => said.unwrap_or(fallback),
                (false, true) => Relation::None,
                _ => v.relation,
            };
        }
        Some(report)
    }

    /// [`Deduper::compare`] of `pairs`, or their `signals` decided again
    /// (as `compare` computed them, in order), then the judge's second
    /// opinions ([`Deduper::judge_compared`]) and what it did.
    ///
    /// # Errors
    ///
    /// What [`Deduper::compare`] refuses.
    #[allow(clippy::type_complexity)]
    pub fn compare_judged(
        &self,
        pairs: &[(&str, &str)],
        signals: Option<Vec<PairSignals>>,
    ) -> Result<(Vec<(Verdict, PairSignals)>, Option<crate::judge::JudgeReport>)> {
        let results = match signals {
            None => self.compare(pairs)?,
            Some(signals) => signals.into_iter().map(|s| (self.config.decide.decide(&s), s)).collect(),
        };
        let (mut verdicts, signals): (Vec<Verdict>, Vec<PairSignals>) = results.into_iter().unzip();
        let report = self.judge_compared(&mut verdicts, pairs);
        Ok((verdicts.into_iter().zip(signals).collect(), report))
    }

    /// [`Deduper::second_opinions`] on the verdicts of [`Deduper::compare`]
    /// over `pairs`: a pair the judge makes a duplicate is a paraphrase with a
    /// semantic stage, a near duplicate without.
    pub fn judge_compared(
        &self,
        verdicts: &mut [Verdict],
        pairs: &[(&str, &str)],
    ) -> Option<crate::judge::JudgeReport> {
        let fallback = if self.semantic.is_some() { Relation::Paraphrase } else { Relation::Near };
        self.judge.as_ref()?;
        #[cfg(any(feature = "encoder", feature = "endpoint"))]
        return self.with_pair_words(pairs, |words| self.second_opinions(verdicts, |i| pairs[i], words, fallback));
        #[cfg(not(any(feature = "encoder", feature = "endpoint")))]
        self.second_opinions(verdicts, |i| pairs[i], |_| None, fallback)
    }

    /// How the alignment pairs the words of each pair of short texts (the
    /// pairs' texts are the corpus its statistics come from, as in
    /// [`Deduper::compare`]): what a judge is told ([`crate::judge::Pair`]).
    /// `None` where a text is long.
    #[cfg(any(feature = "encoder", feature = "endpoint"))]
    pub fn aligned_words(&self, pairs: &[(&str, &str)]) -> Vec<Option<AlignedWords>> {
        let indices: Vec<usize> = (0..pairs.len()).collect();
        self.with_pair_words(pairs, |words| crate::util::par::map(&indices, |&i| words(i)))
    }

    /// `f` of a lookup from pair index to [`Deduper::aligned_words`]' answer,
    /// which aligns a pair only when asked (a judge asks for the few it sees).
    #[cfg(any(feature = "encoder", feature = "endpoint"))]
    fn with_pair_words<R>(
        &self,
        pairs: &[(&str, &str)],
        f: impl FnOnce(&(dyn Fn(usize) -> Option<AlignedWords> + Sync)) -> R,
    ) -> R {
        let (texts, pair_ids) = distinct_texts(pairs);
        let prepared: Vec<Prepared> = crate::util::par::map(&texts, |t| self.prepare(t));
        let lens: Vec<u32> = prepared.iter().map(|p| p.normalized.chars().count() as u32).collect();
        let words = self.short_words(&prepared.iter().collect::<Vec<_>>(), &lens);
        f(&|i| words.for_judge(pair_ids[i]))
    }

    fn count_judged(stats: &mut RunStats, report: Option<crate::judge::JudgeReport>) {
        if let Some(report) = report {
            stats.judge.get_or_insert_with(Default::default).add(&report);
        }
    }

    /// Weighs shingles by `importance` (the encoder's attention) as well as
    /// IDF; `model_hash` identifies what computes it, for the fingerprint.
    pub fn with_importance(mut self, importance: Box<dyn crate::sketch::TokenImportance>, model_hash: u128) -> Self {
        self.mix_fingerprint(b"importance", model_hash);
        self.signer = self.signer.with_importance(importance);
        self
    }

    fn mix_fingerprint(&mut self, what: &[u8], model_hash: u128) {
        let bytes = [&self.fingerprint.0[..], what, &model_hash.to_le_bytes()].concat();
        self.fingerprint = Fingerprint(crate::util::hash::hash128(&bytes).to_le_bytes());
    }

    /// The semantic stage, when one was added.
    pub fn semantic(&self) -> Option<&Stage> {
        self.semantic.as_ref()
    }

    /// The configuration it runs.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The fingerprint its signatures carry: the configuration's, mixed
    /// with the hashes of the models of the semantic stage and of token
    /// importance. Stores are opened with it, so that they refuse
    /// signatures made any other way.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
    }

    /// Where finished work is kept ([`Deduper::with_checkpoints`]).
    fn checkpoints(&self) -> Option<&dyn crate::util::checkpoint::Checkpoints> {
        #[cfg(not(target_arch = "wasm32"))]
        return self.checkpoints.as_deref();
        #[cfg(target_arch = "wasm32")]
        return None;
    }

    /// The blocker that turns signatures into candidate keys.
    pub fn blocker(&self) -> &Blocker {
        &self.blocker
    }

    /// Whether a judge gives second opinions ([`Deduper::with_judge`]).
    pub fn has_judge(&self) -> bool {
        self.judge.is_some()
    }

    /// The signer it sketches with, for signing outside a batch (a store).
    pub fn signer(&self) -> &Signer {
        &self.signer
    }

    /// Checks a document against the input rules.
    ///
    /// # Errors
    ///
    /// [`Error::Input`] when the text is longer than `limits.max_doc_bytes`
    /// or holds nothing but whitespace.
    pub fn check(&self, text: &str) -> Result<()> {
        let max = self.config.limits.max_doc_bytes;
        if text.len() as u64 > max {
            return Err(Error::Input(format!(
                "text is {} bytes, over the limit of {max} bytes (raise limits.max_doc_bytes or --max-doc-bytes)",
                text.len()
            )));
        }
        if text.trim().is_empty() {
            return Err(Error::Input("text is empty".into()));
        }
        Ok(())
    }

    /// A text's exact key ([`Prepared::exact`]), without shingling it.
    pub fn exact_key(&self, text: &str) -> u128 {
        crate::sketch::exact_key(&self.config.normalize.text(text))
    }

    /// Normalizes and shingles one text.
    pub fn prepare(&self, text: &str) -> Prepared {
        let mut p = self.signer.prepare(self.config.normalize.text(text));
        p.heading_numbers = heading::numbered_words(text, |line| self.config.normalize.text(line));
        let limit = self.config.decide.blocking().short_max_chars as usize;
        if p.normalized.len() <= 4 * limit && p.normalized.chars().count() <= limit {
            p.chunks = align::chunks(text, p.words, |piece| self.config.normalize.text(piece));
        }
        p
    }

    /// An empty index for incremental use, configured like this pipeline.
    pub fn new_index(&self) -> SignatureIndex {
        let index = SignatureIndex::new(self.blocker.clone(), &self.config.index);
        match &self.semantic {
            Some(stage) => index.with_semantic(self.semantic_blocking(stage)),
            None => index,
        }
    }

    /// An empty multi-index over semantic codes at the radius of the rules'
    /// lowest deciding cosine.
    fn semantic_blocking(&self, stage: &Stage) -> MultiIndex {
        let index = &self.config.index;
        MultiIndex::new(
            stage.projection.bits as u32,
            index.semantic_substring_bits,
            stage.projection.radius_for(self.config.decide.blocking().semantic_cosine),
            index.semantic_max_probe,
        )
    }

    /// Gives the signatures of short texts (those the decider lets embeddings
    /// decide for) their semantic part; `texts[i]` is the text of `sigs[i]`.
    /// Without a semantic stage, does nothing. Returns how many were embedded.
    ///
    /// # Errors
    ///
    /// The semantic stage's, when its embedder fails on a text.
    pub fn embed_short(&self, texts: &[&str], sigs: &mut [Signature], progress: &dyn Progress) -> Result<usize> {
        let Some(stage) = &self.semantic else { return Ok(0) };
        let max_chars = self.config.decide.blocking().semantic_max_chars;
        let short: Vec<usize> = (0..sigs.len()).filter(|&i| sigs[i].char_len <= max_chars).collect();
        let chosen: Vec<&str> = short.iter().map(|&i| texts[i]).collect();
        progress.stage("embed", chosen.len() as u64);
        for (&i, sketch) in short.iter().zip(stage.sketch(&chosen, progress)?) {
            sigs[i].semantic = Some(sketch);
        }
        Ok(short.len())
    }

    /// Compares two signatures; `words`: both texts read for alignment
    /// ([`WordStats::read`]), when they are at hand and short, so that what
    /// differs decides ([`align`]). A store's query has only signatures.
    pub fn verdict(&self, a: &Signature, b: &Signature, words: Option<(&Words, &Words)>) -> (Verdict, PairSignals) {
        self.verdict_reading(a, b, words.map(|w| move || w))
    }

    /// [`Deduper::verdict`], with the texts at hand read only if the pair is
    /// aligned: most candidate pairs share too little
    /// ([`align::worth_aligning`]), and reading a text costs more than
    /// comparing two signatures.
    pub(crate) fn verdict_reading<'w, 't: 'w>(
        &self,
        a: &Signature,
        b: &Signature,
        words: Option<impl FnOnce() -> (&'w Words<'t>, &'w Words<'t>)>,
    ) -> (Verdict, PairSignals) {
        let mut signals = PairSignals::between(a, b, self.config.decide.min_samples());
        signals.differences = words.map(|read| {
            if align::worth_aligning(signals.char_sim) {
                let (x, y) = read();
                align::differences(x, y)
            } else {
                Differences::apart()
            }
        });
        (self.config.decide.decide(&signals), signals)
    }

    /// A batch's distinct texts, the short ones to be read for alignment
    /// against the word statistics of them all.
    /// `char_lens[i]`: the characters of `texts[i]` ([`Signature::char_len`]).
    fn short_words<'t>(&self, texts: &[&'t Prepared], char_lens: &[u32]) -> ShortWords<'t> {
        let limit = self.config.decide.blocking().short_max_chars;
        let short: Vec<Option<&'t Prepared>> =
            texts.iter().zip(char_lens).map(|(&p, &n)| (n <= limit).then_some(p)).collect();
        let stats = WordStats::from_texts(
            short.iter().flatten().map(|p| p.normalized.as_str()),
            self.config.weights.idf_prior_docs,
        );
        let short = short.into_iter().map(|p| p.map(|p| Reading::new(&p.normalized, &p.chunks))).collect();
        ShortWords { stats, short }
    }

    /// De-duplicates one batch. Ids must be distinct and texts must pass
    /// [`Deduper::check`]; the caller reports bad input before calling.
    ///
    /// # Errors
    ///
    /// Only the semantic stage's, when its embedder fails on a text: ids
    /// and texts are not checked here.
    pub fn dedup(&self, docs: &[Document], progress: &dyn Progress) -> Result<Outcome> {
        let mut stats = RunStats {
            documents: docs.len() as u64,
            kernel: self.signer.kernel().name().to_owned(),
            ..Default::default()
        };
        let mut clock = Clock::start();

        progress.stage("normalize", docs.len() as u64);
        let prepared: Vec<Prepared> = crate::util::par::map(docs, |d| {
            let p = self.prepare(&d.text);
            progress.advance(1);
            p
        });
        clock.lap(&mut stats, "normalize");

        let Exact { distinct, copy_of } = Exact::group(&prepared);
        let mut copies = vec![0u32; docs.len()];
        copy_of.iter().flatten().for_each(|&first| copies[first as usize] += 1);
        stats.distinct_texts = distinct.len() as u64;
        clock.lap(&mut stats, "exact");

        let shingles: Vec<&[u64]> = distinct.iter().map(|&i| prepared[i as usize].sequence.as_slice()).collect();
        let corpus = CorpusStats::from_corpus(&self.config.weights, &shingles);
        clock.lap(&mut stats, "statistics");

        progress.stage("sign", distinct.len() as u64);
        let mut sigs: Vec<Signature> = crate::util::par::map(&distinct, |&i| {
            let s = self.signer.sign(&prepared[i as usize], &corpus);
            progress.advance(1);
            s
        });
        clock.lap(&mut stats, "sign");

        progress.stage("compare", 0);
        let blocker = &self.blocker;
        let (wb, cb) = blocker.bandings();
        (stats.weighted_banding, stats.char_banding) = (Some(wb), Some(cb));
        // A capped bucket links to its most-copied member: for a hot document, the original.
        let rank: Vec<u64> = distinct.iter().map(|&i| (u32::MAX - copies[i as usize]) as u64).collect();
        let sig_refs: Vec<&Signature> = sigs.iter().collect();
        let pairs = candidate_pairs(&sig_refs, &rank, blocker, self.config.index.bucket_cap.max(1) as usize);
        stats.candidate_pairs = pairs.len() as u64;
        clock.lap(&mut stats, "candidates");

        let distinct_prepared: Vec<&Prepared> = distinct.iter().map(|&i| &prepared[i as usize]).collect();
        let words = self.short_words(&distinct_prepared, &char_lens(&sigs));
        clock.lap(&mut stats, "word statistics");
        let (mut verdicts, apart): (Vec<Verdict>, Vec<bool>) = crate::util::par::map(&pairs, |&(a, b)| {
            let (verdict, signals) = self.verdict_of(&sigs, &words, a, b);
            (verdict, signals.headings_differ)
        })
        .into_iter()
        .unzip();
        let text = |k: u32| docs[distinct[k as usize] as usize].text.as_str();
        let judged = self.second_opinions(
            &mut verdicts,
            |i| (text(pairs[i].0), text(pairs[i].1)),
            |i| words.for_judge(pairs[i]),
            Relation::Near,
        );
        Self::count_judged(&mut stats, judged);
        let mut links = Self::links(&pairs, verdicts.iter().zip(apart), &distinct);
        stats.accepted_pairs = links.iter().filter(|l| l.relation.is_duplicate()).count() as u64;
        links.extend(
            copy_of.iter().enumerate().filter_map(|(i, first)| {
                first.map(|f| Link { a: i as u32, b: f, relation: Relation::Exact, score: 1.0 })
            }),
        );
        clock.lap(&mut stats, "verify");

        let mut placements = cluster(docs.len(), &links);
        clock.lap(&mut stats, "cluster");

        if let Some(stage) = &self.semantic {
            let found =
                self.semantic_links(stage, docs, &distinct, &placements, &mut sigs, &words, &mut stats, progress)?;
            clock.lap(&mut stats, "semantic");
            if !found.is_empty() {
                links.extend(found);
                placements = cluster(docs.len(), &links);
            }
        }

        let batch =
            Batch { docs, prepared: &prepared, distinct: &distinct, copy_of: &copy_of, corpus: &corpus, sigs: &sigs };
        let snippets = self.snippets(&batch, &placements);
        stats.snippets_found = snippets.len() as u64;
        clock.lap(&mut stats, "snippets");

        let results: Vec<DocResult> = placements
            .iter()
            .zip(docs)
            .map(|(p, d)| DocResult {
                id: d.id.clone(),
                cluster: p.cluster,
                representative: docs[p.representative as usize].id.clone(),
                relation: p.relation,
                score: p.score,
                parent: p.parent.map(|q| docs[q as usize].id.clone()),
            })
            .collect();
        stats.clusters = placements.iter().map(|p| p.cluster + 1).max().unwrap_or(0) as u64;
        stats.duplicates = results.iter().filter(|r| r.parent.is_some()).count() as u64;
        for r in &results {
            let name = serde_json::to_value(r.relation).expect("relation serialises");
            *stats.relations.entry(name.as_str().unwrap_or_default().to_owned()).or_default() += 1;
        }
        Ok(Outcome { docs: results, snippets, stats })
    }

    /// The semantic stage of a batch. Only documents the lexical stages left
    /// as their cluster's representative are embedded: an exact copy or a
    /// near duplicate is already settled, and its representative stands for
    /// it (a hot document copied 300 times costs one encoding, not 300). Of
    /// those, only texts short enough for the decider to use embeddings on.
    #[allow(clippy::too_many_arguments)]
    fn semantic_links<'t>(
        &self,
        stage: &Stage,
        docs: &[Document],
        distinct: &[u32],
        placements: &[crate::cluster::Placement],
        sigs: &mut [Signature],
        words: &ShortWords<'t>,
        stats: &mut RunStats,
        progress: &dyn Progress,
    ) -> Result<Vec<Link>> {
        let blocking = self.config.decide.blocking();
        let open: Vec<usize> = (0..distinct.len())
            .filter(|&k| {
                placements[distinct[k] as usize].parent.is_none() && sigs[k].char_len <= blocking.semantic_max_chars
            })
            .collect();
        let texts: Vec<&str> = open.iter().map(|&k| docs[distinct[k] as usize].text.as_str()).collect();
        progress.stage("embed", texts.len() as u64);
        #[cfg(not(target_arch = "wasm32"))]
        let sketches = match &self.checkpoints {
            Some(checkpoints) => {
                let (sketches, resumed) = stage.sketch_checkpointed(&texts, progress, checkpoints.as_ref())?;
                stats.semantic_resumed = resumed;
                sketches
            }
            None => stage.sketch(&texts, progress)?,
        };
        #[cfg(target_arch = "wasm32")]
        let sketches = stage.sketch(&texts, progress)?;
        stats.semantic_encoded = texts.len() as u64;
        for (&k, sketch) in open.iter().zip(sketches) {
            sigs[k].semantic = Some(sketch);
        }
        let template = self.semantic_blocking(stage);
        stats.semantic_radius = Some(template.radius());
        let codes: Vec<&[u64]> =
            open.iter().map(|&k| sigs[k].semantic.as_ref().expect("just sketched").code.as_slice()).collect();
        let pairs = MultiIndex::pairs(&codes, &template);
        stats.semantic_candidate_pairs = pairs.len() as u64;
        // Pairs of positions in `distinct`, as the lexical stage has them.
        let pairs: Vec<(u32, u32)> =
            pairs.iter().map(|&(a, b)| (open[a as usize] as u32, open[b as usize] as u32)).collect();
        let text = |k: u32| docs[distinct[k as usize] as usize].text.as_str();
        // Without the encoder there is no verifier and the signals are
        // dropped at once: the lite wasm module stays within its size budget.
        #[cfg(not(feature = "encoder"))]
        let mut verdicts: Vec<Verdict> = crate::util::par::map(&pairs, |&(a, b)| self.verdict_of(sigs, words, a, b).0);
        #[cfg(feature = "encoder")]
        let mut verdicts: Vec<Verdict> = {
            let mut decided = crate::util::par::map(&pairs, |&(a, b)| self.verdict_of(sigs, words, a, b));
            if let Some(verifier) = &self.verifier {
                let verified = self.verify(verifier, &pairs, &mut decided, sigs, words, text, docs.len(), progress)?;
                stats.semantic_verified = Some(verified);
            }
            decided.into_iter().map(|(v, _)| v).collect()
        };
        let judged = self.second_opinions(
            &mut verdicts,
            |i| (text(pairs[i].0), text(pairs[i].1)),
            |i| words.for_judge(pairs[i]),
            Relation::Paraphrase,
        );
        Self::count_judged(stats, judged);
        let links = Self::links(&pairs, verdicts.iter().map(|v| (v, false)), distinct);
        stats.semantic_accepted_pairs = links.len() as u64;
        Ok(links)
    }

    /// The verdict on positions `a` and `b` of a batch's texts.
    fn verdict_of(&self, sigs: &[Signature], words: &ShortWords, a: u32, b: u32) -> (Verdict, PairSignals) {
        let (a, b) = (a as usize, b as usize);
        let read = || (words.get(a).expect("a short text"), words.get(b).expect("a short text"));
        self.verdict_reading(&sigs[a], &sigs[b], (words.is_short(a) && words.is_short(b)).then_some(read))
    }

    /// The [`Verifier`]'s second look at `decided`, the verdicts and signals
    /// of semantic `pairs` (positions in `sigs`, whose texts `text` gives);
    /// `documents` sets the budget.
    #[cfg(feature = "encoder")]
    #[allow(clippy::too_many_arguments)]
    fn verify<'t>(
        &self,
        verifier: &Verifier,
        pairs: &[(u32, u32)],
        decided: &mut [(Verdict, PairSignals)],
        sigs: &[Signature],
        words: &ShortWords,
        text: impl Fn(u32) -> &'t str,
        documents: usize,
        progress: &dyn Progress,
    ) -> Result<Verified> {
        let decide = &self.config.decide;
        // The nearest margin at which moving the cosine flips the verdict.
        let flips_within = |s: &PairSignals| {
            let cosine = s.cosine?;
            let at = |c: f32| decide.decide(&PairSignals { cosine: Some(c), ..*s }).relation.is_duplicate();
            VERIFY_MARGINS.iter().position(|&m| at(cosine + m) != at(cosine - m))
        };
        let mut unsure: Vec<(usize, usize)> =
            decided.iter().enumerate().filter_map(|(i, (_, s))| Some((flips_within(s)?, i))).collect();
        unsure.sort_unstable();
        let allowed = (verifier.budget as f64 * documents as f64) as usize;
        // Texts to embed (positions in `sigs`), in order, and where each is in it.
        let (mut order, mut chosen) = (Vec::new(), std::collections::HashMap::new());
        let mut checked = Vec::new();
        for &(_, i) in &unsure {
            let (a, b) = pairs[i];
            // `compare` may hold a text paired with itself.
            let new = !chosen.contains_key(&a) as usize + (a != b && !chosen.contains_key(&b)) as usize;
            if order.len() + new <= allowed {
                for k in [a, b] {
                    chosen.entry(k).or_insert_with(|| {
                        order.push(k);
                        order.len() - 1
                    });
                }
                checked.push(i);
            }
        }
        let texts: Vec<&str> = order.iter().map(|&k| text(k)).collect();
        progress.stage("verify", texts.len() as u64);
        let sketches = verifier.stage.sketch(&texts, progress)?;
        // Each chosen text's signature with the verifier's sketch, made once
        // however many of its pairs are checked.
        let again: Vec<Signature> = order
            .iter()
            .zip(sketches)
            .map(|(&k, sketch)| Signature { semantic: Some(sketch), ..sigs[k as usize].clone() })
            .collect();
        let mut changed = 0;
        for &i in &checked {
            let (a, b) = pairs[i];
            let pair = words.get(a as usize).zip(words.get(b as usize));
            let (verdict, signals) = self.verdict(&again[chosen[&a]], &again[chosen[&b]], pair);
            changed += (verdict.relation != decided[i].0.relation) as u64;
            decided[i] = (verdict, signals);
        }
        Ok(Verified {
            unsure_pairs: unsure.len() as u64,
            pairs: checked.len() as u64,
            changed,
            embedded: order.len() as u64,
            documents: documents as u64,
        })
    }

    /// The links `decided` pairs make ([`Link::decided`]; `pairs` are
    /// positions in `distinct`), as links between documents.
    fn links<'v>(
        pairs: &[(u32, u32)],
        decided: impl Iterator<Item = (&'v Verdict, bool)>,
        distinct: &[u32],
    ) -> Vec<Link> {
        pairs
            .iter()
            .zip(decided)
            .filter_map(|(&(a, b), (v, apart))| Link::decided(distinct[a as usize], distinct[b as usize], v, apart))
            .collect()
    }

    /// Passages shared by documents of at least `min_docs` different clusters.
    fn snippets(&self, batch: &Batch<'_>, placements: &[crate::cluster::Placement]) -> Vec<Snippet> {
        let Batch { docs, prepared, distinct, copy_of, corpus, sigs } = *batch;
        let config = &self.config.snippets;
        let n = self.config.sketch.word_ngram as usize;
        // Only documents with boilerplate passages can hold a snippet.
        let holders: Vec<u32> =
            distinct.iter().zip(sigs).filter(|(_, s)| s.boilerplate_share > 0.0).map(|(&i, _)| i).collect();
        let found = crate::util::par::flat_map_indexed(&holders, |_, &i| {
            let p = &prepared[i as usize];
            snippets::occurrences(i, &p.normalized, &p.sequence, n, corpus, config)
        });
        let mut holders_of: Vec<Vec<u32>> = vec![Vec::new(); docs.len()];
        for (i, first) in copy_of.iter().enumerate() {
            if let Some(f) = first {
                holders_of[*f as usize].push(i as u32);
            }
        }
        let mut out = Vec::new();
        for group in snippets::group(found, config) {
            let mut clusters: Vec<u32> = group.iter().map(|o| placements[o.doc as usize].cluster).collect();
            clusters.sort_unstable();
            clusters.dedup();
            if clusters.len() < config.min_docs as usize {
                continue;
            }
            let first = group[0];
            let original = &docs[first.doc as usize].text;
            let aligned = self.config.normalize.run(original);
            let span = aligned.original_span(original, first.start as usize, first.end as usize);
            let mut ids: Vec<u32> = group
                .iter()
                .flat_map(|o| std::iter::once(o.doc).chain(holders_of[o.doc as usize].iter().copied()))
                .collect();
            ids.sort_unstable();
            out.push(Snippet {
                text: original[span].trim().to_owned(),
                words: first.words,
                docs: ids.into_iter().map(|d| docs[d as usize].id.clone()).collect(),
            });
            if out.len() >= config.max_reported as usize {
                break;
            }
        }
        out
    }

    /// Scores pairs of texts against each other, with corpus statistics drawn
    /// from all texts of all pairs (IDF needs a corpus; these are the one
    /// given). The model's verdicts: [`Deduper::second_opinions`] asks the judge.
    ///
    /// # Errors
    ///
    /// The semantic stage's, when its embedder fails on a text.
    pub fn compare(&self, pairs: &[(&str, &str)]) -> Result<Vec<(Verdict, PairSignals)>> {
        Ok(self.compare_with(pairs, |_, _, _| ())?.into_iter().map(|(decided, ())| decided).collect())
    }

    /// [`Deduper::compare`], with the words the alignment left unmatched on
    /// each side of a pair of short texts ([`align::unmatched_words`]): the
    /// reason for a verdict, for people to read. `None` where the texts were
    /// not aligned (one is long, or they share too little).
    ///
    /// # Errors
    ///
    /// What [`Deduper::compare`] refuses.
    #[allow(clippy::type_complexity)]
    pub fn explain(&self, pairs: &[(&str, &str)]) -> Result<Vec<((Verdict, PairSignals), Option<align::Unmatched>)>> {
        self.compare_with(pairs, |words, (a, b), signals| {
            if signals.differences.is_none() || !align::worth_aligning(signals.char_sim) {
                return None;
            }
            Some(align::unmatched_words(words.get(a)?, words.get(b)?))
        })
    }

    /// [`Deduper::compare`], with `extra` of each pair (its texts' positions
    /// and signals) computed while the texts are read.
    fn compare_with<T: Send>(
        &self,
        pairs: &[(&str, &str)],
        extra: impl Fn(&ShortWords, (usize, usize), &PairSignals) -> T + Sync + Send,
    ) -> Result<Vec<((Verdict, PairSignals), T)>> {
        let (texts, pair_ids) = distinct_texts(pairs);
        let prepared: Vec<Prepared> = crate::util::par::map(&texts, |t| self.prepare(t));
        let sigs = self.sign_prepared(&prepared, &texts, &Silent)?;
        let words = self.short_words(&prepared.iter().collect::<Vec<_>>(), &char_lens(&sigs));
        #[allow(unused_mut)]
        let mut decided = crate::util::par::map(&pair_ids, |&(a, b)| self.verdict_of(&sigs, &words, a, b));
        #[cfg(feature = "encoder")]
        if let Some(verifier) = &self.verifier {
            let text = |k: u32| texts[k as usize];
            self.verify(verifier, &pair_ids, &mut decided, &sigs, &words, text, texts.len(), &Silent)?;
        }
        let extras = crate::util::par::map(&pair_ids.iter().zip(&decided).collect::<Vec<_>>(), |&(&(a, b), d)| {
            extra(&words, (a as usize, b as usize), &d.1)
        });
        Ok(decided.into_iter().zip(extras).collect())
    }

    /// Signs texts as one corpus: the statistics are those of these texts
    /// (exact copies counted once). The same texts give the same signatures on
    /// every platform. With a semantic stage every text is embedded too.
    ///
    /// # Errors
    ///
    /// The semantic stage's, when its embedder fails on a text.
    pub fn sign_batch(&self, texts: &[&str], progress: &dyn Progress) -> Result<Vec<Signature>> {
        let prepared: Vec<Prepared> = crate::util::par::map(texts, |t| self.prepare(t));
        self.sign_prepared(&prepared, texts, progress)
    }

    /// [`Deduper::sign_batch`] of texts already prepared (`prepared[i]` from `texts[i]`).
    fn sign_prepared(&self, prepared: &[Prepared], texts: &[&str], progress: &dyn Progress) -> Result<Vec<Signature>> {
        let distinct: Vec<&[u64]> =
            Exact::group(prepared).distinct.iter().map(|&i| prepared[i as usize].sequence.as_slice()).collect();
        let corpus = CorpusStats::from_corpus(&self.config.weights, &distinct);
        let mut sigs = crate::util::par::map(prepared, |p| self.signer.sign(p, &corpus));
        if let Some(stage) = &self.semantic {
            progress.stage("embed", texts.len() as u64);
            for (sig, sketch) in sigs.iter_mut().zip(stage.sketch(texts, progress)?) {
                sig.semantic = Some(sketch);
            }
        }
        Ok(sigs)
    }
}

/// Stage 0: exact copies point at the first holder of their key.
struct Exact {
    /// First holders of each distinct text, in input order.
    distinct: Vec<u32>,
    /// For a later copy, the first holder of its text.
    copy_of: Vec<Option<u32>>,
}

impl Exact {
    fn group(prepared: &[Prepared]) -> Exact {
        let mut index = ExactIndex::with_capacity(prepared.len() as u64);
        let mut distinct = Vec::new();
        let copy_of = (0..prepared.len() as u32)
            .map(|i| {
                let first = index.insert(prepared[i as usize].exact, i);
                if first.is_none() {
                    distinct.push(i);
                }
                first
            })
            .collect();
        Exact { distinct, copy_of }
    }
}

/// The short texts of a batch, each read for alignment ([`WordStats::read`])
/// the first time a pair needs it: most short texts are in no candidate
/// pair.
struct ShortWords<'t> {
    stats: WordStats,
    /// By position in the batch: the text when it is short.
    short: Vec<Option<Reading<'t>>>,
}

/// The distinct texts of `pairs`, each once, and each pair as two positions among them.
fn distinct_texts<'p>(pairs: &[(&'p str, &'p str)]) -> (Vec<&'p str>, Vec<(u32, u32)>) {
    let mut index_of: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut texts: Vec<&str> = Vec::new();
    let pair_ids = pairs
        .iter()
        .map(|&(a, b)| {
            let mut id = |t| {
                *index_of.entry(t).or_insert_with(|| {
                    texts.push(t);
                    texts.len() as u32 - 1
                })
            };
            (id(a), id(b))
        })
        .collect();
    (texts, pair_ids)
}

/// What [`Deduper::short_words`] takes of signatures.
fn char_lens(sigs: &[Signature]) -> Vec<u32> {
    sigs.iter().map(|s| s.char_len).collect()
}

impl<'t> ShortWords<'t> {
    /// How the alignment pairs the words of texts `a` and `b`, for a judge
    /// ([`crate::judge::Pair::words`]); `None` when one is long, and in
    /// builds whose judges do not read them (no encoder, no endpoint: the
    /// lite wasm module, kept within its size budget).
    fn for_judge(&self, (a, b): (u32, u32)) -> Option<AlignedWords> {
        #[cfg(any(feature = "encoder", feature = "endpoint"))]
        return Some(align::aligned_words(self.get(a as usize)?, self.get(b as usize)?));
        #[cfg(not(any(feature = "encoder", feature = "endpoint")))]
        {
            let _ = (a, b);
            None
        }
    }

    /// Whether text `k` is short: read for alignment when a pair needs it.
    fn is_short(&self, k: usize) -> bool {
        self.short[k].is_some()
    }

    /// Text `k` read for alignment; `None` when it is long.
    fn get(&self, k: usize) -> Option<&Words<'t>> {
        self.short[k].as_ref().map(|r| r.words(&self.stats))
    }
}

/// What a batch has computed by the time snippets are mined.
#[derive(Clone, Copy)]
struct Batch<'a> {
    docs: &'a [Document],
    prepared: &'a [Prepared],
    distinct: &'a [u32],
    copy_of: &'a [Option<u32>],
    corpus: &'a CorpusStats,
    /// Signatures of the distinct texts, in the order of `distinct`.
    sigs: &'a [Signature],
}

/// Stage timings (none on wasm32, which has no monotonic clock without JS).
struct Clock {
    #[cfg(not(target_arch = "wasm32"))]
    last: std::time::Instant,
}

impl Clock {
    fn start() -> Self {
        Clock {
            #[cfg(not(target_arch = "wasm32"))]
            last: std::time::Instant::now(),
        }
    }

    fn lap(&mut self, stats: &mut RunStats, stage: &str) {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let now = std::time::Instant::now();
            stats.timings_ms.insert(stage.to_owned(), (now - self.last).as_secs_f64() * 1e3);
            self.last = now;
        }
        #[cfg(target_arch = "wasm32")]
        let _ = (stats, stage);
    }
}
