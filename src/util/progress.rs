//! Progress of long runs, for whoever shows it.

/// Receives progress of a long run (a terminal progress bar, a Web Worker message).
///
/// Both methods do nothing by default, so a receiver implements only what it
/// shows. `Sync` because the pipeline reports from all its threads at once.
pub trait Progress: Sync {
    /// A stage begins: its name (`normalize`, `sign`, `embed`, ...) and how
    /// many steps it has (0 when it does not count them).
    fn stage(&self, _name: &'static str, _total: u64) {}
    /// `n` more steps of the current stage are done.
    fn advance(&self, _n: u64) {}
}

/// No progress reporting.
pub struct Silent;
impl Progress for Silent {}
