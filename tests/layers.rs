//! The crate's modules form a one-way chain of layers: a module may use its
//! own layer and those below it, never one above. This reads every
//! `crate::` path in `src/` (code, not comments) and fails on one that runs
//! up the chain, so an import cycle cannot come back unnoticed. The
//! command-line face is a package of its own (`crates/semhash-cli`), which
//! only the library's public API reaches.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Bottom to top. Each top-level module of `src/` is in exactly one layer.
const LAYERS: &[&[&str]] = &[
    &["error", "util"],
    &["normalize"],
    &["sketch"],
    &["semantic"],
    &["encoder"],
    &["index"],
    &["decide"],
    &["judge"],
    &["cluster"],
    &["config"],
    &["pipeline", "admit"],
    &["store", "stages"],
    &["eval", "training", "lib"],
];

/// What the crate root re-exports, by the module that defines it.
const ROOT_EXPORTS: &[(&str, &str)] =
    &[("Error", "error"), ("Result", "error"), ("Config", "config"), ("Deduper", "pipeline"), ("Document", "pipeline")];

fn layer(module: &str) -> usize {
    LAYERS
        .iter()
        .position(|l| l.contains(&module))
        .unwrap_or_else(|| panic!("module {module:?} is in no layer: add it to LAYERS in tests/layers.rs"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments (a `//` inside a string cuts the
/// rest of its line, which only ever hides a path, never invents one).
fn code(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The first segment of every path that starts with `crate::`, braces of a
/// `use crate::{...}` opened.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut start) = (0usize, 0usize);
            for (j, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(ident(group[start..j].trim()).to_owned());
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(group[start..j].trim()).to_owned());
                        start = j + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest).to_owned());
        }
    }
    out.retain(|p| !p.is_empty());
    out
}

#[test]
fn no_module_uses_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = BTreeSet::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap().as_os_str().to_str().unwrap();
        let module = first.trim_end_matches(".rs");
        let text = std::fs::read_to_string(file).unwrap();
        for path in crate_paths(&code(&text)) {
            let target = ROOT_EXPORTS.iter().find(|(name, _)| *name == path).map_or(path.as_str(), |(_, m)| m);
            if layer(target) > layer(module) {
                upward.insert(format!("{} uses crate::{path} ({target} is above {module})", relative.display()));
            }
        }
    }
    assert!(upward.is_empty(), "imports that run up the chain of layers:\n{}", Vec::from_iter(upward).join("\n"));
}

#[test]
fn the_reader_finds_grouped_and_inline_paths() {
    let code = code("use crate::{sketch::{a, b}, index::C, Error};\nlet x = crate::judge::run(); // crate::cli\n");
    assert_eq!(crate_paths(&code), ["sketch", "index", "Error", "judge"]);
}
