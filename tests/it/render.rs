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
        for seg in segments.iter().filter(|s| s[0].starts_with("$ kubectl lbdoctor ") && offline(s[0])) {
            let command = seg[0];
            let mut args: Vec<&str> = command
                .trim_start_matches("$ kubectl lbdoctor ")
                .split_whitespace()
                .take_while(|a| *a != "|" && *a != "#")
                .collect();
            args.extend(["--color", "never"]);
            let actual = table(&args);
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
