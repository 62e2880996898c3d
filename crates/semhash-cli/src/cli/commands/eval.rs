//! `semhash eval`: pairs and ground-truth clusters.

use super::*;

pub(crate) fn eval(args: EvalArgs) -> Result<()> {
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
pub(crate) fn read_signals(path: &Path) -> Result<Vec<PairSignals>> {
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

pub(crate) fn eval_pairs(deduper: &Deduper, path: &Path, signals: Option<&Path>) -> Result<Value> {
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
    let texts: Vec<(&str, &str)> = pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    let labels: Vec<bool> = pairs.iter().map(|p| p.label.expect("labels required")).collect();
    let report = semhash::eval::evaluate_pairs(deduper, &texts, &labels, signals)?;
    println!("{} pairs ({} positive) from {}", report.pairs, report.positives, path.display());
    println!("{:<34} {:>9} {:>9} {:>9} {:>9}", "", "threshold", "precision", "recall", "F1");
    let row = |name: &str, m: &PairMetrics| {
        let t = m.threshold.map_or("config".to_owned(), |t| format!("{t:.3}"));
        println!("{name:<34} {t:>9} {:>9.4} {:>9.4} {:>9.4}", m.precision, m.recall, m.f1);
    };
    row("verdicts at the configured thresholds", &report.at_config);
    for (name, m) in &report.best {
        row(&format!("best threshold on {name}"), m);
    }
    if let Some(confident) = &report.confident {
        println!(
            "uncertainty >= 0.5: {} pairs ({:.2}%); F1 on the other pairs {:.4}",
            report.uncertain_pairs,
            100.0 * report.uncertain_pairs as f64 / report.pairs.max(1) as f64,
            confident.f1
        );
    }
    if let Some(stats) = &report.judge {
        println!("{}", judge_summary(stats));
    }
    Ok(with_file(path, &report))
}

/// A report as JSON, with the file it measured.
fn with_file(path: &Path, report: &impl Serialize) -> Value {
    let mut json = serde_json::to_value(report).expect("a report serialises");
    json["file"] = path.display().to_string().into();
    json
}

pub(crate) fn eval_clusters(deduper: &Deduper, path: &Path) -> Result<Value> {
    let mut admission = Admission::new(deduper, "line", OnError::Fail);
    let mut truth: Vec<semhash::eval::Truth> = Vec::new();
    jsonl::read_objects(Some(path), &mut |line, object| {
        let parsed = object.and_then(|mut o| {
            let (id, text) = (jsonl::id_of(&o, "id")?, jsonl::take_text(&mut o, "text")?);
            let field = |name: &str| jsonl::id_of(&o, name).map_err(|e| e.replace("id field", "field"));
            let snippet = o.get("snippet").filter(|v| !v.is_null()).map(|v| v.to_string());
            Ok((id, text, semhash::eval::Truth { cluster: field("cluster")?, kind: field("type")?, snippet }))
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
    let report = semhash::eval::evaluate_clusters(deduper, &admission.docs, &truth)?;
    println!(
        "{} documents from {}: {} clusters, {} snippets reported",
        report.documents,
        path.display(),
        report.stats.clusters,
        report.stats.snippets_found
    );
    println!(
        "{:<12} {:>6} {:>10} {:>10} {:>8} {:>11} {:>13}",
        "type", "docs", "true pairs", "found", "recall", "false pairs", "merged docs"
    );
    for (kind, m) in &report.per_type {
        let recall = m.recall.map_or("-".to_owned(), |r| format!("{r:.4}"));
        println!(
            "{kind:<12} {:>6} {:>10} {:>10} {recall:>8} {:>11} {:>13}",
            m.docs, m.true_pairs, m.found_pairs, m.false_pairs, m.wrongly_merged_docs
        );
    }
    println!("false pairs overall: {}", report.false_pairs);
    if let Some(j) = &report.stats.judge {
        println!("{}", judge_summary(j));
    }
    if report.snippet_groups > 0 {
        println!("snippets: {} of {} true snippet groups reported", report.snippet_groups_found, report.snippet_groups);
    }
    Ok(with_file(path, &report))
}
