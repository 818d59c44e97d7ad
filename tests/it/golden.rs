//! The JSON contract, byte for byte: every case `scripts/golden-cases.sh` lists (`name|arguments`,
//! one a line) run through the binary prints exactly `tests/golden/NAME.json`, which
//! `scripts/gen-golden.sh` wrote. A refactoring must keep them; a deliberate change of the
//! contract regenerates them (and the diff is reviewed).
//!
//! One normalisation, for the per-Service `status` field that follows `implementation` (added to
//! v1alpha1 after the goldens were written): a line `"status": "<word>",` directly after a line
//! `"implementation": "<word>",` at the same indentation is dropped from the binary's output.

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;

use crate::util::{lbdoctor, output, ROOT};

const GOLDEN: &str = "tests/golden";

struct Case {
    name: String,
    args: Vec<String>,
}

/// The cases, from the script gen-golden.sh reads too.
fn cases() -> Vec<Case> {
    let out = Command::new("bash").arg("scripts/golden-cases.sh").current_dir(ROOT).output().unwrap();
    assert!(out.status.success(), "scripts/golden-cases.sh failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, args) = l.split_once('|').unwrap_or_else(|| panic!("not `name|arguments`: {l:?}"));
            Case { name: name.to_string(), args: args.split_whitespace().map(str::to_string).collect() }
        })
        .collect()
}

/// What `implementation` and `status` hold: `metallb`, `cilium-lbipam`, `pending`.
fn is_word(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The indentation of `line` when it is `"KEY": "<word>",`.
fn keyed<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let body = line.trim_start_matches(' ');
    let value = body.strip_prefix('"')?.strip_prefix(key)?.strip_prefix("\": \"")?.strip_suffix("\",")?;
    is_word(value).then(|| &line[..line.len() - body.len()])
}

/// `text` without each `"status": "<word>",` line that directly follows an
/// `"implementation": "<word>",` line of the same indentation; and how many went.
fn without_status(text: &str) -> (String, usize) {
    let mut kept = String::with_capacity(text.len());
    let mut removed = 0;
    // The indentation of the line before, when it was an implementation line.
    let mut implementation: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        if implementation.take().is_some_and(|indent| keyed(bare, "status") == Some(indent)) {
            removed += 1;
            continue;
        }
        implementation = keyed(bare, "implementation");
        kept.push_str(line);
    }
    (kept, removed)
}

/// Where `got` first differs from `want`: the line number (from 1) and both lines, quoted so that
/// whitespace and a missing final newline show.
fn first_difference(want: &str, got: &str) -> Option<String> {
    if want == got {
        return None;
    }
    let show = |line: Option<&str>| line.map_or_else(|| "<end of file>".to_string(), |l| format!("{l:?}"));
    let (mut w, mut g) = (want.split_inclusive('\n'), got.split_inclusive('\n'));
    let mut n = 1;
    loop {
        match (w.next(), g.next()) {
            (Some(a), Some(b)) if a == b => n += 1,
            (a, b) => {
                return Some(format!("first difference at line {n}:\n  golden: {}\n  binary: {}", show(a), show(b)))
            }
        }
    }
}

/// One case: None when the output is the golden file's; else what is wrong.
fn check(case: &Case) -> Option<String> {
    let golden = format!("{GOLDEN}/{}.json", case.name);
    let want = match std::fs::read(&golden) {
        Ok(bytes) => String::from_utf8(bytes).unwrap_or_else(|e| panic!("{golden}: {e}")),
        Err(e) => return Some(format!("{golden}: {e} (scripts/gen-golden.sh writes it)")),
    };
    let (stdout, stderr, _) = output(lbdoctor().args(&case.args));
    let stderr = if stderr.is_empty() { String::new() } else { format!("\n  stderr: {stderr}") };
    compare(case, &want, &stdout).map(|wrong| format!("{golden}, {:?}: {wrong}{stderr}", case.args))
}

/// The binary's `stdout` for `case` against the golden text `want`.
fn compare(case: &Case, want: &str, stdout: &str) -> Option<String> {
    let (got, removed) = without_status(stdout);
    if let Some(diff) = first_difference(want, &got) {
        return Some(diff);
    }
    // The per-Service status of check and explain (a Report): one status line removed per
    // Service, each Service with its status.
    let report = matches!(case.args.first().map(String::as_str), Some("check" | "explain"));
    if report {
        let doc: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        if let Some(services) = doc["services"].as_array() {
            if removed != services.len() {
                return Some(format!("{removed} status lines after implementation for {} Services", services.len()));
            }
            if let Some(s) = services.iter().find(|s| !s["status"].is_string()) {
                return Some(format!("Service {}/{} has no status", s["namespace"], s["name"]));
            }
        }
    }
    None
}

#[test]
fn every_golden_case_prints_its_file_byte_for_byte() {
    let cases = cases();
    assert!(cases.len() >= 70, "scripts/golden-cases.sh lists only {} cases", cases.len());
    let listed: BTreeSet<String> = cases.iter().map(|c| format!("{}.json", c.name)).collect();
    assert_eq!(listed.len(), cases.len(), "a case name is listed twice");
    let files: BTreeSet<String> = std::fs::read_dir(GOLDEN)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".json"))
        .collect();
    let orphans: Vec<&String> = files.difference(&listed).collect();
    assert!(orphans.is_empty(), "{GOLDEN} files that no case writes: {orphans:?}");

    let failures: Vec<String> = cases.iter().filter_map(check).collect();
    assert!(
        failures.is_empty(),
        "{} of {} golden cases fail:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn only_a_status_line_right_after_implementation_at_its_indentation_is_dropped() {
    let text = "{\n  \"implementation\": \"cilium-lbipam\",\n  \"status\": \"pending\",\n  \"x\": 1\n}\n";
    assert_eq!(without_status(text), ("{\n  \"implementation\": \"cilium-lbipam\",\n  \"x\": 1\n}\n".to_string(), 1));
    for kept in [
        // Another indentation, not directly after, the last field (no comma), not a word.
        "  \"implementation\": \"metallb\",\n    \"status\": \"ok\",\n",
        "  \"implementation\": \"metallb\",\n  \"x\": 1,\n  \"status\": \"ok\",\n",
        "  \"implementation\": \"metallb\",\n  \"status\": \"ok\"\n",
        "  \"implementation\": \"metallb\",\n  \"status\": \"not ok\",\n",
        "  \"implementation\": null,\n  \"status\": \"ok\",\n",
        "  \"status\": \"ok\",\n",
    ] {
        assert_eq!(without_status(kept), (kept.to_string(), 0), "{kept:?}");
    }
    // Only the one line: a second status line stays and differs from the golden.
    let twice = "  \"implementation\": \"metallb\",\n  \"status\": \"ok\",\n  \"status\": \"ok\",\n";
    assert_eq!(without_status(twice), ("  \"implementation\": \"metallb\",\n  \"status\": \"ok\",\n".to_string(), 1));
}

#[test]
fn the_first_difference_names_its_line_and_both_sides() {
    assert_eq!(first_difference("a\nb\n", "a\nb\n"), None);
    let d = first_difference("a\nb\nc\n", "a\nB\nc\n").unwrap();
    assert!(d.contains("line 2") && d.contains("golden: \"b\\n\"") && d.contains("binary: \"B\\n\""), "{d}");
    let d = first_difference("a\n", "a").unwrap();
    assert!(d.contains("line 1") && d.contains("binary: \"a\""), "{d}");
    let d = first_difference("a\n", "a\nb\n").unwrap();
    assert!(d.contains("line 2") && d.contains("golden: <end of file>"), "{d}");
}

#[test]
fn once_one_service_has_a_status_every_service_needs_one() {
    let case = Case { name: "check-x".into(), args: vec!["check".into(), "-o".into(), "json".into()] };
    let service = |name: &str, status: Option<&str>| {
        let status = status.map(|s| format!("      \"status\": \"{s}\",\n")).unwrap_or_default();
        format!("    {{\n      \"name\": \"{name}\",\n      \"implementation\": \"metallb\",\n{status}      \"ips\": []\n    }}")
    };
    let report = |a: Option<&str>, b: Option<&str>| {
        format!("{{\n  \"kind\": \"Report\",\n  \"services\": [\n{},\n{}\n  ]\n}}\n", service("a", a), service("b", b))
    };
    let golden = report(None, None);
    serde_json::from_str::<Value>(&golden).unwrap();
    // Without the field: every Service misses it.
    let none = compare(&case, &golden, &golden).unwrap();
    assert!(none.contains("0 status lines after implementation for 2 Services"), "{none}");
    // With it: all or nothing.
    assert_eq!(compare(&case, &golden, &report(Some("ok"), Some("pending"))), None);
    let half = compare(&case, &golden, &report(Some("ok"), None)).unwrap();
    assert!(half.contains("1 status lines after implementation for 2 Services"), "{half}");
    // Other commands are compared, not counted.
    let history = Case { name: "history-x".into(), args: vec!["history".into()] };
    assert_eq!(compare(&history, &golden, &report(Some("ok"), None)), None);
}
