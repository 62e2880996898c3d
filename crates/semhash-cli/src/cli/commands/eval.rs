//! `semhash eval`: pairs and ground-truth clusters.

use super::compare::compare_all;
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

pub(crate) fn eval_clusters(deduper: &Deduper, path: &Path) -> Result<Value> {
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
