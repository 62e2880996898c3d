//! Fits the local judge's calibration (alignment F1 -> probability) on pairs
//! made from unlabelled text, so no evaluation label is ever used:
//!
//! ```text
//! cargo run --release --example fit_align -- CORPUS.jsonl [TEXTS] [MODELS_DIR]
//! ```
//!
//! CORPUS is JSONL with a "text" field (the committed defaults were fitted on
//! `fortunes.jsonl` of the project's data, 2,000 texts). For each text, one
//! positive and one negative pair:
//! - positive: the text after one edit a copy picks up in the wild: words
//!   dropped, doubled or swapped, typos, sentences reordered, an excerpt,
//!   case and punctuation changed, or a heavy mix of these;
//! - negative: a random other text, the next text of the corpus (an
//!   adjacent passage, often on the same subject), or the text's opening
//!   spliced onto another text's end (a shared template, different content).
//!
//! Prints the two fitted calibrations ([`AlignConfig`]) as JSON, each with
//! the pairs it was fitted on and the share of them its curve gets right:
//! `weighted` on the pairs whose words the alignment reads (both texts
//! short), scored as `dedup` scores them; `unweighted` on every pair, scored
//! with every token alike.

use semhash::encoder::{Encoder, EncoderConfig};
use semhash::judge::{fit_calibration, AlignConfig, Aligner, Pair};
use semhash::{Config, Deduper};
use std::sync::Arc;

/// splitmix64: a small deterministic generator, so the fit repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// Drops, doubles and swaps about `rate` of the words.
fn word_edits(text: &str, rate: f64, rng: &mut Rng) -> String {
    let mut out: Vec<&str> = Vec::new();
    for w in words(text) {
        if rng.chance(rate / 3.0) {
            continue;
        }
        out.push(w);
        if rng.chance(rate / 3.0) {
            out.push(w);
        }
    }
    for i in 1..out.len() {
        if rng.chance(rate / 3.0) {
            out.swap(i - 1, i);
        }
    }
    out.join(" ")
}

/// Swaps, drops or doubles a letter in about `rate` of the words.
fn typos(text: &str, rate: f64, rng: &mut Rng) -> String {
    let edit = |w: &str, rng: &mut Rng| {
        let mut c: Vec<char> = w.chars().collect();
        if c.len() < 3 || !rng.chance(rate) {
            return w.to_owned();
        }
        let i = 1 + rng.below(c.len() - 2);
        match rng.below(3) {
            0 => c.swap(i - 1, i),
            1 => drop(c.remove(i)),
            _ => c.insert(i, c[i]),
        }
        c.into_iter().collect()
    };
    words(text).into_iter().map(|w| edit(w, rng)).collect::<Vec<_>>().join(" ")
}

fn reorder_sentences(text: &str, rng: &mut Rng) -> String {
    let mut sentences: Vec<&str> =
        text.split_inclusive(['.', '!', '?']).map(str::trim).filter(|s| !s.is_empty()).collect();
    if sentences.len() < 2 {
        return word_edits(text, 0.2, rng);
    }
    let k = 1 + rng.below(sentences.len() - 1);
    sentences.rotate_left(k);
    sentences.join(" ")
}

fn excerpt(text: &str, rng: &mut Rng) -> String {
    let w = words(text);
    let keep = (w.len() * (70 + rng.below(26)) / 100).max(1);
    let start = rng.below(w.len() - keep + 1);
    w[start..start + keep].join(" ")
}

fn recase(text: &str, rng: &mut Rng) -> String {
    let t: String = text.chars().filter(|c| !matches!(c, ',' | ';' | ':' | '"' | '\'')).collect();
    if rng.chance(0.5) {
        t.to_uppercase()
    } else {
        t.to_lowercase()
    }
}

fn positive(text: &str, rng: &mut Rng) -> String {
    match rng.below(7) {
        0 => word_edits(text, 0.15 + 0.15 * rng.below(2) as f64, rng),
        1 => typos(text, 0.2, rng),
        2 => reorder_sentences(text, rng),
        3 => excerpt(text, rng),
        4 => recase(text, rng),
        5 => typos(&word_edits(text, 0.1, rng), 0.1, rng),
        _ => excerpt(&typos(&word_edits(text, 0.3, rng), 0.2, rng), rng),
    }
}

fn negative(texts: &[String], i: usize, rng: &mut Rng) -> String {
    let other = |rng: &mut Rng| {
        let j = rng.below(texts.len() - 1);
        &texts[if j >= i { j + 1 } else { j }]
    };
    match rng.below(3) {
        0 => other(rng).clone(),
        1 => texts[(i + 1) % texts.len()].clone(),
        _ => {
            let (head, tail) = (words(&texts[i]), words(other(rng)));
            let (h, t) = (head.len() * 35 / 100, tail.len() * 35 / 100);
            [&head[..h], &tail[t..]].concat().join(" ")
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus = args.get(1).expect("usage: fit_align CORPUS.jsonl [TEXTS] [MODELS_DIR]");
    let wanted: usize = args.get(2).map_or(2000, |n| n.parse().expect("TEXTS is a number"));
    let models = args.get(3).map_or("models", String::as_str);

    // Texts of 5 to 80 words, evenly spread over the corpus, in corpus order.
    let all: Vec<String> = std::fs::read_to_string(corpus)
        .expect("reads the corpus")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")))
        .filter(|t| (5..=80).contains(&words(t).len()))
        .collect();
    let step = all.len().div_ceil(wanted).max(1);
    let texts: Vec<String> = all.into_iter().step_by(step).collect();

    let mut rng = Rng(0x5eed);
    let mut pairs: Vec<(String, String, bool)> = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        pairs.push((t.clone(), positive(t, &mut rng), true));
        pairs.push((t.clone(), negative(&texts, i, &mut rng), false));
    }

    let read = |name: &str| std::fs::read(format!("{models}/{name}")).expect("reads the model files");
    let encoder = Encoder::from_bytes(&read("student.onnx"), &read("tokenizer.json"), &EncoderConfig::default())
        .expect("loads the encoder");
    let aligner = Aligner::new(Arc::new(encoder), AlignConfig::default());
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(a, b, _)| (a.as_str(), b.as_str())).collect();
    let labels: Vec<bool> = pairs.iter().map(|p| p.2).collect();
    // The pairs' words as the alignment pairs them, as `dedup` tells the judge.
    let words = Deduper::new(Config::default()).expect("default config").aligned_words(&refs);
    let fit = |batch: Vec<Pair>, labels: Vec<bool>| {
        let scores = aligner.scores(&batch).expect("scores the pairs");
        let scored: Vec<(f32, bool)> = scores.into_iter().zip(labels).collect();
        let c = fit_calibration(&scored);
        let right = scored.iter().filter(|(s, y)| (*s >= c.midpoint) == *y).count();
        serde_json::json!({
            "scale": c.scale, "midpoint": c.midpoint, "pairs": scored.len(),
            "accuracy_on_made_pairs": right as f64 / scored.len() as f64,
        })
    };
    let with_words: Vec<(Pair, bool)> = refs
        .iter()
        .zip(&words)
        .zip(&labels)
        .filter_map(|((&(a, b), w), &y)| Some((Pair { a, b, p: 0.5, words: Some(w.as_ref()?) }, y)))
        .collect();
    let weighted = fit(with_words.iter().map(|p| p.0).collect(), with_words.iter().map(|p| p.1).collect());
    let unweighted = fit(refs.iter().map(|&(a, b)| Pair::new(a, b, 0.5)).collect(), labels);
    println!(
        "{}",
        serde_json::json!({
            "corpus": corpus, "texts": texts.len(), "pairs": pairs.len(),
            "weighted": weighted, "unweighted": unweighted,
        })
    );
}
