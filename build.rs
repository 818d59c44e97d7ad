//! Stamps the binary with what `kubectl lbdoctor version` reports: the git commit, the build
//! date and the Kubernetes API version k8s-openapi was built for. Anything that cannot be
//! known is "unknown", never a made-up value.

use std::path::{Path, PathBuf};

// Shared with a unit test in src/version.rs, which checks it against jiff.
#[path = "build/civil.rs"]
mod civil;
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let commit = git_commit(&manifest_dir).unwrap_or_else(|| "unknown".into());
    println!("cargo::rustc-env=LBDOCTOR_GIT_COMMIT={commit}");
    println!("cargo::rustc-env=LBDOCTOR_BUILD_DATE={}", build_date());
    println!("cargo::rustc-env=LBDOCTOR_KUBERNETES_API={}", kubernetes_api());
    println!("cargo::rustc-env=LBDOCTOR_TARGET={}", std::env::var("TARGET").unwrap_or_else(|_| "unknown".into()));
    findings_catalogue(&manifest_dir);
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=docs/findings");
    println!("cargo::rerun-if-env-changed=SOURCE_DATE_EPOCH");
    println!("cargo::rerun-if-env-changed=LBDOCTOR_GIT_COMMIT");
}

/// The checked-out commit; `None` outside a git work tree (a source tarball, a vendored crate).
/// An explicit `LBDOCTOR_GIT_COMMIT` wins, for release builds from an exported tree.
fn git_commit(dir: &Path) -> Option<String> {
    if let Some(commit) = std::env::var("LBDOCTOR_GIT_COMMIT").ok().filter(|c| !c.is_empty()) {
        return Some(commit);
    }
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    // Only this package's own repository counts, not one that happens to contain it.
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != dir.canonicalize().ok()? {
        return None;
    }
    let commit = git(&["rev-parse", "HEAD"]).filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))?;
    // Rebuild the stamp when HEAD moves: HEAD itself, the branch it points at, packed refs.
    let git_dir = PathBuf::from(git(&["rev-parse", "--absolute-git-dir"])?);
    let mut watched = vec![git_dir.join("HEAD"), git_dir.join("packed-refs")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git_dir.join(branch));
    }
    // A path that does not exist would make cargo rerun this script on every build.
    for path in watched.iter().filter(|p| p.exists()) {
        println!("cargo::rerun-if-changed={}", path.display());
    }
    Some(commit)
}

/// RFC 3339 UTC, from `SOURCE_DATE_EPOCH` when set (reproducible builds), else the clock.
fn build_date() -> String {
    let seconds = match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(text) => match text.trim().parse::<i64>() {
            Ok(s) => s,
            Err(_) => return "unknown".into(),
        },
        Err(_) => match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => d.as_secs() as i64,
            Err(_) => return "unknown".into(),
        },
    };
    civil::rfc3339(seconds)
}

/// k8s-openapi publishes its enabled version to dependents' build scripts as
/// `DEP_K8S_OPENAPI_<crate version>_VERSION = 0x00_MM_mm_00`.
fn kubernetes_api() -> String {
    std::env::vars()
        .find(|(k, _)| k.starts_with("DEP_K8S_OPENAPI_") && k.ends_with("_VERSION"))
        .and_then(|(_, v)| v.parse::<u32>().ok())
        .map(|v| format!("{}.{}", (v >> 16) & 0xff, (v >> 8) & 0xff))
        .unwrap_or_else(|| "unknown".into())
}

/// `docs/findings/` is the one catalogue of finding codes: its index gives each code's severity
/// and one-line meaning, its pages the title and help that SARIF rules carry.
fn findings_catalogue(dir: &Path) {
    let docs = dir.join("docs/findings");
    let index = std::fs::read_to_string(docs.join("README.md")).expect("docs/findings/README.md is readable");
    let mut rules = String::from("&[\n");
    for line in index.lines() {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        let [code, severity, meaning, ..] = cells[..] else { continue };
        if !(code.len() == 6 && code.starts_with("LBD") && code[3..].bytes().all(|b| b.is_ascii_digit())) {
            continue;
        }
        let page = docs.join(format!("{code}.md"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        let title = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# "))
            .and_then(|l| l.split_once(": "))
            .map(|(_, t)| t.trim())
            .unwrap_or_else(|| panic!("{}: the first line must be `# {code}: title`", page.display()));
        rules.push_str(&format!(
            "    Rule {{ code: {code:?}, severity: {severity:?}, title: {title:?}, meaning: {meaning:?}, \
             page: include_str!({:?}) }},\n",
            page.display().to_string()
        ));
    }
    rules.push(']');
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("findings.rs");
    std::fs::write(out, rules).expect("OUT_DIR is writable");
}
