//! `check --watch -o json` on 1,000 nodes and 10,000 Services (the fake API server): memory after
//! the first evaluation and after every later one, while the cluster keeps changing: a node's
//! exclude label toggled (its IPs move and come back), a hundred EndpointSlices rewritten, a
//! Service annotated, in turn, one change every 2 s. Memory must stay bounded by the cluster:
//! the peak (VmHWM) at the end within a small constant of the peak after the first evaluation.
//!
//! `cargo bench --bench watch_memory` runs 120 s; `-- 3600` an hour.

#[path = "../tests/it/fakeapi/mod.rs"]
mod fakeapi;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const EXCLUDE: &str = "node.kubernetes.io/exclude-from-external-load-balancers";

fn main() {
    let seconds: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(120);
    let dir = tempfile::tempdir().expect("temporary directory");
    let file = dir.path().join("synthetic.json");
    let status = Command::new("python3")
        .args(["scripts/gen-synthetic.py", "--nodes", "1000", "--services", "10000", "--out"])
        .arg(&file)
        .status()
        .expect("python3 runs scripts/gen-synthetic.py");
    assert!(status.success());
    let size = std::fs::metadata(&file).unwrap().len();
    let objects = fakeapi::objects_of(&file);
    let nodes: Vec<String> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    let slices: Vec<(String, String)> = objects
        .iter()
        .filter(|o| o["kind"] == "EndpointSlice")
        .map(|o| (o["metadata"]["namespace"].as_str().unwrap().into(), o["metadata"]["name"].as_str().unwrap().into()))
        .collect();
    let services: Vec<(String, String)> = objects
        .iter()
        .filter(|o| o["kind"] == "Service")
        .map(|o| (o["metadata"]["namespace"].as_str().unwrap().into(), o["metadata"]["name"].as_str().unwrap().into()))
        .collect();
    let api = fakeapi::FakeApi::start(objects, fakeapi::Behaviour::default(), None);
    let kubeconfig = api.kubeconfig(dir.path(), "bench", "default", "token");
    println!(
        "snapshot {:.1} MB: {} nodes, {} Services; {seconds} s of changes, one every 2 s",
        size as f64 / 1e6,
        nodes.len(),
        services.len()
    );

    let mut child = Command::new(env!("CARGO_BIN_EXE_kubectl-lbdoctor"))
        .args(["check", "--watch", "-o", "json"])
        .env_clear()
        .env("HOME", dir.path())
        .env("KUBECONFIG", &kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary runs");
    let pid = child.id();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&line).expect("JSON lines"));
        }
    });
    let started = Instant::now();
    let first = lines.recv_timeout(Duration::from_secs(300)).expect("WatchStart");
    assert_eq!(first["kind"], "WatchStart");
    let (first_peak, first_rss) = memory(pid);
    println!(
        "first evaluation (list + check): {:.1} s, peak {:.0} MB ({:.1}x the file), resident {:.0} MB",
        started.elapsed().as_secs_f64(),
        first_peak / 1e6,
        first_peak / size as f64,
        first_rss / 1e6
    );

    let end = Instant::now() + Duration::from_secs(seconds);
    let mut round = 0usize;
    let mut changes = 0usize;
    let mut max_rss = first_rss;
    let mut latencies: Vec<Duration> = Vec::new();
    // The node whose exclude label is toggled: the first one, on and off.
    let node = nodes[0].clone();
    while Instant::now() < end {
        match round % 3 {
            0 => {
                let mut n = api.get("Node", "", &node).unwrap();
                let labels = n["metadata"]["labels"].as_object_mut().unwrap();
                if labels.remove(EXCLUDE).is_none() {
                    labels.insert(EXCLUDE.into(), json!(""));
                }
                api.put(n);
            }
            1 => {
                for (ns, name) in slices.iter().cycle().skip(round * 100 % slices.len()).take(100) {
                    let mut s = api.get("EndpointSlice", ns, name).unwrap();
                    s["metadata"]["annotations"]["bench/round"] = json!(round.to_string());
                    if let Some(e) = s["endpoints"].as_array_mut().and_then(|e| e.first_mut()) {
                        let ready = e["conditions"]["ready"].as_bool().unwrap_or(true);
                        e["conditions"]["ready"] = json!(!ready);
                    }
                    api.put(s);
                }
            }
            _ => {
                let (ns, name) = &services[round % services.len()];
                let mut s = api.get("Service", ns, name).unwrap();
                s["metadata"]["annotations"]["bench/round"] = json!(round.to_string());
                api.put(s);
            }
        }
        // The label toggles move IPs: how long until the first Change line says so.
        let put = Instant::now();
        let moving = round.is_multiple_of(3);
        round += 1;
        let next_round = put + Duration::from_secs(2);
        let mut seen = false;
        while let Some(left) = next_round.checked_duration_since(Instant::now()) {
            match lines.recv_timeout(left) {
                Ok(doc) if doc["kind"] == "Change" => {
                    changes += 1;
                    if moving && !seen {
                        seen = true;
                        latencies.push(put.elapsed());
                    }
                }
                Ok(_) => {}
                Err(_) => break,
            }
        }
        max_rss = max_rss.max(memory(pid).1);
    }
    let (last_peak, last_rss) = memory(pid);
    Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
    let summary = loop {
        let doc = lines.recv_timeout(Duration::from_secs(120)).expect("WatchSummary");
        if doc["kind"] == "WatchSummary" {
            break doc;
        }
        changes += usize::from(doc["kind"] == "Change");
    };
    child.wait().unwrap();
    latencies.sort();
    if !latencies.is_empty() {
        println!(
            "a label toggle to its first Change line: median {:.2} s, slowest {:.2} s ({} toggles; 0.2 s of it is the quiet window)",
            latencies[latencies.len() / 2].as_secs_f64(),
            latencies[latencies.len() - 1].as_secs_f64(),
            latencies.len()
        );
    }
    println!(
        "after {:.0} s: {} rounds of changes, {} evaluations, {} watch events, {changes} change lines",
        started.elapsed().as_secs_f64(),
        round,
        summary["evaluations"],
        summary["events"]
    );
    println!(
        "peak {:.0} MB at the end vs {:.0} MB after the first evaluation: {:.2}x (+{:.0} MB); resident {:.0} MB at the end, at most {:.0} MB",
        last_peak / 1e6,
        first_peak / 1e6,
        last_peak / first_peak,
        (last_peak - first_peak) / 1e6,
        last_rss / 1e6,
        max_rss / 1e6
    );
}

/// (VmHWM, VmRSS) of the process, in bytes.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc/PID/status");
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map_or(0.0, |kb| kb * 1024.0)
    };
    (field("VmHWM:"), field("VmRSS:"))
}
