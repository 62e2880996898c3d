//! The crate's error type: every failure says what was wrong and where.

/// Anything that can go wrong in semhash.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A configuration that cannot work: a value out of range, an unknown
    /// field, a judge without the learned boundary, model files that do not
    /// fit together. The string says which.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// Bytes that do not start with the format's magic: not a semhash
    /// signature (or projection) at all, as opposed to a damaged one.
    #[error("{context}: not a semhash signature (bad magic bytes)")]
    BadMagic {
        /// What was being read: a file, a stored id.
        context: String,
    },
    /// Bytes written in a format version this build cannot read. Formats
    /// are versioned so that an old build refuses new bytes instead of
    /// misreading them.
    #[error("{context}: signature format version {found} is not supported (this build reads version {supported})")]
    UnsupportedVersion {
        /// What was being read.
        context: String,
        /// The version the bytes declare.
        found: u16,
        /// The version this build reads.
        supported: u16,
    },
    /// Signatures, statistics or a store made under another configuration,
    /// model or signature format version (the fingerprint covers all three).
    /// Sketches made with different settings agree only by
    /// chance, so comparing them would give wrong answers, not errors.
    #[error(
        "{context}: made with a different configuration, model or semhash signature format \
         (fingerprint {found}, this run uses {expected}); re-sign with the current version and configuration \
         or run with the one that made it"
    )]
    FingerprintMismatch {
        /// What was being read.
        context: String,
        /// The fingerprint of the running pipeline.
        expected: String,
        /// The fingerprint the bytes were made under.
        found: String,
    },
    /// Bytes in a known format that fail a check: truncated, a checksum
    /// mismatch, a malformed field.
    #[error("{context}: corrupted ({detail})")]
    Corrupted {
        /// What was being read.
        context: String,
        /// Which check failed, and where.
        detail: String,
    },
    /// Input refused, or an outside call that gave no answer: an empty or
    /// oversized text, an id already in a store, a judge that failed. The
    /// string is the whole message.
    #[error("{0}")]
    Input(String),
    /// A second writer found a store's writer lock held, and gave up after
    /// waiting for it. One process writes a store at a time, so that no
    /// writer appends to a log it has not read.
    #[error(
        "{store}: another process ({holder}) is writing this store; waited {waited_s} s for its lock ({lock}). \
         Wait longer with --lock-timeout, or stop that process"
    )]
    Locked {
        /// The store's directory.
        store: String,
        /// The lock file.
        lock: String,
        /// Who holds the lock, as its file says: `pid N`, or `a process`.
        holder: String,
        /// How long this process waited, in seconds.
        waited_s: u64,
    },
    /// An operating-system error, with what was being done when it happened
    /// (an `io::Error` alone does not name the file).
    #[error("{context}: {source}")]
    Io {
        /// What was being done: `writing PATH`, `locking PATH`, ...
        context: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// An [`Error::Io`] saying what was being done: every I/O call's
    /// `map_err` goes through this, so no error loses its path.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}

/// The crate's result type: `E` is [`Error`] unless named.
pub type Result<T, E = Error> = std::result::Result<T, E>;
