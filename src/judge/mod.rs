//! Stage 4b: a second opinion on the pairs the model is unsure of.
//!
//! The decision model (gated fusion and the learned boundary in
//! [`crate::decide`]) is cheap and right about most pairs, but near its
//! boundary it is close to a coin toss. A judge is a slower, independent look
//! at one pair of texts. Spending it on every candidate pair would cost more
//! than the rest of the cascade together, so a [`Budget`] caps the calls (by
//! default 1% of the candidate pairs) and gives them to the pairs the model is
//! least sure of; [`merge`] then weighs the judge's verdict against the
//! model's by their confidences.
//!
//! Judges, behind the [`Judge`] trait:
//! - [`Aligner`] (default, offline): token-level alignment of the two texts
//!   with the student encoder, BERTScore style, calibrated to a probability.
//!   Needs the `encoder` feature.
//! - [`Endpoint`]: an LLM behind an OpenAI-compatible chat endpoint
//!   (llama.cpp server, vLLM, Ollama) answering in a JSON schema, with the
//!   documents fenced as data ([`prompt`]). Needs the `endpoint` feature.
//!
//! A judge that fails on a pair (timeout, bad reply) loses nothing: the model's
//! verdict stands for that pair and the [`JudgeReport`] counts the failure.
//!
//! [`judge_uncertain`] is the one call the pipeline makes:
//!
//! ```
//! use semhash::judge::{judge_uncertain, Budget, Judge, Judgement, Pair, Uncertain};
//!
//! /// A stand-in judge: duplicates are texts of the same length.
//! struct SameLength;
//! impl Judge for SameLength {
//!     fn name(&self) -> &'static str { "same-length" }
//!     fn judge(&self, pairs: &[Pair<'_>]) -> Vec<semhash::Result<Judgement>> {
//!         pairs.iter().map(|p| Ok(Judgement::new(p.a.len() == p.b.len(), 0.9))).collect()
//!     }
//! }
//!
//! let uncertain = [
//!     Uncertain { index: 7, a: "one text", b: "two text", p: 0.45, uncertainty: 0.9, threshold: 0.5 },
//!     Uncertain { index: 9, a: "short", b: "a longer one", p: 0.6, uncertainty: 0.2, threshold: 0.5 },
//! ];
//! // 100 candidate pairs at 1%: one call, for the less certain pair.
//! let report = judge_uncertain(&SameLength, 100, &uncertain, &Budget::default());
//! assert_eq!((report.calls, report.used), (1, 0.01));
//! assert_eq!(report.decisions[0].index, 7);
//! assert!(report.decisions[0].p > 0.5, "the judge overrules an unsure model");
//! ```

#[cfg(feature = "encoder")]
mod align;
#[cfg(feature = "endpoint")]
mod endpoint;
pub mod prompt;
mod remembered;

#[cfg(feature = "encoder")]
pub use align::{fit_calibration, Aligner};
#[cfg(feature = "endpoint")]
pub use endpoint::Endpoint;
pub use remembered::Remembered;

use crate::decide::align::AlignedWords;
use crate::decide::{shift_odds, Relation};
use crate::Result;
use serde::{Deserialize, Serialize};

/// One pair for a judge: two texts, the model's probability that they are
/// duplicates (a judge may use it as a prior, or ignore it) and, for two
/// short texts, how the lexical alignment paired their words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair<'a> {
    /// The first text.
    pub a: &'a str,
    /// The second text.
    pub b: &'a str,
    /// The model's probability that they are duplicates.
    pub p: f32,
    /// The texts' words as the alignment paired them ([`AlignedWords`]): what
    /// differs, which is what a second opinion should be about. `None` for
    /// long texts, and in builds whose judges do not read them (the lite
    /// wasm module, whose JS judge gets the texts and `p`).
    pub words: Option<&'a AlignedWords>,
}

impl<'a> Pair<'a> {
    /// A pair with nothing known of its words.
    pub fn new(a: &'a str, b: &'a str, p: f32) -> Pair<'a> {
        Pair { a, b, p, words: None }
    }
}

/// A judge's verdict on one pair.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    /// Whether the judge finds the texts duplicates.
    pub duplicate: bool,
    /// How sure the judge is of `duplicate`, in [0, 1]: 0 is a guess.
    pub confidence: f32,
    /// How the texts relate, when the judge says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relation: Option<Relation>,
    /// The judge's own score before it became a verdict (the alignment F1 of
    /// [`Aligner`]), when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f32>,
}

impl Judgement {
    /// A verdict with its confidence (clamped to [0, 1]) and nothing else.
    pub fn new(duplicate: bool, confidence: f32) -> Judgement {
        Judgement { duplicate, confidence: clamp01(confidence), relation: None, score: None }
    }

    /// The verdict as a probability of duplicate: confidence 0 is 0.5,
    /// confidence 1 is 0 or 1.
    pub fn probability(&self) -> f32 {
        let c = clamp01(self.confidence);
        if self.duplicate {
            0.5 + c / 2.0
        } else {
            0.5 - c / 2.0
        }
    }
}

fn clamp01(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// Decides pairs of texts. Implementations are shared across threads.
pub trait Judge: Send + Sync {
    /// A short name for reports.
    fn name(&self) -> &'static str;

    /// One outcome per pair, in the order of `pairs`. A pair the judge could
    /// not decide is an `Err` of its own: it never takes the others with it.
    fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>>;
}

/// Merges the model's probability with a judge's verdict: a linear pool of
/// the two, each weighted by how sure it is,
///
/// ```text
/// w_model = 1 - uncertainty        w_judge = confidence
/// p = (w_model * model_p + w_judge * [duplicate]) / (w_model + w_judge)
/// ```
///
/// where `[duplicate]` is 1 or 0 and `uncertainty` (0: sure, 1: knows
/// nothing) is the model's own estimate for the pair. Why this form:
/// - a judge that is sure where the model is not decides the pair, which is
///   the point of asking it; a judge at confidence 0 changes nothing;
/// - a linear pool never goes past its most extreme member (unlike summing
///   log-odds), so one overconfident voice cannot make the result more
///   certain than that voice itself;
/// - with both weights 0 nothing is known beyond the model: its `p` stands.
///
/// ```
/// use semhash::judge::{merge, Judgement};
/// let sure_judge = Judgement::new(true, 0.9);
/// assert!(merge(0.4, 1.0, &sure_judge) > 0.99); // the model knew nothing
/// assert!((merge(0.4, 0.5, &sure_judge) - 0.786).abs() < 0.001); // (0.5 * 0.4 + 0.9) / 1.4
/// assert_eq!(merge(0.4, 0.3, &Judgement::new(true, 0.0)), 0.4);
/// ```
pub fn merge(model_p: f32, model_uncertainty: f32, judgement: &Judgement) -> f32 {
    let (w_model, w_judge) = (1.0 - clamp01(model_uncertainty), clamp01(judgement.confidence));
    if w_model + w_judge <= 0.0 {
        return model_p;
    }
    let vote = if judgement.duplicate { 1.0 } else { 0.0 };
    (w_model * clamp01(model_p) + w_judge * vote) / (w_model + w_judge)
}

/// How many judge calls a run may spend, and on which pairs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Budget {
    /// Most calls as a share of the run's candidate pairs (rounded down).
    pub fraction: f64,
    /// Most calls in a run whatever the share (none by default).
    pub max_calls: Option<u64>,
}

impl Default for Budget {
    fn default() -> Self {
        // The paper's headline: under 1% of the cost on neural verification.
        Budget { fraction: 0.01, max_calls: None }
    }
}

impl Budget {
    /// Calls allowed for a run with this many candidate pairs.
    pub fn calls(&self, candidates: usize) -> usize {
        let share = (self.fraction.clamp(0.0, 1.0) * candidates as f64).floor() as usize;
        self.max_calls.map_or(share, |m| share.min(m.min(usize::MAX as u64) as usize))
    }

    /// Positions in `pairs` of those to judge: the most uncertain first (then
    /// the closest to the threshold, then input order, so runs repeat), at most
    /// [`Budget::calls`] of them.
    pub fn pick(&self, candidates: usize, pairs: &[Uncertain<'_>]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..pairs.len()).collect();
        let key = |i: usize| (-clamp01(pairs[i].uncertainty), (pairs[i].centred() - 0.5).abs());
        order.sort_by(|&x, &y| key(x).partial_cmp(&key(y)).expect("no NaN after clamping").then(x.cmp(&y)));
        order.truncate(self.calls(candidates));
        order
    }
}

/// A pair in the uncertain band, as the pipeline hands it over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Uncertain<'a> {
    /// The caller's index for the pair (into its candidate list).
    pub index: usize,
    /// The first text.
    pub a: &'a str,
    /// The second text.
    pub b: &'a str,
    /// The model's probability of duplicate.
    pub p: f32,
    /// The model's uncertainty about `p`: 0 sure, 1 knows nothing.
    pub uncertainty: f32,
    /// The probability at which the model calls a pair a duplicate.
    pub threshold: f32,
}

impl Uncertain<'_> {
    /// `p` on the scale where the model decides at 0.5 ([`shift_odds`]).
    fn centred(&self) -> f32 {
        shift_odds(clamp01(self.p), self.threshold, 0.5)
    }
}

/// What became of one judged pair.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The caller's index for the pair.
    pub index: usize,
    /// The model's probability, before the judge.
    pub model_p: f32,
    /// The merged probability ([`merge`]); the model's own where the judge failed.
    pub p: f32,
    /// The judge's verdict; `None` when it gave none (see `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<Judgement>,
    /// Why the judge gave no verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the judge did in a run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JudgeReport {
    /// The judge's [`name`](Judge::name).
    pub judge: String,
    /// Candidate pairs in the run: the budget's base.
    pub candidates: usize,
    /// Pairs offered in the uncertain band.
    pub uncertain: usize,
    /// Calls the budget allowed.
    pub allowed: usize,
    /// Pairs sent to the judge.
    pub calls: usize,
    /// Calls that gave no verdict (the model's verdict stands).
    pub failed: usize,
    /// Pairs the judge moved across the model's threshold.
    pub changed: usize,
    /// `calls / candidates`: the share of the budget's base spent.
    pub used: f64,
    /// One per pair sent, most uncertain first.
    pub decisions: Vec<Decision>,
}

/// Judges the most uncertain of `pairs` within `budget` (a share of
/// `candidates`, the run's candidate pairs) and merges each verdict with the
/// model's. Pairs not picked are not in the report: their model `p` stands.
pub fn judge_uncertain(judge: &dyn Judge, candidates: usize, pairs: &[Uncertain<'_>], budget: &Budget) -> JudgeReport {
    judge_uncertain_with_words(judge, candidates, pairs, budget, &|_| None)
}

/// [`judge_uncertain`], telling the judge each pair's words ([`Pair::words`]):
/// `words(index)` for the pair of [`Uncertain::index`], asked only for the
/// pairs the budget picks (aligning a pair's words costs). A `dyn`, so that
/// every caller shares one copy of this function (the lite wasm budget).
pub fn judge_uncertain_with_words(
    judge: &dyn Judge,
    candidates: usize,
    pairs: &[Uncertain<'_>],
    budget: &Budget,
    words: &dyn Fn(usize) -> Option<AlignedWords>,
) -> JudgeReport {
    let picked = budget.pick(candidates, pairs);
    let aligned: Vec<Option<AlignedWords>> = picked.iter().map(|&i| words(pairs[i].index)).collect();
    let batch: Vec<Pair<'_>> = picked
        .iter()
        .zip(&aligned)
        .map(|(&i, w)| Pair { a: pairs[i].a, b: pairs[i].b, p: pairs[i].p, words: w.as_ref() })
        .collect();
    let mut outcomes = judge.judge(&batch);
    // A judge that returns too few outcomes has failed on the rest.
    outcomes.resize_with(batch.len(), || Err(crate::Error::Input(format!("{} gave no verdict", judge.name()))));
    let decisions: Vec<Decision> = picked
        .iter()
        .zip(outcomes)
        .map(|(&i, outcome)| {
            let u = &pairs[i];
            match outcome {
                // Merged where the model's threshold is 0.5, so the judge's vote
                // weighs the same on either side of the model's decision.
                Ok(j) => Decision {
                    index: u.index,
                    model_p: u.p,
                    p: shift_odds(merge(u.centred(), u.uncertainty, &j), 0.5, u.threshold),
                    judgement: Some(j),
                    error: None,
                },
                Err(e) => {
                    Decision { index: u.index, model_p: u.p, p: u.p, judgement: None, error: Some(e.to_string()) }
                }
            }
        })
        .collect();
    JudgeReport {
        judge: judge.name().to_owned(),
        candidates,
        uncertain: pairs.len(),
        allowed: budget.calls(candidates),
        calls: decisions.len(),
        failed: decisions.iter().filter(|d| d.error.is_some()).count(),
        changed: decisions
            .iter()
            .zip(&picked)
            .filter(|(d, &i)| (d.p >= pairs[i].threshold) != (d.model_p >= pairs[i].threshold))
            .count(),
        used: if candidates == 0 { 0.0 } else { decisions.len() as f64 / candidates as f64 },
        decisions,
    }
}

/// A judge as a stage of the pipeline: which verdicts it is offered and how
/// many it may take ([`crate::Deduper::with_judge`]).
pub struct Stage {
    /// The judge asked.
    pub judge: Box<dyn Judge>,
    /// How many of the offered verdicts it may take.
    pub budget: Budget,
    /// Verdicts at least this uncertain are offered (0: the model is sure, 1:
    /// it knows nothing); the budget then takes the most uncertain of them.
    pub band: f32,
}

/// What the judges did in a run, summed over the pipeline's stages.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct JudgeStats {
    /// The judge's [`name`](Judge::name) (that of the last report added).
    pub judge: String,
    /// Candidate pairs decided by the model: the budget's base.
    pub candidates: usize,
    /// Verdicts in the band.
    pub uncertain: usize,
    /// Pairs sent to the judge.
    pub calls: usize,
    /// Calls that gave no verdict (the model's verdict stands).
    pub failed: usize,
    /// Verdicts the judge turned (duplicate to not, or back).
    pub changed: usize,
    /// `calls / candidates`.
    pub used: f64,
}

impl From<&JudgeReport> for JudgeStats {
    fn from(report: &JudgeReport) -> Self {
        let mut stats = JudgeStats::default();
        stats.add(report);
        stats
    }
}

impl JudgeStats {
    /// Counts one report in. `used` is computed again from the sums: the
    /// share spent over the whole run, not a mean of the stages' shares.
    pub fn add(&mut self, report: &JudgeReport) {
        self.judge.clone_from(&report.judge);
        self.candidates += report.candidates;
        self.uncertain += report.uncertain;
        self.calls += report.calls;
        self.failed += report.failed;
        self.changed += report.changed;
        self.used = if self.candidates == 0 { 0.0 } else { self.calls as f64 / self.candidates as f64 };
    }
}

/// Which judge, and its knobs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum JudgeWrapper {
    /// [`Aligner`]: the student encoder's token alignment (offline).
    Local(AlignConfig),
    /// [`Endpoint`]: an LLM behind an OpenAI-compatible chat endpoint.
    Endpoint(EndpointConfig),
}

impl Default for JudgeWrapper {
    fn default() -> Self {
        JudgeWrapper::Local(AlignConfig::default())
    }
}

/// The judge stage: which judge and how much of it (`judge` in a
/// [`Config`](crate::Config); the defaults are stated here only).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JudgeConfig {
    /// Which judge, with its knobs.
    pub judge: JudgeWrapper,
    /// How many calls a run may make, and on which pairs.
    pub budget: Budget,
    /// Verdicts at least this uncertain are offered ([`Stage::band`]).
    pub band: f32,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig { judge: JudgeWrapper::default(), budget: Budget::default(), band: 0.5 }
    }
}

impl JudgeConfig {
    /// Checks the values a JSON schema cannot.
    ///
    /// # Errors
    ///
    /// [`Error::Config`](crate::Error::Config) naming the first bad value:
    /// a budget or band outside [0, 1], an endpoint's timeout of 0 or
    /// concurrency of 0.
    pub fn validate(&self) -> crate::Result<()> {
        let bad = |m: String| Err(crate::Error::Config(m));
        if !(0.0..=1.0).contains(&self.budget.fraction) {
            return bad(format!("judge.budget.fraction must be in [0, 1], got {}", self.budget.fraction));
        }
        if !(0.0..=1.0).contains(&self.band) {
            return bad(format!("judge.band must be in [0, 1], got {}", self.band));
        }
        if let JudgeWrapper::Endpoint(e) = &self.judge {
            if e.timeout_ms == 0 {
                return bad("judge.judge.timeout_ms must be at least 1".into());
            }
            if e.concurrency == 0 {
                return bad("judge.judge.concurrency must be at least 1".into());
            }
        }
        Ok(())
    }

    /// The stage that asks `judge` under this budget and band.
    pub fn stage(&self, judge: Box<dyn Judge>) -> Stage {
        Stage { judge, budget: self.budget.clone(), band: self.band }
    }
}

/// Knobs of [`Aligner`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlignConfig {
    /// From alignment F1 to probability for pairs whose words are known
    /// ([`Pair::words`]: the tokens are weighted).
    pub weighted: Calibration,
    /// The same for pairs without (every token alike): the two F1s spread
    /// differently, so each has its own curve.
    pub unweighted: Calibration,
    /// Pairs encoded together (both texts of each).
    pub batch_pairs: usize,
}

impl Default for AlignConfig {
    fn default() -> Self {
        AlignConfig {
            weighted: Calibration { scale: 21.48, midpoint: 0.5283 },
            unweighted: Calibration { scale: 21.51, midpoint: 0.6516 },
            batch_pairs: 64,
        }
    }
}

/// A logistic calibration `p = sigmoid(scale * (score - midpoint))` from a
/// score to a probability of duplicate. The [`AlignConfig`] defaults were
/// fitted ([`fit_calibration`]) on 3,678 pairs made by editing 1,839 texts of
/// the project's `fortunes.jsonl`, no labels: `cargo run --release --example
/// fit_align -- fortunes.jsonl 2000` (models/README.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calibration {
    /// How steeply the probability rises with the score.
    pub scale: f32,
    /// The score at which the probability is 0.5.
    pub midpoint: f32,
}

impl Calibration {
    /// The probability of duplicate at `score`.
    pub fn probability(&self, score: f32) -> f32 {
        1.0 / (1.0 + (-self.scale * (score - self.midpoint)).exp())
    }
}

/// Knobs of [`Endpoint`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EndpointConfig {
    /// The server's base URL, `http://` only (no TLS in this build); requests
    /// go to `{url}/v1/chat/completions`.
    pub url: String,
    /// The `model` field of each request (llama.cpp's server ignores it;
    /// vLLM and Ollama route by it).
    pub model: String,
    /// Whole-request limit, milliseconds.
    pub timeout_ms: u64,
    /// Further tries after a timeout, a 5xx or 429 answer, or a reply that is
    /// not the JSON asked for.
    pub retries: u32,
    /// First wait before a retry, milliseconds; doubles each try.
    pub backoff_ms: u64,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Environment variable holding the API key sent as a bearer token, if
    /// set (the key itself is never stored in the config nor logged).
    pub api_key_env: String,
    /// Longest reply, in tokens.
    pub max_tokens: u32,
    /// Characters of each document sent (the rest is cut, and the prompt
    /// says so): both documents must fit the model's context.
    pub max_doc_chars: usize,
    /// How the answer's form is asked for. A server that refuses this form
    /// (its error names `response_format`) is asked in the next simpler one
    /// from then on: `json_schema`, then `json_object`, then `none`.
    pub response_format: ResponseFormat,
}

/// How a chat request constrains the answer to the verdict's JSON schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormat {
    /// `{"type": "json_schema", "json_schema": {"schema": ...}}`: OpenAI's
    /// form, served by llama.cpp's server, vLLM and Ollama.
    JsonSchema,
    /// `{"type": "json_object", "schema": ...}`: llama-cpp-python's server.
    JsonObject,
    /// No constraint: the verdict is read from the reply's text.
    None,
}

impl ResponseFormat {
    /// The next simpler form, if any.
    pub fn simpler(self) -> Option<ResponseFormat> {
        match self {
            ResponseFormat::JsonSchema => Some(ResponseFormat::JsonObject),
            ResponseFormat::JsonObject => Some(ResponseFormat::None),
            ResponseFormat::None => None,
        }
    }
}

impl Default for EndpointConfig {
    fn default() -> Self {
        EndpointConfig {
            url: "http://127.0.0.1:8080".into(),
            model: "local".into(),
            timeout_ms: 30_000,
            retries: 2,
            backoff_ms: 250,
            concurrency: 4,
            api_key_env: "SEMHASH_JUDGE_API_KEY".into(),
            max_tokens: 200,
            max_doc_chars: 6000,
            response_format: ResponseFormat::JsonSchema,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(index: usize, p: f32, uncertainty: f32) -> Uncertain<'static> {
        Uncertain { index, a: "a", b: "b", p, uncertainty, threshold: 0.5 }
    }

    #[test]
    fn budget_is_one_percent_of_candidates_and_capped() {
        let b = Budget::default();
        assert_eq!(b.calls(99), 0);
        assert_eq!(b.calls(1000), 10);
        assert_eq!(Budget { max_calls: Some(3), ..b.clone() }.calls(1000), 3);
        assert_eq!(Budget { fraction: 5.0, max_calls: None }.calls(10), 10, "never more calls than pairs");
    }

    #[test]
    fn most_uncertain_pairs_are_judged_first() {
        let pairs = [pair(0, 0.5, 0.1), pair(1, 0.9, 0.8), pair(2, 0.45, 0.8), pair(3, 0.5, 0.3)];
        let budget = Budget { fraction: 1.0, max_calls: Some(3) };
        // Equal uncertainty: the p closer to 0.5 first.
        assert_eq!(budget.pick(4, &pairs), vec![2, 1, 3]);
    }

    #[test]
    fn merge_follows_the_surer_voice() {
        let no = Judgement::new(false, 0.8);
        assert!(merge(0.7, 0.9, &no) < 0.2, "an unsure model yields to a sure judge");
        assert!(merge(0.7, 0.0, &no) > 0.35, "a sure model holds against the judge");
        assert_eq!(merge(0.7, 1.0, &Judgement::new(true, 0.0)), 0.7, "nobody knows: the model stands");
        for (p, u, c) in [(0.0, 0.0, 1.0), (1.0, 0.5, 0.3), (0.3, 1.0, 1.0)] {
            let m = merge(p, u, &Judgement::new(true, c));
            assert!((0.0..=1.0).contains(&m), "{m}");
        }
    }

    /// Always says the same, surely.
    struct Says(bool);
    impl Judge for Says {
        fn name(&self) -> &'static str {
            "says"
        }
        fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>> {
            pairs.iter().map(|_| Ok(Judgement::new(self.0, 0.9))).collect()
        }
    }

    #[test]
    fn the_judge_weighs_the_same_on_either_side_of_a_low_threshold() {
        // A model deciding at 0.05: p = 0.1 is a duplicate, p = 0.02 is not,
        // both about as far from the decision in log odds (and as unsure).
        let all = Budget { fraction: 1.0, max_calls: None };
        let at = |p: f32| Uncertain { threshold: 0.05, ..pair(0, p, 0.8) };
        let vetoed = judge_uncertain(&Says(false), 1, &[at(0.1)], &all);
        assert!(vetoed.decisions[0].p < 0.05 && vetoed.changed == 1, "{:?}", vetoed.decisions[0]);
        let raised = judge_uncertain(&Says(true), 1, &[at(0.02)], &all);
        assert!(raised.decisions[0].p >= 0.05 && raised.changed == 1, "{:?}", raised.decisions[0]);
        // A half-sure model well above the threshold (p = 0.3) still yields to a
        // sure judge: on the raw scale the pool would stop at 0.11, above 0.05.
        let half_sure = judge_uncertain(&Says(false), 1, &[Uncertain { uncertainty: 0.5, ..at(0.3) }], &all);
        assert!(half_sure.decisions[0].p < 0.05, "{:?}", half_sure.decisions[0]);
        // Agreeing with the model changes no verdict.
        assert_eq!(judge_uncertain(&Says(true), 1, &[at(0.1)], &all).changed, 0);
        for p in [0.001, 0.05, 0.3, 0.999] {
            let back = shift_odds(shift_odds(p, 0.05, 0.5), 0.5, 0.05);
            assert!((back - p).abs() < 1e-4, "{p} -> {back}");
        }
    }

    struct Flaky;
    impl Judge for Flaky {
        fn name(&self) -> &'static str {
            "flaky"
        }
        fn judge(&self, pairs: &[Pair<'_>]) -> Vec<Result<Judgement>> {
            // Fails on every other pair, and drops the last outcome.
            let mut out: Vec<Result<Judgement>> = pairs
                .iter()
                .enumerate()
                .map(|(i, _)| {
                    if i % 2 == 0 {
                        Ok(Judgement::new(true, 1.0))
                    } else {
                        Err(crate::Error::Input("timeout".into()))
                    }
                })
                .collect();
            out.pop();
            out
        }
    }

    #[test]
    fn failed_calls_keep_the_model_verdict_and_are_counted() {
        let pairs: Vec<Uncertain> = (0..5).map(|i| pair(i, 0.2, 1.0)).collect();
        let report = judge_uncertain(&Flaky, 5, &pairs, &Budget { fraction: 1.0, max_calls: None });
        assert_eq!((report.calls, report.failed, report.changed), (5, 3, 2));
        for d in &report.decisions {
            match &d.judgement {
                Some(_) => assert_eq!(d.p, 1.0),
                None => assert!(d.p == d.model_p && d.error.is_some()),
            }
        }
    }

    #[test]
    fn config_round_trips_and_rejects_typos() {
        let config = JudgeConfig { judge: JudgeWrapper::Endpoint(EndpointConfig::default()), ..Default::default() };
        let json = serde_json::to_string(&config).unwrap();
        assert_eq!(serde_json::from_str::<JudgeConfig>(&json).unwrap(), config);
        assert!(config.validate().is_ok());
        for bad in [
            JudgeConfig { band: 1.5, ..config.clone() },
            JudgeConfig { budget: Budget { fraction: -0.1, max_calls: None }, ..config.clone() },
        ] {
            assert!(bad.validate().is_err(), "{bad:?}");
        }
        assert!(serde_json::from_str::<JudgeConfig>(r#"{"budget": {"fractoin": 0.1}}"#).is_err());
        let local: JudgeConfig = serde_json::from_str(r#"{"judge": {"type": "local"}}"#).unwrap();
        assert_eq!(local.judge, JudgeWrapper::Local(AlignConfig::default()));
    }
}
