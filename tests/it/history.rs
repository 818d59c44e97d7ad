//! `history` on the crash-looping GPU node of testdata/history (README.md there tells the story
//! and its numbers, worked out by the generator from the lines it wrote).

use serde_json::Value;

use crate::util::{json, run};

const CLUSTER: &str = "testdata/history/cluster.yaml";
const LOGS: &str = "testdata/history/logs";

fn ip<'a>(h: &'a Value, ip: &str) -> &'a Value {
    h["ips"].as_array().unwrap().iter().find(|x| x["ip"] == ip).unwrap_or_else(|| panic!("{ip} missing"))
}

fn owner<'a>(ip: &'a Value, node: &str) -> &'a Value {
    ip["owners"].as_array().unwrap().iter().find(|o| o["node"] == node).unwrap_or_else(|| panic!("{node} missing"))
}

#[test]
fn the_crash_looping_gpu_node_is_found_with_the_ips_it_takes_back() {
    let (h, code) = json(&["history", "--from", CLUSTER, "--logs", LOGS, "-o", "json"]);
    assert_eq!(code, 0, "LBD108 is a warning");
    let logs = h["logs"].as_array().unwrap();
    assert_eq!(logs.len(), 8);
    let sum = |k: &str| logs.iter().map(|l| l[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!((sum("malformed"), sum("truncated"), sum("untimed")), (5, 1, 0));
    assert!(logs.iter().all(|l| !l["node"].is_null()), "every file is a speaker Pod of the snapshot");

    let jellyfin = ip(&h, "192.0.2.218");
    assert_eq!(jellyfin["services"], serde_json::json!(["media/jellyfin"]));
    assert_eq!(jellyfin["order"][0], "gpu-1");
    assert_eq!(jellyfin["order"][1], "worker-a");
    assert_eq!(jellyfin["currentOwner"], "gpu-1");
    let worker_a = owner(jellyfin, "worker-a");
    assert_eq!((worker_a["rank"].as_u64(), worker_a["takeovers"].as_u64()), (Some(2), Some(288)));
    assert_eq!(worker_a["withdrawnNotOwner"], 288);
    // gpu-1's file is its current container only: one takeover of its own in it.
    assert_eq!(owner(jellyfin, "gpu-1")["takeovers"], 1);
    // 288 failovers and 288 takebacks, the first failover included: gpu-1 took the IP back from
    // worker-a, so it held it before it left.
    assert_eq!(jellyfin["ownerChanges"], 576);
    assert_eq!((jellyfin["takeovers"].as_u64(), jellyfin["takebacks"].as_u64()), (Some(288), Some(288)));
    let by_day: u64 = jellyfin["ownerChangesByDay"].as_object().unwrap().values().map(|v| v.as_u64().unwrap()).sum();
    assert_eq!(by_day, 576, "the days add up to ownerChanges");
    assert_eq!(jellyfin["disturbedBy"], serde_json::json!(["gpu-1"]));
    assert_eq!(owner(ip(&h, "192.0.2.207"), "worker-b")["takeovers"], 288);
    for other in ["192.0.2.200", "192.0.2.203", "192.0.2.204", "192.0.2.205", "192.0.2.210", "192.0.2.226"] {
        let x = ip(&h, other);
        assert_eq!(x["ownerChanges"], 0, "{other}");
        assert!(x["disturbedBy"].as_array().unwrap().is_empty(), "{other}");
    }

    let flapping = h["flapping"].as_array().unwrap();
    assert_eq!(flapping.len(), 1);
    let gpu = &flapping[0];
    assert_eq!(gpu["node"], "gpu-1");
    assert_eq!(gpu["restarts"], 437);
    assert_eq!(gpu["departures"], 288, "288 crashes, each logged by every peer, counted once");
    assert_eq!(gpu["failed"], 288, "one peer marks each crash failed (README: 46 + 43 + … = 288)");
    assert_eq!(gpu["rejoins"], 288, "each crash in the window ends in a rejoin");
    assert_eq!((gpu["takeovers"].as_u64(), gpu["takebacks"].as_u64()), (Some(576), Some(576)), "both IPs");
    assert_eq!(gpu["ownerChanges"], 1152);
    assert_eq!(gpu["candidateNow"], true);
    assert!(gpu["fixed"].is_null());
    let disturbed: Vec<(&str, &str)> = gpu["ips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["ip"].as_str().unwrap(), d["displaced"][0].as_str().unwrap()))
        .collect();
    assert_eq!(disturbed, [("192.0.2.207", "worker-b"), ("192.0.2.218", "worker-a")]);

    let gpu_node = h["nodes"].as_array().unwrap().iter().find(|n| n["node"] == "gpu-1").unwrap();
    assert!(gpu_node["lastTerminationReason"].as_str().unwrap().contains("exit code 137"));
    let suspect: u64 = h["days"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["node"] == "gpu-1")
        .map(|d| d["suspect"].as_u64().unwrap())
        .sum();
    assert_eq!(suspect, 58 + 55 + 53 + 50 + 55 + 65 + 57, "every peer's suspect lines about gpu-1");

    let findings = h["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["code"], "LBD108");
    assert_eq!(findings[0]["objects"][0], "Node gpu-1");
}

#[test]
fn the_fix_keeps_gpu_1_out_and_hands_each_ip_to_the_next_in_its_order() {
    let (h, _) = json(&["history", "--from", CLUSTER, "--logs", LOGS, "-o", "json"]);
    let fix = &h["fix"];
    let patches = fix["patches"].as_array().unwrap();
    assert_eq!(patches.len(), 1);
    assert_eq!((patches[0]["namespace"].as_str(), patches[0]["name"].as_str()), (Some("metallb-system"), Some("l2")));
    let term = &patches[0]["patch"]["spec"]["nodeSelectors"][0]["matchExpressions"][0];
    assert_eq!(term, &serde_json::json!({"key": "kubernetes.io/hostname", "operator": "NotIn", "values": ["gpu-1"]}));
    let moves: Vec<(&str, &str, &str)> = fix["effect"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["ip"].as_str().unwrap(), c["before"].as_str().unwrap(), c["after"].as_str().unwrap()))
        .collect();
    assert_eq!(moves, [("192.0.2.207", "gpu-1", "worker-b"), ("192.0.2.218", "gpu-1", "worker-a")]);

    // The same patch through simulate --apply moves the same IPs.
    let dir = tempfile::tempdir().unwrap();
    let ad = dir.path().join("l2.yaml");
    let cluster: String = std::fs::read_to_string(CLUSTER).unwrap();
    let doc = cluster.split("\n---\n").find(|d| d.contains("\nkind: L2Advertisement\n")).unwrap();
    let mut ad_json: Value = serde_saphyr::from_str(doc).unwrap();
    ad_json["spec"]["nodeSelectors"] = patches[0]["patch"]["spec"]["nodeSelectors"].clone();
    for k in ["resourceVersion", "uid", "creationTimestamp", "generation"] {
        ad_json["metadata"].as_object_mut().unwrap().remove(k);
    }
    std::fs::write(&ad, serde_json::to_string(&ad_json).unwrap()).unwrap();
    let (sim, code) = json(&["simulate", "--from", CLUSTER, "--apply", ad.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 0);
    let sim_moves: Vec<(&str, &str, &str)> = sim["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["ip"].as_str().unwrap(), c["before"].as_str().unwrap(), c["after"].as_str().unwrap()))
        .collect();
    assert_eq!(sim_moves, moves);
}

#[test]
fn events_and_restarts_alone_still_find_the_flapping_node() {
    let (h, code) = json(&["history", "--from", CLUSTER, "-o", "json"]);
    assert_eq!(code, 0);
    assert!(h["logsUnknownBecause"].as_str().unwrap().contains("--logs DIR"));
    let jellyfin = ip(&h, "192.0.2.218");
    assert!(jellyfin["ownerChanges"].is_null(), "no logs: the number of changes is unknown, not 0");
    assert!(owner(jellyfin, "worker-a")["takeovers"].is_null());
    assert!(owner(jellyfin, "worker-a")["events"]["count"].as_i64().unwrap() > 0);
    assert_eq!(h["flapping"][0]["node"], "gpu-1");
    assert_eq!(h["flapping"].as_array().unwrap().len(), 1);
}

#[test]
fn since_and_one_service_narrow_the_history() {
    let (h, _) = json(&[
        "history", "svc", "jellyfin", "-n", "media", "--from", CLUSTER, "--logs", LOGS, "--since", "24h", "-o", "json",
    ]);
    assert_eq!(h["since"], "2026-11-29T23:59:00Z", "24h before capturedAt 2026-11-30T23:59:00Z");
    let ips: Vec<&str> = h["ips"].as_array().unwrap().iter().map(|x| x["ip"].as_str().unwrap()).collect();
    assert_eq!(ips, ["192.0.2.218"]);
    let takeovers = owner(ip(&h, "192.0.2.218"), "worker-a")["takeovers"].as_u64().unwrap();
    assert!(takeovers > 0 && takeovers < 288, "about half of the two days' failovers: {takeovers}");
    assert!(h["days"].as_array().unwrap().iter().all(|d| d["day"].as_str().unwrap() >= "2026-11-29"));

    let (_, err, code) = run(&["history", "svc", "nope", "-n", "media", "--from", CLUSTER]);
    assert_eq!(code, 2);
    assert!(err.contains("media/nope"), "{err}");
    let (_, err, code) = run(&["history", "--from", CLUSTER, "--logs", "testdata/history/README.md"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a directory"), "{err}");
    let (_, err, code) = run(&["history", "--from", CLUSTER, "--since", "yesterday"]);
    assert_eq!(code, 2);
    assert!(err.contains("--since"), "{err}");
    let (_, _, code) = run(&["history", "--from", CLUSTER, "--logs", LOGS, "--fail-on", "warning"]);
    assert_eq!(code, 1, "LBD108 fails at --fail-on warning");
}

/// The homelab demo's nodeAssigned Events name one node per Service and no speaker churns:
/// nothing flaps, nothing to fix.
#[test]
fn a_quiet_cluster_has_no_flapping_node() {
    for demo in ["healthy", "trap"] {
        let (h, code) = json(&["history", "--demo", demo, "-o", "json"]);
        assert_eq!(code, 0, "{demo}");
        assert!(h["flapping"].as_array().unwrap().is_empty(), "{demo}: {}", h["flapping"]);
        assert!(h["fix"].is_null() && h["findings"].as_array().unwrap().is_empty(), "{demo}");
        assert!(h["ips"].as_array().unwrap().iter().all(|ip| ip["disturbedBy"].as_array().unwrap().is_empty()));
    }
}

/// The two per-day tables print exactly what `-o json` holds: `changeDays` (owner changes per
/// day and IP) and `days` (per day and node), row for row.
#[test]
fn the_per_day_tables_and_the_json_agree() {
    let args = ["history", "--from", CLUSTER, "--logs", LOGS];
    let (text, _, _) = run(&args);
    let (h, _) = json(&[&args[..], &["-o", "json"]].concat());
    let rows = |header: &str| -> Vec<Vec<String>> {
        let at = text.find(header).unwrap_or_else(|| panic!("no {header:?} table in:\n{text}"));
        text[at..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("20"))
            .map(|l| l.split("   ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect())
            .collect()
    };
    let n = |v: &Value| v.as_u64().unwrap().to_string();

    let changes: Vec<Vec<String>> = h["changeDays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let mut by: Vec<(&String, u64)> =
                d["causedBy"].as_object().unwrap().iter().map(|(k, v)| (k, v.as_u64().unwrap())).collect();
            by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            let by: Vec<String> = by.iter().map(|(k, v)| format!("{k} {v}")).collect();
            vec![
                d["day"].as_str().unwrap().into(),
                d["ip"].as_str().unwrap().into(),
                n(&d["ownerChanges"]),
                n(&d["takeovers"]),
                n(&d["takebacks"]),
                n(&d["handovers"]),
                by.join(", "),
            ]
        })
        .collect();
    assert!(!changes.is_empty());
    assert_eq!(rows("DAY          IP"), changes);
    // And changeDays is ownerChangesByDay, IP by IP.
    for ip in h["ips"].as_array().unwrap() {
        for (day, count) in ip["ownerChangesByDay"].as_object().unwrap() {
            let row = changes.iter().find(|r| &r[0] == day && r[1] == ip["ip"]).expect("a row per day and IP");
            assert_eq!(row[2], n(count));
        }
    }
    let worst = &h["worstDay"];
    assert!(text.contains(&format!(
        "Worst day: {}, {} owner changes",
        worst["day"].as_str().unwrap(),
        worst["ownerChanges"]
    )));

    let days: Vec<Vec<String>> = h["days"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let mut row = vec![d["day"].as_str().unwrap().to_string(), d["node"].as_str().unwrap().to_string()];
            for k in
                ["announced", "withdrawn", "suspect", "departures", "failed", "rejoins", "starts", "ownerChangesCaused"]
            {
                row.push(n(&d[k]));
            }
            row
        })
        .filter(|r| r[2..].iter().any(|c| c != "0"))
        .collect();
    assert_eq!(rows("DAY          NODE"), days);
}

/// testdata/history/story (scripts/gen-history-story.py, written apart from this code: its
/// truth.json is its model's real owners over time, not a reading of the logs): 23 days of
/// v0.16.1 logs with whole-second timestamps, a crash-looping gpu-1, memberlist flaps, a
/// rollout, and the fix (nodeSelectors without gpu-1) on day 14, before the snapshot.
#[test]
fn the_story_of_a_fixed_crash_loop_is_judged_by_the_logs_not_by_todays_configuration() {
    const STORY: &str = "testdata/history/story";
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(format!("{STORY}/truth.json")).unwrap()).unwrap();
    let (h, code) = json(&[
        "history",
        "--from",
        &format!("{STORY}/cluster.yaml"),
        "--logs",
        &format!("{STORY}/logs"),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "fixed already: nothing to warn about");

    // Owner changes per day within ±1 for every IP.
    for (addr, t) in truth["ips"].as_object().unwrap() {
        let got = &ip(&h, addr)["ownerChangesByDay"];
        let days: std::collections::BTreeSet<&String> =
            t["ownerChangesByDay"].as_object().unwrap().keys().chain(got.as_object().unwrap().keys()).collect();
        for day in days {
            let (want, have) = (t["ownerChangesByDay"][day].as_i64().unwrap_or(0), got[day].as_i64().unwrap_or(0));
            assert!((want - have).abs() <= 1, "{addr} on {day}: the logs hold {want}, history says {have}");
        }
    }
    // The worst day within 1%.
    let (want, have) = (&truth["worstDay"], &h["worstDay"]);
    assert_eq!(have["day"], want["day"]);
    let (want, have) = (want["ownerChanges"].as_f64().unwrap(), have["ownerChanges"].as_f64().unwrap());
    assert!((want - have).abs() <= want * 0.01, "worst day: {want} in the logs, {have} in history");

    // The crash-looping node first, no stable node named; it was fixed, so no patch, no LBD108.
    let flapping = h["flapping"].as_array().unwrap();
    assert_eq!(flapping[0]["node"], truth["culprit"]);
    for stable in truth["stableNodes"].as_array().unwrap() {
        assert!(flapping.iter().all(|f| &f["node"] != stable), "stable {stable} named flapping: {flapping:?}");
    }
    let gpu = &flapping[0];
    assert_eq!(gpu["candidateNow"], false);
    assert_eq!(gpu["fixed"]["excludedBy"], serde_json::json!(["notSelected"]));
    assert_eq!(gpu["fixed"]["at"], truth["fix"]["at"], "the last move off it is the fix");
    assert_eq!(gpu["fixed"]["byConfigurationChange"], true);
    let nodes = &truth["nodes"][truth["culprit"].as_str().unwrap()];
    assert_eq!((&gpu["departures"], &gpu["rejoins"]), (&nodes["departures"], &nodes["rejoins"]));
    assert_eq!(h["fix"]["needed"], false);
    assert!(h["fix"]["patches"].as_array().unwrap().is_empty());
    assert!(h["fix"]["summary"].as_str().unwrap().contains("fixed on 2026-11-14 by a configuration change"));
    assert!(h["findings"].as_array().unwrap().is_empty(), "{}", h["findings"]);

    // The shared IP: dns/adguard-dot sorts first and has no ready endpoint; pihole's announcer speaks.
    let shared = ip(&h, "192.0.2.209");
    assert_eq!(shared["services"], serde_json::json!(["dns/adguard-dot", "dns/pihole"]));
    assert_eq!(shared["currentOwner"], truth["ips"]["192.0.2.209"]["ownerAtCapture"]);
    assert_eq!(shared["expectedAnnouncer"], "storage-1");
    assert_eq!(shared["order"][0], "storage-1");

    // Stable nodes: the rollout's one graceful restart each, never a rejoin per speaker restart.
    for n in h["nodes"].as_array().unwrap() {
        if truth["stableNodes"].as_array().unwrap().contains(&n["node"]) {
            assert!(n["rejoins"].as_u64().unwrap() <= 1, "{}: {}", n["node"], n["rejoins"]);
            assert_eq!(n["failed"], 0, "{} left gracefully", n["node"]);
        }
    }
}

/// Log files named after the node (`worker-a.log`, `speaker-worker-a.log`) count as that node's
/// speaker's, as files named after the Pod do.
#[test]
fn log_files_may_be_named_after_their_node() {
    let pods_to_nodes = [
        ("speaker-qfd7v", "cp-1"),
        ("speaker-pwxql", "worker-a"),
        ("speaker-2sgc2", "worker-b"),
        ("speaker-cqgpg", "worker-c"),
        ("speaker-tn4kt", "worker-d"),
        ("speaker-kvxjp", "worker-e"),
        ("speaker-9bsds", "storage-1"),
        ("speaker-c7hmn", "gpu-1"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, (pod, node)) in pods_to_nodes.iter().enumerate() {
        let name = if i % 2 == 0 { format!("{node}.log") } else { format!("speaker-{node}.log") };
        std::fs::copy(format!("{LOGS}/{pod}.log"), dir.path().join(name)).unwrap();
    }
    let (by_node, _) = json(&["history", "--from", CLUSTER, "--logs", dir.path().to_str().unwrap(), "-o", "json"]);
    let (by_pod, _) = json(&["history", "--from", CLUSTER, "--logs", LOGS, "-o", "json"]);
    for l in by_node["logs"].as_array().unwrap() {
        let (pod, node) = pods_to_nodes.iter().find(|(_, n)| l["source"].as_str().unwrap().contains(n)).unwrap();
        assert_eq!((l["pod"].as_str(), l["node"].as_str()), (Some(*pod), Some(*node)), "{}", l["source"]);
    }
    for k in ["ips", "days", "changeDays", "worstDay", "nodes", "flapping", "fix", "findings"] {
        assert_eq!(by_node[k], by_pod[k], "{k}");
    }
}

/// testdata/history/two-nodes (`scripts/gen-history-story.py --variant two-nodes`): gpu-1 flapped
/// and was fixed; storage-1 flaps still and is still a candidate; a nodeSelectors edit moves IPs
/// between stable nodes, a stable node is OOM-killed once, a Service is deleted, an
/// externalTrafficPolicy Local endpoint moves. Only storage-1 needs a patch.
#[test]
fn two_flapping_nodes_one_fixed_one_not_and_moves_nobody_caused() {
    const DIR: &str = "testdata/history/two-nodes";
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/truth.json")).unwrap()).unwrap();
    let (h, code) =
        json(&["history", "--from", &format!("{DIR}/cluster.yaml"), "--logs", &format!("{DIR}/logs"), "-o", "json"]);
    assert_eq!(code, 0, "LBD108 is a warning");
    for (addr, t) in truth["ips"].as_object().unwrap() {
        let got = ip(&h, addr);
        assert_eq!(got["ownerChangesByDay"], t["ownerChangesByDay"], "{addr}");
        assert_eq!(got["currentOwner"], t["ownerAtCapture"], "{addr}");
    }
    assert_eq!(h["worstDay"], truth["worstDay"]);
    let flapping: Vec<&str> = h["flapping"].as_array().unwrap().iter().map(|f| f["node"].as_str().unwrap()).collect();
    assert_eq!(flapping, truth["culprits"].as_array().unwrap().iter().map(|c| c.as_str().unwrap()).collect::<Vec<_>>());
    let (gpu, storage) = (&h["flapping"][0], &h["flapping"][1]);
    assert_eq!(gpu["fixed"]["at"], truth["fixed"]["gpu-1"]["at"]);
    assert_eq!(storage["candidateNow"], true);
    assert!(storage["fixed"].is_null());
    // The moves no departure explains: no node caused them.
    for (day, addr) in [("2026-11-19", "192.0.2.104"), ("2026-11-19", "192.0.2.105"), ("2026-11-11", "192.0.2.213")] {
        assert!(ip(&h, addr)["disturbedBy"].as_array().unwrap().is_empty(), "{addr}");
        let row = h["changeDays"].as_array().unwrap().iter().find(|d| d["day"] == day && d["ip"] == addr).unwrap();
        assert_eq!(row["causedBy"], serde_json::json!({"(none)": 1}), "{addr} on {day}");
    }
    let last = ip(&h, "192.0.2.213")["lastChanges"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["from"].as_str(), last["to"].as_str(), &last["cause"]),
        (Some("worker-c"), Some("worker-a"), &Value::Null)
    );
    // The patch: storage-1 out as well, in l2's one term; it moves only storage-1's IPs.
    assert_eq!(h["fix"]["needed"], true);
    let term = &h["fix"]["patches"][0]["patch"]["spec"]["nodeSelectors"][0]["matchExpressions"];
    assert_eq!(term.as_array().unwrap().last().unwrap()["values"], serde_json::json!(["storage-1"]));
    let mut moved: Vec<&str> =
        h["fix"]["effect"].as_array().unwrap().iter().map(|c| c["ip"].as_str().unwrap()).collect();
    moved.sort();
    assert_eq!(moved, ["192.0.2.217", "192.0.2.222"]);
    let findings = h["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["objects"][0], "Node storage-1");
    // worker-e's one OOM kill is no flapping.
    assert!(!flapping.contains(&"worker-e"));
}

/// `-n NS` without `svc NAME` narrows the IPs to that namespace's Services, as check's -n does,
/// and a namespace the snapshot does not hold is a typo (exit 2), never every Service.
#[test]
fn namespace_narrows_the_history_and_an_unknown_one_is_refused() {
    let (narrowed, code) = crate::util::json(&["history", "--demo", "-n", "media", "-o", "json"]);
    assert_eq!(code, 0);
    let ips = narrowed["ips"].as_array().unwrap();
    let services: Vec<&str> =
        ips.iter().flat_map(|i| i["services"].as_array().unwrap()).map(|s| s.as_str().unwrap()).collect();
    assert_eq!(services, ["media/jellyfin", "media/immich", "media/navidrome"]);
    let (all, _) = crate::util::json(&["history", "--demo", "-A", "-o", "json"]);
    assert!(all["ips"].as_array().unwrap().len() > ips.len());
    let (stdout, stderr, code) = crate::util::run(&["history", "--demo", "-n", "nosuchns"]);
    assert_eq!(code, 2, "{stdout}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("namespace \"nosuchns\" does not exist"), "{stderr}");
}

/// `scripts/gen-history-story.py --variant fast-returns`, generated here (3 s, deterministic):
/// gpu-1's new container is killed seconds after it joined, so the runner-up's notOwner
/// withdrawal (the takeback; gpu-1's own announce is in a container log that is gone) and its
/// next takeover lie seconds apart, and half the failure marks are in no surviving log.
#[test]
fn fast_returns_count_every_takeback_and_every_departure_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let gen = std::process::Command::new("python3")
        .args(["scripts/gen-history-story.py", "--variant", "fast-returns", "--out-dir", out])
        .output()
        .expect("python3 runs the generator (.ci/run installs it)");
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let truth: Value = serde_json::from_str(&std::fs::read_to_string(format!("{out}/truth.json")).unwrap()).unwrap();
    let (h, _) =
        json(&["history", "--from", &format!("{out}/cluster.yaml"), "--logs", &format!("{out}/logs"), "-o", "json"]);
    for (addr, t) in truth["ips"].as_object().unwrap() {
        assert_eq!(ip(&h, addr)["ownerChangesByDay"], t["ownerChangesByDay"], "{addr}: every day exact");
    }
    assert_eq!(h["worstDay"], truth["worstDay"]);
    let gpu = &h["flapping"][0];
    assert_eq!(gpu["node"], "gpu-1");
    let nodes = &truth["nodes"]["gpu-1"];
    assert_eq!((&gpu["departures"], &gpu["rejoins"]), (&nodes["departures"], &nodes["rejoins"]));
    let node = h["nodes"].as_array().unwrap().iter().find(|n| n["node"] == "gpu-1").unwrap();
    assert!(
        node["failed"].as_u64().unwrap() < node["departures"].as_u64().unwrap(),
        "some departures are NodeLeave only"
    );
}
