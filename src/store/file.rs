//! A directory-backed store: `meta.json`, an append-only `log` and `stats`.
//!
//! The log is a sequence of frames, one per committed batch:
//! `"SHLB"`, body length (u32), body, xxh3-64 of the body. A body is a list of
//! operations: `1` (add) with the id and the signature bytes, `3` (add, the
//! id an integer: [`IdKind::Integer`]) likewise, or `2` (remove) with the id.
//! Format version 2 added operation 3; a version 1 store is read as it is
//! and marked version 2 by the first commit that writes an integer id. A frame is written and synced before the commit returns, so a
//! crash loses at most the batch being written; a torn last frame (the process
//! died mid-write) is dropped on the next open with a warning, while a frame
//! that is complete but fails its checksum makes the store refuse to open.
//! `stats` (corpus statistics) is replaced atomically after each commit.
//!
//! One process writes a store at a time: a writer holds an advisory lock on
//! `lock` (holding its pid, to name it to a second writer, which waits for
//! it or gives up) from before it reads the store until it is dropped, so no
//! writer appends to a log it has not read. Readers take no writer lock;
//! `commit.lock` is held shared while reading and exclusive while
//! committing, so a reader sees whole commits only. The operating system
//! drops both locks when their process dies: a killed writer leaves no stale
//! lock behind.

use super::{IdKind, SignatureStore, StoredDoc};
use crate::pipeline::Deduper;
use crate::sketch::{CorpusStats, Fingerprint, Signature};
use crate::util::bytes::Reader;
use crate::util::checkpoint::write_atomic;
use crate::{Error, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const FRAME_MAGIC: [u8; 4] = *b"SHLB";
const STORE_VERSION: u16 = 2;
/// The last version without integer ids, still read (and written as long
/// as no integer id is added).
const TEXT_IDS_VERSION: u16 = 1;
const ADD: u8 = 1;
const REMOVE: u8 = 2;
const ADD_INTEGER: u8 = 3;

/// A signature store in a directory.
#[derive(Debug)]
pub struct FileStore {
    dir: PathBuf,
    fingerprint: Fingerprint,
    /// Bytes of the log up to the last complete frame.
    valid_len: u64,
    /// Warnings from opening (a dropped torn frame).
    pub warnings: Vec<String>,
    /// The writer's lock, while this store may commit ([`FileStore::open_writer`]).
    writer: Option<File>,
    /// The format version in `meta.json`.
    version: u16,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Meta {
    format: String,
    version: u16,
    fingerprint: String,
}

impl FileStore {
    /// Opens the store in `dir` for reading, creating it if missing. A store
    /// made under another configuration or format is refused.
    ///
    /// The log is read later, by the [`Incremental`](super::Incremental)
    /// that loads it. A store opened this way refuses to commit.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when the directory cannot be created or `meta.json`
    /// read or written; [`Error::Corrupted`] when `meta.json` is not a
    /// semhash store's; [`Error::UnsupportedVersion`] for another store
    /// format; [`Error::FingerprintMismatch`] when the store was made under
    /// another configuration or model.
    pub fn open(dir: impl AsRef<Path>, fingerprint: Fingerprint) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| Error::io(format!("store {}: cannot create", dir.display()), e))?;
        Self::open_dir(dir, fingerprint, None)
    }

    /// Opens the store in `dir` for writing, creating it if missing: waits
    /// up to `wait` for another writer to finish, then fails naming it.
    ///
    /// # Errors
    ///
    /// [`Error::Locked`] when another process still holds the writer's lock
    /// after `wait`, [`Error::Io`] when the lock cannot be taken, and
    /// everything [`FileStore::open`] refuses.
    pub fn open_writer(dir: impl AsRef<Path>, fingerprint: Fingerprint, wait: Duration) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| Error::io(format!("store {}: cannot create", dir.display()), e))?;
        let writer = lock_writer(&dir, wait)?;
        Self::open_dir(dir, fingerprint, Some(writer))
    }

    fn open_dir(dir: PathBuf, fingerprint: Fingerprint, writer: Option<File>) -> Result<Self> {
        let ctx = |what: &str| format!("store {}: {what}", dir.display());
        let meta_path = dir.join("meta.json");
        let version = if meta_path.exists() {
            let text = fs::read_to_string(&meta_path).map_err(|e| Error::io(ctx("cannot read meta.json"), e))?;
            let meta: Meta = serde_json::from_str(&text)
                .map_err(|e| Error::Corrupted { context: ctx("meta.json"), detail: e.to_string() })?;
            if meta.format != "semhash-store" {
                return Err(Error::Corrupted { context: ctx("meta.json"), detail: "not a semhash store".into() });
            }
            if !(TEXT_IDS_VERSION..=STORE_VERSION).contains(&meta.version) {
                return Err(Error::UnsupportedVersion {
                    context: ctx("meta.json"),
                    found: meta.version,
                    supported: STORE_VERSION,
                });
            }
            if meta.fingerprint != fingerprint.to_string() {
                return Err(Error::FingerprintMismatch {
                    context: ctx("meta.json"),
                    expected: fingerprint.to_string(),
                    found: meta.fingerprint,
                });
            }
            meta.version
        } else {
            write_meta(&meta_path, STORE_VERSION, fingerprint)?;
            STORE_VERSION
        };
        Ok(FileStore { dir, fingerprint, valid_len: 0, warnings: Vec::new(), writer, version })
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("log")
    }

    fn stats_path(&self) -> PathBuf {
        self.dir.join("stats")
    }
}

impl SignatureStore for FileStore {
    fn load(&mut self, deduper: &Deduper) -> Result<super::Stored> {
        let dir = self.dir.clone();
        with_commit_lock(&dir, false, || self.read(deduper))
    }

    fn commit(&mut self, added: &[StoredDoc], removed: &[String], stats: &CorpusStats) -> Result<()> {
        if self.writer.is_none() {
            return Err(Error::Input(format!(
                "store {}: opened for reading; open it with FileStore::open_writer to change it",
                self.dir.display()
            )));
        }
        if self.version < STORE_VERSION && added.iter().any(|d| d.kind == IdKind::Integer) {
            // Readers of the old version would not know operation 3: they
            // are told the version instead.
            write_meta(&self.dir.join("meta.json"), STORE_VERSION, self.fingerprint)?;
            self.version = STORE_VERSION;
        }
        let frame = self.frame(added, removed)?;
        let valid_len = with_commit_lock(&self.dir, true, || self.append(&frame, stats))?;
        self.valid_len = valid_len;
        Ok(())
    }
}

impl FileStore {
    /// The log's live signatures and the stored statistics; notes where the
    /// last complete frame ends (`valid_len`).
    fn read(&mut self, deduper: &Deduper) -> Result<super::Stored> {
        let log_path = self.log_path();
        let mut bytes = Vec::new();
        if log_path.exists() {
            File::open(&log_path)
                .and_then(|mut f| f.read_to_end(&mut bytes))
                .map_err(|e| Error::io(format!("reading {}", log_path.display()), e))?;
        }
        let log = decode_log(&bytes, self.fingerprint, &log_path.display().to_string())?;
        self.warnings.extend(log.torn_tail);
        self.valid_len = log.valid_len;

        let stats_path = self.stats_path();
        let stats = if stats_path.exists() {
            let bytes = fs::read(&stats_path).map_err(|e| Error::io(format!("reading {}", stats_path.display()), e))?;
            let context = stats_path.display().to_string();
            Some(CorpusStats::decode(&bytes, self.fingerprint, &deduper.config().weights, &context)?)
        } else {
            None
        };
        Ok((log.live, stats))
    }

    /// The log frame of one batch (empty when there is nothing to log).
    fn frame(&self, added: &[StoredDoc], removed: &[String]) -> Result<Vec<u8>> {
        let mut body = Vec::new();
        for doc in added {
            push_op(&mut body, if doc.kind == IdKind::Integer { ADD_INTEGER } else { ADD }, &doc.id)?;
            body.extend_from_slice(&doc.signature.to_bytes(self.fingerprint));
        }
        for id in removed {
            push_op(&mut body, REMOVE, id)?;
        }
        if body.is_empty() {
            return Ok(body);
        }
        let mut frame = Vec::with_capacity(body.len() + 16);
        frame.extend_from_slice(&FRAME_MAGIC);
        frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
        frame.extend_from_slice(&body);
        frame.extend_from_slice(&crate::util::hash::hash64(0, &body).to_le_bytes());
        Ok(frame)
    }

    /// Appends `frame` after the last complete one and replaces the
    /// statistics; returns the log's new valid length.
    fn append(&self, frame: &[u8], stats: &CorpusStats) -> Result<u64> {
        let mut valid_len = self.valid_len;
        if !frame.is_empty() {
            let path = self.log_path();
            let io = |e| Error::io(format!("writing {}", path.display()), e);
            let mut f = OpenOptions::new().create(true).write(true).truncate(false).open(&path).map_err(io)?;
            // Drop a torn frame from an interrupted write before appending.
            f.set_len(valid_len).map_err(io)?;
            f.seek(std::io::SeekFrom::End(0)).map_err(io)?;
            f.write_all(frame).and_then(|_| f.sync_data()).map_err(io)?;
            valid_len += frame.len() as u64;
        }
        write_atomic(&self.stats_path(), &stats.encode(self.fingerprint))?;
        Ok(valid_len)
    }
}

/// A store log, decoded: what [`decode_log`] found.
#[derive(Debug)]
pub struct Log {
    /// The live documents (added and not removed since), in the order added.
    pub live: Vec<StoredDoc>,
    /// Bytes up to the end of the last complete frame.
    pub valid_len: u64,
    /// A warning when an incomplete last frame (an interrupted write) was dropped.
    pub torn_tail: Option<String>,
}

/// Decodes the bytes of a store's `log` (the frame format in the module
/// docs); `context` names it in errors.
///
/// # Errors
///
/// [`Error::Corrupted`] for a complete frame that is not one or fails its
/// checksum, or an operation that does not decode; the errors of
/// [`Signature::from_bytes`] for a signature of another format or
/// configuration.
pub fn decode_log(bytes: &[u8], fingerprint: Fingerprint, context: &str) -> Result<Log> {
    let mut live: Vec<Option<StoredDoc>> = Vec::new();
    let mut slot: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut torn_tail = None;
    let mut pos = 0usize;
    while pos < bytes.len() {
        let rest = &bytes[pos..];
        let torn = rest.len() < 8 || {
            let len = u32::from_le_bytes(rest[4..8].try_into().expect("4 bytes")) as usize;
            rest.len() - 8 < len.saturating_add(8)
        };
        if torn {
            torn_tail = Some(format!(
                "{context}: dropped an incomplete last batch ({} bytes) left by an interrupted write",
                rest.len()
            ));
            break;
        }
        let corrupted = |detail: String| Error::Corrupted { context: context.to_owned(), detail };
        if rest[..4] != FRAME_MAGIC {
            return Err(corrupted(format!("no batch frame at byte {pos}")));
        }
        let len = u32::from_le_bytes(rest[4..8].try_into().expect("4 bytes")) as usize;
        let body = &rest[8..8 + len];
        let sum = u64::from_le_bytes(rest[8 + len..16 + len].try_into().expect("8 bytes"));
        if crate::util::hash::hash64(0, body) != sum {
            return Err(corrupted(format!("checksum mismatch in the batch at byte {pos}")));
        }
        let frame_ctx = format!("{context} (batch at byte {pos})");
        let mut r = Reader::new(body, &frame_ctx);
        while !r.is_empty() {
            let op = r.u8()?;
            let id_len = r.u16()? as usize;
            let id = std::str::from_utf8(r.take(id_len)?).map_err(|_| r.malformed("id"))?.to_owned();
            match op {
                ADD | ADD_INTEGER => {
                    let start = r.position();
                    let (signature, used) = Signature::from_bytes(&body[start..], fingerprint, &frame_ctx)?;
                    r.skip(used)?;
                    slot.insert(id.clone(), live.len());
                    let kind = if op == ADD_INTEGER { IdKind::Integer } else { IdKind::Text };
                    live.push(Some(StoredDoc { id, kind, signature }));
                }
                REMOVE => {
                    if let Some(i) = slot.remove(&id) {
                        live[i] = None;
                    }
                }
                _ => return Err(r.malformed("operation")),
            }
        }
        pos += 16 + len;
    }
    Ok(Log { live: live.into_iter().flatten().collect(), valid_len: pos as u64, torn_tail })
}

fn write_meta(path: &Path, version: u16, fingerprint: Fingerprint) -> Result<()> {
    let meta = Meta { format: "semhash-store".into(), version, fingerprint: fingerprint.to_string() };
    write_atomic(path, serde_json::to_string_pretty(&meta).expect("meta serialises").as_bytes())
}

/// Runs `f` holding the store's `commit.lock`: exclusive to commit, shared to read.
fn with_commit_lock<T>(dir: &Path, exclusive: bool, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let path = dir.join("commit.lock");
    let io = |e| Error::io(format!("locking {}", path.display()), e);
    let file = OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
    if exclusive { file.lock() } else { file.lock_shared() }.map_err(io)?;
    // Closing the file releases the lock, also after an error in `f`.
    f()
}

/// Takes the writer's lock of the store in `dir` (waiting up to `wait`) and
/// writes this process's id into it.
fn lock_writer(dir: &Path, wait: Duration) -> Result<File> {
    let path = dir.join("lock");
    let io = |e| Error::io(format!("locking {}", path.display()), e);
    let mut file = OpenOptions::new().create(true).truncate(false).read(true).write(true).open(&path).map_err(io)?;
    let started = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(fs::TryLockError::WouldBlock) => {}
            Err(fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        if started.elapsed() >= wait {
            return Err(Error::Locked {
                store: dir.display().to_string(),
                lock: path.display().to_string(),
                holder: holder(&path),
                waited_s: started.elapsed().as_secs(),
            });
        }
        std::thread::sleep(Duration::from_millis(100).min(wait.saturating_sub(started.elapsed())));
    }
    file.set_len(0).and_then(|_| file.write_all(format!("{}\n", std::process::id()).as_bytes())).map_err(io)?;
    file.sync_data().map_err(io)?;
    Ok(file)
}

/// Who holds a writer's lock, as its file says.
fn holder(path: &Path) -> String {
    match fs::read_to_string(path).ok().and_then(|s| s.trim().parse::<u32>().ok()) {
        Some(pid) => format!("pid {pid}"),
        None => "a process".into(),
    }
}

fn push_op(body: &mut Vec<u8>, op: u8, id: &str) -> Result<()> {
    let len = u16::try_from(id.len())
        .map_err(|_| Error::Input(format!("id of {} bytes is too long (at most 65535)", id.len())))?;
    body.push(op);
    body.extend_from_slice(&len.to_le_bytes());
    body.extend_from_slice(id.as_bytes());
    Ok(())
}
