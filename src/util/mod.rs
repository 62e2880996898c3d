//! What every layer uses and none owns: hashing, reading binary formats,
//! threads, progress, the Bloom filter, checkpoints. This module imports nothing from the
//! rest of the crate but its error type, so any layer may use it.

pub mod bloom;
pub mod bytes;
pub mod checkpoint;
pub mod hash;
pub mod par;
mod progress;

pub use progress::{Progress, Silent};
