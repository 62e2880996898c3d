//! Finished work a long job keeps, so that a run killed at 90% resumes
//! where it stopped instead of starting again.
//!
//! A stage that checkpoints (the semantic stage's embeddings: the encoder is
//! nearly all of a semantic run's time) names each piece of finished work by
//! a key that hashes everything the piece depends on: the model, the
//! configuration and the exact inputs. A rerun over the same input finds the
//! same keys and loads the pieces instead of recomputing them; a rerun over
//! other input or with another model finds none and loads nothing stale.
//! Each piece carries its own checksum, so a piece torn by the kill is
//! recomputed, never trusted.

use crate::{Error, Result};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where finished work is kept.
pub trait Checkpoints: Send + Sync {
    /// The bytes saved under `key` by this or an earlier run, if any.
    fn load(&self, key: &str) -> Option<Vec<u8>>;
    /// Saves `bytes` under `key`, whole or not at all.
    ///
    /// # Errors
    ///
    /// When they cannot be written (the run stops: it could not resume).
    fn save(&self, key: &str, bytes: &[u8]) -> Result<()>;
}

/// Checkpoints as files of a directory, one per key.
#[derive(Clone, Debug)]
pub struct WorkDir {
    dir: PathBuf,
}

impl WorkDir {
    /// Uses `dir`, creating it if missing.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when it cannot be created.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir)
            .map_err(|e| Error::io(format!("work directory {}: cannot create", dir.display()), e))?;
        Ok(WorkDir { dir })
    }
}

impl Checkpoints for WorkDir {
    fn load(&self, key: &str) -> Option<Vec<u8>> {
        fs::read(self.dir.join(key)).ok()
    }

    fn save(&self, key: &str, bytes: &[u8]) -> Result<()> {
        write_atomic(&self.dir.join(key), bytes)
    }
}

/// Writes a file whole or not at all: a temporary file (named for this
/// process) renamed over it.
///
/// # Errors
///
/// [`Error::Io`] naming the file.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension(format!("tmp.{}", std::process::id()));
    let io = |e| Error::io(format!("writing {}", path.display()), e);
    let mut f = File::create(&tmp).map_err(io)?;
    f.write_all(bytes).and_then(|_| f.sync_all()).map_err(io)?;
    fs::rename(&tmp, path).map_err(io)
}
