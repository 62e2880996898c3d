//! What the wasm entry points do with what JavaScript hands them: a
//! configuration (JSON) and documents. The first line is tried as a
//! configuration (the default when it is not one); every other line is a
//! document. `dedup` returns every id exactly once, and `compare` of a pair
//! agrees with itself both ways round on whether they are duplicates.

fn main() {
    // A deduper holds its stages behind trait objects; a panic ends the run.
    let default =
        std::panic::AssertUnwindSafe(semhash::Deduper::new(semhash::Config::default()).expect("default config"));
    afl::fuzz!(|data: &[u8]| {
        let text = String::from_utf8_lossy(data);
        let mut lines = text.split('\n');
        let first = lines.next().unwrap_or("");
        let custom = serde_json::from_str::<semhash::Config>(first).ok().and_then(|c| semhash::Deduper::new(c).ok());
        let deduper = custom.as_ref().unwrap_or(&*default);
        let docs: Vec<semhash::Document> = lines
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| semhash::Document { id: i.to_string(), text: l.to_owned() })
            .collect();
        let out = deduper.dedup(&docs, &semhash::util::Silent).expect("dedup of non-empty texts");
        assert_eq!(out.docs.len(), docs.len());
        assert!(out.docs.iter().zip(&docs).all(|(r, d)| r.id == d.id), "every id once, in order");
        if docs.len() >= 2 {
            let (a, b) = (docs[0].text.as_str(), docs[1].text.as_str());
            let both = deduper.compare(&[(a, b), (b, a)]).expect("compare");
            assert_eq!(both[0].0.relation.is_duplicate(), both[1].0.relation.is_duplicate(), "{a:?} / {b:?}");
        }
    });
}
