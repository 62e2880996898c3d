//! The file-backed store keeps signatures across restarts and refuses what it cannot trust.

use semhash::decide::Relation;
use semhash::store::{FileStore, Incremental};
use semhash::{Config, Deduper, Document, Error};

fn doc(id: &str, text: &str) -> Document {
    Document { id: id.into(), text: text.into() }
}

const ARTICLE: &str = "The river flooded the lower town after three days of heavy rain, and the old stone \
                       bridge was closed to all traffic while engineers inspected its arches for damage.";

fn open(dir: &std::path::Path, config: Config) -> semhash::Result<Incremental<FileStore>> {
    let deduper = Deduper::new(config)?;
    let file = FileStore::open_writer(dir, deduper.fingerprint(), std::time::Duration::ZERO)?;
    Incremental::open(deduper, file)
}

#[test]
fn signatures_survive_a_restart_and_removal_persists() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut store = open(dir.path(), Config::default()).unwrap();
        store
            .add(&[doc("a", ARTICLE), doc("b", "Completely unrelated words about compilers, linkers and loaders.")])
            .unwrap();
    }
    let mut store = open(dir.path(), Config::default()).unwrap();
    assert_eq!(store.len(), 2);
    let edited = ARTICLE.replace("heavy rain", "rain").to_uppercase();
    let matches = store.query(&edited).unwrap();
    assert_eq!(matches.first().map(|m| (m.id.as_str(), m.relation)), Some(("a", Relation::Near)), "{matches:?}");
    assert_eq!(store.query(ARTICLE).unwrap()[0].relation, Relation::Exact);

    assert_eq!(store.remove(&["a".into(), "zzz".into()]).unwrap(), vec![true, false]);
    drop(store);
    let store = open(dir.path(), Config::default()).unwrap();
    assert_eq!(store.len(), 1);
    assert!(store.query(ARTICLE).unwrap().is_empty());
}

#[test]
fn duplicate_ids_are_refused_and_nothing_is_added() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = open(dir.path(), Config::default()).unwrap();
    store.add(&[doc("a", ARTICLE)]).unwrap();
    let err = store.add(&[doc("c", "new text here"), doc("a", "other")]).unwrap_err();
    assert!(err.to_string().contains("already in the store"), "{err}");
    assert_eq!(store.len(), 1);
    let err = store.add(&[doc("d", "   ")]).unwrap_err();
    assert!(err.to_string().contains("empty"), "{err}");
}

#[test]
fn a_store_of_another_configuration_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    open(dir.path(), Config::default()).unwrap().add(&[doc("a", ARTICLE)]).unwrap();
    let mut other = Config::default();
    other.sketch.char_ngram = 4;
    let err = open(dir.path(), other).err().expect("refused");
    assert!(matches!(err, Error::FingerprintMismatch { .. }), "{err}");
    // Decision thresholds do not shape signatures: the store opens.
    let mut looser = Config::default();
    looser.decide.set_threshold(0.5);
    assert_eq!(open(dir.path(), looser).unwrap().len(), 1);
}

#[test]
fn a_corrupted_store_is_refused_and_a_torn_last_batch_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut store = open(dir.path(), Config::default()).unwrap();
        store.add(&[doc("a", ARTICLE)]).unwrap();
        store.add(&[doc("b", "A second batch with its own sentence about gardens.")]).unwrap();
    }
    let log = dir.path().join("log");
    let bytes = std::fs::read(&log).unwrap();

    // An interrupted write leaves part of a frame: dropped, earlier batches kept.
    std::fs::write(&log, &bytes[..bytes.len() - 5]).unwrap();
    let deduper = Deduper::new(Config::default()).unwrap();
    let file = FileStore::open(dir.path(), deduper.fingerprint()).unwrap();
    let store = Incremental::open(deduper, file).unwrap();
    assert_eq!(store.len(), 1);
    assert!(store.contains("a"));

    // A flipped bit inside a complete frame: refused, with where.
    let mut flipped = bytes.clone();
    flipped[40] ^= 0x10;
    std::fs::write(&log, &flipped).unwrap();
    let err = open(dir.path(), Config::default()).err().expect("refused");
    assert!(err.to_string().contains("checksum mismatch"), "{err}");

    std::fs::write(dir.path().join("meta.json"), b"{not json").unwrap();
    let err = open(dir.path(), Config::default()).err().expect("refused");
    assert!(matches!(err, Error::Corrupted { .. }), "{err}");
}

#[test]
fn one_writer_at_a_time_while_readers_see_what_was_committed() {
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    let fingerprint = Deduper::new(Config::default()).unwrap().fingerprint();
    let mut first = open(dir.path(), Config::default()).unwrap();
    first.add(&[doc("a", ARTICLE)]).unwrap();

    let err = FileStore::open_writer(dir.path(), fingerprint, Duration::ZERO).expect_err("a second writer waits");
    let holder = format!("pid {}", std::process::id());
    assert!(matches!(&err, Error::Locked { holder: h, .. } if *h == holder), "{err}");
    assert!(err.to_string().contains("--lock-timeout"), "{err}");

    // A reader opens meanwhile and sees the committed batch; it cannot write.
    let reader = FileStore::open(dir.path(), fingerprint).unwrap();
    let mut reader = Incremental::open(Deduper::new(Config::default()).unwrap(), reader).unwrap();
    assert_eq!(reader.len(), 1);
    let err = reader.add(&[doc("r", "A reader tries to write a sentence of its own.")]).expect_err("refused");
    assert!(err.to_string().contains("opened for reading"), "{err}");

    // A waiting writer gets the store once the first is done, with its batch.
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        drop(first);
    });
    let second = FileStore::open_writer(dir.path(), fingerprint, Duration::from_secs(30)).unwrap();
    release.join().unwrap();
    let mut second = Incremental::open(Deduper::new(Config::default()).unwrap(), second).unwrap();
    second.add(&[doc("b", "A second writer adds a sentence about gardens.")]).unwrap();
    assert_eq!(second.len(), 2);
}

#[test]
fn a_host_kept_store_round_trips_through_its_commits() {
    use semhash::store::HostStore;
    let deduper = Deduper::new(Config::default()).unwrap();
    let mut store = Incremental::open(deduper, HostStore::preloaded(Vec::new(), None)).unwrap();
    store
        .add(&[doc("a", ARTICLE), doc("b", "Gardens need water, light and patience through the dry summer.")])
        .unwrap();
    store.remove(&["b".into()]).unwrap();
    let commits = store.store_mut().take_commits();
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[1].removed, ["b"]);

    // What a host would have kept: the additions minus the removals, and the last statistics.
    let kept: Vec<(String, Vec<u8>)> =
        commits[0].added.iter().filter(|(id, _)| !commits[1].removed.contains(id)).cloned().collect();
    let stats = commits.last().unwrap().stats.clone();
    let deduper = Deduper::new(Config::default()).unwrap();
    let reopened = Incremental::open(deduper, HostStore::preloaded(kept.clone(), Some(stats.clone()))).unwrap();
    assert_eq!(reopened.len(), 1);
    assert_eq!(reopened.query(ARTICLE).unwrap()[0].id, "a");

    let mut other = Config::default();
    other.sketch.word_ngram = 2;
    let deduper = Deduper::new(other).unwrap();
    let err = Incremental::open(deduper, HostStore::preloaded(kept, Some(stats))).err().expect("refused");
    assert!(matches!(err, Error::FingerprintMismatch { .. }), "{err}");
}

#[test]
fn integer_ids_keep_their_kind_and_a_version_1_store_is_read_and_upgraded_only_when_it_must() {
    use semhash::store::IdKind;
    let dir = tempfile::tempdir().unwrap();
    let meta = dir.path().join("meta.json");
    let version = || {
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&meta).unwrap()).unwrap()["version"].clone()
    };
    {
        let mut store = open(dir.path(), Config::default()).unwrap();
        store.add(&[doc("text", ARTICLE)]).unwrap();
    }
    // What an earlier release wrote: the same log under version 1.
    let v1 = std::fs::read_to_string(&meta).unwrap().replace("\"version\": 2", "\"version\": 1");
    std::fs::write(&meta, v1).unwrap();
    {
        let mut store = open(dir.path(), Config::default()).unwrap();
        store.add(&[doc("plain", "Linkers join object files and libraries into one executable program.")]).unwrap();
        assert_eq!(version(), 1, "text ids leave a version 1 store readable by the release that made it");
        let integer = |d: &Document| if d.id == "text" { IdKind::Text } else { IdKind::Integer };
        let err = store.add_with_kinds(&[doc("0042", "Some other words entirely")], integer).unwrap_err();
        assert!(err.to_string().contains("not one"), "{err}");
        store.add_with_kinds(&[doc("-42", &ARTICLE.to_uppercase())], integer).unwrap();
        assert_eq!(version(), 2, "an integer id needs version 2");
    }
    let store = open(dir.path(), Config::default()).unwrap();
    let mut matches = store.query(ARTICLE).unwrap();
    matches.sort_by(|a, b| a.id.cmp(&b.id));
    let found: Vec<(&str, IdKind)> = matches.iter().map(|m| (m.id.as_str(), m.kind)).collect();
    assert_eq!(found, [("-42", IdKind::Integer), ("text", IdKind::Text)]);
    drop(store);

    std::fs::write(&meta, std::fs::read_to_string(&meta).unwrap().replace("\"version\": 2", "\"version\": 3")).unwrap();
    assert!(matches!(open(dir.path(), Config::default()), Err(Error::UnsupportedVersion { found: 3, .. })));
}
