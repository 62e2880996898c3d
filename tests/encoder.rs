//! The student encoder through tract reproduces what onnxruntime computed
//! when the model was made (`models/reference.json`), one text at a time and
//! in padded batches.
#![cfg(feature = "encoder")]

use semhash::encoder::{Encoder, EncoderConfig, LongText};
use serde_json::Value;

/// The committed models, or another folder with the same files (`SEMHASH_MODELS`).
fn models() -> String {
    std::env::var("SEMHASH_MODELS").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/models").into())
}

fn load(config: &EncoderConfig) -> Encoder {
    let onnx = std::fs::read(format!("{}/student.onnx", models())).expect("student.onnx");
    let tokenizer = std::fs::read(format!("{}/tokenizer.json", models())).expect("tokenizer.json");
    Encoder::from_bytes(&onnx, &tokenizer, config).unwrap()
}

fn reference() -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{}/reference.json", models())).unwrap()).unwrap()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>()
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

#[test]
fn tract_reproduces_the_reference_embeddings() {
    let refs = reference();
    let cases = refs["cases"].as_array().unwrap();
    // The reference truncates at the model's window: compare the first window.
    let encoder = load(&EncoderConfig { long_text: LongText::Truncate, ..EncoderConfig::default() });
    let texts: Vec<&str> = cases.iter().map(|c| c["text"].as_str().unwrap()).collect();
    let batched = encoder.encode(&texts).unwrap();
    for (case, got) in cases.iter().zip(&batched) {
        let want = floats(&case["student"]);
        let single = &encoder.encode(&[case["text"].as_str().unwrap()]).unwrap()[0];
        assert!(cosine(&single.embedding, &want) >= 0.9999, "{:?}: {}", case["text"], cosine(&single.embedding, &want));
        assert!(cosine(&got.embedding, &single.embedding) >= 0.9999, "batched vs single for {:?}", case["text"]);
        assert!((got.embedding.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-4, "normalised");
    }
}

#[test]
fn importance_covers_the_words_and_long_texts_use_every_window() {
    let encoder = load(&EncoderConfig::default());
    let text = "The river flooded the lower town after three days of heavy rain.";
    let e = &encoder.encode(&[text]).unwrap()[0];
    assert!(!e.importance.is_empty());
    assert!(e.importance.iter().all(|(span, w)| span.end <= text.len() && *w >= 0.0));
    let mean = e.importance.iter().map(|(_, w)| w).sum::<f32>() / e.importance.len() as f32;
    assert!((mean - 1.0).abs() < 1e-4);

    // A text of several windows: averaging them moves the embedding towards the later ones.
    let long = format!(
        "{} {}",
        "cooking pasta with tomato sauce and basil. ".repeat(60),
        "quantum physics of black holes. ".repeat(80)
    );
    let windows = &encoder.encode(&[&long]).unwrap()[0];
    let truncate = load(&EncoderConfig { long_text: LongText::Truncate, ..EncoderConfig::default() });
    let first = &truncate.encode(&[&long]).unwrap()[0];
    let physics = &encoder.encode(&["quantum physics of black holes"]).unwrap()[0];
    assert!(cosine(&windows.embedding, &physics.embedding) > cosine(&first.embedding, &physics.embedding));
}

fn student_stage() -> semhash::semantic::Stage {
    let read = |name: &str| std::fs::read(format!("{}/{name}", models())).expect(name);
    semhash::encoder::semantic_stage(
        &read("student.onnx"),
        &read("tokenizer.json"),
        &read("sph-128.bin"),
        &EncoderConfig::default(),
    )
    .unwrap()
}

fn semantic_deduper() -> semhash::Deduper {
    semhash::Deduper::new(semhash::Config::default()).unwrap().with_semantic(student_stage())
}

/// Verse pairs from two independent Bible translations (public domain): the
/// same meaning in other words, and four unrelated texts.
const PARAPHRASES: [(&str, &str); 3] = [
    (
        "And Solomon told her all her questions: and there was nothing hid from Solomon which he told her not.",
        "Solomon answered all her questions. There wasn\u{2019}t anything hidden from Solomon which he didn\u{2019}t tell her.",
    ),
    (
        "And he burnt sweet incense thereon; as the LORD commanded Moses.",
        "and he burned incense of sweet spices on it, as Yahweh commanded Moses.",
    ),
    (
        "Remember what the LORD thy God did unto Miriam by the way, after that ye were come forth out of Egypt.",
        "Remember what Yahweh your God did to Miriam, by the way as you came out of Egypt.",
    ),
];
const UNRELATED: [&str; 4] = [
    "The compiler reports an error when a borrowed value does not live long enough.",
    "Preheat the oven, then bake the bread for forty minutes until the crust is brown.",
    "A dictionary of the English language with etymologies and definitions.",
    "The children of Zattu, eight hundred forty and five.",
];

#[test]
fn the_semantic_stage_links_paraphrases_the_lexical_stages_miss() {
    links_paraphrases_the_lexical_stages_miss(&semantic_deduper());
}

#[test]
fn the_static_table_links_paraphrases_the_lexical_stages_miss() {
    links_paraphrases_the_lexical_stages_miss(&static_deduper());
}

/// `deduper` links each verse to its other translation as a paraphrase,
/// which the lexical stages alone do not, and keeps the unrelated texts apart.
fn links_paraphrases_the_lexical_stages_miss(deduper: &semhash::Deduper) {
    use semhash::{decide::Relation, util::Silent, Document};
    let mut docs: Vec<Document> = Vec::new();
    for (i, (a, b)) in PARAPHRASES.iter().enumerate() {
        docs.push(Document { id: format!("kjv{i}"), text: a.to_string() });
        docs.push(Document { id: format!("web{i}"), text: b.to_string() });
    }
    for (i, t) in UNRELATED.iter().enumerate() {
        docs.push(Document { id: format!("other{i}"), text: t.to_string() });
    }
    // An exact copy: settled by stage 0, never embedded.
    docs.push(Document { id: "copy".into(), text: UNRELATED[0].to_uppercase() });

    let lexical = semhash::Deduper::new(semhash::Config::default()).unwrap().dedup(&docs, &Silent).unwrap();
    let semantic = deduper.dedup(&docs, &Silent).unwrap();
    let cluster = |o: &semhash::pipeline::Outcome, id: &str| o.docs.iter().find(|d| d.id == id).unwrap().cluster;
    for i in 0..PARAPHRASES.len() {
        let (a, b) = (format!("kjv{i}"), format!("web{i}"));
        assert_ne!(cluster(&lexical, &a), cluster(&lexical, &b), "pair {i} should need the semantic stage");
        assert_eq!(cluster(&semantic, &a), cluster(&semantic, &b), "pair {i} not linked: {:?}", semantic.docs);
        let web = semantic.docs.iter().find(|d| d.id == b).unwrap();
        assert_eq!(web.relation, Relation::Paraphrase);
    }
    let others: std::collections::HashSet<u32> =
        (0..UNRELATED.len()).map(|i| cluster(&semantic, &format!("other{i}"))).collect();
    assert_eq!(others.len(), UNRELATED.len(), "unrelated texts merged: {:?}", semantic.docs);
    assert_eq!(cluster(&semantic, "copy"), cluster(&semantic, "other0"));
    assert_eq!(semantic.stats.semantic_encoded, docs.len() as u64 - 1, "the exact copy is not embedded");
}

#[test]
fn semantic_signatures_round_trip_and_carry_the_models_in_their_fingerprint() {
    use semhash::sketch::Signature;
    let deduper = semantic_deduper();
    let lexical = semhash::Deduper::new(semhash::Config::default()).unwrap();
    assert_ne!(deduper.fingerprint(), lexical.fingerprint());
    let sigs = deduper.sign_batch(&[PARAPHRASES[0].0, PARAPHRASES[0].1], &semhash::util::Silent).unwrap();
    let semantic = sigs[0].semantic.as_ref().expect("a semantic part");
    assert_eq!((semantic.code.len(), semantic.embedding.len()), (2, 384));
    let bytes = sigs[0].to_bytes(deduper.fingerprint());
    assert_eq!(Signature::from_bytes(&bytes, deduper.fingerprint(), "t").unwrap().0, sigs[0]);
    assert!(Signature::from_bytes(&bytes, lexical.fingerprint(), "t").is_err());
    let (verdict, signals) = deduper.verdict(&sigs[0], &sigs[1], None);
    assert!(signals.cosine.unwrap() > 0.9, "{signals:?}");
    assert_eq!(verdict.relation, semhash::decide::Relation::Paraphrase);
}

/// A store with a semantic stage: a paraphrase of a stored verse is found by
/// `query` (through the semantic codes: the lexical index has no candidate),
/// across a reopen of the store directory, and is gone once removed.
#[test]
fn a_semantic_store_finds_stored_paraphrases() {
    use semhash::store::{FileStore, Incremental};
    use semhash::Document;
    let dir = tempfile::tempdir().unwrap();
    let open = || {
        let deduper = semantic_deduper();
        let file = FileStore::open_writer(dir.path(), deduper.fingerprint(), std::time::Duration::ZERO).unwrap();
        Incremental::open(deduper, file).unwrap()
    };
    let mut store = open();
    let mut docs: Vec<Document> = PARAPHRASES
        .iter()
        .enumerate()
        .map(|(i, (a, _))| Document { id: format!("kjv{i}"), text: a.to_string() })
        .collect();
    docs.extend(UNRELATED.iter().enumerate().map(|(i, t)| Document { id: format!("other{i}"), text: t.to_string() }));
    store.add(&docs).unwrap();
    drop(store);

    let mut store = open();
    let lexical =
        Incremental::open(semhash::Deduper::new(semhash::Config::default()).unwrap(), semhash::store::MemoryStore)
            .map(|mut s| {
                s.add(&docs).unwrap();
                s
            })
            .unwrap();
    for (i, (_, web)) in PARAPHRASES.iter().enumerate() {
        assert!(lexical.query(web).unwrap().is_empty(), "pair {i} should need the semantic stage");
        let found = store.query(web).unwrap();
        assert_eq!(found.len(), 1, "pair {i}: {found:?}");
        assert_eq!(
            (found[0].id.as_str(), found[0].relation),
            (format!("kjv{i}").as_str(), semhash::decide::Relation::Paraphrase)
        );
    }
    store.remove(&["kjv0".to_owned()]).unwrap();
    assert!(store.query(PARAPHRASES[0].1).unwrap().is_empty());
}

/// Share of equal bits between two sets of hex codes.
fn bit_agreement(a: &[String], b: &[String]) -> f64 {
    let (mut same, mut all) = (0u64, 0u64);
    for (x, y) in a.iter().zip(b) {
        for (cx, cy) in x.as_bytes().chunks(16).zip(y.as_bytes().chunks(16)) {
            let parse = |c: &[u8]| u64::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap();
            same += 64 - (parse(cx) ^ parse(cy)).count_ones() as u64;
            all += 64;
        }
    }
    same as f64 / all.max(1) as f64
}

/// `tests/vectors/semantic.json`: the native codes of the sample corpus's
/// texts, which the wasm build must reproduce (>= 99.9% of bits: float
/// kernels differ between platforms, so a text near a hyperplane may flip).
/// `SEMHASH_BLESS=1` rewrites the file.
#[test]
fn semantic_codes_match_the_vectors() {
    let (codes, _) = sketch_vectors(&semantic_deduper(), "semantic.json", "models/student.onnx + models/sph-128.bin");
    let agreement = bit_agreement(&codes.0, &codes.1);
    assert!(agreement >= 0.999, "native codes agree with the vectors on {agreement} of bits");
}

/// `tests/vectors/static.json`: the static table's codes and int8
/// embeddings of the same texts. The table's arithmetic is plain `f32` in a
/// fixed order, so every build (the wasm one too) reproduces them exactly.
#[test]
fn static_codes_and_embeddings_match_the_vectors_exactly() {
    let (codes, embeddings) =
        sketch_vectors(&static_deduper(), "static.json", "models/static-128.bin + models/sph-static-128.bin");
    assert_eq!(codes.0, codes.1);
    assert_eq!(embeddings.0, embeddings.1);
}

/// The codes and int8 embeddings (hex) the semantic stage of `deduper` gives
/// the first 100 texts of `tests/data/sample.jsonl`, each with those stored
/// in `tests/vectors/FILE` (written first under `SEMHASH_BLESS=1`).
#[allow(clippy::type_complexity)]
fn sketch_vectors(
    deduper: &semhash::Deduper,
    file: &str,
    model: &str,
) -> ((Vec<String>, Vec<String>), (Vec<String>, Vec<String>)) {
    use semhash::sketch::semantic::code_hex;
    let path = format!("{}/tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
    let sample = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/sample.jsonl")).unwrap();
    let texts: Vec<String> = sample
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["text"].as_str().unwrap().to_owned())
        .take(100)
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let sketches = deduper.semantic().unwrap().sketch(&refs, &semhash::util::Silent).unwrap();
    let codes: Vec<String> = sketches.iter().map(|s| code_hex(&s.code)).collect();
    let embeddings: Vec<String> =
        sketches.iter().map(|s| s.embedding.iter().map(|&x| format!("{:02x}", x as u8)).collect()).collect();
    if std::env::var_os("SEMHASH_BLESS").is_some() {
        let mut json = serde_json::json!({"model": model, "texts": texts, "codes": codes});
        if file == "static.json" {
            json["embeddings"] = serde_json::json!(embeddings);
        }
        std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap() + "\n").unwrap();
    }
    let want: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("the vectors file")).unwrap();
    let strings = |key: &str| -> Vec<String> {
        want[key].as_array().map_or(Vec::new(), |a| a.iter().map(|c| c.as_str().unwrap().to_owned()).collect())
    };
    ((codes, strings("codes")), (embeddings, strings("embeddings")))
}

fn static_deduper() -> semhash::Deduper {
    let read = |name: &str| std::fs::read(format!("{}/{name}", models())).expect(name);
    let stage = semhash::encoder::static_table::static_stage(
        &read("static-128.bin"),
        &read("tokenizer.json"),
        &read("sph-static-128.bin"),
    )
    .unwrap();
    semhash::Deduper::new(semhash::Config::default()).unwrap().with_semantic(stage)
}

/// The cascade (`Deduper::with_verifier`): every pair keeps the static
/// table's verdict or takes the student's, the student decides some of them
/// when it may embed every text and none when it may embed none, and it
/// never embeds more than its budget of the documents.
#[test]
fn the_cascade_hands_the_pairs_the_table_is_unsure_of_to_the_student() {
    use semhash::pipeline::Verifier;
    use semhash::{util::Silent, Document};
    let texts: Vec<&str> = PARAPHRASES.iter().flat_map(|&(a, b)| [a, b]).chain(UNRELATED).collect();
    let pairs: Vec<(&str, &str)> = (0..texts.len())
        .flat_map(|i| (i + 1..texts.len()).map(move |j| (i, j)))
        .map(|(i, j)| (texts[i], texts[j]))
        .collect();
    let cascade = |budget| static_deduper().with_verifier(Verifier { stage: student_stage(), budget }).unwrap();
    let table = static_deduper().compare(&pairs).unwrap();
    let student = semantic_deduper().compare(&pairs).unwrap();
    let decided =
        |d: &[(semhash::decide::Verdict, semhash::decide::PairSignals)], i: usize| (d[i].0.relation, d[i].1.cosine);

    let none = cascade(0.0).compare(&pairs).unwrap();
    assert!((0..pairs.len()).all(|i| decided(&none, i) == decided(&table, i)), "a budget of 0 embeds nothing");
    let all = cascade(1.0).compare(&pairs).unwrap();
    let mut by_student = 0;
    for i in 0..pairs.len() {
        let got = decided(&all, i);
        assert!(got == decided(&table, i) || got == decided(&student, i), "pair {i}: {got:?}");
        by_student += (got == decided(&student, i) && got != decided(&table, i)) as usize;
    }
    assert!(by_student > 0, "no pair was handed to the student");

    let docs: Vec<Document> =
        texts.iter().enumerate().map(|(i, t)| Document { id: i.to_string(), text: t.to_string() }).collect();
    let outcome = cascade(0.2).dedup(&docs, &Silent).unwrap();
    let verified = outcome.stats.semantic_verified.expect("a verifier reports");
    assert!(verified.embedded > 0 && verified.embedded as f64 <= 0.2 * docs.len() as f64, "{verified:?}");
    assert_eq!(verified.documents, docs.len() as u64);
}
