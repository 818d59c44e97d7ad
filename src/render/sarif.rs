//! `check -o sarif`: SARIF 2.1.0, one rule per finding code (help from docs/findings/), one
//! result per finding; suppressed findings carry SARIF's own `suppressions`.

use std::io::Write;

use serde_json::{json, Value};

use super::CiOptions;
use crate::findings::CATALOGUE;
use crate::report::{Finding, ObjectRef, Report, Severity, Suppressed};

pub fn render(out: &mut dyn Write, report: &Report, ci: &CiOptions) -> std::io::Result<()> {
    let rules: Vec<Value> = CATALOGUE
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "shortDescription": {"text": r.code.title()},
                "fullDescription": {"text": r.meaning},
                // The page is in the binary: no URL (the plugin has no repository beside it).
                "help": {
                    "text": format!("{} The whole page: kubectl lbdoctor explain finding {}", r.meaning, r.code),
                    "markdown": format!("{}\n\nAt a terminal: `kubectl lbdoctor explain finding {}`\n", r.page, r.code),
                },
                "defaultConfiguration": {"level": level(r.code.severity())},
            })
        })
        .collect();
    let mut results: Vec<Value> = report.all_findings().map(|f| result(f, None, ci)).collect();
    results.extend(report.all_suppressed().map(|s| result(&s.finding, Some(s), ci)));
    let version = crate::version::current();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kubectl-lbdoctor",
                "version": version.version,
                "semanticVersion": version.version,
                "rules": rules,
            }},
            "automationDetails": {"id": "kubectl-lbdoctor/check/"},
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

fn result(f: &Finding, suppressed: Option<&Suppressed>, ci: &CiOptions) -> Value {
    let rule_index = CATALOGUE.iter().position(|r| r.code == f.code);
    let logical: Vec<Value> = f
        .objects
        .iter()
        .map(|o| {
            let o = o.to_string();
            let (kind, name) = o.split_once(' ').unwrap_or(("", &o));
            json!({"fullyQualifiedName": o, "name": name, "kind": kind})
        })
        .collect();
    let mut location = json!({"logicalLocations": logical});
    // The first named object read from a file: code scanning annotates that line.
    let from_file = |o: &ObjectRef| ci.origins.get(&o.to_string()).filter(|origin| !origin.file.starts_with('<'));
    if let Some(origin) = f.objects.iter().find_map(from_file) {
        let mut physical = json!({"artifactLocation": {"uri": file_uri(&origin.file)}});
        if let Some(line) = origin.line {
            physical["region"] = json!({"startLine": line});
        }
        location["physicalLocation"] = physical;
    }
    let mut r = json!({
        "ruleId": f.code,
        "level": level(f.severity),
        "message": {"text": format!("{} Hint: {}", f.message, f.hint)},
        "locations": [location],
        // Stable across runs, so code scanning tracks one problem rather than a new one each time.
        "partialFingerprints": {"lbdoctorFinding/v1": format!("{}:{}", f.code, ObjectRef::join(&f.objects, ","))},
    });
    if let Some(i) = rule_index {
        r["ruleIndex"] = json!(i);
    }
    if let Some(s) = suppressed {
        r["suppressions"] = json!([{"kind": "external", "status": "accepted", "justification": format!("{} ({})", s.suppression.reason, s.suppression.source)}]);
    }
    r
}

/// A relative path stays relative (to the checkout, as code scanning wants); an absolute one
/// becomes a `file://` URI. The demo's objects point at the file it was built from.
fn file_uri(file: &str) -> String {
    let path = file.strip_prefix("demo:").unwrap_or(file);
    let encoded: String = path
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    if path.starts_with('/') {
        format!("file://{encoded}")
    } else {
        encoded
    }
}

/// A rule's default level is its code's usual severity (the first of `warning, error` in the index).
fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}
