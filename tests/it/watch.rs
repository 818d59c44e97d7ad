//! `check --watch` / `explain svc NAME --watch` against the fake API server: changes made while
//! it runs come out as Change lines with their reasons and triggers, through 410 Gone and a
//! dropped stream, and a watch ends with its summary on SIGINT or --timeout.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::fakeapi::{objects_of, Behaviour, FakeApi};
use crate::util::{run, BIN, HOMELAB};

const EXCLUDE: &str = "node.kubernetes.io/exclude-from-external-load-balancers";
/// Long enough for a slow machine; a watch reports a change well under a second after it.
const WAIT: Duration = Duration::from_secs(30);

/// A running `kubectl-lbdoctor … --watch -o json`, its stdout a line at a time.
struct Watching {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<Value>,
    home: tempfile::TempDir,
}

impl Watching {
    fn start(api: &FakeApi, args: &[&str]) -> Watching {
        Watching::start_with(api, args, |_, _| {})
    }

    /// `edit` may rewrite the kubeconfig (in the directory given) before the watch starts.
    fn start_with(api: &FakeApi, args: &[&str], edit: impl FnOnce(&Path, &Path)) -> Watching {
        let (child, lines, home) = spawn(api, args, &[], edit);
        let mut w = Watching { child, lines, seen: Vec::new(), home };
        w.next(|d| d["kind"] == "WatchStart");
        w
    }

    fn dir(&self) -> &Path {
        self.home.path()
    }

    /// The next JSON document that satisfies `wanted`; earlier ones are kept in `seen`.
    fn next(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + WAIT;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!("nothing wanted within {WAIT:?}; seen:\n{}", serde_json::to_string_pretty(&self.seen).unwrap())
            });
            let doc: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            self.seen.push(doc.clone());
            if wanted(&doc) {
                return doc;
            }
        }
    }

    /// SIGINT, then the summary and the exit code.
    fn interrupt(mut self) -> (Value, i32, Vec<Value>) {
        let pid = self.child.id() as i32;
        // kill(1), as a user pressing Ctrl-C.
        Command::new("kill").args(["-INT", &pid.to_string()]).status().unwrap();
        let summary = self.next(|d| d["kind"] == "WatchSummary");
        let code = self.child.wait().unwrap().code().unwrap_or(-1);
        (summary, code, std::mem::take(&mut self.seen))
    }
}

/// The binary against `api` with only its own kubeconfig (and `env`), its stdout a line at a time.
fn spawn(
    api: &FakeApi,
    args: &[&str],
    env: &[(&str, &str)],
    edit: impl FnOnce(&Path, &Path),
) -> (Child, mpsc::Receiver<String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "fake", "default", "t");
    edit(dir.path(), &kubeconfig);
    let mut child = Command::new(BIN)
        .args(args)
        .env_clear()
        .env("HOME", dir.path())
        .env("KUBECONFIG", &kubeconfig)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (child, lines, dir)
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn homelab() -> FakeApi {
    FakeApi::start(objects_of(Path::new(HOMELAB)), Behaviour::default(), None)
}

fn labelled(api: &FakeApi, node: &str, key: &str, value: Option<&str>) {
    let mut n = api.get("Node", "", node).unwrap();
    match value {
        Some(v) => n["metadata"]["labels"][key] = json!(v),
        None => {
            n["metadata"]["labels"].as_object_mut().unwrap().remove(key);
        }
    }
    api.put(n);
}

fn is_move(d: &Value, service: &str, from: &str, to: &str) -> bool {
    d["kind"] == "Change"
        && d["change"] == "announcer"
        && d["service"] == service
        && d["before"] == from
        && d["after"] == to
}

#[test]
fn an_exclude_label_moves_the_announcer_and_says_why() {
    let api = homelab();
    let mut w = Watching::start(&api, &["check", "--watch", "-o", "json"]);
    labelled(&api, "worker-b", EXCLUDE, Some(""));
    let moved = w.next(|d| is_move(d, "default/grafana", "worker-b", "worker-a"));
    assert_eq!(moved["apiVersion"], "lbdoctor/v1beta1");
    assert_eq!(moved["ip"], "198.51.100.10");
    assert_eq!(moved["reason"], "excludeLabel", "{moved}");
    assert_eq!(moved["detail"], "worker-b → worker-a (worker-b: excludeLabel)");
    assert_eq!(
        moved["triggers"][0],
        json!({"kind": "Node", "namespace": null, "name": "worker-b", "event": "modified", "fields": ["labels"]})
    );
    // The speakers have not moved yet: ServiceL2Status still names worker-b.
    assert_eq!(moved["observed"], "worker-b");
    assert_eq!(moved["drift"], true);
    // traefik (eTP Local, endpoints on worker-b only) goes dark.
    let dark = w.next(|d| d["change"] == "status" && d["service"] == "default/traefik");
    assert_eq!((dark["before"].as_str(), dark["after"].as_str()), (Some("ok"), Some("dark")));
    // The speakers catch up: status.node is immutable, so worker-b's speaker deletes its
    // ServiceL2Status and worker-a's creates one.
    let mut status = api.get("ServiceL2Status", "metallb-system", "l2-krkbv").expect("grafana's ServiceL2Status");
    api.delete("ServiceL2Status", "metallb-system", "l2-krkbv");
    status["metadata"]["name"] = json!("l2-x9z2q");
    status["metadata"]["labels"]["metallb.io/node"] = json!("worker-a");
    status["status"]["node"] = json!("worker-a");
    api.put(status);
    let recorded =
        w.next(|d| d["change"] == "observed" && d["service"] == "default/grafana" && d["after"] == "worker-a");
    assert_eq!(recorded["drift"], false, "{recorded}");
    labelled(&api, "worker-b", EXCLUDE, None);
    let back = w.next(|d| is_move(d, "default/grafana", "worker-a", "worker-b"));
    assert_eq!(back["reason"], "lostElection");
    let (summary, code, seen) = w.interrupt();
    assert_eq!(summary["endedBy"], "interrupted");
    assert_eq!(summary["evaluations"], 3, "{seen:#?}");
    let flapping = summary["flapping"].as_array().unwrap();
    let grafana = flapping.iter().find(|f| f["ip"] == "198.51.100.10").expect("grafana's IP moved twice");
    assert_eq!(grafana["announcers"], json!(["worker-b", "worker-a", "worker-b"]));
    // Exit status as check's for the last state: homelab has one error (LBD104).
    assert_eq!(code, 1);
    assert_eq!(summary["summary"]["findings"]["error"], 1);
}

#[test]
fn a_compacted_watch_lists_again_and_misses_nothing() {
    let api = homelab();
    let mut w = Watching::start(&api, &["check", "-w", "-o", "json"]);
    // The history is compacted and a change lands before the watch can resume: only a new list
    // shows it.
    api.compact();
    labelled(&api, "worker-b", EXCLUDE, Some(""));
    let moved = w.next(|d| is_move(d, "default/grafana", "worker-b", "worker-a"));
    let node = moved["triggers"].as_array().unwrap().iter().find(|t| t["kind"] == "Node").cloned();
    assert_eq!(node.map(|t| t["event"].clone()), Some(json!("relisted")), "{moved}");
    drop(w);
    let node_lists =
        api.requests().iter().filter(|r| r.starts_with("GET /api/v1/nodes?") && !r.contains("watch=")).count();
    assert_eq!(node_lists, 2, "one list at the start, one after 410 Gone: {:#?}", api.requests());
}

#[test]
fn a_dropped_stream_resumes_from_the_last_version_seen() {
    let api = homelab();
    let mut w = Watching::start(&api, &["explain", "svc", "grafana", "-w", "-o", "json"]);
    labelled(&api, "gpu-1", "example.com/rack", Some("r1"));
    // Let the watch deliver that change before the cut.
    std::thread::sleep(Duration::from_millis(300));
    api.drop_watches();
    // Give the watch a moment to notice, then change what grafana's election reads.
    std::thread::sleep(Duration::from_millis(300));
    labelled(&api, "worker-b", EXCLUDE, Some(""));
    let moved = w.next(|d| is_move(d, "default/grafana", "worker-b", "worker-a"));
    assert_eq!(moved["triggers"][0]["name"], "worker-b");
    drop(w);
    let requests = api.requests();
    let node_watches: Vec<&String> =
        requests.iter().filter(|r| r.starts_with("GET /api/v1/nodes?") && r.contains("watch=true")).collect();
    assert!(node_watches.len() >= 2, "{node_watches:#?}");
    // The resumed watch asks from the gpu-1 change on, not from the start: nothing is lost or replayed.
    let resumed = node_watches.last().unwrap();
    assert!(resumed.contains("resourceVersion=12346"), "{resumed}");
    assert!(!requests.iter().any(|r| r.contains("/secrets")), "never a Secret");
}

#[test]
fn the_service_explained_may_go_and_come_back() {
    let api = homelab();
    let mut w = Watching::start(&api, &["explain", "svc", "grafana", "-n", "default", "-w", "-o", "json"]);
    let service = api.get("Service", "default", "grafana").unwrap();
    api.delete("Service", "default", "grafana");
    let gone = w.next(|d| d["change"] == "service");
    assert_eq!((gone["before"].as_str(), gone["after"].as_str()), (Some("ok"), None), "{gone}");
    api.put(service);
    let back = w.next(|d| d["change"] == "service");
    assert_eq!((back["before"].as_str(), back["after"].as_str()), (None, Some("ok")), "{back}");
}

/// An object the loader refuses (the fake server takes anything) pauses the evaluations with a
/// note instead of ending the watch; once it is gone they go on.
#[test]
fn an_object_that_cannot_be_read_pauses_the_evaluations_not_the_watch() {
    let api = homelab();
    let mut w = Watching::start(&api, &["check", "-w", "-o", "json"]);
    api.put(json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "broken", "namespace": "default"},
        "spec": {"type": "LoadBalancer", "ports": "not a list"}}));
    std::thread::sleep(Duration::from_millis(500));
    api.delete("Service", "default", "broken");
    labelled(&api, "worker-b", EXCLUDE, Some(""));
    w.next(|d| is_move(d, "default/grafana", "worker-b", "worker-a"));
    assert!(!w.seen.iter().any(|d| d["service"] == "default/broken"), "{:#?}", w.seen);
}

#[test]
fn a_burst_of_changes_is_one_evaluation() {
    let api = homelab();
    let w = Watching::start(&api, &["check", "-w", "-o", "json"]);
    // A hundred annotation changes on the nodes in one burst: nothing the engines read moves.
    let nodes = ["cp-1", "cp-2", "cp-3", "worker-a", "worker-b", "gpu-1", "gpu-2", "gpu-3"];
    for i in 0..100 {
        let mut n = api.get("Node", "", nodes[i % nodes.len()]).unwrap();
        n["metadata"]["annotations"]["example.com/rollout"] = json!(i.to_string());
        api.put(n);
    }
    std::thread::sleep(Duration::from_millis(1500));
    let (summary, _, seen) = w.interrupt();
    assert_eq!(summary["events"], 100, "{summary}");
    // 200 ms of quiet close a window; the burst takes a few milliseconds.
    assert_eq!(summary["evaluations"], 1, "{summary}");
    assert_eq!(summary["changes"], 0, "annotations change no verdict: {seen:#?}");
}

#[test]
fn heartbeats_are_not_changes() {
    let api = homelab();
    let w = Watching::start(&api, &["check", "-w", "-o", "json"]);
    let mut n = api.get("Node", "", "worker-a").unwrap();
    for c in n["status"]["conditions"].as_array_mut().unwrap() {
        c["lastHeartbeatTime"] = json!("2030-01-01T00:00:00Z");
    }
    api.put(n);
    std::thread::sleep(Duration::from_millis(800));
    let (summary, _, _) = w.interrupt();
    assert_eq!((summary["events"].as_u64(), summary["evaluations"].as_u64()), (Some(1), Some(0)), "{summary}");
}

#[test]
fn a_timeout_ends_the_watch_with_the_exit_status_of_the_last_state() {
    let api = homelab();
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig: PathBuf = api.kubeconfig(dir.path(), "fake", "default", "t");
    let out = Command::new(BIN)
        .args(["check", "-n", "media", "--watch", "--timeout", "1s"])
        .env_clear()
        .env("HOME", dir.path())
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The table first, as check prints it, then the watch's own lines.
    assert!(stdout.starts_with("NAMESPACE"), "{stdout}");
    assert!(stdout.contains("watching namespace media (context fake): 3 Services (3 ok)"), "{stdout}");
    assert!(stdout.contains("watch ended (timeout): 0 evaluations"), "{stdout}");
    assert!(stdout.trim_end().ends_with("last state: 3 Services (3 ok); exit 0"), "{stdout}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn credentials_that_stop_working_end_the_watch_with_its_summary_and_exit_3() {
    let api = homelab();
    let mut w = Watching::start(&api, &["check", "-w", "-o", "json"]);
    api.revoke();
    let summary = w.next(|d| d["kind"] == "WatchSummary");
    assert_eq!(summary["endedBy"], "error");
    assert_eq!(w.child.wait().unwrap().code(), Some(3));
}

/// The table's way at 80 columns: each change starts a line with its time, and wraps under it.
#[test]
fn text_lines_fit_the_terminal() {
    let api = homelab();
    let (mut child, lines, _home) =
        spawn(&api, &["check", "-n", "default", "--watch"], &[("COLUMNS", "80")], |_, _| {});
    let mut seen = Vec::new();
    let until = |what: &str, seen: &mut Vec<String>| loop {
        let line = lines.recv_timeout(WAIT).unwrap_or_else(|_| panic!("no {what:?} in {seen:#?}"));
        let done = line.contains(what);
        seen.push(line);
        if done {
            return;
        }
    };
    until(" watching namespace default", &mut seen);
    labelled(&api, "worker-b", EXCLUDE, Some(""));
    until("worker-b → worker-a", &mut seen);
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    until("last state:", &mut seen);
    child.wait().unwrap();
    let moved = seen.iter().position(|l| l.contains("worker-b → worker-a")).unwrap();
    // The line starts with the time and the Service; the rest wraps under it.
    assert!(seen[moved].contains("Z default/grafana 198.51.100.10:"), "{seen:#?}");
    assert!(seen[moved + 1].starts_with(&" ".repeat(21)), "{seen:#?}");
    for line in &seen {
        assert!(line.chars().count() <= 80, "{} columns: {line}", line.chars().count());
    }
}

/// An exec plugin's token expires during the watch: the watch runs the plugin again and goes on.
#[test]
fn an_expired_exec_credential_is_renewed_and_the_watch_goes_on() {
    let api = FakeApi::start(
        objects_of(Path::new(HOMELAB)),
        Behaviour { token: Some("t1".into()), ..Behaviour::default() },
        None,
    );
    let mut w = Watching::start_with(&api, &["check", "-w", "-o", "json"], |dir, kubeconfig| {
        std::fs::write(dir.join("token"), "t1").unwrap();
        let plugin = dir.join("plugin");
        std::fs::write(
            &plugin,
            format!(
                "#!/bin/sh\necho run >> {d}/runs\nprintf '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"%s\"}}}}' \"$(cat {d}/token)\"\n",
                d = dir.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let text = std::fs::read_to_string(kubeconfig).unwrap().replace(
            "    token: t\n",
            &format!(
                "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
                plugin.display()
            ),
        );
        std::fs::write(kubeconfig, text).unwrap();
    });
    // The token rotates; the watches' next requests are refused until the plugin runs again.
    std::fs::write(w.dir().join("token"), "t2").unwrap();
    api.set_token("t2");
    api.drop_watches();
    std::thread::sleep(Duration::from_millis(300));
    labelled(&api, "worker-b", EXCLUDE, Some(""));
    w.next(|d| is_move(d, "default/grafana", "worker-b", "worker-a"));
    let runs = std::fs::read_to_string(w.dir().join("runs")).unwrap();
    let (summary, code, _) = w.interrupt();
    assert_eq!(summary["endedBy"], "interrupted");
    assert_eq!(code, 1);
    assert_eq!(runs.lines().count(), 2, "once at the start, once after the 401");
}

#[test]
fn watch_needs_a_live_cluster_and_a_streamable_output() {
    let (_, stderr, code) = run(&["check", "--watch", "--demo", "trap"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--watch follows a live cluster; --from and --demo are snapshots"), "{stderr}");
    let (_, stderr, code) = run(&["check", "-w", "-o", "junit"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not -o junit"), "{stderr}");
    let (_, stderr, code) = run(&["check", "--timeout", "5m"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--watch"), "{stderr}");
    let (_, stderr, code) = run(&["explain", "pool", "-w"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("explain svc [NAME] --watch"), "{stderr}");
    let (_, stderr, code) = run(&["check", "-w", "--spof"]);
    assert_eq!(code, 2, "{stderr}");
    let (_, stderr, code) = run(&["check", "-w", "--timeout", "soon"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--timeout"), "{stderr}");
}
