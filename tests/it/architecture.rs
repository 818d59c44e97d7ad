//! The layering docs/architecture.md describes, checked on the source: `report/` is a leaf, and
//! only the binary's edges may leave memory to the process exit.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Every `crate::NAME` path in `text` whose NAME is not `allowed`.
fn foreign_paths(text: &str, allowed: &str) -> Vec<String> {
    text.match_indices("crate::")
        .map(|(i, _)| text[i + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect::<String>())
        .filter(|name| name != allowed)
        .collect()
}

#[test]
fn report_imports_nothing_else_of_the_crate() {
    let files = rust_files(Path::new("src/report"));
    assert!(files.len() > 5, "src/report/ holds the contract: {files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let foreign = foreign_paths(&text, "report");
        assert!(foreign.is_empty(), "{} uses crate::{foreign:?}; report/ must stay a leaf", file.display());
    }
}

#[test]
fn no_deliberate_leak_below_the_app() {
    for file in rust_files(Path::new("src")) {
        let edge = file.starts_with("src/app") || file == Path::new("src/main.rs");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(edge || !text.contains("mem::forget"), "{}: mem::forget belongs to main.rs or app/", file.display());
    }
}

#[test]
fn the_checks_see_a_violation() {
    assert_eq!(foreign_paths("use crate::report::X; use crate::diagnose::Y;", "report"), ["diagnose"]);
    assert!(foreign_paths("use super::Finding;", "report").is_empty());
}

#[test]
fn renderers_name_codes_through_the_enum() {
    for file in rust_files(Path::new("src/render")) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("\"LBD"), "{}: a finding code as a string literal; use report::Code", file.display());
    }
}

/// The checks are one function per code over a context struct, not long parameter lists.
#[test]
fn diagnose_has_no_long_parameter_lists() {
    for file in rust_files(Path::new("src/diagnose")) {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(!text.contains("too_many_arguments"), "{}: pass a context struct instead", file.display());
    }
}
