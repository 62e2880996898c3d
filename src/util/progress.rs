//! Progress of long runs, for whoever shows it.

/// Receives progress of a long run (a terminal progress bar, a Web Worker message).
pub trait Progress: Sync {
    fn stage(&self, _name: &'static str, _total: u64) {}
    fn advance(&self, _n: u64) {}
}

/// No progress reporting.
pub struct Silent;
impl Progress for Silent {}
