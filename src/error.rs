//! The crate's error type: every failure says what was wrong and where.

/// Anything that can go wrong in semhash.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid configuration: {0}")]
    Config(String),
    #[error("{context}: not a semhash signature (bad magic bytes)")]
    BadMagic { context: String },
    #[error("{context}: signature format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion { context: String, found: u16, supported: u16 },
    #[error(
        "{context}: made with a different configuration or model (fingerprint {found}, this run uses {expected}); \
         re-sign with the current configuration or run with the one that made it"
    )]
    FingerprintMismatch { context: String, expected: String, found: String },
    #[error("{context}: corrupted ({detail})")]
    Corrupted { context: String, detail: String },
    #[error("{0}")]
    Input(String),
    #[error(
        "{store}: another process ({holder}) is writing this store; waited {waited_s} s for its lock ({lock}). \
         Wait longer with --lock-timeout, or stop that process"
    )]
    Locked { store: String, lock: String, holder: String, waited_s: u64 },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
