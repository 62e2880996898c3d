//! `semhash compare`.

use super::*;

pub(crate) fn compare(args: CompareArgs) -> Result<()> {
    let deduper = deduper(&args.pipeline)?;
    let pairs = read_pairs(args.input.as_deref(), on_error(&args.on_error), false)?;
    let texts: Vec<(&str, &str)> = pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    let (results, unmatched): (Vec<_>, Vec<_>) = deduper.explain(&texts)?.into_iter().unzip();
    let (mut verdicts, signals): (Vec<_>, Vec<_>) = results.into_iter().unzip();
    if let Some(report) = deduper.judge_compared(&mut verdicts, &texts) {
        eprintln!("semhash: {}", judge_summary(&(&report).into()));
    }
    let lines = pairs.iter().zip(verdicts.iter().zip(signals).zip(unmatched)).map(|(p, ((v, s), u))| {
        let mut line = json!(semhash::decide::Comparison::new(v, s).with_unmatched(u));
        (line["line"], line["id"]) = (p.line.into(), p.id.clone().unwrap_or(Value::Null));
        line
    });
    let out = args.output.output.as_deref();
    if format_of(args.output.output_format, out) == Format::Parquet {
        return Err(Error::Input("compare writes JSONL only".into()));
    }
    jsonl::write(out, lines)
}
