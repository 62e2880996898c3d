//! `semhash dedup`.

use super::*;

pub(crate) fn dedup(args: DedupArgs) -> Result<()> {
    let mut deduper = deduper(&args.pipeline)?;
    if let Some(dir) = &args.work {
        deduper = deduper.with_checkpoints(Box::new(semhash::util::checkpoint::WorkDir::open(dir)?));
    }
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
        if s.semantic_resumed > 0 {
            eprintln!("  resumed: {} of {} embeddings from the work directory", s.semantic_resumed, s.semantic_encoded);
        }
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
