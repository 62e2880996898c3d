//! Writes the starting corpus of every target (`fuzz/run` calls it when a
//! target has none yet): real signatures, statistics, a store log, a
//! projection, the shipped boundary and sample documents, so that the
//! fuzzer begins from valid inputs and mutates them.

use semhash::store::{FileStore, HostStore, Incremental};
use semhash::{Config, Deduper, Document};
use std::fs;
use std::path::Path;

const TEXTS: [&str; 6] = [
    "The quick brown fox jumps over the lazy dog.",
    "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!",
    "The quіck brоwn fox jumps over the\u{200b} lazy dog",
    "Python SDK for AWS Eventbridge",
    "Python SDK for AWS Opensearch",
    "And he burnt sweet incense thereon; as the LORD commanded Moses.",
];

fn write(dir: &Path, target: &str, name: &str, bytes: &[u8]) {
    let dir = dir.join(target);
    fs::create_dir_all(&dir).expect("corpus folder");
    fs::write(dir.join(name), bytes).expect("seed file");
}

fn main() {
    let out = std::env::args().nth(1).expect("usage: seeds OUT_DIR");
    let out = Path::new(&out);
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let deduper = Deduper::new(Config::default()).expect("default config");
    let fp = deduper.fingerprint();
    let docs: Vec<Document> =
        TEXTS.iter().enumerate().map(|(i, t)| Document { id: format!("d{i}"), text: (*t).into() }).collect();

    let jsonl: String =
        docs.iter().map(|d| serde_json::json!({"id": d.id, "text": d.text}).to_string() + "\n").collect();
    write(out, "jsonl", "sample", jsonl.as_bytes());
    write(
        out,
        "jsonl",
        "ints-bom",
        "\u{feff}{\"id\": 7, \"text\": \"a\"}\r\n{\"id\": \"7\", \"text\": \"b\"}\n".as_bytes(),
    );
    write(
        out,
        "jsonl",
        "bad",
        b"{\"id\": 1.5, \"text\": \"x\"}\n{\"id\": \"s\", \"text\": \"\\ud800\"}\nnot json\n\xff\xfe\n",
    );
    for (i, t) in TEXTS.iter().enumerate() {
        write(out, "normalize", &format!("t{i}"), t.as_bytes());
    }

    let mut host =
        Incremental::open(Deduper::new(Config::default()).expect("config"), HostStore::preloaded(Vec::new(), None))
            .expect("host store");
    host.add(&docs).expect("add");
    let commit = host.store_mut().take_commits().pop().expect("a commit");
    write(out, "signature", "sig", &commit.added[0].1);
    write(out, "signature", "stats", &commit.stats);

    let tmp = std::env::temp_dir().join(format!("semhash-seeds-{}", std::process::id()));
    let store = FileStore::open_writer(&tmp, fp, std::time::Duration::ZERO).expect("file store");
    let mut index = Incremental::open(Deduper::new(Config::default()).expect("config"), store).expect("open store");
    index.add(&docs[..3]).expect("add");
    index.remove(&["d1".to_owned()]).expect("remove");
    index.add(&docs[3..]).expect("add");
    drop(index);
    write(out, "store_log", "log", &fs::read(tmp.join("log")).expect("log"));
    fs::remove_dir_all(&tmp).expect("clean up");

    write(out, "projection", "random", &semhash::semantic::Projection::random(64, 8, 7).to_bytes());
    write(out, "boundary", "shipped", &fs::read(repo.join("models/boundary.json")).expect("models/boundary.json"));

    let config = serde_json::to_string(deduper.config()).expect("config serialises");
    write(out, "dedup", "default", format!("{config}\n{}", TEXTS.join("\n")).as_bytes());
    write(out, "dedup", "no-config", format!("\n{}", TEXTS.join("\n")).as_bytes());
}
