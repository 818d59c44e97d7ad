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
    // In a linked worktree HEAD lives in its own git dir, but branch refs and packed-refs in the
    // common one.
    let git_dir = PathBuf::from(git(&["rev-parse", "--absolute-git-dir"])?);
    let common = dir.join(git(&["rev-parse", "--git-common-dir"])?);
    let mut watched = vec![git_dir.join("HEAD"), common.join("packed-refs")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(common.join(branch));
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
/// and one-line meaning, its pages the title and help that SARIF rules carry. Two files: the
/// `Code` enum (OUT_DIR/code.rs, included by src/report/code.rs), so a code that is not in the
/// index is a compile error, and the catalogue of rules (OUT_DIR/findings.rs, src/findings.rs).
fn findings_catalogue(dir: &Path) {
    let docs = dir.join("docs/findings");
    let index = std::fs::read_to_string(docs.join("README.md")).expect("docs/findings/README.md is readable");
    // (code, default severity, title), in index order.
    let mut codes: Vec<(String, &str, String)> = Vec::new();
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
        // A code whose severity varies per finding is written `warning, error`: the first is the default.
        let default = match severity.split(',').next().unwrap_or_default().trim() {
            "error" => "Error",
            "warning" => "Warning",
            "info" => "Info",
            other => panic!("docs/findings/README.md: {code}: unknown severity {other:?}"),
        };
        if codes.iter().any(|(c, ..)| c == code) {
            panic!("docs/findings/README.md lists {code} twice");
        }
        codes.push((code.to_string(), default, title.to_string()));
        rules.push_str(&format!(
            "    Rule {{ code: Code::{code}, meaning: {meaning:?}, page: include_str!({:?}) }},\n",
            page.display().to_string()
        ));
    }
    rules.push(']');
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("findings.rs"), rules).expect("OUT_DIR is writable");
    std::fs::write(out.join("code.rs"), code_enum(codes)).expect("OUT_DIR is writable");
}

/// `enum Code` and its tables. The variants are sorted, so `Ord` is the order of the strings.
fn code_enum(mut codes: Vec<(String, &str, String)>) -> String {
    codes.sort();
    let arms = |f: &dyn Fn(&(String, &str, String)) -> String| -> String {
        codes.iter().map(|c| format!("            Code::{} => {},\n", c.0, f(c))).collect()
    };
    let mut out = String::from(
        "/// Every finding code docs/findings/README.md lists (generated by build.rs from the index).\n\
         #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]\n\
         pub enum Code {\n",
    );
    for (code, ..) in &codes {
        out.push_str(&format!("    {code},\n"));
    }
    out.push_str("}\n\nimpl Code {\n    /// Every code, in order.\n    pub const ALL: &'static [Code] = &[\n");
    for (code, ..) in &codes {
        out.push_str(&format!("        Code::{code},\n"));
    }
    out.push_str("    ];\n\n    pub fn as_str(self) -> &'static str {\n        match self {\n");
    out.push_str(&arms(&|c| format!("{:?}", c.0)));
    out.push_str("        }\n    }\n\n");
    out.push_str("    /// The index's severity; a few codes vary per finding (the page says when).\n");
    out.push_str("    pub fn severity(self) -> Severity {\n        match self {\n");
    out.push_str(&arms(&|c| format!("Severity::{}", c.1)));
    out.push_str("        }\n    }\n\n    /// The title of the code's page.\n");
    out.push_str("    pub fn title(self) -> &'static str {\n        match self {\n");
    out.push_str(&arms(&|c| format!("{:?}", c.2)));
    out.push_str("        }\n    }\n}\n");
    out
}
