//! The command's JSONL reader and admission, then de-duplication: any bytes
//! give documents or refusals by line, never a panic, and every admitted id
//! comes out of `dedup` exactly once.

use semhash::admit::OnError;
use semhash_cli::io::{read_jsonl_documents, InputOptions};

fn main() {
    // A deduper holds its stages behind trait objects; a panic ends the run.
    let deduper =
        std::panic::AssertUnwindSafe(semhash::Deduper::new(semhash::Config::default()).expect("default config"));
    afl::fuzz!(|data: &[u8]| {
        for on_error in [OnError::Skip, OnError::Fail] {
            let options = InputOptions { id_field: "id".into(), text_field: "text".into(), on_error };
            let Ok(loaded) = read_jsonl_documents(data, "fuzz", &options, &deduper) else { continue };
            let lines = data.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count();
            assert!(loaded.docs.len() + loaded.skipped.len() <= lines.max(1));
            let out = deduper.dedup(&loaded.docs, &semhash::util::Silent).expect("admitted documents dedup");
            let ids: Vec<&str> = out.docs.iter().map(|d| d.id.as_str()).collect();
            let want: Vec<&str> = loaded.docs.iter().map(|d| d.id.as_str()).collect();
            assert_eq!(ids, want, "every admitted id once, in input order");
        }
    });
}
