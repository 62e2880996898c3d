//! Throughput of the student encoder in tract, native, on one thread.
//!
//! `cargo bench --features encoder --bench encoder -- [FILE.jsonl] [N]` encodes
//! the first N texts (default 2000) of a JSONL file of `{"text"}` objects
//! (default: the sample corpus) with `models/student.onnx`, or with the ONNX
//! and tokenizer named by `SEMHASH_ONNX` and `SEMHASH_TOKENIZER`, and prints
//! texts/s and tokens/s. Tract runs on the calling thread.

use semhash::encoder::{Encoder, EncoderConfig};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let root = env!("CARGO_MANIFEST_DIR");
    let file = args.first().cloned().unwrap_or_else(|| format!("{root}/tests/data/sample.jsonl"));
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let onnx = std::env::var("SEMHASH_ONNX").unwrap_or_else(|_| format!("{root}/models/student.onnx"));
    let tokenizer = std::env::var("SEMHASH_TOKENIZER").unwrap_or_else(|_| format!("{root}/models/tokenizer.json"));
    let texts: Vec<String> = std::fs::read_to_string(&file)
        .expect("input file")
        .lines()
        .take(n)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["text"].as_str().expect("text").to_owned())
        .collect();
    let load = Instant::now();
    let encoder = Encoder::from_bytes(
        &std::fs::read(&onnx).unwrap(),
        &std::fs::read(&tokenizer).unwrap(),
        &EncoderConfig::default(),
    )
    .expect("model loads");
    let load = load.elapsed().as_secs_f64();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let start = Instant::now();
    let encoded = encoder.encode(&refs).expect("encodes");
    let seconds = start.elapsed().as_secs_f64();
    let tokens: usize = encoded.iter().map(|e| e.importance.len()).sum();
    println!("model {onnx}");
    println!(
        "{} texts from {file}: {seconds:.2} s, {:.1} texts/s, {:.0} tokens/s (load {load:.2} s)",
        texts.len(),
        texts.len() as f64 / seconds,
        tokens as f64 / seconds
    );
}
