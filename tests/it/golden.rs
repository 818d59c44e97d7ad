//! The JSON contract, byte for byte: every case `scripts/golden-cases.sh` lists (`name|arguments`,
//! one a line) run through the binary prints exactly `tests/golden/NAME.json`, which
//! `scripts/gen-golden.sh` wrote. A refactoring must keep them; a deliberate change of the
//! contract regenerates them (and the diff is reviewed: the v1alpha1 → v1beta1 change was
//! checked field by field, every v1alpha1 field the same except the documented ones).

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
    if let Some(diff) = first_difference(want, stdout) {
        return Some(diff);
    }
    // Every Service of a Report has its one-word status (the table's STATUS).
    let report = matches!(case.args.first().map(String::as_str), Some("check" | "explain"));
    if report {
        let doc: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        if let Some(s) = doc["services"].as_array().into_iter().flatten().find(|s| !s["status"].is_string()) {
            return Some(format!("Service {}/{} has no status", s["namespace"], s["name"]));
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
fn a_service_without_status_fails_its_case() {
    let case = Case { name: "check-x".into(), args: vec!["check".into(), "-o".into(), "json".into()] };
    let with = "{\"kind\": \"Report\", \"services\": [{\"namespace\": \"a\", \"name\": \"b\", \"status\": \"ok\"}]}\n";
    assert_eq!(compare(&case, with, with), None);
    let without = "{\"kind\": \"Report\", \"services\": [{\"namespace\": \"a\", \"name\": \"b\"}]}\n";
    assert!(compare(&case, without, without).unwrap().contains("has no status"));
    // Other commands are compared, not checked for a status.
    let history = Case { name: "history-x".into(), args: vec!["history".into()] };
    assert_eq!(compare(&history, without, without), None);
}
