//! `semhash train-sph`: the semantic hyperplanes.

use super::*;

pub(crate) fn train_sph(args: TrainSphArgs) -> Result<()> {
    use semhash::semantic::{embed_all, train, Projection};
    threads(&args.threads)?;
    if ![64, 128, 256].contains(&args.bits) {
        return Err(Error::Config(format!("--bits must be 64, 128 or 256, got {}", args.bits)));
    }
    let models = &args.models.models;
    let embedder: Box<dyn semhash::semantic::Embedder> = match args.embedder.embedder {
        EmbedderKind::Student => Box::new(ModelFiles::read(models)?.encoder()?),
        EmbedderKind::Static => Box::new(static_embedder(models)?),
        EmbedderKind::Cascade => {
            return Err(Error::Config(
                "train-sph trains one embedder's hyperplanes: --embedder student or static".into(),
            ))
        }
    };
    let loaded = read_docs(&args.input, &Deduper::new(Config::default())?)?;
    let texts: Vec<&str> = spread(&loaded.docs, args.sample).into_iter().map(|d| d.text.as_str()).collect();
    if texts.len() < 100 {
        return Err(Error::Input(format!("train-sph needs at least 100 documents, got {}", texts.len())));
    }
    let started = Instant::now();
    let from_cache = std::cell::Cell::new(false);
    let embed = |texts: &[&str]| -> Result<Vec<f32>> {
        let key = semhash::util::hash::hash128(texts.join("\u{1}").as_bytes());
        let kind = format!("{:?}", args.embedder.embedder).to_lowercase();
        let cached = args.cache.as_ref().map(|dir| dir.join(format!("embeddings-{kind}-{key:032x}.f32")));
        if let Some(bytes) = cached.as_ref().and_then(|p| std::fs::read(p).ok()) {
            from_cache.set(true);
            return Ok(bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes"))).collect());
        }
        let bar = Bar::new(false);
        semhash::util::Progress::stage(&bar, "embed", texts.len() as u64);
        let out: Vec<f32> = embed_all(embedder.as_ref(), texts, &bar)?.into_iter().flatten().collect();
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
    let dims = embedder.dims();
    let config = train::TrainConfig {
        bits: args.bits,
        steps: args.steps,
        learning_rate: args.learning_rate,
        ..Default::default()
    };
    let trained = Instant::now();
    let training = train::train_projection(&embeddings, dims, &config, &mut |step, l| {
        eprintln!(
            "step {step:>5}: L_sim {:.5}  L_orth {:.4}  L_bal {:.5}  total {:.5}",
            l.sim, l.orth, l.balance, l.total
        );
    });
    let train_seconds = trained.elapsed().as_secs_f64();
    let learned = &training.projection;
    std::fs::write(&args.output, learned.to_bytes())
        .map_err(|e| Error::io(format!("cannot write {}", args.output.display()), e))?;
    eprintln!("semhash: wrote {} ({} bits, {} dims)", args.output.display(), args.bits, dims);
    println!("{:>6} {:>14} {:>14} {:>9}", "cosine", "radius learned", "radius random", "pairs");
    for (l, r) in training.radius.learned.iter().zip(&training.radius.random) {
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
        let (l, r) = (measure(learned), measure(&training.random));
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
        let mut report = serde_json::to_value(&training).expect("a report serialises");
        for (key, value) in [
            ("input", json!(args.input.input.as_ref().map(|p| p.display().to_string()))),
            ("embed_seconds", json!(embed_seconds)),
            ("embeddings_from_cache", json!(from_cache.get())),
            ("train_seconds", json!(train_seconds)),
            ("quality", quality),
        ] {
            report[key] = value;
        }
        write_json(path, &report)?;
    }
    Ok(())
}
