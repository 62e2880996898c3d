//! The `semhash` binary end to end: formats, bad input, the store commands, eval.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[path = "../../../tests/support/llm_server.rs"]
mod llm_server;
use llm_server::{ok, serve, status, verdict};
use serde_json::{json, Value};

/// The repository root: where a user runs `semhash` (its default `--models`
/// is the `models/` folder there).
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The `semhash` command, run from the repository root.
fn command() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_semhash"));
    c.current_dir(ROOT);
    c
}

fn semhash(args: &[&str]) -> Output {
    command().args(args).output().expect("runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/sample.jsonl");

#[test]
fn dedup_writes_one_line_per_document_and_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let (out, report_path) = (dir.path().join("out.jsonl"), dir.path().join("report.json"));
    let o = semhash(&["dedup", SAMPLE, "-o", out.to_str().unwrap(), "--report", report_path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("174 documents ->"), "summary on stderr: {}", stderr(&o));
    let rows = lines(&out);
    assert_eq!(rows.len(), 174);
    for field in ["id", "cluster", "representative", "relation", "score"] {
        assert!(rows.iter().all(|r| r.get(field).is_some()), "{field}");
    }
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(report["counts"]["documents"], 174);
    assert!(report["snippets"].as_array().unwrap().len() >= 3);
    assert!(report["timings_ms"]["sign"].as_f64().is_some());

    // The report names the kernel that ran; SEMHASH_KERNEL picks another.
    let o = command()
        .args(["dedup", SAMPLE, "-q", "-o", out.to_str().unwrap(), "--report", report_path.to_str().unwrap()])
        .env("SEMHASH_KERNEL", "portable")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(report["counts"]["kernel"], "Portable");
    assert_eq!(lines(&out), rows, "every kernel gives the same output");
}

#[test]
fn malformed_lines_fail_with_their_line_number_or_are_skipped_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"id\": \"a\", \"text\": \"first document text\"}\n");
    input.extend_from_slice(b"{\"id\": \"b\", \"text\": \"broken\"\n"); // line 2: bad JSON
    input.extend_from_slice(b"{\"id\": \"c\", \"text\": \"bad \xff utf8\"}\n"); // line 3
    input.extend_from_slice(b"{\"id\": \"d\", \"text\": \"\"}\n"); // line 4: empty
    input.extend_from_slice(b"{\"text\": \"no id here\"}\n"); // line 5
    input.extend_from_slice(b"{\"id\": \"a\", \"text\": \"same id again\"}\n"); // line 6
    input.extend_from_slice(b"\n{\"id\": 7, \"text\": \"numeric ids are fine\"}\n"); // line 8
    let path = write(dir.path(), "in.jsonl", &input);

    let o = semhash(&["dedup", path.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 2: not valid JSON"), "{}", stderr(&o));

    let (out, report) = (dir.path().join("out.jsonl"), dir.path().join("report.json"));
    let o = semhash(&[
        "dedup",
        path.to_str().unwrap(),
        "--on-error",
        "skip",
        "-o",
        out.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ids: Vec<serde_json::Value> = lines(&out).iter().map(|r| r["id"].clone()).collect();
    assert_eq!(ids, [serde_json::json!("a"), serde_json::json!(7)], "every valid id exactly once, as given");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let skipped: Vec<(u64, String)> = report["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["line"].as_u64().unwrap(), s["error"].as_str().unwrap().to_owned()))
        .collect();
    let expect = [
        (2, "not valid JSON"),
        (3, "invalid UTF-8 at byte"),
        (4, "text is empty"),
        (5, "missing id field"),
        (6, "duplicate id \"a\" (first seen on line 1)"),
    ];
    assert_eq!(skipped.len(), expect.len(), "{skipped:?}");
    for ((line, err), (want_line, want)) in skipped.iter().zip(expect) {
        assert_eq!(*line, want_line);
        assert!(err.contains(want), "line {line}: {err} (want {want})");
    }
}

#[test]
fn a_huge_document_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let big = "word ".repeat(10 << 20); // 50 MiB
    let input = format!("{{\"id\": \"small\", \"text\": \"fine\"}}\n{{\"id\": \"big\", \"text\": \"{big}\"}}\n");
    let path = write(dir.path(), "in.jsonl", input.as_bytes());
    let o = semhash(&["dedup", path.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("line 2") && err.contains("over the limit") && err.contains("--max-doc-bytes"), "{err}");
    let out = dir.path().join("out.jsonl");
    let o =
        semhash(&["dedup", path.to_str().unwrap(), "--max-doc-bytes", "60000000", "-o", out.to_str().unwrap(), "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out).len(), 2);
}

#[test]
fn empty_input_gives_empty_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "empty.jsonl", b"");
    let out = dir.path().join("out.jsonl");
    let o = semhash(&["dedup", path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(lines(&out).is_empty());
    assert!(stderr(&o).contains("0 documents"));
}

#[test]
fn parquet_in_and_out() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.parquet");
    let ids: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3]));
    let texts: ArrayRef = Arc::new(StringArray::from(vec![
        Some("The quick brown fox jumps over the lazy dog"),
        Some("the QUICK brown fox jumps over the lazy dog!"),
        None,
    ]));
    let batch = RecordBatch::try_from_iter([("doc_id", ids), ("body", texts)]).unwrap();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(std::fs::File::create(&input).unwrap(), batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();

    let out = dir.path().join("out.parquet");
    let args = [
        "dedup",
        input.to_str().unwrap(),
        "--id-field",
        "doc_id",
        "--text-field",
        "body",
        "-q",
        "-o",
        out.to_str().unwrap(),
    ];
    let o = semhash(&args);
    assert_eq!(o.status.code(), Some(2), "a null text is bad input");
    assert!(stderr(&o).contains("row 3 (id \"3\"): text column \"body\" is null"), "{}", stderr(&o));
    let o = semhash(&[&args[..], &["--on-error", "skip"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));

    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&out).unwrap())
            .unwrap()
            .build()
            .unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let batch = &batches[0];
    assert_eq!(batch.num_rows(), 2);
    let col = |name: &str| batch.column_by_name(name).unwrap().as_any().downcast_ref::<StringArray>().unwrap().clone();
    let ids = |name: &str| batch.column_by_name(name).unwrap().as_any().downcast_ref::<Int64Array>().unwrap().clone();
    assert_eq!(ids("representative").value(1), 1, "an integer id column stays one");
    assert_eq!(ids("id").values().to_vec(), [1, 2]);
    assert_eq!(col("relation").value(1), "exact");

    let o = semhash(&["dedup", dir.path().join("missing.parquet").to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("cannot open"), "{}", stderr(&o));
}

#[test]
fn ids_come_back_as_they_were_given() {
    let dir = tempfile::tempdir().unwrap();
    let input = concat!(
        "{\"id\": 18446744073709551615, \"text\": \"The quick brown fox jumps over the lazy dog\"}\n",
        "{\"id\": -3, \"text\": \"the quick brown fox jumps over the lazy dog\"}\n",
        "{\"id\": \"007\", \"text\": \"Compilers translate source code into machine code\"}\n",
    );
    let path = write(dir.path(), "in.jsonl", input.as_bytes());
    let out = dir.path().join("out.jsonl");
    let o = semhash(&["dedup", path.to_str().unwrap(), "-q", "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains(r#""id":18446744073709551615,"#), "{text}");
    assert!(text.contains(r#""id":-3,"cluster":0,"representative":18446744073709551615,"#), "{text}");
    assert!(text.contains(r#""parent":18446744073709551615"#), "{text}");
    assert!(text.contains(r#""id":"007","#), "a string of digits stays a string: {text}");
}

#[test]
fn two_signers_into_one_store_take_turns_and_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let inputs: Vec<PathBuf> = (0..2)
        .map(|k| {
            let docs: String = (0..3000)
                .map(|i| {
                    format!("{{\"id\": \"{k}-{i}\", \"text\": \"document {i} of writer {k} says {}\"}}\n", i * 7919 + k)
                })
                .collect();
            write(dir.path(), &format!("in{k}.jsonl"), docs.as_bytes())
        })
        .collect();
    let spawn = |input: &PathBuf| {
        command()
            .args(["sign", "--store", store.to_str().unwrap(), "--batch", "100", input.to_str().unwrap()])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (spawn(&inputs[0]), spawn(&inputs[1]));
    let outputs = [first.wait_with_output().unwrap(), second.wait_with_output().unwrap()];
    for o in &outputs {
        assert!(o.status.success(), "{}", stderr(o));
    }
    let said: String = outputs.iter().map(stderr).collect();
    assert!(said.contains("it now holds 6000"), "the later writer saw the earlier one's batches: {said}");
}

#[test]
fn a_full_disk_stops_signing_with_the_reason_and_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let docs: String =
        (0..3000).map(|i| format!("{{\"id\": \"d{i}\", \"text\": \"document {i} says {}\"}}\n", i * 7919)).collect();
    let input = write(dir.path(), "in.jsonl", docs.as_bytes());
    let sign = |extra: &[&str]| {
        let mut args = vec!["sign", "--store", store.to_str().unwrap(), "--batch", "100", input.to_str().unwrap()];
        args.extend_from_slice(extra);
        args.iter().map(|a| format!("'{a}'")).collect::<Vec<_>>().join(" ")
    };
    // The disk "fills" at 400 KiB: a file size limit, with SIGXFSZ ignored so
    // that the write fails (EFBIG) as on a full disk instead of killing the process.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f 400; exec '{}' {}", env!("CARGO_BIN_EXE_semhash"), sign(&[])))
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(!o.status.success(), "the limit was never reached: {}", stderr(&o));
    assert!(stderr(&o).contains("writing") && stderr(&o).contains("store"), "{}", stderr(&o));

    // Room again: the batches committed before the failure are there, the
    // rest is added, nothing twice.
    let o = Command::new("bash")
        .arg("-c")
        .arg(format!("exec '{}' {}", env!("CARGO_BIN_EXE_semhash"), sign(&["--on-error", "skip"])))
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("it now holds 3000"), "{}", stderr(&o));
}

#[test]
fn a_damaged_model_file_is_refused_by_name_before_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models");
    std::fs::create_dir(&models).unwrap();
    for name in ["student.onnx", "tokenizer.json", "sph-128.bin", "boundary.json", "SHA256SUMS"] {
        std::fs::copy(Path::new(ROOT).join("models").join(name), models.join(name)).unwrap();
    }
    let (models_arg, boundary) = (models.to_str().unwrap(), models.join("boundary.json"));
    let input = write(dir.path(), "in.jsonl", b"{\"id\": \"a\", \"text\": \"one text\"}\n");
    let run = |extra: &[&str]| {
        let mut args = vec!["dedup", input.to_str().unwrap(), "-o", "-"];
        args.extend_from_slice(extra);
        semhash(&args)
    };
    assert!(run(&["--semantic", "--models", models_arg]).status.success(), "intact files load");

    // A copy cut short, a flipped bit in the projection, a changed digit in
    // the boundary: each refused, naming the file.
    let onnx = std::fs::read(models.join("student.onnx")).unwrap();
    std::fs::write(models.join("student.onnx"), &onnx[..onnx.len() / 2]).unwrap();
    let o = run(&["--semantic", "--models", models_arg]);
    assert!(
        !o.status.success() && stderr(&o).contains("student.onnx") && stderr(&o).contains("SHA-256"),
        "{}",
        stderr(&o)
    );
    std::fs::write(models.join("student.onnx"), &onnx).unwrap();

    let mut sph = std::fs::read(models.join("sph-128.bin")).unwrap();
    sph[5000] ^= 0x08;
    std::fs::write(models.join("sph-128.bin"), &sph).unwrap();
    let o = run(&["--semantic", "--models", models_arg]);
    assert!(!o.status.success() && stderr(&o).contains("sph-128.bin"), "{}", stderr(&o));

    let text = std::fs::read_to_string(&boundary).unwrap();
    let at = text.find("0.").unwrap() + 2;
    let digit = if &text[at..at + 1] == "7" { "8" } else { "7" };
    std::fs::write(&boundary, format!("{}{digit}{}", &text[..at], &text[at + 1..])).unwrap();
    let o = run(&["--boundary", boundary.to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("boundary.json"), "{}", stderr(&o));

    // A file SHA256SUMS does not list (a user's own model) is read as it is.
    let own = models.join("own-boundary.json");
    std::fs::copy(Path::new(ROOT).join("models/boundary.json"), &own).unwrap();
    assert!(run(&["--boundary", own.to_str().unwrap()]).status.success());
}

#[test]
fn a_killed_semantic_dedup_resumes_from_its_work_directory_with_the_same_output() {
    let dir = tempfile::tempdir().unwrap();
    // 1,000 short texts, distinct to the lexical stages, so all are embedded:
    // four checkpointed pieces.
    let (things, uses) = (["parser", "logger", "router", "cache", "queue"], ["JSON", "YAML", "HTTP", "SQL"]);
    let docs: String = (0..1000)
        .map(|i| {
            let text = format!("A {} for {} number {i} of the {}th kind", things[i % 5], uses[i % 4], i * 31 % 997);
            serde_json::json!({"id": i, "text": text}).to_string() + "\n"
        })
        .collect();
    let input = write(dir.path(), "in.jsonl", docs.as_bytes());
    let (work, input) = (dir.path().join("work"), input.to_str().unwrap());
    let run = |out: &Path, with_work: bool| {
        let mut c = command();
        c.args(["dedup", input, "--semantic", "-q", "-o", out.to_str().unwrap()]);
        c.arg("--report").arg(out.with_extension("report.json"));
        if with_work {
            c.arg("--work").arg(&work);
        }
        c
    };
    let whole = dir.path().join("whole.jsonl");
    assert!(run(&whole, false).status().unwrap().success());

    // Killed twice at random points after a piece was kept, then run to the end.
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    let resumed = dir.path().join("resumed.jsonl");
    let mut delays = Vec::new();
    for round in 0..2u32 {
        let mut child = run(&resumed, true).stderr(std::process::Stdio::null()).spawn().unwrap();
        // Kept pieces only: a piece being written is a temporary file (named
        // `.tmp.PID`) until its rename, and a kill before that keeps nothing.
        let pieces = || {
            std::fs::read_dir(&work).map_or(0, |d| {
                d.filter_map(|e| e.ok()).filter(|e| !e.file_name().to_string_lossy().contains(".tmp.")).count()
            })
        };
        let before = pieces();
        let started = std::time::Instant::now();
        while pieces() <= before && started.elapsed().as_secs() < 120 && child.try_wait().unwrap().is_none() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let delay = (nanos >> (round * 8)) % 700;
        delays.push(delay);
        std::thread::sleep(std::time::Duration::from_millis(delay as u64));
        let _ = child.kill();
        child.wait().unwrap();
    }
    assert!(run(&resumed, true).status().unwrap().success());
    assert_eq!(
        std::fs::read_to_string(&resumed).unwrap(),
        std::fs::read_to_string(&whole).unwrap(),
        "killed after {delays:?} ms: the resumed output differs"
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(resumed.with_extension("report.json")).unwrap()).unwrap();
    assert!(report["counts"]["semantic_resumed"].as_u64().unwrap() >= 256, "{}", report["counts"]);
}

#[test]
fn compare_scores_each_pair() {
    let dir = tempfile::tempdir().unwrap();
    let pairs = concat!(
        "{\"id\": \"p1\", \"a\": \"The quick brown fox jumps over the lazy dog\", \"b\": \"The quick brown fox jumped over the lazy dog\"}\n",
        "{\"id\": \"p2\", \"a\": \"The quick brown fox jumps over the lazy dog\", \"b\": \"Compilers translate source code into machine code\"}\n",
        "{\"id\": \"p3\", \"a\": \"Python SDK for AWS Eventbridge\", \"b\": \"Python SDK for AWS Opensearch\"}\n",
    );
    let path = write(dir.path(), "pairs.jsonl", pairs.as_bytes());
    let out = dir.path().join("out.jsonl");
    let o = semhash(&["compare", path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = lines(&out);
    assert_eq!((rows[0]["id"].as_str(), rows[0]["duplicate"].as_bool()), (Some("p1"), Some(true)));
    assert_eq!((rows[1]["relation"].as_str(), rows[1]["duplicate"].as_bool()), (Some("none"), Some(false)));
    assert!(rows[0]["signals"]["char_sim"].as_f64().unwrap() > rows[1]["signals"]["char_sim"].as_f64().unwrap());
    // What the alignment left unmatched is the reason, in the texts' order.
    assert_eq!(rows[0]["unmatched"], serde_json::json!({"a": [], "b": []}), "an inflection is matched");
    assert!(rows[1].get("unmatched").is_none(), "too little shared to be aligned: {}", rows[1]);
    let word = |side: &str| rows[2]["unmatched"][side][0][0].clone();
    assert_eq!(
        (rows[2]["relation"].as_str(), word("a"), word("b")),
        (Some("none"), "eventbridge".into(), "opensearch".into())
    );
}

#[test]
fn ids_signed_into_a_store_come_back_from_queries_as_they_were_given() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let store = store.to_str().unwrap();
    let input = concat!(
        "{\"id\": 18446744073709551615, \"text\": \"The quick brown fox jumps over the lazy dog\"}\n",
        "{\"id\": -3, \"text\": \"the quick brown fox jumps over the lazy dog!\"}\n",
        "{\"id\": \"007\", \"text\": \"THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG\"}\n",
    );
    let o = semhash(&["sign", "--store", store, write(dir.path(), "in.jsonl", input.as_bytes()).to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let query = "{\"id\": 5, \"text\": \"the quick brown fox jumps over the lazy dog\"}\n";
    let out = dir.path().join("matches.jsonl");
    let q = write(dir.path(), "q.jsonl", query.as_bytes());
    let o = semhash(&["query", "--store", store, q.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let row = &lines(&out)[0];
    assert_eq!(row["id"], serde_json::json!(5));
    let mut ids: Vec<String> = row["matches"].as_array().unwrap().iter().map(|m| m["id"].to_string()).collect();
    ids.sort();
    assert_eq!(ids, ["\"007\"", "-3", "18446744073709551615"], "{row}");
    let meta = std::fs::read_to_string(dir.path().join("store/meta.json")).unwrap();
    assert!(meta.contains("\"version\": 2"), "{meta}");

    // Removed by its spelling, an integer id is gone from later answers.
    let o = semhash(&["remove", "--store", store, "--", "-3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = semhash(&["query", "--store", store, q.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out)[0]["matches"].as_array().unwrap().len(), 2);
}

#[test]
fn sign_query_remove_through_a_store_directory() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let store = store.to_str().unwrap();
    let o = semhash(&["sign", "--store", store, SAMPLE]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("it now holds 174"), "{}", stderr(&o));

    // Signing the same ids again is refused (or skipped).
    let o = semhash(&["sign", "--store", store, SAMPLE]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("already in the store"));

    let sample = std::fs::read_to_string(SAMPLE).unwrap();
    let first: serde_json::Value = serde_json::from_str(sample.lines().next().unwrap()).unwrap();
    let query =
        format!("{}\n", serde_json::json!({"id": "q1", "text": first["text"].as_str().unwrap().to_uppercase()}));
    let qpath = write(dir.path(), "q.jsonl", query.as_bytes());
    let out = dir.path().join("matches.jsonl");
    let o = semhash(&["query", "--store", store, qpath.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = lines(&out);
    assert_eq!(rows[0]["duplicate"], true);
    assert_eq!(rows[0]["matches"][0]["id"], first["id"]);

    let id = first["id"].as_str().unwrap();
    let o = semhash(&["remove", "--store", store, id, "nope"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("removed 1 of 2") && stderr(&o).contains("\"nope\" is not in the store"),
        "{}",
        stderr(&o)
    );
    let o = semhash(&["query", "--store", store, qpath.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(lines(&out)[0]["matches"].as_array().unwrap().iter().all(|m| m["id"] != first["id"]));

    let o = semhash(&[
        "query",
        "--store",
        store,
        "--config",
        write(dir.path(), "c.json", br#"{"sketch": {"char_ngram": 4}}"#).to_str().unwrap(),
        qpath.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("different configuration"), "{}", stderr(&o));
}

#[test]
fn eval_reports_per_type_and_pair_metrics() {
    let o = semhash(&["eval", "--clusters", SAMPLE]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("boilerplate") && text.contains("snippets: 3 of 3"), "{text}");

    let dir = tempfile::tempdir().unwrap();
    let pairs = concat!(
        "{\"a\": \"the cat sat on the mat today\", \"b\": \"the cat sat on a mat today\", \"label\": 1}\n",
        "{\"a\": \"the cat sat on the mat today\", \"b\": \"dogs bark loudly at the postman\", \"label\": 0}\n",
        "{\"a\": \"a long road home through the hills\", \"b\": \"a long road home through the hill\", \"label\": true}\n",
    );
    let path = write(dir.path(), "pairs.jsonl", pairs.as_bytes());
    let json = dir.path().join("m.json");
    let o = semhash(&["eval", "--pairs", path.to_str().unwrap(), "--json", json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(m["pairs"], 3);
    assert_eq!(m["best"]["char_sim"]["f1"], 1.0);

    let bad = write(dir.path(), "bad.jsonl", b"{\"a\": \"x\", \"b\": \"y\"}\n");
    let o = semhash(&["eval", "--pairs", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 1: missing field \"label\""), "{}", stderr(&o));
}

#[test]
fn every_command_documents_its_flags() {
    for (command, flags) in [
        (
            "dedup",
            &[
                "--output",
                "--report",
                "--threshold",
                "--threads",
                "--id-field",
                "--text-field",
                "--on-error",
                "--max-doc-bytes",
                "--config",
            ][..],
        ),
        ("compare", &["--output", "--on-error", "--threshold"][..]),
        ("sign", &["--store", "--batch", "--on-error"][..]),
        ("query", &["--store", "--output"][..]),
        ("remove", &["--store", "--ids-from"][..]),
        ("eval", &["--pairs", "--clusters", "--json", "--semantic", "--embedder", "--semantic-threshold"][..]),
        ("train-sph", &["--output", "--bits", "--steps", "--sample", "--eval-pairs", "--cache", "--embedder"][..]),
    ] {
        let o = semhash(&[command, "--help"]);
        let help = String::from_utf8(o.stdout).unwrap();
        for flag in flags {
            assert!(help.contains(flag), "{command} --help lacks {flag}");
        }
    }
}

#[test]
fn train_sph_writes_a_projection_the_semantic_stage_loads() {
    let dir = tempfile::tempdir().unwrap();
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");
    let projection = dir.path().join("sph-64.bin");
    let p = projection.to_str().unwrap();
    let o = semhash(&["train-sph", SAMPLE, "-o", p, "--bits", "64", "--steps", "50", "--models", models]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bytes = std::fs::read(&projection).unwrap();
    let loaded = semhash::semantic::Projection::from_bytes(&bytes, "sph-64.bin").unwrap();
    assert_eq!((loaded.bits, loaded.dims, loaded.radius.len()), (64, 384, 10));

    let out = dir.path().join("out.jsonl");
    let o =
        semhash(&["dedup", SAMPLE, "-o", out.to_str().unwrap(), "--semantic", "--models", models, "--projection", p]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out).len(), 174);

    // The semantic stage is part of the configuration: printed, and asked for by a config file.
    let o = semhash(&["config", "--semantic"]);
    let printed: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(printed["semantic"], json!({"enabled": true, "attention_weights": false}));
    let config = dir.path().join("semantic.json");
    std::fs::write(&config, r#"{"semantic": {"enabled": true}}"#).unwrap();
    let report = dir.path().join("report.json");
    let args = ["dedup", SAMPLE, "-q", "-o", out.to_str().unwrap(), "--config", config.to_str().unwrap()];
    let o =
        semhash(&[&args[..], &["--models", models, "--projection", p, "--report", report.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(report["counts"]["semantic_encoded"].as_u64().unwrap() > 0, "{}", report["counts"]);
    assert_eq!(report["config"]["semantic"]["enabled"], true);

    let o = semhash(&["train-sph", SAMPLE, "-o", p, "--bits", "100", "--models", models]);
    assert!(stderr(&o).contains("--bits must be 64, 128 or 256"), "{}", stderr(&o));
    let o = semhash(&["dedup", SAMPLE, "--semantic", "--models", dir.path().to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("student.onnx"), "{}", stderr(&o));
    assert!(stderr(&o).contains("from --models DIR"), "a first run says what to do: {}", stderr(&o));
    assert_eq!(o.status.code(), Some(2), "a usage error, as a missing input file");
}

#[test]
fn the_static_embedder_trains_its_projection_and_runs_the_semantic_stage_without_the_student() {
    let dir = tempfile::tempdir().unwrap();
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");
    let projection = dir.path().join("sph-static-64.bin");
    let p = projection.to_str().unwrap();
    let o = semhash(&[
        "train-sph",
        SAMPLE,
        "-o",
        p,
        "--bits",
        "64",
        "--steps",
        "50",
        "--models",
        models,
        "--embedder",
        "static",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let loaded = semhash::semantic::Projection::from_bytes(&std::fs::read(&projection).unwrap(), "p").unwrap();
    assert_eq!((loaded.bits, loaded.dims), (64, 128), "the table's 128 dimensions, not the student's 384");

    // Only the table, the tokenizer and the projection are read: no student.onnx in this folder.
    let own = dir.path().join("models");
    std::fs::create_dir(&own).unwrap();
    for name in ["static-128.bin", "tokenizer.json", "sph-static-128.bin"] {
        std::fs::copy(Path::new(models).join(name), own.join(name)).unwrap();
    }
    let (out, report) = (dir.path().join("out.jsonl"), dir.path().join("report.json"));
    let args = ["dedup", SAMPLE, "-q", "-o", out.to_str().unwrap(), "--report", report.to_str().unwrap()];
    let o = semhash(&[&args[..], &["--semantic", "--embedder", "static", "--models", own.to_str().unwrap()]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out).len(), 174);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(report["counts"]["semantic_encoded"].as_u64().unwrap() > 0, "{}", report["counts"]);

    // The student's projection does not fit the table's embeddings; a missing table is named.
    let student_sph = Path::new(models).join("sph-128.bin");
    let o = semhash(&[
        "dedup",
        SAMPLE,
        "--semantic",
        "--embedder",
        "static",
        "--models",
        models,
        "--projection",
        student_sph.to_str().unwrap(),
    ]);
    assert!(!o.status.success() && stderr(&o).contains("384-dimensional"), "{}", stderr(&o));
    std::fs::remove_file(own.join("static-128.bin")).unwrap();
    let o = semhash(&["dedup", SAMPLE, "--semantic", "--embedder", "static", "--models", own.to_str().unwrap()]);
    assert!(!o.status.success() && stderr(&o).contains("static-128.bin"), "{}", stderr(&o));
    // Without the semantic stage the embedder would do nothing: refused, not ignored.
    let o = semhash(&["dedup", SAMPLE, "--embedder", "static"]);
    assert!(!o.status.success() && stderr(&o).contains("add --semantic"), "{}", stderr(&o));
}

#[test]
fn the_cascade_reports_what_the_student_embedded_and_is_refused_where_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");
    let (out, report) = (dir.path().join("out.jsonl"), dir.path().join("report.json"));
    let args = ["dedup", SAMPLE, "-q", "-o", out.to_str().unwrap(), "--report", report.to_str().unwrap()];
    let cascade = ["--semantic", "--embedder", "cascade", "--models", models, "--verify-budget", "0.1"];
    let o = semhash(&[&args[..], &cascade].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lines(&out).len(), 174);
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let verified = &report["counts"]["semantic_verified"];
    let embedded = verified["embedded"].as_u64().expect("the report says what the student embedded");
    assert!(embedded as f64 <= 0.1 * 174.0 && verified["documents"] == 174, "{verified}");
    assert!(verified["pairs"].as_u64().unwrap() <= verified["unsure_pairs"].as_u64().unwrap(), "{verified}");

    let o = semhash(&[&args[..], &["--semantic", "--embedder", "cascade", "--verify-budget", "2"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("[0, 1]"), "{}", stderr(&o));
    // A budget without the cascade would do nothing: refused, not ignored.
    let o = semhash(&[&args[..], &["--semantic", "--embedder", "static", "--verify-budget", "0.1"]].concat());
    assert!(!o.status.success() && stderr(&o).contains("add --embedder cascade"), "{}", stderr(&o));
    // A store keeps one embedder's signatures; train-sph trains one embedder's hyperplanes.
    let store = dir.path().join("store");
    let o = semhash(&["sign", SAMPLE, "--store", store.to_str().unwrap(), "--semantic", "--embedder", "cascade"]);
    assert!(!o.status.success() && stderr(&o).contains("--embedder static"), "{}", stderr(&o));
    let p = dir.path().join("sph.bin");
    let o = semhash(&["train-sph", SAMPLE, "-o", p.to_str().unwrap(), "--models", models, "--embedder", "cascade"]);
    assert!(!o.status.success() && stderr(&o).contains("student or static"), "{}", stderr(&o));
}

#[test]
fn dedup_asks_the_local_judge_within_its_budget_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let models = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models");
    let boundary = concat!(env!("CARGO_MANIFEST_DIR"), "/../../models/boundary.json");
    let (out, report) = (dir.path().join("out.jsonl"), dir.path().join("report.json"));
    let (o, r) = (out.to_str().unwrap(), report.to_str().unwrap());
    let run = |extra: &[&str]| {
        let args = [&["dedup", SAMPLE, "-o", o, "--report", r, "--boundary", boundary, "--models", models][..], extra];
        semhash(&args.concat())
    };
    let o = run(&["--judge", "--judge-band", "0", "--judge-budget", "0.05"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("judge local:"), "{}", stderr(&o));
    assert_eq!(lines(&out).len(), 174, "every input id once");
    let stats =
        &serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&report).unwrap()).unwrap()["counts"];
    let judge = &stats["judge"];
    assert_eq!(judge["judge"], "local", "{stats}");
    let (calls, candidates) = (judge["calls"].as_u64().unwrap(), judge["candidates"].as_u64().unwrap());
    assert!(calls > 0 && calls <= candidates * 5 / 100, "{judge}");
    assert!((judge["used"].as_f64().unwrap() - calls as f64 / candidates as f64).abs() < 1e-9);

    // compare says what the judge did too (on stderr: stdout is the verdicts).
    let pairs = dir.path().join("pairs.jsonl");
    let pair = |a: &str, b: &str| serde_json::json!({"a": a, "b": b}).to_string();
    std::fs::write(
        &pairs,
        [
            pair("The cat sat on the mat all day.", "The cat sat on the mat all day long."),
            pair("Rain is expected tomorrow.", "A new bridge opened downtown."),
        ]
        .join("\n"),
    )
    .unwrap();
    let args = ["compare", pairs.to_str().unwrap(), "--boundary", boundary, "--models", models, "--judge"];
    let o = semhash(&[&args[..], &["--judge-band", "0", "--judge-budget", "1"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("judge local: 2 calls for 2 candidate pairs"), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);

    let o = run(&["--judge", "--judge-budget", "2"]);
    assert!(stderr(&o).contains("judge.budget.fraction must be in [0, 1], got 2"), "{}", stderr(&o));

    // The judge is part of the configuration: `semhash config` prints it and a
    // config file holding it asks for it without the flag.
    let o = semhash(&["config", "--boundary", boundary, "--judge", "endpoint", "--judge-budget", "0.05"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let printed: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(printed["judge"]["judge"]["type"], "endpoint");
    assert_eq!(printed["judge"]["budget"]["fraction"], 0.05);
    let replay = dir.path().join("judged.json");
    let mut local = printed.clone();
    local["judge"]["judge"] = json!({"type": "local"});
    local["judge"]["band"] = json!(0.0);
    local["judge"]["budget"]["fraction"] = json!(1.0);
    std::fs::write(&replay, local.to_string()).unwrap();
    let o = semhash(&["compare", pairs.to_str().unwrap(), "--config", replay.to_str().unwrap(), "--models", models]);
    assert!(stderr(&o).contains("judge local: 2 calls for 2 candidate pairs"), "{}", stderr(&o));
    let o = semhash(&["dedup", SAMPLE, "--judge"]);
    assert!(!o.status.success() && stderr(&o).contains("needs the learned boundary"), "{}", stderr(&o));
    let store = dir.path().join("store");
    let o = semhash(&["sign", "--store", store.to_str().unwrap(), SAMPLE, "--boundary", boundary, "--judge"]);
    assert!(!o.status.success() && stderr(&o).contains("a store keeps signatures"), "{}", stderr(&o));
}

#[test]
fn train_boundary_makes_a_model_that_loads() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("b.json");
    let models =
        std::env::var("SEMHASH_MODELS").unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../models").into());
    let o = command()
        .args(["train-boundary", SAMPLE, "-o", out.to_str().unwrap(), "--per-corpus", "60", "--members", "2"])
        .args(["--steps", "200", "--models", &models, "--drop", "code_agreement"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let model = semhash::decide::LearnedBoundary::from_json(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!((model.members.len(), model.dropped.as_slice()), (2, &["code_agreement".to_string()][..]));
    assert!(String::from_utf8_lossy(&o.stdout).contains("held-out kind"));
}

#[test]
fn a_judged_dedup_with_a_work_directory_asks_the_judge_once_per_pair() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let asked = std::sync::Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let server = serve(move |_, r| {
        count.fetch_add(1, Ordering::SeqCst);
        ok(&verdict(r.body.to_string().len() % 2 == 0))
    });
    let dir = tempfile::tempdir().unwrap();
    let (work, boundary) = (dir.path().join("work"), Path::new(ROOT).join("models/boundary.json"));
    let run = |out: &Path| {
        command()
            .args(["dedup", SAMPLE, "-q", "-o", out.to_str().unwrap(), "--boundary", boundary.to_str().unwrap()])
            .args(["--judge", "endpoint", "--judge-url", &server.url, "--judge-band", "0", "--judge-budget", "1"])
            .arg("--work")
            .arg(&work)
            .output()
            .unwrap()
    };
    let (first, second) = (dir.path().join("first.jsonl"), dir.path().join("second.jsonl"));
    let o = run(&first);
    assert!(o.status.success(), "{}", stderr(&o));
    let calls = asked.load(Ordering::SeqCst);
    assert!(calls > 10, "the judge was asked about {calls} pairs");
    let o = run(&second);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(asked.load(Ordering::SeqCst), calls, "a rerun asks about no pair the first run judged");
    assert_eq!(std::fs::read(&first).unwrap(), std::fs::read(&second).unwrap());
}

#[test]
fn the_judge_command_writes_one_line_per_pair() {
    // Says "duplicate" unless the texts differ; fails on the cursed pair.
    let server = serve(|_, r| {
        let prompt = r.body.to_string();
        if prompt.contains("cursed") {
            status(500)
        } else {
            ok(&verdict(!prompt.contains("stock prices")))
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("pairs.jsonl");
    std::fs::write(
        &input,
        [
            json!({"id": 1, "a": "the cat sat on the mat", "b": "the cat sat on a mat"}),
            json!({"id": 2, "a": "a cursed pair", "b": "a cursed pair"}),
            json!({"id": 3, "a": "the cat sat on the mat", "b": "stock prices fell sharply today"}),
        ]
        .map(|v| v.to_string())
        .join("\n"),
    )
    .unwrap();
    let out = command()
        .args(["judge", "--judge", "endpoint", "--judge-url", &server.url, "--judge-retries", "1"])
        .args(["--judge-timeout", "5", "--judge-concurrency", "2", "--judge-model", "m"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!((lines[0]["id"].clone(), lines[0]["duplicate"].clone()), (json!(1), json!(true)));
    assert!(lines[1]["error"].as_str().unwrap().contains("500"), "{}", lines[1]);
    assert_eq!(lines[2]["duplicate"], false);
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 without a verdict"));
}
