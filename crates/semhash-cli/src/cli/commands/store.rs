//! `semhash sign`, `query` and `remove`: the signature store.

use super::*;

pub(crate) fn sign(args: SignArgs) -> Result<()> {
    let mut store = open_store(&args.store, &args.pipeline, true)?;
    let mut loaded = read_docs(&args.input, store.deduper())?;
    let (mut fresh, mut stored) = (Vec::new(), 0usize);
    for doc in std::mem::take(&mut loaded.docs) {
        if !store.contains(&doc.id) {
            fresh.push(doc);
            continue;
        }
        let message = format!("id {:?} is already in the store (remove it first to replace it)", doc.id);
        match args.input.on_error.on_error {
            OnErrorArg::Fail => return Err(Error::Input(message)),
            OnErrorArg::Skip => {
                eprintln!("semhash: warning: skipped: {message}");
                stored += 1;
            }
        }
    }
    for batch in fresh.chunks(args.batch.max(1)) {
        store.add_with_kinds(batch, |d| loaded.id_types.kind(&d.id))?;
    }
    eprintln!(
        "semhash: signed {} documents into {} ({} skipped as already stored, {} bad records); it now holds {}",
        fresh.len(),
        args.store.store.display(),
        stored,
        loaded.skipped.len(),
        store.len()
    );
    Ok(())
}

pub(crate) fn query(args: QueryArgs) -> Result<()> {
    let store = open_store(&args.store, &args.pipeline, false)?;
    let loaded = read_docs(&args.input, store.deduper())?;
    let results: Vec<Value> = loaded
        .docs
        .iter()
        .map(|d: &Document| {
            let matches: Vec<Value> = (store.query(&d.text)?.iter())
                .map(|m| json!({"id": io::id_json(&m.id, m.kind), "relation": m.relation, "score": m.score}))
                .collect();
            Ok(json!({"id": loaded.id_types.json(&d.id), "duplicate": !matches.is_empty(), "matches": matches}))
        })
        .collect::<Result<_>>()?;
    let out = args.output.output.as_deref();
    jsonl::write(out, results.iter())
}

pub(crate) fn remove(args: RemoveArgs) -> Result<()> {
    let mut ids = args.ids.clone();
    if let Some(path) = &args.ids_from {
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        ids.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned));
    }
    if ids.is_empty() {
        return Err(Error::Input("no ids given (list them, or use --ids-from FILE)".into()));
    }
    let mut store = open_store(&args.store, &args.pipeline, true)?;
    let present = store.remove(&ids)?;
    let missing: Vec<&String> = ids.iter().zip(&present).filter(|(_, p)| !**p).map(|(id, _)| id).collect();
    for id in &missing {
        eprintln!("semhash: warning: id {id:?} is not in the store");
    }
    eprintln!(
        "semhash: removed {} of {} ids; the store now holds {}",
        ids.len() - missing.len(),
        ids.len(),
        store.len()
    );
    Ok(())
}
