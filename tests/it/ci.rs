//! `check` in CI: JUnit and SARIF output, `--fail-on`, `--ignore` and `.lbdoctor.yaml`.

use serde_json::Value;

use crate::util::{json, lbdoctor, run, HOMELAB, TRAP};

const CONFIG: &str = "testdata/config/lbdoctor.yaml";

fn junit(args: &[&str]) -> (quick_junit::Report, i32) {
    let (stdout, stderr, code) = run(&[args, &["-o", "junit"]].concat());
    let report = quick_junit::Report::deserialize_from_str(&stdout).unwrap_or_else(|e| panic!("{e}\n{stderr}"));
    (report, code)
}

fn cases(report: &quick_junit::Report) -> Vec<&quick_junit::TestCase> {
    report.test_suites.iter().flat_map(|s| &s.test_cases).collect()
}

#[test]
fn junit_has_a_failing_testcase_per_finding_and_object() {
    let (report, code) = junit(&["check", "--from", TRAP]);
    assert_eq!(code, 1);
    let (findings, _) = json(&["check", "--from", TRAP, "-o", "json"]);
    let services = findings["services"].as_array().unwrap();
    let service_findings: usize = services.iter().map(|s| s["findings"].as_array().unwrap().len()).sum();
    let errors =
        services.iter().flat_map(|s| s["findings"].as_array().unwrap()).filter(|f| f["severity"] == "error").count();
    let suite = report.test_suites.iter().find(|s| s.name.as_str() == "services").unwrap();
    assert_eq!(suite.test_cases.len(), service_findings, "one testcase per Service finding");
    assert_eq!(suite.failures, errors, "errors fail at the default --fail-on error; warnings pass");
    let lbd101 = suite
        .test_cases
        .iter()
        .find(|c| {
            c.classname.as_ref().map(|c| c.as_str()) == Some("Service default/grafana")
                && c.name.as_str().starts_with("LBD101")
        })
        .expect("grafana's LBD101 testcase");
    match &lbd101.status {
        quick_junit::TestCaseStatus::NonSuccess { kind, message, description, ty, .. } => {
            assert_eq!(*kind, quick_junit::NonSuccessKind::Failure);
            assert!(message.as_ref().unwrap().as_str().contains("no node announces 198.51.100.10"));
            assert_eq!(ty.as_ref().unwrap().as_str(), "LBD101 error");
            let body = description.as_ref().unwrap().as_str();
            assert!(body.contains("\nhint: "), "the hint is in the failure body: {body}");
            assert!(body.contains("more: kubectl lbdoctor explain finding LBD101"), "{body}");
        }
        other => panic!("LBD101 must fail: {other:?}"),
    }
    // --fail-on warning turns the LBD105 warnings into failures too; never fails nothing.
    let (warning, _) = junit(&["check", "--from", TRAP, "--fail-on", "warning"]);
    assert_eq!(warning.failures, service_findings);
    let (never, code) = junit(&["check", "--from", TRAP, "--fail-on", "never"]);
    assert_eq!((never.failures, code), (0, 0));
}

#[test]
fn junit_counts_every_service_once_when_clean() {
    let (report, _) = junit(&["check", "--from", HOMELAB, "--config", CONFIG]);
    let all = cases(&report);
    // Ten Services, nine clean, one suppressed; one passing cluster case.
    assert_eq!(all.len(), 11);
    let skipped: Vec<_> =
        all.iter().filter(|c| matches!(c.status, quick_junit::TestCaseStatus::Skipped { .. })).collect();
    assert_eq!(skipped.len(), 1);
    let quick_junit::TestCaseStatus::Skipped { message, .. } = &skipped[0].status else { unreachable!() };
    assert!(message.as_ref().unwrap().as_str().contains("DNS over TCP is off on purpose"));
    assert_eq!(report.failures, 0);
}

#[test]
fn sarif_rules_come_from_the_findings_pages() {
    let (doc, code) = json(&["check", "--from", TRAP, "-o", "sarif"]);
    assert_eq!(code, 1, "the exit status does not depend on the format");
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let pages = std::fs::read_dir("docs/findings")
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with("LBD"))
        .count();
    assert_eq!(rules.len(), pages, "a rule per docs/findings page");
    let lbd102 = rules.iter().find(|r| r["id"] == "LBD102").unwrap();
    let page = std::fs::read_to_string("docs/findings/LBD102.md").unwrap();
    let markdown = lbd102["help"]["markdown"].as_str().unwrap();
    assert!(markdown.starts_with(page.as_str()) && markdown.ends_with("`kubectl lbdoctor explain finding LBD102`\n"));
    assert!(lbd102.get("helpUri").is_none(), "no URL: the page is in the binary");
    assert_eq!(lbd102["defaultConfiguration"]["level"], "error");
    assert!(page.starts_with(&format!("# LBD102: {}", lbd102["shortDescription"]["text"].as_str().unwrap())));

    let results = run["results"].as_array().unwrap();
    let (report, _) = json(&["check", "--from", TRAP, "-o", "json"]);
    let findings: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .chain(report["services"].as_array().unwrap().iter().flat_map(|s| s["findings"].as_array().unwrap()))
        .collect();
    assert_eq!(results.len(), findings.len());
    let file: Vec<&str> = include_str!("../../testdata/clusters/homelab-trap.yaml").lines().collect();
    for r in results {
        // The region starts the YAML document of the first object the finding names.
        let first = r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].as_str().unwrap();
        let (kind, name) = first.split_once(' ').unwrap();
        let name = name.rsplit('/').next().unwrap();
        let line = r["locations"][0]["physicalLocation"]["region"]["startLine"].as_u64().unwrap() as usize;
        assert_eq!(file[line - 2], "---", "{first}: line {line} starts a document");
        let document: Vec<&str> = file[line - 1..].iter().take_while(|l| **l != "---").copied().collect();
        assert!(document.contains(&format!("kind: {kind}").as_str()), "{first} at line {line}");
        assert!(document.iter().any(|l| l.trim() == format!("name: {name}")), "{first} at line {line}");
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], r["ruleId"], "ruleIndex points at the rule");
        assert!(matches!(r["level"].as_str(), Some("error" | "warning" | "note")));
        assert!(r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].is_string());
        assert_eq!(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], TRAP);
        assert!(r.get("suppressions").is_none());
    }
    let lbd102s = results.iter().filter(|r| r["ruleId"] == "LBD102").count();
    assert_eq!(lbd102s, findings.iter().filter(|f| f["code"] == "LBD102").count());
}

#[test]
fn sarif_marks_suppressed_results() {
    let (doc, code) = json(&["check", "--from", HOMELAB, "--config", CONFIG, "-o", "sarif"]);
    assert_eq!(code, 0);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    let s = &results[0]["suppressions"][0];
    assert_eq!(s["kind"], "external");
    assert!(s["justification"].as_str().unwrap().contains("HOME-12"));
}

#[test]
fn suppressions_change_the_exit_status_not_the_facts() {
    let (stdout, _, code) = run(&["check", "--from", HOMELAB, "--color", "never"]);
    assert_eq!(code, 1);
    assert!(stdout.contains("1 error"));
    let (stdout, _, code) = run(&["check", "--from", HOMELAB, "--color", "never", "--config", CONFIG]);
    assert_eq!(code, 0, "{stdout}");
    let row = stdout.lines().find(|l| l.contains("pihole-dns-tcp")).unwrap();
    // Still without an announcer and in error: only the exit status forgets it.
    assert!(row.contains("<none>") && row.contains(" error ") && row.contains("(LBD104)"), "{row}");
    assert!(stdout.contains("0 errors, 0 warnings, 0 info; 0 causes; 1 suppressed"), "{stdout}");

    let (report, _) = json(&["check", "--from", HOMELAB, "--config", CONFIG, "-o", "json"]);
    let svc = report["services"].as_array().unwrap().iter().find(|s| s["name"] == "pihole-dns-tcp").unwrap();
    assert_eq!(svc["findings"].as_array().unwrap().len(), 0);
    let suppressed = &svc["suppressed"][0];
    assert_eq!(suppressed["code"], "LBD104");
    assert_eq!(suppressed["severity"], "error");
    assert_eq!(suppressed["suppression"]["source"], format!("{CONFIG} suppressions[0]"));
}

#[test]
fn ignore_suppresses_a_code_everywhere_and_refuses_unknown_codes() {
    let (report, code) = json(&["check", "--from", TRAP, "--ignore", "lbd101,LBD102,LBD103", "-o", "json"]);
    let remaining: Vec<&str> = report["services"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["findings"].as_array().unwrap())
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert!(remaining.iter().all(|c| !matches!(*c, "LBD101" | "LBD102" | "LBD103")), "{remaining:?}");
    let suppressed = report["services"].as_array().unwrap().iter().flat_map(|s| s["suppressed"].as_array().unwrap());
    assert!(suppressed.clone().count() > 0);
    assert!(suppressed.clone().all(|s| s["suppression"]["source"] == "--ignore"));
    let errors_left = report["services"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["findings"].as_array().unwrap())
        .chain(report["findings"].as_array().unwrap())
        .any(|f| f["severity"] == "error");
    assert_eq!(code, i32::from(errors_left));

    let (_, stderr, code) = run(&["check", "--from", TRAP, "--ignore", "LDB101"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("\"LDB101\" is not a finding code"), "{stderr}");
}

#[test]
fn lbdoctor_yaml_in_the_working_directory_is_read_unless_no_config() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(CONFIG, dir.path().join(".lbdoctor.yaml")).unwrap();
    let homelab = std::fs::canonicalize(HOMELAB).unwrap();
    let homelab = homelab.to_str().unwrap();
    let code = |extra: &[&str]| {
        lbdoctor()
            .current_dir(dir.path())
            .args(["check", "--from", homelab])
            .args(extra)
            .output()
            .unwrap()
            .status
            .code()
    };
    assert_eq!(code(&[]), Some(0), "./.lbdoctor.yaml suppresses the one error");
    assert_eq!(code(&["--no-config"]), Some(1));

    // A broken file is a usage error naming the file and the entry, before anything is read.
    std::fs::write(dir.path().join(".lbdoctor.yaml"), "suppressions:\n- code: LBD104\n  object: Service home/x\n")
        .unwrap();
    let out = lbdoctor().current_dir(dir.path()).args(["check", "--from", "/nonexistent"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.contains(".lbdoctor.yaml suppressions[0]: LBD104: a reason is required"), "{stderr}");
}

#[test]
fn ci_formats_are_for_check_only() {
    for args in [&["explain", "svc", "-A"][..], &["explain", "pools"], &["version"]] {
        let (_, stderr, code) = run(&[args, &["--from", HOMELAB, "-o", "junit"]].concat());
        assert_eq!(code, 2, "{args:?}");
        assert!(stderr.contains("JUnit and SARIF are for `check`"), "{stderr}");
    }
}

#[test]
fn suppressed_cluster_findings_stay_visible_in_the_table() {
    let scenario = "testdata/scenarios/pool-selector-matches-nothing.yaml";
    let (stdout, _, _) = run(&["check", "--from", scenario, "--ignore", "LBD202", "--color", "never"]);
    let row = stdout.lines().find(|l| l.contains("(LBD202)")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(row.contains("IPAddressPool metallb-system/pool-a"), "{row}");
    assert!(!stdout.lines().any(|l| l.contains(" LBD202 ")), "only the parenthesised row: {stdout}");
}

#[test]
fn an_empty_snapshot_is_an_input_error_not_a_healthy_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("s.json");
    std::fs::write(&empty, "").unwrap();
    let (stdout, stderr, code) = run(&["check", "--from", empty.to_str().unwrap()]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stderr.contains("no Kubernetes objects in the snapshot"), "{stderr}");
}

#[test]
fn config_yaml_errors_name_the_file_and_position() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(&config, "supressions: []\n").unwrap();
    let (_, stderr, code) = run(&["check", "--from", HOMELAB, "--config", config.to_str().unwrap()]);
    assert_eq!(code, 2);
    let line = stderr.lines().next().unwrap();
    assert!(line.starts_with(&format!("error: {}:1:1: ", config.display())), "{stderr}");
    assert!(line.contains("supressions"), "{stderr}");
    assert_eq!(stderr.matches("error").count(), 1, "{stderr}");
}
