//! `semhash compare`.

use super::*;

/// Each pair's verdict and signals, and what the judge did.
pub(crate) type Compared = (Vec<(Verdict, PairSignals)>, Option<semhash::judge::JudgeReport>);

/// Verdicts and signals of each pair, with the judge's second opinions
/// (`signals`: already computed, to be decided again).
pub(crate) fn compare_all(
    deduper: &Deduper,
    pairs: &[PairLine],
    signals: Option<Vec<PairSignals>>,
) -> Result<Compared> {
    let texts: Vec<(&str, &str)> = pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    let results = match signals {
        None => deduper.compare(&texts)?,
        Some(signals) => signals.into_iter().map(|s| (deduper.config().decide.decide(&s), s)).collect(),
    };
    let (mut verdicts, signals): (Vec<Verdict>, Vec<PairSignals>) = results.into_iter().unzip();
    let report = deduper.judge_compared(&mut verdicts, &texts);
    Ok((verdicts.into_iter().zip(signals).collect(), report))
}

pub(crate) fn compare(args: CompareArgs) -> Result<()> {
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
