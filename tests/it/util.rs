//! Shared by the test modules. The conformance vectors: `../shared/vectors` (or `$LBDOCTOR_VECTORS`).

use std::path::PathBuf;

use serde_json::Value;

/// The vectors of one file; empty (with a warning) when the directory is missing, which fails
/// under CI (`CI` set) instead.
pub fn vectors(file: &str) -> Vec<Value> {
    let dir = std::env::var_os("LBDOCTOR_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/vectors"));
    let path = dir.join(file);
    if !path.is_file() {
        let msg = format!("conformance vectors not found at {} (set LBDOCTOR_VECTORS)", path.display());
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("WARNING: {msg}; skipping");
        return Vec::new();
    }
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
