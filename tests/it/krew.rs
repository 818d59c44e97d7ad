//! plugin.yaml against krew's own rules, and the archive scripts/dist.sh builds for it.
//!
//! The rules are krew's (kubernetes-sigs/krew): internal/index/validation/validate.go
//! (ValidatePlugin, what `kubectl krew install` checks), internal/installation/semver/version.go
//! (a leading `v`, then k8s' strict semver), internal/installation/move.go (a clean `to`) and
//! cmd/validate-krew-manifest/main.go (krew-index's CI: supported and non-overlapping platforms,
//! line lengths, a LICENSE installed with the plugin). Each assertion names its rule.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use sha2::{Digest as _, Sha256};

use crate::util::{skipped, BIN, ROOT};

const COMPLETION: &str = "completions/kubectl_complete-lbdoctor";
/// krew's allPlatforms() in cmd/validate-krew-manifest/main.go: a selector must pick one of these.
const KREW_PLATFORMS: [(&str, &str); 11] = [
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];
/// What this plugin ships for; scripts/dist.sh builds exactly these.
const REQUIRED: [(&str, &str); 4] = [("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64")];
/// The archive's names, in the order dist.sh writes them (C locale).
const ARCHIVE: [&str; 4] = ["LICENSE", "README.md", "kubectl-lbdoctor", "kubectl_complete-lbdoctor"];

// krew decodes leniently (unknown fields are ignored); denying them here catches a misspelt key
// that krew would silently drop. Missing strings default to "" so the rule, not serde, reports them.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Plugin {
    api_version: String,
    kind: String,
    metadata: Metadata,
    spec: Spec,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Metadata {
    name: String,
}

#[derive(Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
struct Spec {
    version: String,
    homepage: String,
    short_description: String,
    description: String,
    caveats: String,
    platforms: Vec<Platform>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct Platform {
    selector: Selector,
    #[serde(default)]
    uri: String,
    #[serde(default)]
    sha256: String,
    #[serde(default)]
    files: Vec<FileOp>,
    #[serde(default)]
    bin: String,
}

// matchLabels only: matchExpressions is legal for krew but this manifest has no use for it.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Selector {
    match_labels: BTreeMap<String, String>,
}

#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct FileOp {
    from: String,
    to: String,
}

impl Platform {
    fn selects(&self, os: &str, arch: &str) -> bool {
        self.selector.match_labels.iter().all(|(k, v)| (k == "os" && v == os) || (k == "arch" && v == arch))
    }
}

fn read_manifest(path: &Path) -> Plugin {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("{}: not a krew manifest: {e}", path.display()))
}

/// validate-krew-manifest's validateLineLength: a longer line is fine only if it is one word.
fn long_lines(s: &str, max: usize) -> Vec<&str> {
    s.lines().filter(|l| l.len() > max && l.trim().contains(' ')).collect()
}

#[test]
fn manifest_follows_krew_rules() {
    let p = read_manifest(&Path::new(ROOT).join("plugin.yaml"));
    let s = &p.spec;

    assert_eq!(
        p.api_version, "krew.googlecontainertools.github.com/v1alpha2",
        "rule: apiVersion is krew's current one"
    );
    assert_eq!(p.kind, "Plugin", "rule: kind is Plugin");

    let name = &p.metadata.name;
    let reserved = ["CON", "PRN", "AUX", "NUL"].into_iter().map(String::from);
    let reserved = reserved.chain((1..=9).flat_map(|i| [format!("COM{i}"), format!("LPT{i}")]));
    assert!(
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
        "rule IsSafePluginName: name {name:?} must match ^[\\w-]+$"
    );
    assert!(
        !reserved.into_iter().any(|r| r.eq_ignore_ascii_case(name)),
        "rule IsSafePluginName: {name:?} is a reserved Windows file name"
    );
    // krew links `bin` as kubectl-<name>, which is what kubectl then runs.
    assert_eq!(name, "lbdoctor", "name: kubectl-<name> must be the binary's name, kubectl-lbdoctor");

    assert!(!s.short_description.is_empty(), "rule: should have a short description");
    assert!(!s.short_description.contains(['\r', '\n']), "rule: no line breaks in shortDescription");
    assert!(s.short_description.len() <= 70, "rule (krew-index): shortDescription over 70 characters");
    assert!(!s.description.trim().is_empty(), "rule (krew-index): description is non-empty");
    assert_eq!(long_lines(&s.description, 80), Vec::<&str>::new(), "rule (krew-index): description lines <= 80");
    assert_eq!(long_lines(&s.caveats, 80), Vec::<&str>::new(), "rule (krew-index): caveats lines <= 80");
    for word in ["completion", "kubectl_complete-lbdoctor", "cap_net_raw", "docs/rbac.yaml"] {
        assert!(s.caveats.contains(word), "caveats must mention {word}");
    }

    // semver.Parse: a leading v, then k8s' ParseSemantic (exactly three numbers, no leading zeros).
    let semver =
        regex::Regex::new(r"^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
            .unwrap();
    assert!(semver.is_match(&s.version), "rule: version {:?} is v + semver", s.version);
    assert_eq!(s.version, format!("v{}", env!("CARGO_PKG_VERSION")), "spec.version is v + Cargo.toml's version");
    assert_eq!(s.homepage, env!("CARGO_PKG_REPOSITORY"), "homepage is Cargo.toml's repository");

    assert!(!s.platforms.is_empty(), "rule: should have a platform specified");
    let sha = regex::Regex::new(r"^[a-f0-9]{64}$").unwrap();
    for (i, pl) in s.platforms.iter().enumerate() {
        let labels = &pl.selector.match_labels;
        assert!(!labels.is_empty(), "rule: platforms[{i}] matchLabels specified but empty");
        assert!(labels.keys().all(|k| k == "os" || k == "arch"), "rule: platforms[{i}] selector keys are os/arch only");
        assert!(
            KREW_PLATFORMS.iter().any(|(os, arch)| pl.selects(os, arch)),
            "rule: platforms[{i}] selector {labels:?} matches no platform krew supports"
        );
        assert!(sha.is_match(&pl.sha256), "rule: platforms[{i}] sha256 {:?} is 64 lowercase hex", pl.sha256);

        let (Some(os), Some(arch)) = (labels.get("os"), labels.get("arch")) else {
            panic!("platforms[{i}] selector names both os and arch: one archive is for one platform");
        };
        let uri = format!(
            "{}/releases/download/{v}/kubectl-lbdoctor_{v}_{os}_{arch}.tar.gz",
            env!("CARGO_PKG_REPOSITORY"),
            v = s.version
        );
        assert_eq!(pl.uri, uri, "rule: platforms[{i}] uri is the release's archive, named as scripts/dist.sh names it");

        assert!(!pl.files.is_empty(), "rule: platforms[{i}] files is non-empty");
        for f in &pl.files {
            assert!(!f.from.is_empty() && !f.to.is_empty(), "rule: platforms[{i}] files need from and to");
            let clean = !f.to.starts_with('/') && f.to.split('/').all(|c| !c.is_empty() && c != ".." && c != ".");
            assert!(clean || f.to == ".", "rule (move.go): platforms[{i}] `to` {:?} is a clean relative path", f.to);
        }
        let to: Vec<&str> = pl.files.iter().map(|f| f.to.as_str()).collect();
        let from: Vec<&str> = pl.files.iter().map(|f| f.from.as_str()).collect();
        assert_eq!(pl.bin, "kubectl-lbdoctor", "rule: platforms[{i}] bin is set (to the binary)");
        assert!(to.contains(&pl.bin.as_str()), "rule: platforms[{i}] bin {:?} is one of the files' `to`", pl.bin);
        assert!(
            from.contains(&"LICENSE") && to.contains(&"LICENSE"),
            "rule (krew-index): platforms[{i}] installs the LICENSE from the archive"
        );
        assert!(
            from.contains(&"kubectl_complete-lbdoctor") && to.contains(&"kubectl_complete-lbdoctor"),
            "platforms[{i}] installs kubectl_complete-lbdoctor, which the caveats point at"
        );
        assert!(from.iter().all(|f| ARCHIVE.contains(f)), "platforms[{i}] copies only what dist.sh archives");
    }
    for (os, arch) in KREW_PLATFORMS {
        let n = s.platforms.iter().filter(|p| p.selects(os, arch)).count();
        assert!(n <= 1, "rule: {n} platforms have overlapping selectors for {os}/{arch}");
        if REQUIRED.contains(&(os, arch)) {
            assert_eq!(n, 1, "platform {os}/{arch} is required");
        }
    }
}

#[test]
fn binary_reports_the_manifest_version() {
    let out = Command::new(BIN).arg("version").output().unwrap();
    assert!(out.status.success(), "`version` failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout.lines().next().unwrap_or("");
    assert!(first.contains(env!("CARGO_PKG_VERSION")), "first line of `version` {first:?} lacks Cargo's version");
}

/// The completion script dist.sh needs: without it, skip, except under CI where it must exist.
fn completion_present(test: &str) -> bool {
    if Path::new(ROOT).join(COMPLETION).is_file() {
        return true;
    }
    assert!(std::env::var_os("CI").is_none(), "{COMPLETION} is missing: scripts/dist.sh cannot build the krew archive");
    skipped(test, &format!("{COMPLETION} missing"));
    false
}

/// krew's os/arch for this host, or None where dist.sh packages nothing.
fn host_platform() -> Option<(&'static str, &'static str)> {
    let os = match std::env::consts::OS {
        "linux" => "linux",
        "macos" => "darwin",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        _ => return None,
    };
    Some((os, arch))
}

/// Runs scripts/dist.sh on `binary` into `out`; returns the printed sha256 and archive path.
fn dist(binary: &Path, out: &Path, extra: &[&str]) -> (String, PathBuf) {
    let run = Command::new("bash")
        .arg(Path::new(ROOT).join("scripts/dist.sh"))
        .arg("--binary")
        .arg(binary)
        .arg("--out-dir")
        .arg(out)
        .args(extra)
        // The mtime must come from the last commit, as in a release.
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "dist.sh failed: {stderr}");
    let last = stdout.lines().last().unwrap_or_else(|| panic!("dist.sh printed nothing; stderr: {stderr}"));
    let (sha, file) = last.split_once("  ").unwrap_or_else(|| panic!("last line {last:?} is not `sha256  file`"));
    (sha.to_string(), PathBuf::from(file))
}

/// A private copy of the test binary: another build may replace target/'s while a test runs.
/// Stripped when `strip` is there: the debug binary is ~200 MB, which gzip takes most of a minute
/// over; what is tested is the packaging, not the debug info.
fn binary_copy(dir: &Path) -> PathBuf {
    let copy = dir.join("kubectl-lbdoctor");
    std::fs::copy(BIN, &copy).unwrap();
    let _ = Command::new("strip").arg(&copy).status();
    copy
}

fn sha256_of(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
fn dist_archive_is_krews_and_reproducible() {
    let (Some((os, arch)), true) = (host_platform(), completion_present("dist_archive_is_krews_and_reproducible"))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bin = binary_copy(dir.path());
    let (sha, archive) = dist(&bin, &dir.path().join("a"), &[]);

    let name = format!("kubectl-lbdoctor_v{}_{os}_{arch}.tar.gz", env!("CARGO_PKG_VERSION"));
    assert_eq!(archive, dir.path().join("a").join(&name), "archive name");
    assert!(archive.is_file(), "{} was not written", archive.display());
    let list = Command::new("tar").arg("-tzf").arg(&archive).output().unwrap();
    assert!(list.status.success(), "tar -tzf: {}", String::from_utf8_lossy(&list.stderr));
    assert_eq!(String::from_utf8_lossy(&list.stdout).lines().collect::<Vec<_>>(), ARCHIVE, "archive contents");
    assert_eq!(sha, sha256_of(&archive), "printed sha256 is the archive's");

    // --no-pgo only says how to build a binary; given one, the archive is the same.
    let (again, archive2) = dist(&bin, &dir.path().join("b"), &["--no-pgo"]);
    assert_eq!(again, sha, "a second build of the same inputs gives the same archive");
    assert_eq!(std::fs::read(&archive).unwrap(), std::fs::read(archive2).unwrap());
}

/// The PGO build script's flags, without the two release builds it runs (CI does not build them).
#[test]
fn build_pgo_script_says_its_usage_and_refuses_unknown_flags() {
    let script = Path::new(ROOT).join("scripts/build-pgo.sh");
    let help = Command::new("bash").arg(&script).arg("--help").output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(help.status.success(), "--help: {}", String::from_utf8_lossy(&help.stderr));
    assert!(text.contains("--target-dir DIR") && text.contains("llvm-tools"), "usage: {text}");
    let bad = Command::new("bash").arg(&script).arg("--profile").output().unwrap();
    assert!(!bad.status.success(), "an unknown flag is refused");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown argument '--profile'"));
}

#[test]
fn dist_updates_only_its_platform_in_the_manifest() {
    let (Some((os, arch)), true) =
        (host_platform(), completion_present("dist_updates_only_its_platform_in_the_manifest"))
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("plugin.yaml");
    std::fs::copy(Path::new(ROOT).join("plugin.yaml"), &manifest).unwrap();
    let old = std::fs::read_to_string(&manifest).unwrap();
    let mut expected = read_manifest(&manifest);
    let bin = binary_copy(dir.path());
    let (sha, _) =
        dist(&bin, &dir.path().join("out"), &["--update-manifest", "--manifest", manifest.to_str().unwrap()]);

    let platform = expected.spec.platforms.iter_mut().find(|p| p.selects(os, arch)).expect("host platform in manifest");
    platform.sha256 = sha;
    assert_eq!(read_manifest(&manifest), expected, "only the {os}/{arch} sha256 changed");
    // A line-based edit: the rest of the file (comments, quoting) is byte for byte the same.
    let new = std::fs::read_to_string(&manifest).unwrap();
    let changed: Vec<_> = old.lines().zip(new.lines()).filter(|(a, b)| a != b).map(|(_, b)| b).collect();
    assert_eq!(old.lines().count(), new.lines().count(), "--update-manifest added or removed lines");
    assert!(
        changed.len() <= 1 && changed.iter().all(|l| l.trim_start().starts_with("sha256: ")),
        "changed: {changed:?}"
    );
}
