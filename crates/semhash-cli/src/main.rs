//! The `semhash` command: a thin front end over the library.

mod cli;
mod io;

fn main() -> std::process::ExitCode {
    cli::run()
}
