//! `semhash train-boundary`: the learned decision boundary
//! ([`semhash::training::train_boundary`] does the work).

use super::*;
use semhash::decide::augment::Template;
use semhash::decide::fusion::Parts;
use semhash::decide::train::TrainConfig;
use semhash::training::{self, BoundaryTraining};

pub(crate) fn train_boundary(args: TrainBoundaryArgs) -> Result<()> {
    threads(&args.threads)?;
    let reader = Deduper::new(Config::default())?;
    let mut corpora: Vec<Vec<String>> = Vec::new();
    for path in &args.corpora {
        let input = InputArgs {
            input: Some(path.clone()),
            input_format: None,
            id_field: "id".into(),
            text_field: "text".into(),
            on_error: OnErrorFlag { on_error: OnErrorArg::Skip },
        };
        corpora.push(read_docs(&input, &reader)?.docs.into_iter().map(|d| d.text).collect());
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
    let options = BoundaryTraining {
        per_corpus: args.per_corpus,
        paraphrase_strength: args.paraphrase_strength,
        config: TrainConfig {
            members: args.members,
            steps: args.steps,
            parts: Parts { gate: !args.no_gate, adaptive_boundary: !args.flat_boundary },
            dropped: args.drop.clone(),
            ..Default::default()
        },
    };
    let semantic = || {
        let models = &args.models.models;
        let stage = ModelFiles::read(models)?.stage(models, &models.join("sph-128.bin"))?;
        Ok(Deduper::new(Config::default())?.with_semantic(stage))
    };
    let last = options.config.steps.saturating_sub(1);
    let mut trained = training::train_boundary(
        &corpora,
        &templates,
        &options,
        &semantic,
        args.cache.as_deref(),
        &mut |m, step, l| {
            if step == 0 || step == last {
                eprintln!("member {m} step {step:>5}: loss {l:.5}");
            }
        },
    )?;

    println!("{:<18} {:>9} {:>9} {:>9}", "held-out kind", "pairs", "label", "accuracy");
    for (kind, k) in &trained.held_out {
        let label = if k.duplicates > 0 { "duplicate" } else { "different" };
        println!("{kind:<18} {:>9} {label:>9} {:>9.4}", k.pairs, k.accuracy());
    }
    let name = |p: &Path| p.file_name().map_or(p.display().to_string(), |n| n.to_string_lossy().into_owned());
    let provenance = trained.model.provenance.as_object_mut().expect("provenance is an object");
    provenance.insert("corpora".into(), json!(args.corpora.iter().map(|p| name(p)).collect::<Vec<_>>()));
    provenance.insert("templates".into(), json!(args.templates.as_deref().map(name)));
    write_json(&args.output, &trained.model)?;
    let seconds = &trained.model.provenance["seconds"];
    eprintln!(
        "semhash: wrote {} ({:.0} s signing and embedding, {:.0} s training)",
        args.output.display(),
        seconds["sign_and_embed"].as_f64().unwrap_or(0.0),
        seconds["train"].as_f64().unwrap_or(0.0)
    );
    if let Some(path) = &args.report {
        write_json(path, &json!({"provenance": trained.model.provenance, "held_out": trained.held_out}))?;
    }
    Ok(())
}
