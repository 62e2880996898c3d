//! The `semhash` command as a library: its flags and commands ([`cli`]) and
//! its readers and writers ([`io`]), so that the fuzz targets in `fuzz/`
//! drive the same reader the command runs.

pub mod cli;
pub mod io;
