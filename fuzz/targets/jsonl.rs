//! The command's JSONL reader and admission, then de-duplication: any bytes
//! give documents or refusals by line, never a panic; where the strict
//! reader (`--on-error fail`) accepts the input, it admits exactly what the
//! lenient one (`skip`) does; and every admitted id comes out of `dedup`
//! exactly once.

use semhash::admit::OnError;
use semhash_cli::io::{read_jsonl_documents, InputOptions};

fn main() {
    // A deduper holds its stages behind trait objects; a panic ends the run.
    let deduper =
        std::panic::AssertUnwindSafe(semhash::Deduper::new(semhash::Config::default()).expect("default config"));
    let options = |on_error| InputOptions { id_field: "id".into(), text_field: "text".into(), on_error };
    afl::fuzz!(|data: &[u8]| {
        let Ok(loaded) = read_jsonl_documents(data, "fuzz", &options(OnError::Skip), &deduper) else { return };
        let lines = data.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count();
        assert!(loaded.docs.len() + loaded.skipped.len() <= lines.max(1));
        let docs = |l: &semhash_cli::io::Loaded| -> Vec<(String, String)> {
            l.docs.iter().map(|d| (d.id.clone(), d.text.clone())).collect()
        };
        if let Ok(strict) = read_jsonl_documents(data, "fuzz", &options(OnError::Fail), &deduper) {
            assert!(strict.skipped.is_empty() && loaded.skipped.is_empty(), "fail accepts only what skip keeps whole");
            assert_eq!(docs(&strict), docs(&loaded), "fail and skip admit the same documents");
        }
        // Both readers admit the same documents when both succeed, so one
        // de-duplication covers them.
        let out = deduper.dedup(&loaded.docs, &semhash::util::Silent).expect("admitted documents dedup");
        let ids: Vec<&str> = out.docs.iter().map(|d| d.id.as_str()).collect();
        let want: Vec<&str> = loaded.docs.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, want, "every admitted id once, in input order");
    });
}
