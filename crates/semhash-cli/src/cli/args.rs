//! Every flag of every command, documented here and nowhere else.

use clap::{Args, Parser, Subcommand, ValueEnum};
use semhash::training::BoundaryTraining;
use std::path::PathBuf;

/// Document de-duplication that understands meaning.
///
/// Finds exact copies, near duplicates (edits, typos, homoglyphs, template
/// wrapping), documents contained in others, and viral snippets shared by
/// otherwise different documents.
#[derive(Parser, Debug)]
#[command(name = "semhash", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Cluster a corpus: one output line per input document.
    ///
    /// Output fields: id, cluster (number), representative (id kept for the
    /// cluster: its first document in input order), relation of the document
    /// to its parent (exact, near, contained_in, contains; none for a
    /// representative), score, parent (id it was found a duplicate of).
    Dedup(DedupArgs),
    /// Score pairs: reads JSONL objects with fields "a" and "b" (texts; an "id"
    /// field is passed through), writes one line per pair.
    Compare(CompareArgs),
    /// Add documents to a signature store (a directory; created if missing).
    Sign(SignArgs),
    /// Look documents up in a signature store without adding them: one
    /// output line per document with its matches.
    Query(QueryArgs),
    /// Remove documents from a signature store by id.
    Remove(RemoveArgs),
    /// Measure quality on labelled data.
    Eval(EvalArgs),
    /// Print the configuration (defaults with any flags applied) as JSON, to
    /// edit and pass back with --config.
    Config(PipelineArgs),
    /// Ask a judge about pairs: reads JSONL objects with fields "a" and "b"
    /// (an "id" field is passed through), writes one line per pair with the
    /// judge's verdict (duplicate, confidence, relation, score) or its error.
    Judge(JudgeArgs),
    /// Learn the semantic hyperplanes (K-bit codes) on a corpus's embeddings
    /// and write them as a projection file; reports learned against random
    /// hyperplanes.
    TrainSph(TrainSphArgs),
    /// Learn the decision boundary (gated fusion of the pair signals, with an
    /// uncertainty per pair) from pairs made by corrupting unlabelled text,
    /// and write it as a model file for --boundary.
    TrainBoundary(TrainBoundaryArgs),
}

/// Options that shape the pipeline.
#[derive(Args, Debug, Clone)]
pub struct PipelineArgs {
    /// Configuration file (JSON; see `semhash config`). Flags below override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Decide pairs by a learned boundary (a model file made by `semhash
    /// train-boundary`, e.g. models/boundary.json) instead of the threshold rules.
    /// It finds more reworded copies and links far more distinct short texts
    /// that share a template (package descriptions, titles): see the README
    /// before using it on such data.
    #[arg(long, value_name = "FILE")]
    pub boundary: Option<PathBuf>,
    /// Near-duplicate threshold on weighted word-shingle similarity, in (0, 1]
    /// (with --boundary: the probability of duplicate at which a pair is one).
    #[arg(long, value_name = "T")]
    pub threshold: Option<f32>,
    /// Near-duplicate threshold on character similarity for short texts, in (0, 1].
    #[arg(long, value_name = "T")]
    pub short_threshold: Option<f32>,
    /// Share of a document's passages found in another to call it contained, in (0, 1].
    #[arg(long, value_name = "T")]
    pub containment_threshold: Option<f32>,
    /// Refuse documents longer than this many bytes.
    #[arg(long, value_name = "BYTES")]
    pub max_doc_bytes: Option<u64>,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub semantic: SemanticArgs,
    /// Ask a judge about the pairs the learned boundary (--boundary) is
    /// unsure of: local (token alignment with the student encoder in
    /// --models, offline) or endpoint (an LLM behind an OpenAI-compatible chat
    /// endpoint). `--judge` alone: local. dedup, compare and eval only.
    #[arg(long, value_enum, value_name = "KIND", num_args = 0..=1, default_missing_value = "local")]
    pub judge: Option<JudgeKindArg>,
    #[command(flatten)]
    pub judge_options: JudgeOptions,
}

/// The semantic stage.
#[derive(Args, Debug, Clone)]
pub struct SemanticArgs {
    /// Add the semantic stage: embed the documents the lexical stages left
    /// undecided with the student encoder and link paraphrases (far slower
    /// than the lexical stages: see the README).
    #[arg(long)]
    pub semantic: bool,
    #[command(flatten)]
    pub models: ModelsArg,
    #[command(flatten)]
    pub embedder: EmbedderArg,
    /// Projection file made by `semhash train-sph` (default: DIR/sph-128.bin
    /// for the student, DIR/sph-static-128.bin for the static table).
    #[arg(long, value_name = "FILE")]
    pub projection: Option<PathBuf>,
    /// Cosine of the embeddings at or above which two documents are paraphrases, in (0, 1].
    #[arg(long, value_name = "T")]
    pub semantic_threshold: Option<f32>,
    /// With --embedder cascade: the share of the documents the student may
    /// embed, in [0, 1] (default 0.05).
    #[arg(long, value_name = "SHARE")]
    pub verify_budget: Option<f32>,
    /// Weigh word shingles by the encoder's attention as well as IDF (runs
    /// the encoder on every distinct text before the lexical stages).
    #[arg(long)]
    pub attention_weights: bool,
}

/// Where documents come from.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input file, JSONL or Parquet (by extension); `-` or nothing for stdin (JSONL).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Input format, when the extension does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub input_format: Option<FormatArg>,
    /// Field (or column) holding the document id (a string or an integer).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// Field (or column) holding the document text.
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,
    #[command(flatten)]
    pub on_error: OnErrorFlag,
}

/// Where results go.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output file, JSONL or Parquet (by extension); `-` or nothing for stdout (JSONL).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format, when the extension does not say.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<FormatArg>,
}

#[derive(Args, Debug)]
pub struct DedupArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Write a JSON report: counts, timings, snippets, skipped records, config.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Keep finished work (the semantic stage's embeddings, the judge's verdicts) in this
    /// directory, so that a run that was stopped resumes where it stopped
    /// when run again with the same input, flags and DIR
    #[arg(long, value_name = "DIR")]
    pub work: Option<PathBuf>,
    /// No summary or progress bar on stderr.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Pairs file (JSONL with "a" and "b"); `-` or nothing for stdin.
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    #[command(flatten)]
    pub on_error: OnErrorFlag,
}

#[derive(Args, Debug)]
pub struct StoreArg {
    /// The signature store directory.
    #[arg(long, value_name = "DIR")]
    pub store: PathBuf,
    /// Seconds to wait for another process writing the store to finish
    /// (sign, remove); then stop, naming it.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub lock_timeout: u64,
}

#[derive(Args, Debug)]
pub struct SignArgs {
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Documents per committed batch (a crash loses at most the batch being written).
    #[arg(long, default_value_t = 10_000, value_name = "N")]
    pub batch: usize,
}

#[derive(Args, Debug)]
pub struct QueryArgs {
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Args, Debug)]
pub struct RemoveArgs {
    #[command(flatten)]
    pub store: StoreArg,
    /// Ids to remove.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Also remove the ids listed in this file, one per line.
    #[arg(long, value_name = "FILE")]
    pub ids_from: Option<PathBuf>,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

#[derive(Args, Debug)]
#[group(required = true, multiple = false, id = "labels")]
pub struct EvalData {
    /// Labelled pairs (JSONL: "a", "b", "label" 0/1): precision, recall and F1
    /// at the configured thresholds and at the best threshold.
    #[arg(long, value_name = "FILE", group = "labels")]
    pub pairs: Option<PathBuf>,
    /// Documents with ground truth (JSONL: "id", "text", "cluster", "type", and
    /// optionally "snippet"): per-type recall and false pairs by pair counting.
    #[arg(long, value_name = "FILE", group = "labels")]
    pub clusters: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    pub data: EvalData,
    #[command(flatten)]
    pub pipeline: PipelineArgs,
    /// Also write the measures as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// With --pairs: take each pair's signals from this output of `semhash
    /// compare` over the same pairs file instead of computing them (re-decide
    /// with another decider without embedding again).
    #[arg(long, value_name = "FILE", requires = "pairs")]
    pub signals: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// Pairs file (JSONL with "a" and "b"); `-` or nothing for stdin.
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Which judge: local (token alignment with the student encoder, offline)
    /// or endpoint (an LLM behind an OpenAI-compatible chat endpoint).
    #[arg(long, value_enum, default_value_t = JudgeKindArg::Local)]
    pub judge: JudgeKindArg,
    #[command(flatten)]
    pub options: JudgeOptions,
    #[command(flatten)]
    pub models: ModelsArg,
    #[command(flatten)]
    pub on_error: OnErrorFlag,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

/// How a judge is reached and how much of it a run may use.
#[derive(Args, Debug, Clone)]
pub struct JudgeOptions {
    /// Base URL of the endpoint (requests go to URL/v1/chat/completions);
    /// default http://127.0.0.1:8080. The API key, if any, is read from the
    /// environment variable SEMHASH_JUDGE_API_KEY.
    #[arg(long, value_name = "URL")]
    pub judge_url: Option<String>,
    /// The "model" field of each request (llama.cpp's server ignores it).
    #[arg(long, value_name = "NAME")]
    pub judge_model: Option<String>,
    /// Seconds one request may take (default 30).
    #[arg(long, value_name = "SECONDS")]
    pub judge_timeout: Option<f64>,
    /// Further tries of a pair after a timeout, a 5xx answer or a reply without a verdict (default 2).
    #[arg(long, value_name = "N")]
    pub judge_retries: Option<u32>,
    /// Requests in flight at once (default 4).
    #[arg(long, value_name = "N")]
    pub judge_concurrency: Option<usize>,
    /// Most judge calls as a share of the candidate pairs (default 0.01).
    #[arg(long, value_name = "FRACTION")]
    pub judge_budget: Option<f64>,
    /// Verdicts at least this uncertain are offered to the judge, in [0, 1]
    /// (default 0.5; the budget takes the most uncertain).
    #[arg(long, value_name = "U")]
    pub judge_band: Option<f32>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum JudgeKindArg {
    Local,
    Endpoint,
}

#[derive(Args, Debug)]
pub struct TrainSphArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Where to write the projection.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Bits per code (hyperplanes): 64, 128 or 256.
    #[arg(long, default_value_t = 128, value_name = "K")]
    pub bits: usize,
    /// Training steps (minibatches of 256 embeddings).
    #[arg(long, default_value_t = 3000, value_name = "N")]
    pub steps: usize,
    /// Adam's learning rate at the start (it decays to 0 along a cosine).
    #[arg(long, default_value_t = 1e-3, value_name = "RATE")]
    pub learning_rate: f32,
    /// Embed at most this many documents of the input (evenly spread over it).
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub sample: usize,
    /// Labelled pairs (JSONL "a", "b", "label") whose positives measure the
    /// codes: correlation with cosine and recall at a candidate budget, for
    /// the learned and for random hyperplanes.
    #[arg(long, value_name = "FILE")]
    pub eval_pairs: Option<PathBuf>,
    /// Positive pairs of --eval-pairs to use (evenly spread).
    #[arg(long, default_value_t = 5000, value_name = "N")]
    pub eval_max: usize,
    /// Write the training log and measures as JSON.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Keep the embeddings in this directory and reuse them when the same
    /// texts come again (embedding is most of the time; training is seconds).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    #[command(flatten)]
    pub models: ModelsArg,
    #[command(flatten)]
    pub embedder: EmbedderArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

#[derive(Args, Debug)]
pub struct TrainBoundaryArgs {
    /// Unlabelled corpora (JSONL with "id" and "text"), each in an order where
    /// neighbouring lines are related (they make the hard negatives).
    #[arg(value_name = "CORPUS", required = true)]
    pub corpora: Vec<PathBuf>,
    /// Where to write the model.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Pages with known article text (JSONL "text" and "article"): the text
    /// around the article is the template that wrapping augmentation uses.
    #[arg(long, value_name = "FILE")]
    pub templates: Option<PathBuf>,
    /// Base texts per corpus (evenly spread over it); each makes a positive
    /// and a negative pair.
    #[arg(long, default_value_t = BoundaryTraining::default().per_corpus, value_name = "N")]
    pub per_corpus: usize,
    /// Share of swappable words a paraphrase rewords (the default was chosen
    /// on the F1 of the Bible dev pairs: see models/README.md).
    #[arg(long, default_value_t = BoundaryTraining::default().paraphrase_strength, value_name = "R")]
    pub paraphrase_strength: f64,
    /// Ensemble members (their disagreement is part of the uncertainty).
    #[arg(long, default_value_t = BoundaryTraining::default().config.members, value_name = "N")]
    pub members: usize,
    /// Adam steps per member (minibatches of pairs).
    #[arg(long, default_value_t = BoundaryTraining::default().config.steps, value_name = "N")]
    pub steps: usize,
    /// Hold this feature at 0 in training and use (an ablation); repeatable.
    #[arg(long, value_name = "NAME")]
    pub drop: Vec<String>,
    /// Ablation: weigh the experts evenly instead of by the gate.
    #[arg(long)]
    pub no_gate: bool,
    /// Ablation: one boundary for every regime instead of one moved by lengths and boilerplate.
    #[arg(long)]
    pub flat_boundary: bool,
    /// Keep the training pairs' features in this directory and reuse them when
    /// the same pairs come again (embedding is most of the time).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Write the training pairs' counts, losses and held-out accuracy per kind as JSON.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub models: ModelsArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
}

/// Where the model files are (one flag for every command that reads them).
#[derive(Args, Debug, Clone)]
pub struct ModelsArg {
    /// Directory holding the model files: student.onnx and tokenizer.json
    /// (the encoder), static-128.bin (the static table), sph-128.bin and
    /// sph-static-128.bin (the hyperplanes over each one's embeddings).
    #[arg(long, default_value = "models", value_name = "DIR")]
    pub models: PathBuf,
}

/// What embeds texts for the semantic stage (and for `train-sph`).
#[derive(Args, Debug, Clone)]
pub struct EmbedderArg {
    /// `student`: the distilled transformer (student.onnx), the most exact;
    /// `static`: the token table distilled from it (static-128.bin), a
    /// lookup per token, over a hundred times faster and less exact (see
    /// the README); `cascade`: the static table for every text, and the
    /// student for the pairs the table is unsure of, within --verify-budget
    /// (dedup, compare and eval).
    #[arg(long, value_enum, default_value_t = EmbedderKind::Student, value_name = "KIND")]
    pub embedder: EmbedderKind,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EmbedderKind {
    Student,
    Static,
    Cascade,
}

/// How many threads a command runs on.
#[derive(Args, Debug, Clone)]
pub struct ThreadsArg {
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

/// What a command does with a bad input record.
#[derive(Args, Debug, Clone)]
pub struct OnErrorFlag {
    /// On a bad record (malformed JSON, a missing field, invalid UTF-8, an
    /// empty or oversized text, a duplicate id): stop, or skip it (reported
    /// on stderr, and in the report where there is one).
    #[arg(long, value_enum, default_value_t = OnErrorArg::Fail)]
    pub on_error: OnErrorArg,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    Jsonl,
    Parquet,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnErrorArg {
    Fail,
    Skip,
}
