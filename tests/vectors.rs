//! Known-answer vectors for every lexical signature part.
//!
//! `tests/vectors/lexical.json` holds a small corpus and, for each text, its
//! normalized form and every part of its signature, made by this crate at the
//! version that wrote the file. Any build (native, wasm32, another CPU's
//! kernels) must reproduce them bit for bit. A deliberate change of the
//! signature regenerates the file with `SEMHASH_BLESS=1 cargo test --test vectors`
//! and must bump `sketch::format::VERSION`.

use semhash::sketch::kernels::Kernel;
use semhash::sketch::{CorpusStats, Signature, Signer};
use semhash::{Config, Deduper};
use serde_json::{json, Value};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/lexical.json");

/// Texts that exercise every stage: Unicode folding, homoglyphs, invisible
/// characters, CJK, punctuation-only, signs that end a name ("C++"), a
/// template shared by five pages (so the statistics mark boilerplate), a
/// containment pair, and a text long enough to skip the char sketch.
fn corpus() -> Vec<String> {
    let template =
        "Home | News | Sports | Weather | Contact us | Subscribe to our newsletter for daily updates and offers";
    let mut texts: Vec<String> = vec![
        "The quick brown fox jumps over the lazy dog.".into(),
        "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!".into(),
        "Тhе quiсk brоwn fох jumps оvеr thе lаzy dоg".into(),
        "The\u{a0}quick\u{200b} brown\tfox\njumps over the lazy dog".into(),
        "ﬁne ﬂour, ｆｕｌｌ－ｗｉｄｔｈ text and café (cafe\u{301})".into(),
        "東京は日本の首都です。京都は古い都です。".into(),
        "!!! ??? ...".into(),
        "Straße ΣΊΣΥΦΟΣ".into(),
        "Bindings for C++17 and C#, not for C: a+b #tag".into(),
    ];
    let stories = [
        "a river flooded the lower town after three days of rain and the bridge was closed to traffic",
        "the city council approved a new budget for schools libraries and public parks on tuesday evening",
        "scientists found a new species of frog in the mountain forests during a survey last spring",
        "the local football club won the regional cup after a penalty shootout in front of a full stadium",
        "a bakery on main street celebrated fifty years of bread cakes and coffee with free pastries",
    ];
    for story in stories {
        texts.push(format!("{template}\n{story}\n{template}"));
    }
    let chapter = "in the beginning was the word and the word was with god and the word was god \
                   the same was in the beginning with god all things were made by him and without him \
                   was not any thing made that was made in him was life and the life was the light of men";
    texts.push(chapter.into());
    texts.push("all things were made by him and without him was not any thing made that was made".into());
    texts.push(chapter.repeat(4));
    for heading in ["Qt 5 core module (libqt5core5a)", "ＱＴ６ core module, 64-bit"] {
        texts.push(format!("{heading}\n{chapter}"));
    }
    texts
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn vector(text: &str, normalized: &str, sig: &Signature, deduper: &Deduper) -> Value {
    json!({
        "text": text,
        "normalized": normalized,
        "exact": format!("{:032x}", sig.exact),
        "char_len": sig.char_len,
        "word_len": sig.word_len,
        "boilerplate_share_bits": sig.boilerplate_share.to_bits(),
        "char_minhash": sig.char_minhash,
        "weighted_minhash": sig.weighted_minhash,
        "passages": sig.passages,
        "heading_numbers": sig.heading_numbers,
        "bytes": hex(&sig.to_bytes(deduper.fingerprint())),
    })
}

fn compute() -> Value {
    let deduper = Deduper::new(Config::default()).unwrap();
    let texts = corpus();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let sigs = deduper.sign_batch(&refs, &semhash::util::Silent).unwrap();
    let vectors: Vec<Value> =
        texts.iter().zip(&sigs).map(|(t, s)| vector(t, &deduper.config().normalize.text(t), s, &deduper)).collect();
    json!({
        "about": "Known-answer lexical signatures (semhash tests/vectors.rs). Statistics are those of this corpus.",
        "format_version": semhash::sketch::format::VERSION,
        "fingerprint": deduper.fingerprint().to_string(),
        "vectors": vectors,
    })
}

#[test]
fn signatures_match_the_known_answers() {
    let got = compute();
    if std::env::var_os("SEMHASH_BLESS").is_some() {
        std::fs::write(PATH, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let want: Value = serde_json::from_str(&std::fs::read_to_string(PATH).expect("vectors file")).unwrap();
    assert_eq!(got["fingerprint"], want["fingerprint"], "config fingerprint");
    let (got, want) = (got["vectors"].as_array().unwrap(), want["vectors"].as_array().unwrap());
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        for field in [
            "normalized",
            "exact",
            "char_len",
            "word_len",
            "boilerplate_share_bits",
            "char_minhash",
            "weighted_minhash",
            "passages",
            "heading_numbers",
            "bytes",
        ] {
            assert_eq!(g[field], w[field], "{field} of {:?}", w["text"]);
        }
    }
}

#[test]
fn vectors_cover_every_part() {
    let vectors = compute();
    let v = vectors["vectors"].as_array().unwrap();
    let nonempty = |field: &str| v.iter().filter(|x| !x[field].as_array().unwrap().is_empty()).count();
    assert!(nonempty("char_minhash") > 0 && nonempty("char_minhash") < v.len(), "some texts skip the char sketch");
    assert!(nonempty("weighted_minhash") > 0 && nonempty("passages") > 0);
    assert!(nonempty("heading_numbers") > 0 && nonempty("heading_numbers") < v.len(), "some texts name versions");
    assert!(
        v.iter().any(|x| x["passages"].as_array().unwrap().iter().any(|p| p.as_u64().unwrap() & 1 == 1)),
        "boilerplate samples"
    );
    assert!(v.iter().any(|x| x["boilerplate_share_bits"].as_u64() != Some(0)));
}

#[test]
fn every_kernel_reproduces_the_vectors() {
    // The batch above used the fastest kernel; sign again with each one.
    let deduper = Deduper::new(Config::default()).unwrap();
    let texts = corpus();
    let prepared: Vec<_> = texts.iter().map(|t| deduper.prepare(t)).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let want = deduper.sign_batch(&refs, &semhash::util::Silent).unwrap();
    // The statistics as `sign_batch` makes them: exact copies count once.
    let mut seen = std::collections::HashSet::new();
    let unique: Vec<&[u64]> = prepared.iter().filter(|p| seen.insert(p.exact)).map(|p| p.sequence.as_slice()).collect();
    let stats = CorpusStats::from_corpus(&deduper.config().weights, &unique);
    for kernel in Kernel::available() {
        let signer = Signer::new(&deduper.config().sketch).with_kernel(kernel);
        for (p, w) in prepared.iter().zip(&want) {
            assert_eq!(&signer.sign(p, &stats), w, "{kernel:?}");
        }
    }
}
