//! Flags are defined once, in [`args`], with their documentation; [`build`]
//! turns them into library objects (the configuration, the pipeline, its
//! judge, a store); each command, one file under [`commands`], wires library
//! calls and adds no logic of its own.

mod args;
mod build;
mod commands;
mod progress;

use clap::Parser;
use std::process::ExitCode;

pub fn run() -> ExitCode {
    let cli = args::Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("semhash: error: {e}");
            match e {
                semhash::Error::Input(_) | semhash::Error::Config(_) => ExitCode::from(2),
                _ => ExitCode::FAILURE,
            }
        }
    }
}
