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
