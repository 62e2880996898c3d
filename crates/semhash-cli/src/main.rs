//! The `semhash` command: a thin front end over the library.

fn main() -> std::process::ExitCode {
    semhash_cli::cli::run()
}
