//! What the test modules share, once: the binary and its output, reports by Service, the
//! conformance vectors (`../shared/vectors` or `$LBDOCTOR_VECTORS`) and what they hold, PATH
//! lookups and SKIPPED lines.

use std::collections::BTreeMap;
use std::path::PathBuf;

use assert_cmd::Command;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use lbdoctor::k8s::selector::Selector;
use serde_json::Value;

/// The repository; Cargo also runs the tests there, so relative paths (testdata/…) work too.
pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The binary under test, as Cargo built it for this test run.
pub const BIN: &str = env!("CARGO_BIN_EXE_kubectl-lbdoctor");

/// The demo clusters as snapshot files (`--demo healthy` and `--demo trap` are these).
pub const HOMELAB: &str = "testdata/clusters/homelab.yaml";
pub const TRAP: &str = "testdata/clusters/homelab-trap.yaml";

/// The binary as the offline tests run it: colour from the flags alone (`NO_COLOR` unset) and no
/// kubeconfig (`KUBECONFIG` unset, `HOME` nowhere), so the cluster of whoever runs the tests can
/// never answer.
pub fn lbdoctor() -> Command {
    let mut cmd = Command::cargo_bin("kubectl-lbdoctor").unwrap();
    cmd.env_remove("NO_COLOR").env_remove("COLUMNS").env_remove("KUBECONFIG").env("HOME", "/nonexistent");
    cmd
}

/// Runs `cmd`: its stdout, stderr and exit code.
pub fn output(cmd: &mut Command) -> (String, String, i32) {
    let out = cmd.output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap(), out.status.code().unwrap())
}

/// `lbdoctor ARGS…`: stdout, stderr and exit code.
pub fn run(args: &[&str]) -> (String, String, i32) {
    output(lbdoctor().args(args))
}

/// `lbdoctor ARGS…` whose stdout is a JSON document (the args ask for it: `-o json`, `-o sarif`).
pub fn json(args: &[&str]) -> (Value, i32) {
    let (stdout, stderr, code) = run(args);
    (parse_json(&stdout, &stderr), code)
}

/// A run's stdout as a JSON document; when it is not one, the panic shows both streams.
pub fn parse_json(stdout: &str, stderr: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}\nstdout: {stdout}\nstderr: {stderr}"))
}

/// The Service `ns/name` of a Report.
pub fn service<'a>(report: &'a Value, ns: &str, name: &str) -> &'a Value {
    report["services"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["namespace"] == ns && s["name"] == name)
        .unwrap_or_else(|| panic!("no Service {ns}/{name} in the report"))
}

/// Every path where two JSON values differ (`$.services[0].ips: A / B`), for a readable failure.
pub fn json_differences(a: &Value, b: &Value) -> Vec<String> {
    fn walk(a: &Value, b: &Value, at: &str, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
                for k in keys {
                    walk(x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null), &format!("{at}.{k}"), out);
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    walk(p, q, &format!("{at}[{i}]"), out);
                }
            }
            _ if a == b => {}
            _ => out.push(format!("{at}: {a} / {b}")),
        }
    }
    let mut out = Vec::new();
    walk(a, b, "$", &mut out);
    out
}

/// The vectors of one file; empty (with a warning) when the directory is missing, which fails
/// under CI (`CI` set) instead.
pub fn vectors(file: &str) -> Vec<Value> {
    let dir = std::env::var_os("LBDOCTOR_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(ROOT).join("../shared/vectors"));
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

/// A vector's list of strings; absent is empty.
pub fn strs(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// A vector's labels (or annotations); absent is none.
pub fn labels(v: &Value) -> BTreeMap<String, String> {
    serde_json::from_value(v.clone()).unwrap_or_default()
}

/// A vector's list of label selectors, compiled, in its order; absent is none.
pub fn selectors(v: &Value) -> Vec<Selector> {
    let list: Vec<LabelSelector> = serde_json::from_value(v.clone()).unwrap_or_default();
    list.iter().map(|s| Selector::compile(s).unwrap()).collect()
}

/// A program on PATH.
pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Says that `test` did not run and why, straight to the process's stderr: the test harness
/// captures `eprintln!` of passing tests.
pub fn skipped(test: &str, why: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {why}");
}
