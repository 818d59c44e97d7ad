//! Rendered tables of the demo snapshots, reviewed by a person: any change to them is deliberate.

use crate::util::{run, ROOT};

fn table(args: &[&str]) -> String {
    run(args).0
}

#[test]
fn check_homelab() {
    insta::assert_snapshot!(table(&["check", "--from", "testdata/clusters/homelab.yaml"]));
}

#[test]
fn explain_local_service() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "traefik",
        "-n",
        "default",
        "--from",
        "testdata/clusters/homelab.yaml"
    ]));
}

#[test]
fn explain_trapped_service() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "jellyfin",
        "-n",
        "media",
        "--from",
        "testdata/clusters/homelab-trap.yaml"
    ]));
}

#[test]
fn explain_all_wide() {
    insta::assert_snapshot!(table(&["explain", "svc", "-A", "-o", "wide", "--from", "testdata/clusters/homelab.yaml"]));
}

#[test]
fn explain_bgp_service() {
    insta::assert_snapshot!(table(&["explain", "svc", "web", "--from", "testdata/scenarios/bgp-two-routers.yaml"]));
}

#[test]
fn explain_cilium_l2_service() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "web",
        "--from",
        "testdata/scenarios/cilium-l2-holder-agent-lost.yaml"
    ]));
}

#[test]
fn explain_two_claimants() {
    insta::assert_snapshot!(table(&[
        "explain",
        "svc",
        "web",
        "--from",
        "testdata/scenarios/k3s-servicelb-and-cilium-nodeipam.yaml"
    ]));
}

#[test]
fn check_node_ipam_dual_stack() {
    insta::assert_snapshot!(table(&["check", "--from", "testdata/scenarios/cilium-nodeipam-dual-stack.yaml"]));
}

/// Every `$ kubectl lbdoctor …` example in the README and the command pages in docs/ shows lines
/// the binary really prints, in order (`...` or `…` marks elided lines, a trailing `…` a
/// shortened one).
#[test]
fn readme_examples_match_the_binary() {
    let root = std::path::Path::new(ROOT);
    let mut pages = vec![root.join("README.md")];
    for dir in [root.join("docs"), root.join("docs/findings")] {
        let mut more: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect();
        more.sort();
        pages.extend(more);
    }
    let mut checked = 0;
    for page in &pages {
        checked += examples_match(page);
    }
    assert!(checked >= 3, "only {checked} examples found");
}

fn examples_match(page: &std::path::Path) -> usize {
    let readme = std::fs::read_to_string(page).unwrap();
    let page = page.strip_prefix(ROOT).unwrap().display();
    let mut checked = 0;
    for block in readme.split("```").skip(1).step_by(2) {
        // One segment per `$` command; only lbdoctor's are run.
        let mut segments: Vec<Vec<&str>> = Vec::new();
        for line in block.lines() {
            if line.starts_with("$ ") {
                segments.push(vec![line]);
            } else if let Some(seg) = segments.last_mut() {
                seg.push(line);
            }
        }
        // Examples that need a cluster or the network are shown, not run.
        let offline = |line: &str| {
            (line.contains("--from testdata/") || line.contains("--demo"))
                && !line.contains(" arping ")
                && !line.contains(" announce ")
        };
        // `$ COLUMNS=80 kubectl lbdoctor …` runs at that width, as a terminal of it would.
        let columns =
            |line: &str| line.strip_prefix("$ COLUMNS=").and_then(|r| r.split_once(' ')).map(|(c, _)| c.to_string());
        let lbdoctor = |line: &str| {
            let rest = match columns(line) {
                Some(c) => line.trim_start_matches(&format!("$ COLUMNS={c} ")).to_string(),
                None => line.trim_start_matches("$ ").to_string(),
            };
            rest.starts_with("kubectl lbdoctor ").then_some(rest)
        };
        for seg in segments.iter().filter(|s| lbdoctor(s[0]).is_some() && offline(s[0])) {
            let command = seg[0];
            let rest = lbdoctor(command).unwrap();
            let mut args: Vec<&str> = rest
                .trim_start_matches("kubectl lbdoctor ")
                .split_whitespace()
                .take_while(|a| *a != "|" && *a != "#")
                .collect();
            args.extend(["--color", "never"]);
            let actual = match columns(command) {
                Some(c) => crate::util::output(crate::util::lbdoctor().env("COLUMNS", &c).args(&args)).0,
                None => table(&args),
            };
            let mut rest = actual.lines();
            for want in seg[1..].iter().filter(|l| !l.trim().is_empty() && !matches!(l.trim(), "..." | "…")) {
                // A line cut short with `…` matches by prefix.
                let (want, cut) = match want.trim_end().strip_suffix('…') {
                    Some(prefix) => (prefix, true),
                    None => (want.trim_end(), false),
                };
                assert!(
                    rest.any(|got| if cut { got.starts_with(want) } else { got.trim_end() == want }),
                    "{page} example `{command}`: line not found in order:\n{want}\n--- actual output ---\n{actual}"
                );
            }
            checked += 1;
        }
    }
    checked
}

fn at_columns(columns: &str, args: &[&str]) -> String {
    crate::util::output(crate::util::lbdoctor().env("COLUMNS", columns).args(args)).0
}

#[test]
fn check_trap_at_80_and_120_columns() {
    insta::assert_snapshot!("check_trap_80_columns", at_columns("80", &["check", "--demo", "trap"]));
    insta::assert_snapshot!("check_trap_120_columns", at_columns("120", &["check", "--demo", "trap"]));
}

/// The trap's one broken object is one cause, first, with its nine Services; every line fits
/// 100 columns, each cause's message is there whole (wrapped, never cut), a line per Service,
/// and it ends with the command to run.
#[test]
fn the_trap_is_one_cause_naming_the_advertisement() {
    let text = at_columns("100", &["check", "--demo", "trap"]);
    assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
    assert!(!text.contains('…') || text.contains("… (+"), "only counted lists end in …: {text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "CAUSES");
    assert!(lines[1].starts_with("error    LBD102   L2Advertisement metallb-system/workers: "), "{text}");
    let fix =
        lines.iter().position(|l| l.contains("fix: kubectl -n metallb-system edit l2advertisement workers")).unwrap();
    let message: String = lines[1..fix].iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
    let (json, _) = crate::util::json(&["check", "--demo", "trap", "-o", "json"]);
    assert!(message.ends_with(json["causes"][0]["message"].as_str().unwrap()), "{message}");
    let rows = lines.iter().skip_while(|l| !l.starts_with("NAMESPACE")).skip(1).take_while(|l| !l.is_empty());
    assert_eq!(rows.count(), 10, "{text}");
    assert_eq!(text.matches("L2Advertisement metallb-system/workers").count(), 1, "{text}");
    assert_eq!(lines.last(), Some(&"next: kubectl -n metallb-system edit l2advertisement workers"));

    let (report, _) = crate::util::json(&["check", "--demo", "trap", "-o", "json"]);
    let cause = &report["causes"][0];
    assert_eq!(cause["object"], "L2Advertisement metallb-system/workers");
    assert_eq!(cause["services"].as_array().unwrap().len(), 9);
    assert_eq!(cause["codes"], serde_json::json!(["LBD101", "LBD102"]));
    assert_eq!(report["summary"]["byStatus"], serde_json::json!({"dark": 10}));
}

/// `services[].status`, `.announcer` and `.observed` are what the table prints, for both demos
/// and every scenario.
#[test]
fn json_status_announcer_and_observed_are_the_table_columns() {
    let mut sources: Vec<Vec<String>> =
        vec![vec!["--demo".into(), "healthy".into()], vec!["--demo".into(), "trap".into()]];
    for entry in std::fs::read_dir(format!("{ROOT}/testdata/scenarios")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") && !path.to_str().unwrap().contains("unreadable") {
            sources.push(vec!["--from".into(), path.to_str().unwrap().to_string()]);
        }
    }
    let mut compared = 0;
    for src in &sources {
        let src: Vec<&str> = src.iter().map(String::as_str).collect();
        let (report, _) = crate::util::json(&[&["check", "-o", "json"][..], &src].concat());
        let table = table(&[&["check", "--color", "never"][..], &src].concat());
        let header = table.lines().find(|l| l.starts_with("NAMESPACE")).unwrap_or_else(|| panic!("{src:?}: {table}"));
        let col = |name: &str| header.find(name).unwrap();
        let cut = |line: &str, from: &str, to: &str| line.get(col(from)..col(to)).unwrap_or("").trim().to_string();
        let rows: Vec<&str> =
            table.lines().skip_while(|l| !l.starts_with("NAMESPACE")).skip(1).take_while(|l| !l.is_empty()).collect();
        let services = report["services"].as_array().unwrap();
        assert_eq!(rows.len(), services.len(), "{src:?}");
        for (row, svc) in rows.iter().zip(services) {
            assert_eq!(cut(row, "STATUS", "FINDINGS"), svc["status"].as_str().unwrap(), "{src:?} {row}");
            assert_eq!(cut(row, "ANNOUNCER", "OBSERVED"), svc["announcer"].as_str().unwrap(), "{src:?} {row}");
            assert_eq!(cut(row, "OBSERVED", "STATUS"), svc["observed"].as_str().unwrap(), "{src:?} {row}");
            compared += 1;
        }
    }
    assert!(compared > 40, "{compared} Services compared");
}

/// `--spof` on a cluster whose IPs are all dark says so, and comes before the summary.
#[test]
fn spof_tells_dark_ips_apart_and_precedes_the_summary() {
    let text = table(&["check", "--demo", "trap", "--spof"]);
    let spof = text.lines().position(|l| l.starts_with("Single points of failure")).expect(&text);
    let truth =
        text.lines().position(|l| l == "  none to lose: all 9 IPs are dark already (see CAUSES).").expect(&text);
    let summary = text.lines().position(|l| l.starts_with("10 services (10 dark)")).expect(&text);
    assert!(spof < truth && truth < summary, "{text}");
    assert!(!text.contains("every announced IP has another node"), "{text}");
}

/// `explain svc NAME` shows the cluster findings that concern the Service, not the others.
#[test]
fn explain_keeps_only_the_cluster_findings_of_its_service() {
    let file = "testdata/scenarios/bgp-nobody-advertises.yaml";
    let codes = |svc: &str| {
        let (report, _) = crate::util::json(&["explain", "svc", svc, "--from", file, "-o", "json"]);
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    // Six cluster findings; each Service sees those naming its pool, advertisements or peers:
    // gold's pool prefs has the LOCAL_PREF conflict, local's advertisement to-tor2 names a peer
    // that does not exist, web's rack-b reaches no session. Pool both (LBD213) and the peer
    // without speakers (LBD214) concern none of them.
    assert_eq!(codes("gold"), ["LBD212"]);
    assert_eq!(codes("local"), ["LBD210", "LBD211"]);
    assert_eq!(codes("web"), ["LBD210"]);
    // check keeps every cluster finding.
    let (report, _) = crate::util::json(&["check", "--from", file, "-o", "json"]);
    assert_eq!(report["findings"].as_array().unwrap().len(), 6);
}

/// Every text output fits the terminal at 40, 80 and 120 columns: a line is wider only when it
/// is one word (an identifier is never cut), and no `…` stands for a cut: lists that stop early
/// say how many more there are.
#[test]
fn every_text_output_fits_the_width_and_cuts_nothing() {
    let commands: &[&[&str]] = &[
        &["check", "--demo"],
        &["check", "--demo", "trap"],
        &["check", "--spof", "--demo", "trap"],
        &["explain", "svc", "traefik", "--demo"],
        &["explain", "svc", "pihole-dns-tcp", "-n", "home", "--demo"],
        &["explain", "svc", "jellyfin", "-n", "media", "--demo", "trap"],
        &["explain", "svc", "-A", "--demo"],
        &["explain", "pools", "--demo"],
        &["explain", "pool", "homelab", "--demo"],
        &["simulate", "--down", "worker-a", "--demo"],
        &["history", "--demo"],
        &["check", "--from", "testdata/scenarios/cilium-l2-shared-ip.yaml"],
        &["explain", "svc", "-A", "--from", "testdata/scenarios/bgp-two-routers.yaml"],
        &["check", "--from", "testdata/scenarios/cilium-lbipam-restart.yaml"],
        &["explain", "svc", "web", "--from", "testdata/scenarios/metallb-and-cilium-l2.yaml"],
        &["check", "--from", "testdata/scenarios/release-mixed-speakers.yaml"],
        &["explain", "svc", "web", "--from", "testdata/scenarios/release-v0-14-9-cordoned.yaml"],
    ];
    for args in commands {
        for width in [40, 80, 120] {
            let text = at_columns(&width.to_string(), args);
            for line in text.lines() {
                assert!(
                    line.chars().count() <= width || !line.trim().contains(' '),
                    "{args:?} at {width}: {line:?}\n{text}"
                );
            }
            let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
            for (at, _) in joined.match_indices('…') {
                assert!(
                    joined[at..].starts_with("… (+"),
                    "{args:?} at {width}: a cut near {:?}",
                    &joined[at.saturating_sub(40)..]
                );
            }
        }
    }
}
