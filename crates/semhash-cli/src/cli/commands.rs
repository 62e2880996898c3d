//! One function per command, wiring library calls.

use super::args::*;
use super::progress::Bar;
use crate::io::{self, jsonl, Format, InputOptions, Loaded};
use semhash::admit::{Admission, OnError, Record};
use semhash::decide::{Decider, PairSignals, Verdict};
use semhash::eval::{cluster_metrics, snippets_found, PairMetrics};
use semhash::judge::{JudgeConfig, JudgeWrapper};
use semhash::store::{FileStore, Incremental};
use semhash::{Config, Deduper, Document, Error, Result};
use serde::Serialize;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

pub fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Dedup(a) => dedup(a),
        Command::Compare(a) => compare(a),
        Command::Sign(a) => sign(a),
        Command::Query(a) => query(a),
        Command::Remove(a) => remove(a),
        Command::Eval(a) => eval(a),
        Command::Judge(a) => judge(a),
        Command::TrainSph(a) => train_sph(a),
        Command::TrainBoundary(a) => train_boundary(a),
        Command::Config(a) => {
            let config = pipeline(&a)?;
            println!("{}", serde_json::to_string_pretty(&config).expect("config serialises"));
            Ok(())
        }
    }
}

/// The config from `--config` (or the defaults) with flag overrides, and the thread pool.
fn pipeline(args: &PipelineArgs) -> Result<Config> {
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
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
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

fn threads(flag: &ThreadsArg) -> Result<()> {
    if let Some(n) = flag.threads {
        if n == 0 {
            return Err(Error::Config("--threads must be at least 1".into()));
        }
        // Fails only if a pool already exists (tests calling twice): keep that one.
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n).build_global();
    }
    Ok(())
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))
}

/// The student's two files, read once for whatever uses them.
struct ModelFiles {
    onnx: Vec<u8>,
    tokenizer: Vec<u8>,
}

impl ModelFiles {
    fn read(models: &Path) -> Result<Self> {
        Ok(ModelFiles {
            onnx: read_file(&models.join("student.onnx"))?,
            tokenizer: read_file(&models.join("tokenizer.json"))?,
        })
    }

    fn encoder(&self) -> Result<semhash::encoder::Encoder> {
        semhash::encoder::Encoder::from_bytes(&self.onnx, &self.tokenizer, &Default::default())
    }

    /// The semantic stage: this encoder and the projection file.
    fn stage(&self, models: &Path, projection: &Path) -> Result<semhash::semantic::Stage> {
        semhash::encoder::semantic_stage(&self.onnx, &self.tokenizer, &read_file(projection)?, &Default::default())
            .map_err(|e| Error::Config(format!("loading the semantic stage from {}: {e}", models.display())))
    }
}

/// `judge` set to a judge of `kind` (kept as it is when already of that kind:
/// the configuration file's knobs stay).
fn judge_kind(judge: &mut JudgeConfig, kind: JudgeKindArg) {
    match (kind, &judge.judge) {
        (JudgeKindArg::Local, JudgeWrapper::Local(_)) | (JudgeKindArg::Endpoint, JudgeWrapper::Endpoint(_)) => {}
        (JudgeKindArg::Local, _) => judge.judge = JudgeWrapper::Local(Default::default()),
        (JudgeKindArg::Endpoint, _) => judge.judge = JudgeWrapper::Endpoint(Default::default()),
    }
}

/// The `--judge-*` flags over a judge's configuration (checked with it:
/// [`JudgeConfig::validate`]).
fn judge_flags(judge: &mut JudgeConfig, o: &JudgeOptions) -> Result<()> {
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
fn build_judge(
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
fn judge_stage(config: &Config, files: Option<&ModelFiles>) -> Result<Option<semhash::judge::Stage>> {
    let Some(judge) = &config.judge else { return Ok(None) };
    let encoder = || files.expect("model files are read for the local judge").encoder();
    Ok(Some(judge.stage(build_judge(&judge.judge, encoder)?)))
}

/// The configured pipeline, with the semantic stage and attention weights when asked for.
fn deduper(args: &PipelineArgs) -> Result<Deduper> {
    let config = pipeline(args)?;
    let s = &args.semantic;
    let local_judge = matches!(&config.judge, Some(JudgeConfig { judge: JudgeWrapper::Local(_), .. }));
    let files =
        (s.semantic || s.attention_weights || local_judge).then(|| ModelFiles::read(&s.models.models)).transpose()?;
    let judge = judge_stage(&config, files.as_ref())?;
    let mut deduper = Deduper::new(config)?;
    if let Some(stage) = judge {
        deduper = deduper.with_judge(stage)?;
    }
    let Some(files) = files.filter(|_| s.semantic || s.attention_weights) else { return Ok(deduper) };
    if s.attention_weights {
        let hash = semhash::util::hash::hash128(&[&files.onnx[..], &files.tokenizer].concat());
        let attention = semhash::encoder::Attention(std::sync::Arc::new(files.encoder()?));
        deduper = deduper.with_importance(Box::new(attention), hash);
    }
    if !s.semantic {
        return Ok(deduper);
    }
    let projection = s.projection.clone().unwrap_or_else(|| s.models.models.join("sph-128.bin"));
    Ok(deduper.with_semantic(files.stage(&s.models.models, &projection)?))
}

fn format_of(flag: Option<FormatArg>, path: Option<&Path>) -> Format {
    match flag {
        Some(FormatArg::Jsonl) => Format::Jsonl,
        Some(FormatArg::Parquet) => Format::Parquet,
        None => Format::guess(io::file_or_stdio(path)),
    }
}

fn on_error(flag: &OnErrorFlag) -> OnError {
    match flag.on_error {
        OnErrorArg::Fail => OnError::Fail,
        OnErrorArg::Skip => OnError::Skip,
    }
}

fn read_docs(input: &InputArgs, deduper: &Deduper) -> Result<Loaded> {
    let options = InputOptions {
        id_field: input.id_field.clone(),
        text_field: input.text_field.clone(),
        on_error: on_error(&input.on_error),
    };
    let path = input.input.as_deref();
    let loaded = io::read_documents(path, format_of(input.input_format, path), &options, deduper)?;
    for s in &loaded.skipped {
        eprintln!("semhash: warning: skipped line {}: {}", s.line, s.error);
    }
    Ok(loaded)
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).expect("report serialises");
    std::fs::write(path, text + "\n").map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

fn dedup(args: DedupArgs) -> Result<()> {
    let deduper = deduper(&args.pipeline)?;
    let started = Instant::now();
    let loaded = read_docs(&args.input, &deduper)?;
    let read_ms = started.elapsed().as_secs_f64() * 1e3;

    let bar = Bar::new(args.quiet);
    let mut outcome = deduper.dedup(&loaded.docs, &bar)?;
    bar.finish();

    let written = Instant::now();
    let out = args.output.output.as_deref();
    io::write_results(out, format_of(args.output.output_format, out), &outcome.docs, &loaded.id_types)?;
    let timings = &mut outcome.stats.timings_ms;
    timings.insert("read".into(), read_ms);
    timings.insert("write".into(), written.elapsed().as_secs_f64() * 1e3);
    timings.insert("total".into(), started.elapsed().as_secs_f64() * 1e3);

    if let Some(path) = &args.report {
        write_json(
            path,
            &json!({
                "semhash": env!("CARGO_PKG_VERSION"),
                "fingerprint": deduper.fingerprint().to_string(),
                "input": args.input.input.as_ref().map(|p| p.display().to_string()),
                "counts": outcome.stats,
                "timings_ms": outcome.stats.timings_ms,
                "skipped": loaded.skipped,
                "snippets": outcome.snippets,
                "config": deduper.config(),
            }),
        )?;
    }
    if !args.quiet {
        let s = &outcome.stats;
        let relations: Vec<String> =
            s.relations.iter().filter(|(r, _)| r.as_str() != "none").map(|(r, n)| format!("{r} {n}")).collect();
        eprintln!(
            "semhash: {} documents -> {} clusters; {} duplicates ({}); {} snippets; {} skipped; {:.2} s",
            s.documents,
            s.clusters,
            s.duplicates,
            if relations.is_empty() { "none".to_owned() } else { relations.join(", ") },
            outcome.snippets.len(),
            loaded.skipped.len(),
            started.elapsed().as_secs_f64()
        );
        if let Some(j) = &s.judge {
            eprintln!("  {}", judge_summary(j));
        }
        for snippet in outcome.snippets.iter().take(5) {
            let text: String = snippet.text.chars().take(70).collect();
            eprintln!("  snippet in {} documents: {text:?}", snippet.docs.len());
        }
    }
    Ok(())
}

/// A pair line: its texts, pass-through id and label.
struct PairLine {
    line: u64,
    id: Option<Value>,
    a: String,
    b: String,
    label: Option<bool>,
}

fn read_pairs(path: Option<&Path>, on_error: OnError, need_label: bool) -> Result<Vec<PairLine>> {
    let mut pairs = Vec::new();
    jsonl::read_objects(path, &mut |line, object| {
        let parsed = object.and_then(|mut o: Map<String, Value>| {
            let label = match o.get("label") {
                Some(Value::Bool(b)) => Some(*b),
                Some(Value::Number(n)) if n.as_f64() == Some(0.0) || n.as_f64() == Some(1.0) => {
                    Some(n.as_f64() == Some(1.0))
                }
                Some(_) => return Err("field \"label\" must be 0, 1, true or false".into()),
                None if need_label => return Err("missing field \"label\"".into()),
                None => None,
            };
            let (a, b) = (jsonl::take_text(&mut o, "a")?, jsonl::take_text(&mut o, "b")?);
            Ok(PairLine { line, id: o.get("id").cloned(), a, b, label })
        });
        match (parsed, on_error) {
            (Ok(p), _) => pairs.push(p),
            (Err(e), OnError::Fail) => return Err(Error::Input(format!("line {line}: {e}"))),
            (Err(e), OnError::Skip) => eprintln!("semhash: warning: skipped line {line}: {e}"),
        }
        Ok(())
    })?;
    Ok(pairs)
}

/// Each pair's verdict and signals, and what the judge did.
type Compared = (Vec<(Verdict, PairSignals)>, Option<semhash::judge::JudgeReport>);

/// Verdicts and signals of each pair, with the judge's second opinions
/// (`signals`: already computed, to be decided again).
fn compare_all(deduper: &Deduper, pairs: &[PairLine], signals: Option<Vec<PairSignals>>) -> Result<Compared> {
    let texts: Vec<(&str, &str)> = pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    let results = match signals {
        None => deduper.compare(&texts)?,
        Some(signals) => signals.into_iter().map(|s| (deduper.config().decide.decide(&s), s)).collect(),
    };
    let (mut verdicts, signals): (Vec<Verdict>, Vec<PairSignals>) = results.into_iter().unzip();
    let report = deduper.judge_compared(&mut verdicts, &texts);
    Ok((verdicts.into_iter().zip(signals).collect(), report))
}

fn compare(args: CompareArgs) -> Result<()> {
    let deduper = deduper(&args.pipeline)?;
    let pairs = read_pairs(args.input.as_deref(), on_error(&args.on_error), false)?;
    let (results, judged) = compare_all(&deduper, &pairs, None)?;
    if let Some(report) = &judged {
        eprintln!("semhash: {}", judge_summary(&report.into()));
    }
    let lines = pairs.iter().zip(results).map(|(p, (v, s))| {
        let mut line = json!(semhash::decide::Comparison::new(&v, s));
        (line["line"], line["id"]) = (p.line.into(), p.id.clone().unwrap_or(Value::Null));
        line
    });
    let out = args.output.output.as_deref();
    if format_of(args.output.output_format, out) == Format::Parquet {
        return Err(Error::Input("compare writes JSONL only".into()));
    }
    jsonl::write(out, lines)
}

fn judge(args: JudgeArgs) -> Result<()> {
    use semhash::judge::Pair;
    threads(&args.threads)?;
    let mut config = JudgeConfig::default();
    judge_kind(&mut config, args.judge);
    judge_flags(&mut config, &args.options)?;
    config.validate()?;
    let judge = build_judge(&config.judge, || ModelFiles::read(&args.models.models)?.encoder())?;
    let pairs = read_pairs(args.input.as_deref(), on_error(&args.on_error), false)?;
    let started = Instant::now();
    let batch: Vec<Pair> = pairs.iter().map(|p| Pair { a: &p.a, b: &p.b, p: 0.5 }).collect();
    let outcomes = judge.judge(&batch);
    let seconds = started.elapsed().as_secs_f64();
    let failed = outcomes.iter().filter(|o| o.is_err()).count();
    let lines = pairs.iter().zip(&outcomes).map(|(p, outcome)| match outcome {
        Ok(j) => json!({
            "line": p.line, "id": p.id, "duplicate": j.duplicate, "confidence": j.confidence,
            "relation": j.relation, "score": j.score,
        }),
        Err(e) => json!({"line": p.line, "id": p.id, "error": e.to_string()}),
    });
    let out = args.output.output.as_deref();
    if format_of(args.output.output_format, out) == Format::Parquet {
        return Err(Error::Input("judge writes JSONL only".into()));
    }
    jsonl::write(out, lines)?;
    eprintln!(
        "semhash: {} judge: {} pairs, {failed} without a verdict, {seconds:.2} s ({:.1} pairs/s)",
        judge.name(),
        pairs.len(),
        pairs.len() as f64 / seconds.max(1e-9)
    );
    Ok(())
}

/// Opens the store to read, or to `write` (one writer at a time: waits up
/// to `--lock-timeout` for another, saying so).
fn open_store(store: &StoreArg, pipeline_args: &PipelineArgs, write: bool) -> Result<Incremental<FileStore>> {
    let deduper = deduper(pipeline_args)?;
    if deduper.config().judge.is_some() {
        return Err(Error::Config(
            "a judge (--judge, or judge in --config) works with dedup, compare and eval: a store keeps signatures, \
             not the texts a judge reads"
                .into(),
        ));
    }
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

fn sign(args: SignArgs) -> Result<()> {
    let mut store = open_store(&args.store, &args.pipeline, true)?;
    let mut loaded = read_docs(&args.input, store.deduper())?;
    let (mut fresh, mut stored) = (Vec::new(), 0usize);
    for doc in std::mem::take(&mut loaded.docs) {
        if !store.contains(&doc.id) {
            fresh.push(doc);
            continue;
        }
        let message = format!("id {:?} is already in the store (remove it first to replace it)", doc.id);
        match args.input.on_error.on_error {
            OnErrorArg::Fail => return Err(Error::Input(message)),
            OnErrorArg::Skip => {
                eprintln!("semhash: warning: skipped: {message}");
                stored += 1;
            }
        }
    }
    for batch in fresh.chunks(args.batch.max(1)) {
        store.add(batch)?;
    }
    eprintln!(
        "semhash: signed {} documents into {} ({} skipped as already stored, {} bad records); it now holds {}",
        fresh.len(),
        args.store.store.display(),
        stored,
        loaded.skipped.len(),
        store.len()
    );
    Ok(())
}

fn query(args: QueryArgs) -> Result<()> {
    let store = open_store(&args.store, &args.pipeline, false)?;
    let loaded = read_docs(&args.input, store.deduper())?;
    let results: Vec<Value> = loaded
        .docs
        .iter()
        .map(|d: &Document| {
            let matches = store.query(&d.text)?;
            Ok(json!({"id": loaded.id_types.json(&d.id), "duplicate": !matches.is_empty(), "matches": matches}))
        })
        .collect::<Result<_>>()?;
    let out = args.output.output.as_deref();
    jsonl::write(out, results.iter())
}

fn remove(args: RemoveArgs) -> Result<()> {
    let mut ids = args.ids.clone();
    if let Some(path) = &args.ids_from {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        ids.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned));
    }
    if ids.is_empty() {
        return Err(Error::Input("no ids given (list them, or use --ids-from FILE)".into()));
    }
    let mut store = open_store(&args.store, &args.pipeline, true)?;
    let present = store.remove(&ids)?;
    let missing: Vec<&String> = ids.iter().zip(&present).filter(|(_, p)| !**p).map(|(id, _)| id).collect();
    for id in &missing {
        eprintln!("semhash: warning: id {id:?} is not in the store");
    }
    eprintln!(
        "semhash: removed {} of {} ids; the store now holds {}",
        ids.len() - missing.len(),
        ids.len(),
        store.len()
    );
    Ok(())
}

fn eval(args: EvalArgs) -> Result<()> {
    let deduper = deduper(&args.pipeline)?;
    let report = match (&args.data.pairs, &args.data.clusters) {
        (Some(path), _) => eval_pairs(&deduper, path, args.signals.as_deref())?,
        (_, Some(path)) => eval_clusters(&deduper, path)?,
        _ => unreachable!("clap requires one of --pairs and --clusters"),
    };
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    Ok(())
}

/// Signals of pairs as `semhash compare` wrote them, in its order.
fn read_signals(path: &Path) -> Result<Vec<PairSignals>> {
    let mut out = Vec::new();
    jsonl::read_objects(Some(path), &mut |line, object| {
        let signals = object
            .and_then(|mut o| o.remove("signals").ok_or_else(|| "missing field \"signals\"".to_owned()))
            .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
            .map_err(|e| Error::Input(format!("{} line {line}: {e}", path.display())))?;
        out.push(signals);
        Ok(())
    })?;
    Ok(out)
}

fn eval_pairs(deduper: &Deduper, path: &Path, signals: Option<&Path>) -> Result<Value> {
    let pairs = read_pairs(Some(path), OnError::Fail, true)?;
    let signals = match signals {
        None => None,
        Some(file) => {
            let signals = read_signals(file)?;
            if signals.len() != pairs.len() {
                return Err(Error::Input(format!(
                    "{} has {} lines, {} has {} pairs: not its compare output",
                    file.display(),
                    signals.len(),
                    path.display(),
                    pairs.len()
                )));
            }
            Some(signals)
        }
    };
    let (results, judged) = compare_all(deduper, &pairs, signals)?;
    let label = |i: usize| pairs[i].label.expect("labels required");
    let at_config = PairMetrics::of_predictions(
        results.iter().enumerate().map(|(i, (v, _))| (v.relation.is_duplicate(), label(i))),
    );
    let best_of = |f: &dyn Fn(&(Verdict, PairSignals)) -> f32| {
        let scored: Vec<(f32, bool)> = results.iter().enumerate().map(|(i, r)| (f(r), label(i))).collect();
        PairMetrics::best_threshold(&scored)
    };
    let best = BTreeMap::from([
        ("score", best_of(&|(v, _)| v.score)),
        ("char_sim", best_of(&|(_, s)| s.char_sim)),
        ("weighted_sim", best_of(&|(_, s)| s.weighted_sim)),
    ]);
    let mut best = best;
    if results.iter().any(|(_, s)| s.cosine.is_some()) {
        best.insert("cosine", best_of(&|(_, s)| s.cosine.unwrap_or(0.0)));
    }
    println!(
        "{} pairs ({} positive) from {}",
        pairs.len(),
        pairs.iter().filter(|p| p.label == Some(true)).count(),
        path.display()
    );
    println!("{:<34} {:>9} {:>9} {:>9} {:>9}", "", "threshold", "precision", "recall", "F1");
    let row = |name: &str, m: &PairMetrics| {
        let t = m.threshold.map_or("config".to_owned(), |t| format!("{t:.3}"));
        println!("{name:<34} {t:>9} {:>9.4} {:>9.4} {:>9.4}", m.precision, m.recall, m.f1);
    };
    row("verdicts at the configured thresholds", &at_config);
    for (name, m) in &best {
        row(&format!("best threshold on {name}"), m);
    }
    // A learned boundary's uncertain band: the pairs a judge would be asked about.
    let uncertain = results.iter().filter(|(v, _)| v.confidence.is_some_and(|c| c.uncertainty >= 0.5)).count();
    if results.iter().any(|(v, _)| v.confidence.is_some()) {
        let sure = PairMetrics::of_predictions(
            results
                .iter()
                .enumerate()
                .filter(|(_, (v, _))| v.confidence.is_some_and(|c| c.uncertainty < 0.5))
                .map(|(i, (v, _))| (v.relation.is_duplicate(), label(i))),
        );
        println!(
            "uncertainty >= 0.5: {uncertain} pairs ({:.2}%); F1 on the other pairs {:.4}",
            100.0 * uncertain as f64 / pairs.len().max(1) as f64,
            sure.f1
        );
    }
    let judge = judged.map(|r| {
        let stats = semhash::judge::JudgeStats::from(&r);
        println!("{}", judge_summary(&stats));
        stats
    });
    Ok(json!({"file": path.display().to_string(), "pairs": pairs.len(), "at_config": at_config, "best": best,
        "uncertain_pairs": uncertain, "judge": judge}))
}

/// One line on what the judge did (dedup, compare and eval print it).
fn judge_summary(j: &semhash::judge::JudgeStats) -> String {
    format!(
        "judge {}: {} calls for {} candidate pairs ({:.2}%; {} uncertain offered), {} verdicts changed, {} failed",
        j.judge,
        j.calls,
        j.candidates,
        100.0 * j.used,
        j.uncertain,
        j.changed,
        j.failed
    )
}

fn eval_clusters(deduper: &Deduper, path: &Path) -> Result<Value> {
    let mut admission = Admission::new(deduper, "line", OnError::Fail);
    let mut truth: Vec<(String, String, Option<String>)> = Vec::new();
    jsonl::read_objects(Some(path), &mut |line, object| {
        let parsed = object.and_then(|mut o| {
            let (id, text) = (jsonl::id_of(&o, "id")?, jsonl::take_text(&mut o, "text")?);
            let field = |name: &str| jsonl::id_of(&o, name).map_err(|e| e.replace("id field", "field"));
            let snippet = o.get("snippet").filter(|v| !v.is_null()).map(|v| v.to_string());
            Ok((id, text, (field("cluster")?, field("type")?, snippet)))
        });
        let record = match parsed {
            Ok((id, text, t)) => {
                truth.push(t);
                Record { position: line, id: Some(id), text: Ok(text) }
            }
            Err(e) => Record { position: line, id: None, text: Err(e) },
        };
        admission.offer(record).map(|_| ()).map_err(|e| Error::Input(format!("{}: {e}", path.display())))
    })?;
    let docs = admission.docs;
    let outcome = deduper.dedup(&docs, &semhash::util::Silent)?;
    let predicted: Vec<u32> = outcome.docs.iter().map(|r| r.cluster).collect();
    let truth_refs: Vec<(&str, &str)> = truth.iter().map(|(c, t, _)| (c.as_str(), t.as_str())).collect();
    let per_type = cluster_metrics(&truth_refs, &predicted);

    let position: std::collections::HashMap<&str, usize> =
        docs.iter().enumerate().map(|(i, d)| (d.id.as_str(), i)).collect();
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, (_, _, s)) in truth.iter().enumerate() {
        if let Some(s) = s {
            groups.entry(s.clone()).or_default().push(i);
        }
    }
    let reported: Vec<Vec<usize>> =
        outcome.snippets.iter().map(|s| s.docs.iter().map(|id| position[id.as_str()]).collect()).collect();
    let found = snippets_found(&groups, &reported);

    println!(
        "{} documents from {}: {} clusters, {} snippets reported",
        docs.len(),
        path.display(),
        outcome.stats.clusters,
        outcome.snippets.len()
    );
    println!(
        "{:<12} {:>6} {:>10} {:>10} {:>8} {:>11} {:>13}",
        "type", "docs", "true pairs", "found", "recall", "false pairs", "merged docs"
    );
    for (kind, m) in &per_type {
        let recall = m.recall.map_or("-".to_owned(), |r| format!("{r:.4}"));
        println!(
            "{kind:<12} {:>6} {:>10} {:>10} {recall:>8} {:>11} {:>13}",
            m.docs, m.true_pairs, m.found_pairs, m.false_pairs, m.wrongly_merged_docs
        );
    }
    let total_false: u64 = {
        let all: Vec<(&str, &str)> = truth.iter().map(|(c, _, _)| (c.as_str(), "all")).collect();
        cluster_metrics(&all, &predicted)["all"].false_pairs
    };
    println!("false pairs overall: {total_false}");
    if let Some(j) = &outcome.stats.judge {
        println!("{}", judge_summary(j));
    }
    if !groups.is_empty() {
        println!("snippets: {found} of {} true snippet groups reported", groups.len());
    }
    Ok(json!({
        "file": path.display().to_string(), "documents": docs.len(), "per_type": per_type,
        "false_pairs": total_false, "snippet_groups": groups.len(), "snippet_groups_found": found,
        "stats": outcome.stats,
    }))
}

fn train_sph(args: TrainSphArgs) -> Result<()> {
    use semhash::semantic::{embed_all, train, Projection};
    threads(&args.threads)?;
    if ![64, 128, 256].contains(&args.bits) {
        return Err(Error::Config(format!("--bits must be 64, 128 or 256, got {}", args.bits)));
    }
    let encoder = ModelFiles::read(&args.models.models)?.encoder()?;
    let loaded = read_docs(&args.input, &Deduper::new(Config::default())?)?;
    let texts: Vec<&str> = spread(&loaded.docs, args.sample).into_iter().map(|d| d.text.as_str()).collect();
    if texts.len() < 100 {
        return Err(Error::Input(format!("train-sph needs at least 100 documents, got {}", texts.len())));
    }
    let started = Instant::now();
    let from_cache = std::cell::Cell::new(false);
    let embed = |texts: &[&str]| -> Result<Vec<f32>> {
        let key = semhash::util::hash::hash128(texts.join("\u{1}").as_bytes());
        let cached = args.cache.as_ref().map(|dir| dir.join(format!("embeddings-{key:032x}.f32")));
        if let Some(bytes) = cached.as_ref().and_then(|p| std::fs::read(p).ok()) {
            from_cache.set(true);
            return Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect());
        }
        let bar = Bar::new(false);
        semhash::util::Progress::stage(&bar, "embed", texts.len() as u64);
        let out: Vec<f32> = embed_all(&encoder, texts, &bar)?.into_iter().flatten().collect();
        bar.finish();
        if let Some(path) = &cached {
            let bytes: Vec<u8> = out.iter().flat_map(|x| x.to_le_bytes()).collect();
            std::fs::create_dir_all(path.parent().expect("in a directory"))
                .and_then(|_| std::fs::write(path, bytes))
                .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
        }
        Ok(out)
    };
    let embeddings = embed(&texts)?;
    let embed_seconds = started.elapsed().as_secs_f64();
    let dims = encoder.dims();
    // The last tenth (at most 3,000) calibrates the radius table against the rest, which trains.
    let held = (texts.len() / 10).min(3000);
    let (training, calibration) = embeddings.split_at((texts.len() - held) * dims);

    let config = train::TrainConfig {
        bits: args.bits,
        steps: args.steps,
        learning_rate: args.learning_rate,
        ..Default::default()
    };
    let mut log = Vec::new();
    let trained = Instant::now();
    let mut learned = train::train(training, dims, &config, &mut |step, l| {
        eprintln!(
            "step {step:>5}: L_sim {:.5}  L_orth {:.4}  L_bal {:.5}  total {:.5}",
            l.sim, l.orth, l.balance, l.total
        );
        log.push(json!({"step": step, "losses": l}));
    });
    let train_seconds = trained.elapsed().as_secs_f64();
    let mut random = Projection::random(args.bits, dims, config.seed);
    let radius = train::calibrate(&mut learned, calibration, training);
    let random_radius = train::calibrate(&mut random, calibration, training);
    std::fs::write(&args.output, learned.to_bytes())
        .map_err(|e| Error::io(format!("cannot write {}", args.output.display()), e))?;
    eprintln!("semhash: wrote {} ({} bits, {} dims)", args.output.display(), args.bits, dims);
    println!("{:>6} {:>14} {:>14} {:>9}", "cosine", "radius learned", "radius random", "pairs");
    for (l, r) in radius.iter().zip(&random_radius) {
        println!("{:>6.2} {:>14} {:>14} {:>9}", l.0, l.1, r.1, l.2);
    }

    let mut quality = Value::Null;
    if let Some(path) = &args.eval_pairs {
        let pairs = read_pairs(Some(path), OnError::Fail, true)?;
        let positives: Vec<&PairLine> = pairs.iter().filter(|p| p.label == Some(true)).collect();
        let chosen = spread(&positives, args.eval_max);
        let texts: Vec<&str> = chosen.iter().flat_map(|p| [p.a.as_str(), p.b.as_str()]).collect();
        let embeddings = embed(&texts)?;
        let index: Vec<(usize, usize)> = (0..chosen.len()).map(|i| (2 * i, 2 * i + 1)).collect();
        let budget = 10;
        let block = |p: &Projection| {
            let (i, t) = (semhash::index::IndexConfig::default(), Config::default().decide.blocking().semantic_cosine);
            semhash::index::MultiIndex::new(
                args.bits as u32,
                i.semantic_substring_bits,
                p.radius_for(t),
                i.semantic_max_probe,
            )
        };
        let measure = |p: &Projection| {
            let codes: Vec<Vec<u64>> = embeddings.chunks_exact(p.dims).map(|e| p.code(e)).collect();
            let block = block(p);
            (train::code_quality(p, &embeddings, &index, budget), block.radius(), block.blocking_recall(&codes, &index))
        };
        let (l, r) = (measure(&learned), measure(&random));
        println!(
            "{} positive pairs of {}; recall: partner among the {budget} nearest codes of {} candidates",
            chosen.len(),
            path.display(),
            chosen.len()
        );
        println!(
            "blocking: multi-index hashing at the radius of the default rules' lowest semantic cosine, default probes"
        );
        println!(
            "{:<8} {:>12} {:>17} {:>10} {:>7} {:>16}",
            "codes", "correlation", "similarity error", "recall", "radius", "blocking recall"
        );
        let mut report = json!({"pairs_file": path.display().to_string(), "positive_pairs": chosen.len()});
        for (name, (q, radius, blocking)) in [("learned", &l), ("random", &r)] {
            println!(
                "{name:<8} {:>12.4} {:>17.5} {:>10.4} {:>7} {:>16.4}",
                q.correlation, q.similarity_error, q.recall_at_budget, radius, blocking
            );
            report[name] = json!({"codes": q, "blocking_radius": radius, "blocking_recall": blocking});
        }
        quality = report;
    }
    if let Some(path) = &args.report {
        write_json(
            path,
            &json!({
                "input": args.input.input.as_ref().map(|p| p.display().to_string()),
                "texts": texts.len(), "calibration_texts": held, "dims": dims,
                "embed_seconds": embed_seconds, "embeddings_from_cache": from_cache.get(),
                "train_seconds": train_seconds,
                "config": config, "log": log,
                "radius": {"learned": radius, "random": random_radius},
                "quality": quality,
            }),
        )?;
    }
    Ok(())
}

/// A training pair for the boundary, before it is signed.
struct MadePair {
    a: String,
    b: String,
    duplicate: bool,
    kind: String,
}

/// Training pairs as features (what `train-boundary --cache` keeps).
#[derive(Serialize, serde::Deserialize)]
struct SignedPairs {
    /// Features, label, kind of pair.
    kept: Vec<(semhash::decide::features::Features, bool, String)>,
    left_out: usize,
    texts: usize,
    embedded: usize,
}

/// Embeds the short texts as [`Deduper::embed_short`] does, reusing the
/// sketches of texts embedded before when `cache` (a directory) has them:
/// other augmentation settings change a few thousand texts, not all of them.
fn embed_cached(
    semantic: &Deduper,
    texts: &[&str],
    sigs: &mut [semhash::sketch::Signature],
    cache: Option<&Path>,
) -> Result<usize> {
    use semhash::sketch::semantic::SemanticSketch;
    let file = cache.map(|dir| dir.join("sketches.json"));
    let mut known: std::collections::HashMap<String, SemanticSketch> = file
        .as_ref()
        .and_then(|p| std::fs::read(p).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let key = |t: &str| format!("{:032x}", semhash::util::hash::hash128(t.as_bytes()));
    let missing: Vec<usize> = (0..texts.len()).filter(|&i| !known.contains_key(&key(texts[i]))).collect();
    let missing_texts: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
    let mut missing_sigs: Vec<_> = missing.iter().map(|&i| sigs[i].clone()).collect();
    let bar = Bar::new(false);
    semantic.embed_short(&missing_texts, &mut missing_sigs, &bar)?;
    bar.finish();
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
        std::fs::create_dir_all(path.parent().expect("in a directory"))
            .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
        std::fs::write(path, serde_json::to_vec(&known).expect("sketches serialise"))
            .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))?;
    }
    Ok(embedded)
}

/// Signs the texts of `made` as one corpus, embeds the short ones as the
/// pipeline does, and turns each pair into features. A lookalike of
/// neighbours that the signals call a near copy (weighted similarity 0.8,
/// containment 0.95) is probably a true duplicate inside the corpus: unsure,
/// it is left out. Below that, similar neighbours (a package and its -dev
/// twin) are the hard negatives the boundary most needs.
fn sign_pairs(made: &[MadePair], lexical: &Deduper, semantic: &Deduper, cache: Option<&Path>) -> Result<SignedPairs> {
    use semhash::decide::features::features;
    let mut index_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
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
    eprintln!("semhash: {} training pairs over {} distinct texts", made.len(), texts.len());
    let mut sigs = lexical.sign_batch(&texts, &semhash::util::Silent)?;
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

fn train_boundary(args: TrainBoundaryArgs) -> Result<()> {
    use semhash::decide::augment::{self, Rng, Template};
    use semhash::decide::features::{at, without_embeddings, NAMES};
    use semhash::decide::fusion::{Candidates, Parts};
    use semhash::decide::train::{self, Example, TrainConfig};
    threads(&args.threads)?;
    if let Some(d) = args.drop.iter().find(|d| !NAMES.contains(&d.as_str())) {
        return Err(Error::Config(format!("--drop {d:?}: not a feature; they are {NAMES:?}")));
    }
    let started = Instant::now();
    let lexical = Deduper::new(Config::default())?;
    let short_max_chars = lexical.config().decide.blocking().semantic_max_chars;
    let mut corpora: Vec<Vec<String>> = Vec::new();
    for path in &args.corpora {
        let input = InputArgs {
            input: Some(path.clone()),
            input_format: None,
            id_field: "id".into(),
            text_field: "text".into(),
            on_error: OnErrorFlag { on_error: OnErrorArg::Skip },
        };
        corpora.push(read_docs(&input, &lexical)?.docs.into_iter().map(|d| d.text).collect());
    }
    let mut templates = Vec::new();
    if let Some(path) = &args.templates {
        jsonl::read_objects(Some(path), &mut |_, object| {
            let field = |o: &Map<String, Value>, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
            if let Some(t) = object.ok().and_then(|o| Template::mine(&field(&o, "text")?, &field(&o, "article")?)) {
                templates.push(t);
            }
            Ok(())
        })?;
    }
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
    for corpus in &corpora {
        for i in (0..corpus.len()).step_by(corpus.len().div_ceil(args.per_corpus.max(1)).max(1)) {
            let (copy, how) = augment::corrupt(&corpus[i], &templates, args.paraphrase_strength, &mut rng);
            made.push(MadePair { a: corpus[i].clone(), b: copy, duplicate: true, kind: format!("{how:?}") });
            let (a, b, how) = augment::lookalike(corpus, i, &templates, &quotes, &mut rng);
            made.push(MadePair { a, b, duplicate: false, kind: format!("{how:?}") });
        }
    }

    // The features' names and the model version stand for how pairs become features.
    let how = format!("{NAMES:?} {}", semhash::decide::fusion::VERSION);
    let key = semhash::util::hash::hash128(
        made.iter()
            .flat_map(|m| [m.a.as_str(), m.b.as_str(), &m.kind])
            .chain([how.as_str()])
            .collect::<Vec<_>>()
            .join("\u{1}")
            .as_bytes(),
    );
    let cached = args.cache.as_ref().map(|dir| dir.join(format!("boundary-pairs-{key:032x}.json")));
    let signed: SignedPairs = match cached.as_ref().and_then(|p| std::fs::read(p).ok()) {
        Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| Error::Input(format!("cache: {e}")))?,
        None => {
            let models = &args.models.models;
            let files = ModelFiles::read(models)?;
            let stage = files.stage(models, &models.join("sph-128.bin"))?;
            let semantic = Deduper::new(Config::default())?.with_semantic(stage);
            let signed = sign_pairs(&made, &lexical, &semantic, args.cache.as_deref())?;
            if let Some(path) = &cached {
                std::fs::create_dir_all(path.parent().expect("in a directory"))
                    .map_err(|e| Error::io(format!("cannot create {}", path.display()), e))?;
                write_json(path, &signed)?;
            }
            signed
        }
    };
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
    let config = TrainConfig {
        members: args.members,
        steps: args.steps,
        parts: Parts { gate: !args.no_gate, adaptive_boundary: !args.flat_boundary },
        dropped: args.drop.clone(),
        ..Default::default()
    };
    let trained = Instant::now();
    let mut model = train::train(
        &examples(&fit),
        &examples(&held),
        &config,
        Candidates::default(),
        short_max_chars,
        &mut |m, step, l| {
            if step == 0 || step + 1 == config.steps {
                eprintln!("member {m} step {step:>5}: loss {l:.5}");
            }
        },
    );
    let train_seconds = trained.elapsed().as_secs_f64();

    let mut per_kind: BTreeMap<&str, (u64, u64, u64)> = BTreeMap::new();
    for (_, (e, kind)) in &held {
        let mut f = e.features;
        semhash::decide::fusion::mask(&mut f, &config.dropped);
        let right = (model.predict(&f).0.probability >= model.threshold) == e.duplicate;
        let entry = per_kind.entry(kind).or_default();
        (entry.0, entry.1, entry.2) = (entry.0 + 1, entry.1 + right as u64, entry.2 + e.duplicate as u64);
    }
    println!("{:<18} {:>9} {:>9} {:>9}", "held-out kind", "pairs", "label", "accuracy");
    for (kind, (n, right, dup)) in &per_kind {
        let label = if *dup > 0 { "duplicate" } else { "different" };
        println!("{kind:<18} {n:>9} {label:>9} {:>9.4}", *right as f64 / *n as f64);
    }
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    kept.iter().for_each(|(_, k)| *counts.entry(k).or_default() += 1);
    let name = |p: &Path| p.file_name().map_or(p.display().to_string(), |n| n.to_string_lossy().into_owned());
    model.provenance = json!({
        "made_by": format!("semhash train-boundary {}", env!("CARGO_PKG_VERSION")),
        "corpora": args.corpora.iter().map(|p| name(p)).collect::<Vec<_>>(),
        "templates": args.templates.as_deref().map(name), "per_corpus": args.per_corpus,
        "paraphrase_strength": args.paraphrase_strength,
        "pairs": kept.len(), "held_out": held.len(), "left_out_as_probable_duplicates": signed.left_out,
        "pairs_by_kind": counts, "texts": signed.texts, "embedded": signed.embedded,
        "config": config, "seconds": {"sign_and_embed": signed_seconds, "train": train_seconds},
    });
    write_json(&args.output, &model)?;
    eprintln!(
        "semhash: wrote {} ({:.0} s signing and embedding, {:.0} s training)",
        args.output.display(),
        signed_seconds,
        train_seconds
    );
    if let Some(path) = &args.report {
        write_json(path, &json!({"provenance": model.provenance, "held_out": per_kind}))?;
    }
    Ok(())
}

/// At most `n` items, evenly spread over `items`.
fn spread<T>(items: &[T], n: usize) -> Vec<&T> {
    let step = items.len().div_ceil(n.max(1)).max(1);
    items.iter().step_by(step).collect()
}
