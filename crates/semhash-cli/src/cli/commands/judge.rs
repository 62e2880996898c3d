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
    // What the judge is told of each pair's words, as `dedup` tells it: the
    // alignment against the word statistics of the file's texts.
    let texts: Vec<(&str, &str)> = pairs.iter().map(|p| (p.a.as_str(), p.b.as_str())).collect();
    let words = Deduper::new(Config::default())?.aligned_words(&texts);
    let batch: Vec<Pair> =
        texts.iter().zip(&words).map(|(&(a, b), w)| Pair { a, b, p: 0.5, words: w.as_ref() }).collect();
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
