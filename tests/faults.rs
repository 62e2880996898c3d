//! Faults injected into a store's files: every one is refused or recovered
//! from, never answered wrongly. A torn last batch (a write cut at any byte)
//! is dropped with a warning and everything committed before it is kept;
//! a flipped bit anywhere in the log is refused, or (in a frame's length,
//! where it reads as a cut) dropped with the same warning, never decoded into
//! other signatures.

use semhash::store::{decode_log, FileStore, Incremental};
use semhash::{Config, Deduper, Document};
use std::time::Duration;

fn doc(id: &str, text: &str) -> Document {
    Document { id: id.into(), text: text.into() }
}

/// A store of two batches ("a", "b"), then "b" removed in a third; the log's bytes
/// and where each batch's frame ends.
fn two_batches(dir: &std::path::Path) -> (Vec<u8>, Vec<u64>) {
    let deduper = Deduper::new(Config::default()).unwrap();
    let file = FileStore::open_writer(dir, deduper.fingerprint(), Duration::ZERO).unwrap();
    let mut store = Incremental::open(deduper, file).unwrap();
    let mut ends = Vec::new();
    let log_len = || std::fs::metadata(dir.join("log")).unwrap().len();
    store.add(&[doc("a", "The first batch holds one sentence about rivers and bridges.")]).unwrap();
    ends.push(log_len());
    store
        .add(&[doc("b", "A second batch with its own sentence about gardens."), doc("c", "And a third text.")])
        .unwrap();
    ends.push(log_len());
    store.remove(&["b".into()]).unwrap();
    ends.push(log_len());
    (std::fs::read(dir.join("log")).unwrap(), ends)
}

fn ids(log: &semhash::store::Log) -> Vec<&str> {
    log.live.iter().map(|d| d.id.as_str()).collect()
}

#[test]
fn a_write_cut_at_any_byte_keeps_every_batch_committed_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, ends) = two_batches(dir.path());
    let fp = Deduper::new(Config::default()).unwrap().fingerprint();
    let committed = |cut: u64| match ends.iter().filter(|&&e| e <= cut).count() {
        0 => vec![],
        1 => vec!["a"],
        2 => vec!["a", "b", "c"],
        _ => vec!["a", "c"],
    };
    for cut in 0..=bytes.len() {
        let log = decode_log(&bytes[..cut], fp, "log").unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert_eq!(ids(&log), committed(cut as u64), "cut at {cut}");
        assert_eq!(log.torn_tail.is_some(), !ends.contains(&(cut as u64)) && cut > 0, "cut at {cut}");
    }

    // Through the store: a cut inside the second batch, then a new batch is
    // appended after the first (the torn bytes are dropped first).
    let cut = (ends[0] + ends[1]) / 2;
    std::fs::write(dir.path().join("log"), &bytes[..cut as usize]).unwrap();
    let deduper = Deduper::new(Config::default()).unwrap();
    let file = FileStore::open_writer(dir.path(), deduper.fingerprint(), Duration::ZERO).unwrap();
    let mut store = Incremental::open(deduper, file).unwrap();
    assert_eq!(store.len(), 1);
    store.add(&[doc("d", "Written after the interrupted batch was dropped.")]).unwrap();
    drop(store);
    let log = decode_log(&std::fs::read(dir.path().join("log")).unwrap(), fp, "log").unwrap();
    assert_eq!(ids(&log), ["a", "d"]);
    assert!(log.torn_tail.is_none());
}

#[test]
fn a_flipped_bit_anywhere_in_the_log_is_refused_or_read_as_a_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, ends) = two_batches(dir.path());
    let fp = Deduper::new(Config::default()).unwrap().fingerprint();
    let whole = ids(&decode_log(&bytes, fp, "log").unwrap()).join(",");
    for at in 0..bytes.len() {
        for bit in [0, 3, 7] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << bit;
            match decode_log(&flipped, fp, "log") {
                Err(_) => {}
                Ok(log) => {
                    // Only a frame's length can turn a complete frame into an
                    // apparent cut: then the batches before it are what remains.
                    let torn = log.torn_tail.as_deref().unwrap_or_else(|| {
                        panic!("bit {bit} of byte {at} flipped, decoded without a word: {:?} (was {whole})", ids(&log))
                    });
                    assert!(torn.contains("incomplete last batch"), "{torn}");
                    assert!(ends.contains(&log.valid_len) || log.valid_len == 0, "byte {at}: {}", log.valid_len);
                    let frame_start = *ends.iter().rev().find(|&&e| e <= at as u64).unwrap_or(&0);
                    assert!((frame_start + 4..frame_start + 8).contains(&(at as u64)), "byte {at} is no length field");
                }
            }
        }
    }
}
