//! The real binary on the bundled snapshots: verdicts, JSON contract, formats and exit codes.

use predicates::prelude::*;
use serde_json::Value;

use crate::util::{json, lbdoctor, service, BIN, HOMELAB, ROOT, TRAP};

fn codes(svc: &Value) -> Vec<&str> {
    svc["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect()
}

#[test]
fn homelab_splits_the_ips_between_the_two_workers() {
    // Winners computed independently (scripts/gen-homelab.py, Python hashlib).
    let (report, code) = json(&["check", "--from", HOMELAB, "-o", "json"]);
    assert_eq!(code, 1, "pihole-dns-tcp has no serving endpoint: an error");
    let expected = [
        ("default", "grafana", Some("worker-b")),
        ("default", "traefik", Some("worker-b")),
        ("default", "prometheus", Some("worker-a")),
        ("media", "jellyfin", Some("worker-a")),
        ("media", "immich", Some("worker-a")),
        ("media", "navidrome", Some("worker-b")),
        ("home", "home-assistant", Some("worker-a")),
        ("home", "mosquitto", Some("worker-a")),
        ("home", "pihole-dns-udp", Some("worker-b")),
        ("home", "pihole-dns-tcp", None),
    ];
    assert_eq!(report["services"].as_array().unwrap().len(), expected.len());
    for (ns, name, winner) in expected {
        let svc = service(&report, ns, name);
        let l2 = &svc["metallb"]["layer2"];
        assert_eq!(l2["expectedAnnouncer"].as_str(), winner, "{ns}/{name}");
        assert_eq!(svc["implementation"], "metallb");
        if let Some(w) = winner {
            assert_eq!(l2["actualAnnouncers"], serde_json::json!([w]), "{ns}/{name}: ServiceL2Status agrees");
            assert!(codes(svc).is_empty(), "{ns}/{name}: {:?}", codes(svc));
        }
    }
    let tcp = service(&report, "home", "pihole-dns-tcp");
    assert_eq!(codes(tcp), ["LBD104"], "the shared IP is still answered by worker-b for pihole-dns-udp");
    assert!(report["findings"].as_array().unwrap().is_empty());
}

#[test]
fn json_contract_for_one_service() {
    let (report, code) = json(&["explain", "svc", "jellyfin", "-n", "media", "--from", HOMELAB, "-o", "json"]);
    assert_eq!(code, 0);
    assert_eq!(report["apiVersion"], "lbdoctor/v1beta1");
    assert_eq!(report["kind"], "Report");
    assert_eq!(report["source"]["mode"], "snapshot");
    assert_eq!(report["source"]["capturedAt"], "2026-11-29T08:00:00Z");
    let svc = &report["services"][0];
    assert_eq!(report["services"].as_array().unwrap().len(), 1);
    assert_eq!(svc["ips"], serde_json::json!(["198.51.100.13"]));
    let alloc = &svc["allocation"];
    assert_eq!(
        (alloc["status"].as_str(), alloc["reason"].as_str(), alloc["pool"].as_str()),
        (Some("allocated"), Some("kept"), Some("homelab"))
    );
    assert_eq!(alloc["expectedIPs"], serde_json::json!(["198.51.100.13"]));
    assert_eq!(alloc["metallbEvent"], Value::Null, "a Service MetalLB leaves alone gets no Event");
    assert_eq!(svc["metallb"]["withdrawReason"], Value::Null);
    let nodes = svc["metallb"]["layer2"]["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 8);
    let first = &nodes[0];
    assert_eq!(first["node"], "worker-a");
    assert_eq!(
        (first["speaker"].as_bool(), first["reason"].as_str(), first["rank"].as_u64()),
        (Some(true), Some(""), Some(1))
    );
    assert_eq!(first["hash"], "c4405983aefa1987858209826f33accd6bbb0dc3b3f34cd043f1586b5e62c645");
    assert_eq!(nodes[1]["node"], "worker-b");
    assert_eq!(nodes[1]["excludedBy"], serde_json::json!(["lostElection"]));
    let cp1 = nodes.iter().find(|n| n["node"] == "cp-1").unwrap();
    assert_eq!(cp1["reason"], "noMatchingAdvertisement");
    assert_eq!(cp1["rank"], Value::Null);
    assert_eq!(cp1["excludedBy"], serde_json::json!(["excludeLabel", "notSelected"]));
    assert_eq!(cp1["excludeLabelValue"], "");
}

#[test]
fn the_trap_leaves_every_ip_dark_and_says_why() {
    let (report, code) = json(&["check", "--from", TRAP, "-o", "json", "--nodes", "all"]);
    assert_eq!(code, 1);
    for svc in report["services"].as_array().unwrap() {
        let l2 = &svc["metallb"]["layer2"];
        assert_eq!(l2["expectedAnnouncer"], Value::Null, "{}", svc["name"]);
        assert!(codes(svc).contains(&"LBD101"), "{}", svc["name"]);
        if svc["name"] != "pihole-dns-tcp" {
            assert_eq!(l2["emptiedBy"], "excludeLabel", "{}", svc["name"]);
            assert!(codes(svc).contains(&"LBD102"), "{}", svc["name"]);
            // Control-plane nodes still run a speaker; each answers plain notOwner (spec T2).
            let cp = l2["nodes"].as_array().unwrap().iter().find(|n| n["node"] == "cp-2").unwrap();
            assert_eq!(cp["reason"], "notOwner");
        }
    }
    let jellyfin = service(&report, "media", "jellyfin");
    assert!(codes(jellyfin).contains(&"LBD105"), "the stale nodeAssigned Event disagrees");
    let lbd102 = jellyfin["findings"].as_array().unwrap().iter().find(|f| f["code"] == "LBD102").unwrap();
    assert!(lbd102["hint"]
        .as_str()
        .unwrap()
        .contains("kubectl get nodes -L node.kubernetes.io/exclude-from-external-load-balancers"));
    assert!(lbd102["objects"].as_array().unwrap().contains(&Value::from("L2Advertisement metallb-system/workers")));
}

#[test]
fn table_explains_one_service_in_words() {
    lbdoctor()
        .args(["explain", "svc", "jellyfin", "-n", "media", "--from", TRAP])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("nobody announces 198.51.100.13"))
        .stdout(predicate::str::contains(
            "3 control-plane nodes (cp-1, cp-2, cp-3) are excluded by node.kubernetes.io/exclude-from-external-load-balancers (present with an empty value)",
        ))
        .stdout(predicate::str::contains("\u{1b}[").not());
}

#[test]
fn yaml_is_the_same_document_as_json() {
    let (report, _) = json(&["check", "--from", HOMELAB, "-o", "json"]);
    let out = lbdoctor().args(["check", "--from", HOMELAB, "-o", "yaml"]).output().unwrap();
    let yaml: Value = serde_saphyr::from_slice(&out.stdout).unwrap();
    assert_eq!(yaml, report);
}

#[test]
fn colour_follows_flags_and_no_color() {
    let args = ["explain", "svc", "-A", "--from", HOMELAB];
    lbdoctor().args(args).arg("--color=always").assert().stdout(predicate::str::contains("\u{1b}["));
    lbdoctor().args(args).assert().stdout(predicate::str::contains("\u{1b}[").not());
    lbdoctor().args(args).arg("--color=never").assert().stdout(predicate::str::contains("\u{1b}[").not());
}

#[test]
fn exit_codes() {
    // 0: nothing at or above --fail-on; 1: findings at or above it.
    lbdoctor().args(["explain", "svc", "grafana", "--from", HOMELAB]).assert().code(0);
    lbdoctor().args(["check", "--from", HOMELAB]).assert().code(1);
    lbdoctor().args(["check", "--from", HOMELAB, "--fail-on", "never"]).assert().code(0);
    lbdoctor().args(["check", "--from", HOMELAB, "--ignore", "LBD104"]).assert().code(0);
    // 2: usage and input errors.
    lbdoctor()
        .args(["check", "--from", "testdata/does-not-exist.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does-not-exist.yaml"));
    lbdoctor()
        .args(["explain", "svc", "nope", "-n", "media", "--from", HOMELAB])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("media/nope"));
    lbdoctor().args(["explain", "pods", "--from", HOMELAB]).assert().code(2);
    lbdoctor().args(["chek"]).assert().code(2);
    lbdoctor().args(["check", "-o", "xml", "--from", HOMELAB]).assert().code(2);
    // 0 for help and version.
    lbdoctor().arg("--help").assert().code(0).stdout(predicate::str::contains("kubectl lbdoctor"));
    lbdoctor().arg("version").assert().code(0).stdout(predicate::str::contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn unreadable_required_kinds_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let info = dir.path().join("info.yaml");
    std::fs::write(
        &info,
        "apiVersion: lbdoctor/v1alpha1\nkind: SnapshotInfo\nspec:\n  unreadable: [\"nodes: forbidden\"]\n",
    )
    .unwrap();
    lbdoctor()
        .args(["check", "--from", info.to_str().unwrap()])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("nodes: forbidden"));
}

#[test]
fn stdin_snapshot() {
    let text = std::fs::read_to_string(HOMELAB).unwrap();
    lbdoctor()
        .args(["explain", "svc", "grafana", "--from", "-"])
        .write_stdin(text)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("worker-b announces 198.51.100.10"));
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    use std::io::Read;
    use std::process::Stdio;
    // Enough Services that the report outgrows the pipe buffer.
    let mut items = Vec::new();
    for i in 0..3000 {
        items.push(serde_json::json!({"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": format!("svc-{i}"), "namespace": "default"}, "spec": {"type": "LoadBalancer"}}));
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("many.json");
    std::fs::write(&file, serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()).unwrap();
    let mut child = std::process::Command::new(BIN)
        .args(["explain", "svc", "-A", "-o", "json", "--from", file.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Every finding code the source can raise has its page and its row in the index (build.rs makes
/// `Code` from the index, so this holds by construction; the check guards the generator).
#[test]
fn every_finding_code_is_documented() {
    let root = std::path::Path::new(ROOT);
    let mut codes = std::collections::BTreeSet::new();
    let mut stack = vec![root.join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for (i, _) in text.match_indices("Code::LBD") {
                let code = &text[i + 6..i + 12];
                if code[3..].bytes().all(|b| b.is_ascii_digit()) {
                    codes.insert(code.to_string());
                }
            }
        }
    }
    assert!(codes.len() >= 20, "found {codes:?}");
    let index = std::fs::read_to_string(root.join("docs/findings/README.md")).unwrap();
    for code in &codes {
        assert!(root.join(format!("docs/findings/{code}.md")).is_file(), "{code} has no page");
        assert!(index.contains(&format!("| {code} |")), "{code} is not in docs/findings/README.md");
    }
}

#[test]
fn pool_reports_name_the_implementations_as_service_reports_do() {
    let (pools, _) = json(&["explain", "pools", "--from", HOMELAB, "-o", "json"]);
    let (report, _) = json(&["check", "--from", HOMELAB, "-o", "json"]);
    assert_eq!(pools["source"]["implementations"], report["source"]["implementations"]);
    assert_eq!(pools["source"]["implementations"][0]["implementation"], "metallb");
}

/// MetalLB elects per Service but ARP answers per IP: pihole-dns-tcp has no announcer of its
/// own, yet worker-b answers 198.51.100.20 for its UDP sibling. No sentence may say nobody
/// announces the IP, in the text, the JSON verdict or the findings.
#[test]
fn a_shared_ip_is_never_called_dark_while_a_sibling_answers_it() {
    let args = ["explain", "svc", "pihole-dns-tcp", "-n", "home", "--demo"];
    let (text, _, code) = crate::util::run(&args);
    assert_eq!(code, 1, "{text}");
    let (report, _) = json(&[&args[..], &["-o", "json"]].concat());
    let verdict = report["services"][0]["metallb"]["layer2"]["verdict"].as_str().unwrap();
    for said in [verdict, text.as_str()] {
        assert!(!said.contains("nobody announces"), "{said}");
    }
    assert!(
        verdict.starts_with("no node announces 198.51.100.20 for this Service: the Service has no serving endpoint; worker-b still answers it for home/pihole-dns-udp"),
        "{verdict}"
    );
    let (all, _) = json(&["check", "--demo", "-o", "json"]);
    let tcp = service(&all, "home", "pihole-dns-tcp");
    assert!(!tcp.to_string().contains("nobody announces"), "{tcp}");
}

/// The commands under "Examples:" of every help, as the shell would read them pasted: a line
/// ending in ` \` continues on the next. At any width the commands are the same, no example line
/// is a fragment of a wrapped one, and every line fits unless it is one unbreakable word.
fn examples_at(args: &[&str], width: usize) -> Vec<String> {
    let out = crate::util::lbdoctor().args(args).env("COLUMNS", width.to_string()).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    let Some(start) = help.find("Examples:\n") else { return Vec::new() };
    let mut commands: Vec<String> = Vec::new();
    let mut continued = false;
    for line in help[start..].lines().skip(1) {
        assert!(
            line.chars().count() <= width || !line.trim().contains(' '),
            "{args:?} at {width} columns: {line:?} is too wide"
        );
        if line.is_empty() {
            assert!(!continued, "{args:?} at {width}: a continuation ends on a blank line");
            continue;
        }
        if !line.starts_with("  ") {
            break; // the prose after the examples
        }
        let body = line.trim();
        if continued {
            assert!(line.starts_with("      "), "{args:?} at {width}: {line:?}");
            commands.last_mut().unwrap().push_str(&format!(" {}", body.trim_end_matches(" \\")));
        } else if body.starts_with('#') {
            assert!(line.starts_with("  # "), "{args:?} at {width}: {line:?}");
        } else {
            assert!(!line.starts_with("   "), "{args:?} at {width}: a wrapped fragment {line:?}");
            commands.push(body.trim_end_matches(" \\").to_string());
        }
        continued = line.ends_with(" \\");
    }
    commands
}

#[test]
fn help_examples_are_never_cut_into_two_shell_lines() {
    let subcommands =
        ["", "explain", "check", "snapshot", "simulate", "history", "arping", "announce", "version", "completion"];
    let mut with_examples = 0;
    for sub in subcommands {
        let args: Vec<&str> = [sub, "--help"].into_iter().filter(|a| !a.is_empty()).collect();
        let whole = examples_at(&args, 1000);
        with_examples += usize::from(!whole.is_empty());
        for width in [40, 80, 120, 200] {
            assert_eq!(examples_at(&args, width), whole, "{args:?} at {width} columns");
        }
    }
    assert!(with_examples >= 7, "{with_examples} helps have examples");
    // A wide terminal gets its width, not clap's cap of 100.
    let wide = crate::util::lbdoctor().env("COLUMNS", "200").args(["check", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&wide.stdout).lines().any(|l| l.len() > 100));
    // The dangerous one: a dry run stays a dry run however it is cut.
    let announce = examples_at(&["announce", "--help"], 40);
    assert!(announce[0].contains("--dry-run"), "{announce:?}");
}

/// The finding pages are in the binary: an installed plugin has no docs/ beside it.
#[test]
fn explain_finding_prints_the_pages_compiled_in() {
    let pages = std::fs::read_dir("docs/findings").unwrap().filter(|e| {
        let name = e.as_ref().unwrap().file_name().into_string().unwrap();
        name.starts_with("LBD") && name.ends_with(".md")
    });
    let (list, _, code) =
        crate::util::output(crate::util::lbdoctor().env("COLUMNS", "80").args(["explain", "finding"]));
    assert_eq!(code, 0);
    let codes: Vec<&str> = list.lines().filter(|l| l.starts_with("LBD")).collect();
    assert_eq!(codes.len(), pages.count(), "{list}");
    assert!(list.lines().all(|l| l.chars().count() <= 80), "{list}");
    let (page, _, code) =
        crate::util::output(crate::util::lbdoctor().env("COLUMNS", "60").args(["explain", "finding", "lbd104"]));
    assert_eq!(code, 0);
    assert!(page.starts_with("# LBD104: the Service has no serving endpoint at all\n"), "{page}");
    let mut in_code = false;
    for line in page.lines() {
        in_code ^= line.starts_with("```");
        let exempt = in_code || line.starts_with('|') || line.starts_with("```") || !line.trim().contains(' ');
        assert!(exempt || line.chars().count() <= 60, "{line:?}");
    }
    let (_, stderr, code) = crate::util::run(&["explain", "finding", "LBD999"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("\"LBD999\" is not a finding code (`kubectl lbdoctor explain finding` lists them)"),
        "{stderr}"
    );
    // Reports point at that command, never at a repository path or a placeholder host.
    let (junit, _, _) = crate::util::run(&["check", "--demo", "-o", "junit"]);
    assert!(junit.contains("more: kubectl lbdoctor explain finding LBD104"), "{junit}");
    let (sarif, _, _) = crate::util::run(&["check", "--demo", "-o", "sarif"]);
    assert!(sarif.contains("kubectl lbdoctor explain finding LBD104"));
    for text in [&junit, &sarif] {
        assert!(!text.contains("docs/findings") && !text.contains("example.invalid"));
    }
}

/// Hints name the real objects, so the command can be pasted as it is.
#[test]
fn hints_carry_the_real_names() {
    let (report, _) = json(&["check", "--demo", "-o", "json"]);
    let tcp = service(&report, "home", "pihole-dns-tcp");
    let hint = tcp["findings"][0]["hint"].as_str().unwrap();
    assert!(hint.contains("kubectl -n home get endpointslices -l kubernetes.io/service-name=pihole-dns-tcp"), "{hint}");
    let (trap, _) = json(&["check", "--demo", "trap", "-o", "json"]);
    let all = trap.to_string();
    for placeholder in ["=NAME", " NAME ", "-n NS", "node NAME"] {
        assert!(!all.contains(placeholder), "{placeholder} in a hint");
    }
}
