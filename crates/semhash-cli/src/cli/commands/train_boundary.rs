//! `semhash train-boundary`: the learned decision boundary.

use super::*;

/// A training pair for the boundary, before it is signed.
pub(crate) struct MadePair {
    a: String,
    b: String,
    duplicate: bool,
    kind: String,
}

/// Training pairs as features (what `train-boundary --cache` keeps).
#[derive(Serialize, serde::Deserialize)]
pub(crate) struct SignedPairs {
    /// Features, label, kind of pair.
    kept: Vec<(semhash::decide::features::Features, bool, String)>,
    left_out: usize,
    texts: usize,
    embedded: usize,
}

/// Signs the texts of `made` as one corpus, embeds the short ones as the
/// pipeline does, and turns each pair into features. A lookalike of
/// neighbours that the signals call a near copy (weighted similarity 0.8,
/// containment 0.95) is probably a true duplicate inside the corpus: unsure,
/// it is left out. Below that, similar neighbours (a package and its -dev
/// twin) are the hard negatives the boundary most needs.
pub(crate) fn sign_pairs(
    made: &[MadePair],
    lexical: &Deduper,
    semantic: &Deduper,
    cache: Option<&Path>,
) -> Result<SignedPairs> {
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

pub(crate) fn train_boundary(args: TrainBoundaryArgs) -> Result<()> {
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
