//! Flags to library objects, in one place: the configuration a command's
//! flags describe, the pipeline, its judge and semantic stage, a store.

use super::args::*;
use super::commands::read_file;
use semhash::judge::{JudgeConfig, JudgeWrapper};
use semhash::store::{FileStore, Incremental};
use semhash::{Config, Deduper, Error, Result};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The config from `--config` (or the defaults) with flag overrides, and the thread pool.
pub(crate) fn pipeline(args: &PipelineArgs) -> Result<Config> {
    let mut config = match &args.config {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
            Config::from_json(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?
        }
        None => Config::default(),
    };
    use semhash::decide::{DeciderWrapper, LearnedBoundary};
    if let Some(path) = &args.boundary {
        let text = String::from_utf8(read_model_file(path)?)
            .map_err(|_| Error::Config(format!("{}: not UTF-8 text, so no boundary model", path.display())))?;
        let model = LearnedBoundary::from_json(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
        config.decide = DeciderWrapper::Learned(Box::new(model));
    }
    if let Some(t) = args.threshold {
        config.decide.set_threshold(t);
    }
    let rule_flags = [
        (args.short_threshold, "--short-threshold"),
        (args.containment_threshold, "--containment-threshold"),
        (args.semantic.semantic_threshold, "--semantic-threshold"),
    ];
    match &mut config.decide {
        DeciderWrapper::Lexical(rules) => {
            let [short, containment, semantic] = rule_flags.map(|(v, _)| v);
            rules.short_threshold = short.unwrap_or(rules.short_threshold);
            rules.containment_threshold = containment.unwrap_or(rules.containment_threshold);
            rules.semantic_threshold = semantic.unwrap_or(rules.semantic_threshold);
        }
        DeciderWrapper::Learned(_) => {
            if let Some((_, flag)) = rule_flags.iter().find(|(v, _)| v.is_some()) {
                return Err(Error::Config(format!(
                    "{flag} sets a threshold of the rules; a learned boundary has only --threshold"
                )));
            }
        }
    }
    if let Some(n) = args.max_doc_bytes {
        config.limits.max_doc_bytes = n;
    }
    config.semantic.enabled |= args.semantic.semantic;
    config.semantic.attention_weights |= args.semantic.attention_weights;
    if let Some(kind) = args.judge {
        let judge = config.judge.get_or_insert_with(Default::default);
        judge_kind(judge, kind);
    }
    if let Some(judge) = &mut config.judge {
        judge_flags(judge, &args.judge_options)?;
    }
    config.validate()?;
    threads(&args.threads)?;
    Ok(config)
}

pub(crate) fn threads(flag: &ThreadsArg) -> Result<()> {
    if let Some(n) = flag.threads {
        if n == 0 {
            return Err(Error::Config("--threads must be at least 1".into()));
        }
        // Fails only if a pool already exists (tests calling twice): keep that one.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
    }
    Ok(())
}

/// The student's two files, read once for whatever uses them.
pub(crate) struct ModelFiles {
    pub(crate) onnx: Vec<u8>,
    pub(crate) tokenizer: Vec<u8>,
}

impl ModelFiles {
    pub(crate) fn read(models: &Path) -> Result<Self> {
        Ok(ModelFiles { onnx: model_file(models, "student.onnx")?, tokenizer: model_file(models, "tokenizer.json")? })
    }

    pub(crate) fn encoder(&self) -> Result<semhash::encoder::Encoder> {
        semhash::encoder::Encoder::from_bytes(&self.onnx, &self.tokenizer, &Default::default())
    }

    /// The student's semantic stage: this encoder and the projection file.
    pub(crate) fn stage(&self, models: &Path, projection: &Path) -> Result<semhash::semantic::Stage> {
        semhash::encoder::semantic_stage(
            &self.onnx,
            &self.tokenizer,
            &read_model_file(projection)?,
            &Default::default(),
        )
        .map_err(|e| Error::Config(format!("loading the semantic stage from {}: {e}", models.display())))
    }
}

/// A model file of `models`, or a message that says where it was looked for.
fn model_file(models: &Path, name: &str) -> Result<Vec<u8>> {
    let path = models.join(name);
    if !path.is_file() {
        // The usual first-run miss: `models/` is found from the repository root only.
        return Err(Error::Config(format!(
            "no model file {}: the semantic stage and the local judge read student.onnx, static-128.bin and \
             tokenizer.json from --models DIR (default models/, found when run from the repository root)",
            path.display()
        )));
    }
    read_model_file(&path)
}

impl EmbedderKind {
    /// The projection file trained on this embedder's embeddings, in `models`.
    pub(crate) fn projection(self, models: &Path) -> PathBuf {
        models.join(match self {
            EmbedderKind::Student => "sph-128.bin",
            EmbedderKind::Static | EmbedderKind::Cascade => "sph-static-128.bin",
        })
    }
}

/// The static table and its tokenizer, from `models`.
fn static_files(models: &Path) -> Result<(Vec<u8>, Vec<u8>)> {
    Ok((model_file(models, "static-128.bin")?, model_file(models, "tokenizer.json")?))
}

/// The static table's embedder (the student's is [`ModelFiles::encoder`]).
pub(crate) fn static_embedder(models: &Path) -> Result<semhash::encoder::static_table::StaticEmbedder> {
    let (table, tokenizer) = static_files(models)?;
    semhash::encoder::static_table::StaticEmbedder::from_bytes(&table, &tokenizer)
}

/// The semantic stage the flags name; `files` are the student's, read when it runs.
fn semantic_stage(s: &SemanticArgs, files: Option<&ModelFiles>) -> Result<semhash::semantic::Stage> {
    let models = &s.models.models;
    let projection = s.projection.clone().unwrap_or_else(|| s.embedder.embedder.projection(models));
    match s.embedder.embedder {
        EmbedderKind::Student => files.expect("read for the student").stage(models, &projection),
        EmbedderKind::Static | EmbedderKind::Cascade => {
            let (table, tokenizer) = static_files(models)?;
            semhash::encoder::static_table::static_stage(&table, &tokenizer, &read_model_file(&projection)?)
                .map_err(|e| Error::Config(format!("loading the static semantic stage from {}: {e}", models.display())))
        }
    }
}

/// Reads a model file and, when its folder holds a `SHA256SUMS` (as
/// `sha256sum` writes it; `models/` ships one) that lists it, checks it
/// first: a truncated download or a flipped bit is refused by name, not run
/// to give other answers. Files no `SHA256SUMS` lists (a user's own
/// training) are read as they are.
pub(crate) fn read_model_file(path: &Path) -> Result<Vec<u8>> {
    let bytes = read_file(path)?;
    let sums = path.with_file_name("SHA256SUMS");
    let Ok(list) = std::fs::read_to_string(&sums) else { return Ok(bytes) };
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    // `HASH  NAME`, or `HASH *NAME` for binary mode.
    let listed = list.lines().find_map(|line| {
        let (hash, file) = line.split_once(' ')?;
        (file.trim_start_matches([' ', '*']) == name).then_some(hash)
    });
    let Some(want) = listed else { return Ok(bytes) };
    use sha2::Digest;
    let got: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    if !got.eq_ignore_ascii_case(want) {
        return Err(Error::Corrupted {
            context: path.display().to_string(),
            detail: format!(
                "its SHA-256 is {got} but {} lists {want}: the file is truncated or damaged; \
                 copy it again (models/README.md says how each file is made)",
                sums.display()
            ),
        });
    }
    Ok(bytes)
}

/// `judge` set to a judge of `kind` (kept as it is when already of that kind:
/// the configuration file's knobs stay).
pub(crate) fn judge_kind(judge: &mut JudgeConfig, kind: JudgeKindArg) {
    match (kind, &judge.judge) {
        (JudgeKindArg::Local, JudgeWrapper::Local(_)) | (JudgeKindArg::Endpoint, JudgeWrapper::Endpoint(_)) => {}
        (JudgeKindArg::Local, _) => judge.judge = JudgeWrapper::Local(Default::default()),
        (JudgeKindArg::Endpoint, _) => judge.judge = JudgeWrapper::Endpoint(Default::default()),
    }
}

/// The `--judge-*` flags over a judge's configuration (checked with it:
/// [`JudgeConfig::validate`]).
pub(crate) fn judge_flags(judge: &mut JudgeConfig, o: &JudgeOptions) -> Result<()> {
    if let Some(f) = o.judge_budget {
        judge.budget.fraction = f;
    }
    if let Some(band) = o.judge_band {
        judge.band = band;
    }
    if let JudgeWrapper::Endpoint(e) = &mut judge.judge {
        if let Some(url) = &o.judge_url {
            e.url.clone_from(url);
        }
        if let Some(model) = &o.judge_model {
            e.model.clone_from(model);
        }
        if let Some(seconds) = o.judge_timeout {
            if !(seconds > 0.0 && seconds.is_finite()) {
                return Err(Error::Config(format!("--judge-timeout must be positive, got {seconds}")));
            }
            e.timeout_ms = (seconds * 1e3).ceil() as u64;
        }
        if let Some(n) = o.judge_retries {
            e.retries = n;
        }
        if let Some(n) = o.judge_concurrency {
            e.concurrency = n;
        }
    }
    Ok(())
}

/// The judge a configuration names; `encoder` gives the local judge's.
pub(crate) fn build_judge(
    judge: &JudgeWrapper,
    encoder: impl FnOnce() -> Result<semhash::encoder::Encoder>,
) -> Result<Box<dyn semhash::judge::Judge>> {
    use semhash::judge::{Aligner, Endpoint};
    Ok(match judge {
        JudgeWrapper::Local(align) => Box::new(Aligner::new(std::sync::Arc::new(encoder()?), align.clone())),
        JudgeWrapper::Endpoint(endpoint) => Box::new(Endpoint::new(endpoint.clone())?),
    })
}

/// The judge stage a configuration asks for (its `judge`).
pub(crate) fn judge_stage(config: &Config, files: Option<&ModelFiles>) -> Result<Option<semhash::judge::Stage>> {
    let Some(judge) = &config.judge else { return Ok(None) };
    let encoder = || files.expect("model files are read for the local judge").encoder();
    Ok(Some(judge.stage(build_judge(&judge.judge, encoder)?)))
}

/// The configured pipeline, with the semantic stage and attention weights when asked for.
pub(crate) fn deduper(args: &PipelineArgs) -> Result<Deduper> {
    deduper_for(pipeline(args)?, args)
}

/// The pipeline of `config`, its model files found as `args` say.
fn deduper_for(config: Config, args: &PipelineArgs) -> Result<Deduper> {
    let (s, e) = (&args.semantic, config.semantic.clone());
    // Only the semantic stage embeds: a static embedder without it would
    // silently run the lexical pipeline the user did not ask for.
    if s.embedder.embedder != EmbedderKind::Student && !e.enabled {
        return Err(Error::Config(
            "--embedder chooses the semantic stage's embedder, and the semantic stage is off: add --semantic \
             (or semantic.enabled in --config)"
                .into(),
        ));
    }
    let cascade = s.embedder.embedder == EmbedderKind::Cascade;
    if s.verify_budget.is_some() && !cascade {
        return Err(Error::Config("--verify-budget is the cascade's: add --embedder cascade".into()));
    }
    let local_judge = matches!(&config.judge, Some(JudgeConfig { judge: JudgeWrapper::Local(_), .. }));
    let student = e.enabled && s.embedder.embedder != EmbedderKind::Static;
    let files =
        (student || e.attention_weights || local_judge).then(|| ModelFiles::read(&s.models.models)).transpose()?;
    let judge = judge_stage(&config, files.as_ref())?;
    let mut deduper = Deduper::new(config)?;
    if let Some(stage) = judge {
        deduper = deduper.with_judge(stage)?;
    }
    if let Some(files) = files.as_ref().filter(|_| e.attention_weights) {
        let hash = semhash::util::hash::hash128(&[&files.onnx[..], &files.tokenizer].concat());
        let attention = semhash::encoder::Attention(std::sync::Arc::new(files.encoder()?));
        deduper = deduper.with_importance(Box::new(attention), hash);
    }
    if !e.enabled {
        return Ok(deduper);
    }
    deduper = deduper.with_semantic(semantic_stage(s, files.as_ref())?);
    if !cascade {
        return Ok(deduper);
    }
    let models = &s.models.models;
    let student =
        files.as_ref().expect("read for the cascade").stage(models, &EmbedderKind::Student.projection(models))?;
    let budget = s.verify_budget.unwrap_or(semhash::pipeline::Verifier::DEFAULT_BUDGET);
    deduper.with_verifier(semhash::pipeline::Verifier { stage: student, budget })
}

/// Opens the store to read, or to `write` (one writer at a time: waits up
/// to `--lock-timeout` for another, saying so).
pub(crate) fn open_store(
    store: &StoreArg,
    pipeline_args: &PipelineArgs,
    write: bool,
) -> Result<Incremental<FileStore>> {
    // Refused before the judge's model files are read.
    let config = pipeline(pipeline_args)?;
    if config.judge.is_some() {
        return Err(Error::Config(
            "a judge (--judge, or judge in --config) works with dedup, compare and eval: a store keeps signatures, \
             not the texts a judge reads"
                .into(),
        ));
    }
    if pipeline_args.semantic.embedder.embedder == EmbedderKind::Cascade {
        return Err(Error::Config(
            "--embedder cascade works with dedup, compare and eval: a store keeps the static table's signatures, so \
             sign and query with --embedder static"
                .into(),
        ));
    }
    let deduper = deduper_for(config, pipeline_args)?;
    let fingerprint = deduper.fingerprint();
    let file = if !write {
        FileStore::open(&store.store, fingerprint)?
    } else {
        match FileStore::open_writer(&store.store, fingerprint, Duration::ZERO) {
            Err(Error::Locked { holder, .. }) if store.lock_timeout > 0 => {
                eprintln!(
                    "semhash: {holder} is writing {}; waiting up to {} s (--lock-timeout)",
                    store.store.display(),
                    store.lock_timeout
                );
                FileStore::open_writer(&store.store, fingerprint, Duration::from_secs(store.lock_timeout))?
            }
            other => other?,
        }
    };
    for w in &file.warnings {
        eprintln!("semhash: warning: {w}");
    }
    Incremental::open(deduper, file)
}
