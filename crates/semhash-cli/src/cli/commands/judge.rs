//! `semhash judge`.

use super::*;

pub(crate) fn judge(args: JudgeArgs) -> Result<()> {
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
