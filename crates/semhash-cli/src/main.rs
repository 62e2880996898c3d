//! The `semhash` command: a thin front end over the library.

/// The word alignment of short texts makes many small buffers per pair;
/// glibc's allocator spent a fifth of a semantic run on them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    semhash_cli::cli::run()
}
