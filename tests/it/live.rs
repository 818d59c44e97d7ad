//! The real binary against a fake API server: live answers equal offline answers on the same
//! objects, only GET requests are sent and never for Secrets, and every access failure exits 3
//! with a message that says what to check.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Value};

use crate::fakeapi::{objects_of, Behaviour, FakeApi, Tls};
use crate::util::{json_differences, parse_json, skipped, which, BIN};

const TOKEN: &str = "test-token";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The binary with an environment that knows only the given kubeconfig.
fn lbdoctor(home: &Path, kubeconfig: Option<&Path>, args: &[&str]) -> Run {
    lbdoctor_with(home, kubeconfig, args, &[])
}

fn lbdoctor_with(home: &Path, kubeconfig: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = assert_cmd::Command::new(BIN);
    cmd.env_clear().env("HOME", home).env("PATH", std::env::var_os("PATH").unwrap_or_default());
    cmd.envs(env.iter().copied());
    if let Some(k) = kubeconfig {
        cmd.env("KUBECONFIG", k);
    }
    let out = cmd.args(args).timeout(Duration::from_secs(60)).output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Run {
    fn json(&self) -> Value {
        parse_json(&self.stdout, &self.stderr)
    }
}

/// What legitimately differs between a live run and a file run: how and when the data was read.
fn without_provenance(mut report: Value) -> Value {
    for key in ["mode", "context", "capturedAt"] {
        report["source"][key] = Value::Null;
    }
    report
}

fn scenario_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["testdata/scenarios", "testdata/clusters"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        // A SnapshotInfo holds settings (flags, capture time) that no API object carries.
        .filter(|p| !std::fs::read_to_string(p).unwrap().contains("SnapshotInfo"))
        .collect();
    files.sort();
    files
}

fn server_for(file: &Path, behaviour: Behaviour) -> (FakeApi, tempfile::TempDir, PathBuf) {
    let mut objects = objects_of(file);
    // A Secret the tool must never ask for.
    objects.push(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "memberlist", "namespace": "metallb-system"}, "data": {"secretkey": "c2VjcmV0"}}));
    let api = FakeApi::start(objects, behaviour, None);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "fake", "default", TOKEN);
    (api, dir, kubeconfig)
}

fn token_behaviour() -> Behaviour {
    Behaviour { token: Some(TOKEN.into()), ..Behaviour::default() }
}

#[test]
fn live_reports_equal_offline_reports_on_every_scenario() {
    let files = scenario_files();
    assert!(files.len() >= 15, "expected the scenario library, found {}", files.len());
    for file in &files {
        let (api, dir, kubeconfig) = server_for(file, token_behaviour());
        let offline = lbdoctor(dir.path(), None, &["check", "-o", "json", "--from", file.to_str().unwrap()]);
        // Two objects per page: every list of more than two objects is paginated.
        let live = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json", "--chunk-size", "2"]);
        assert_eq!(live.code, offline.code, "{}: exit codes differ; live stderr: {}", file.display(), live.stderr);
        let live_json = live.json();
        assert_eq!(live_json["source"]["mode"], "live", "{}", file.display());
        assert_eq!(live_json["source"]["context"], "fake");
        let (a, b) = (without_provenance(live_json), without_provenance(offline.json()));
        assert!(
            a == b,
            "{}: the live report differs from the offline one (live / offline): {:?}",
            file.display(),
            json_differences(&a, &b).first()
        );
        let requests = api.requests();
        assert!(requests.iter().all(|r| r.starts_with("GET ")), "{}: {requests:?}", file.display());
        assert!(!requests.iter().any(|r| r.contains("secrets")), "{}: asked for Secrets: {requests:?}", file.display());
    }
}

#[test]
fn pagination_follows_continue_tokens_and_restarts_after_410() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let behaviour = Behaviour { expire_once: BTreeSet::from(["nodes".to_string()]), ..token_behaviour() };
    let (api, dir, kubeconfig) = server_for(file, behaviour);
    let live = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot", "--chunk-size", "1"]);
    assert_eq!(live.code, 0, "{}", live.stderr);
    let snapshot = live.json();
    let nodes = snapshot["items"].as_array().unwrap().iter().filter(|o| o["kind"] == "Node").count();
    let expected = objects_of(file).iter().filter(|o| o["kind"] == "Node").count();
    assert!(expected > 2);
    assert_eq!(nodes, expected, "every node once, despite the restart");
    let node_requests: Vec<String> =
        api.requests().into_iter().filter(|r| r.starts_with("GET /api/v1/nodes?")).collect();
    // The first page, the second refused (410 Gone), then every page again from the start.
    assert_eq!(node_requests.len(), 2 + expected, "{node_requests:#?}");
    assert_eq!(node_requests.iter().filter(|r| !r.contains("continue=")).count(), 2, "two fresh starts");
}

/// Continue tokens that keep expiring are not a permission problem: the message says the list
/// expired and what to change, and names no `kubectl auth can-i`.
#[test]
fn a_list_that_keeps_expiring_says_so_and_suggests_a_larger_chunk_size() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let behaviour = Behaviour { expire_always: BTreeSet::from(["services".to_string()]), ..token_behaviour() };
    let (api, dir, kubeconfig) = server_for(file, behaviour);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "--chunk-size", "1"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("services: list expired (410 Gone)"), "{}", run.stderr);
    assert!(run.stderr.contains("retry with a larger --chunk-size, or --chunk-size 0"), "{}", run.stderr);
    assert!(!run.stderr.contains("can-i") && !run.stderr.contains("permission"), "{}", run.stderr);
    // Four tries from the first page (the first and three restarts), each stopped on its second page.
    let services: Vec<String> = api.requests().into_iter().filter(|r| r.starts_with("GET /api/v1/services?")).collect();
    assert_eq!(services.iter().filter(|r| !r.contains("continue=")).count(), 4, "{services:#?}");
    assert_eq!(services.len(), 8, "{services:#?}");
    // One response with --chunk-size 0 has no token to expire.
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "--chunk-size", "0"]);
    assert!(run.code < 2, "{}", run.stderr);
}

#[test]
fn chunk_size_0_lists_without_paging_and_proxies_honour_no_proxy() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let (api, dir, kubeconfig) = server_for(file, token_behaviour());
    // A proxy that does not exist, bypassed for the server as kubectl would.
    let env = [("HTTPS_PROXY", "http://127.0.0.1:1"), ("NO_PROXY", "127.0.0.1")];
    let run = lbdoctor_with(dir.path(), Some(&kubeconfig), &["snapshot", "--chunk-size", "0"], &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let nodes: Vec<String> = api.requests().into_iter().filter(|r| r.starts_with("GET /api/v1/nodes")).collect();
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    assert!(!nodes[0].contains("limit="), "{nodes:?}");
}

/// A speaker Pod with both label spellings (Helm's and the manifests') matches two of the lists:
/// it is in the snapshot once, and `--from` that snapshot loads.
#[test]
fn a_pod_two_selectors_return_is_saved_once() {
    let mut objects = objects_of(Path::new(crate::util::HOMELAB));
    for o in objects.iter_mut().filter(|o| o["kind"] == "Pod") {
        let component = o["metadata"]["labels"]["component"].clone();
        o["metadata"]["labels"]["app.kubernetes.io/component"] = component;
    }
    let api = FakeApi::start(objects, token_behaviour(), None);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "fake", "default", TOKEN);
    let snap = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot"]);
    assert_eq!(snap.code, 0, "{}", snap.stderr);
    let pods = snap.json()["items"].as_array().unwrap().iter().filter(|o| o["kind"] == "Pod").count();
    assert_eq!(pods, 9, "8 speakers and the controller, each once");
    let path = dir.path().join("snap.json");
    std::fs::write(&path, &snap.stdout).unwrap();
    let from = lbdoctor(dir.path(), None, &["check", "--from", path.to_str().unwrap()]);
    assert!(from.code < 2, "{}", from.stderr);
}

#[test]
fn snapshot_round_trips_in_json_and_yaml() {
    let file = Path::new("testdata/scenarios/metallb-and-cilium-lbipam.yaml");
    let (_api, dir, kubeconfig) = server_for(file, token_behaviour());
    let live = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json"]);
    for format in ["json", "yaml"] {
        let snap = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot", "-o", format]);
        assert_eq!(snap.code, 0, "{}", snap.stderr);
        let path = dir.path().join(format!("snap.{format}"));
        std::fs::write(&path, &snap.stdout).unwrap();
        let from = lbdoctor(dir.path(), None, &["check", "-o", "json", "--from", path.to_str().unwrap()]);
        assert_eq!(from.code, live.code);
        let (mut a, mut b) = (live.json(), from.json());
        assert_eq!(b["source"]["mode"], "snapshot");
        assert_eq!(b["source"]["context"], "fake", "the snapshot records its context");
        a["source"]["mode"] = Value::Null;
        b["source"]["mode"] = Value::Null;
        // Same capture time only when both ran within the same second; compare the rest.
        a["source"]["capturedAt"] = Value::Null;
        b["source"]["capturedAt"] = Value::Null;
        assert_eq!(a, b, "{format} snapshot gives a different report");
    }
    let snap = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot"]).json();
    let info = &snap["items"][0];
    assert_eq!(info["kind"], "SnapshotInfo");
    assert_eq!(info["spec"]["serverVersion"], "v1.33.1-fake");
    assert_eq!(info["spec"]["context"], "fake");
    assert!(info["spec"]["capturedAt"].as_str().is_some_and(|t| t.ends_with('Z')));
    let detected: Vec<&str> = info["spec"]["detected"]["implementations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["implementation"].as_str().unwrap())
        .collect();
    assert_eq!(detected, ["metallb", "cilium"]);
    let items = snap["items"].as_array().unwrap();
    // managedFields are stripped but for a Service's status writers, which ownership reads.
    for o in items.iter().skip(1) {
        let kept = o["metadata"]["managedFields"].as_array().map(Vec::as_slice).unwrap_or_default();
        assert!(
            kept.iter()
                .all(|m| o["kind"] == "Service"
                    && (m["subresource"] == "status" || m["fieldsV1"].get("f:status").is_some())),
            "{o}"
        );
    }
    assert!(items.iter().skip(1).all(|o| o["apiVersion"].is_string() && o["kind"].is_string()));
    assert!(!items.iter().any(|o| o["kind"] == "Secret"));
}

#[test]
fn forbidden_required_kind_exits_3_with_the_rbac_check() {
    let file = Path::new("testdata/clusters/homelab-trap.yaml");
    let behaviour = Behaviour { forbidden: BTreeSet::from(["l2advertisements".to_string()]), ..token_behaviour() };
    let (_api, dir, kubeconfig) = server_for(file, behaviour);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("l2advertisements.metallb.io: forbidden (list)"), "{}", run.stderr);
    assert!(run.stderr.contains("kubectl auth can-i list l2advertisements.metallb.io -A"), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "no guessed answer: {}", run.stdout);
}

#[test]
fn forbidden_optional_kind_is_reported_not_fatal() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let behaviour = Behaviour { forbidden: BTreeSet::from(["events".to_string()]), ..token_behaviour() };
    let (_api, dir, kubeconfig) = server_for(file, behaviour);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json"]);
    let offline = lbdoctor(dir.path(), None, &["check", "--from", file.to_str().unwrap()]);
    assert_eq!(run.code, offline.code, "{}", run.stderr);
    let report = run.json();
    let unreadable = report["source"]["unreadable"].clone();
    assert!(
        unreadable.as_array().unwrap().iter().any(|u| u.as_str().unwrap().starts_with("events: forbidden (list)")),
        "{unreadable}"
    );
    let lbd230: Vec<&Value> = report["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "LBD230").collect();
    assert_eq!(lbd230.len(), 1, "eight Event lists refused are one missing permission: {lbd230:#?}");
    assert_eq!(lbd230[0]["objects"], json!(["events -A"]));
    assert!(lbd230[0]["message"].as_str().unwrap().contains("unknown: the Events written on Services"));
    assert!(lbd230[0]["hint"].as_str().unwrap().contains("`kubectl auth can-i list events -A`"));
}

#[test]
fn forbidden_namespaces_matter_only_where_the_answer_lives() {
    // MetalLB only: Pods in kube-system (Cilium agents, svclb) are not needed.
    let file = Path::new("testdata/clusters/homelab.yaml");
    let behaviour = Behaviour {
        forbidden_in: BTreeSet::from([
            ("pods".to_string(), "kube-system".to_string()),
            ("configmaps".to_string(), "kube-system".to_string()),
        ]),
        ..token_behaviour()
    };
    let (_api, dir, kubeconfig) = server_for(file, behaviour);
    let offline = lbdoctor(dir.path(), None, &["check", "--from", file.to_str().unwrap()]);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json"]);
    assert_eq!(run.code, offline.code, "{}", run.stderr);
    let lbd230: Vec<Value> = run.json()["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "LBD230")
        .map(|f| f["objects"][0].clone())
        .collect();
    // kube-proxy's ConfigMap is kept for the record (so its absence is said); cilium-config only
    // matters where Cilium runs.
    assert_eq!(lbd230, [json!("pods -n kube-system"), json!("configmaps/kube-proxy -n kube-system")]);

    // The same refusal where Cilium runs: its agents and settings are part of the answer.
    let file = Path::new("testdata/scenarios/cilium-nodeipam-dual-stack.yaml");
    let behaviour = Behaviour {
        forbidden_in: BTreeSet::from([("configmaps".to_string(), "kube-system".to_string())]),
        ..token_behaviour()
    };
    let (_api, dir, kubeconfig) = server_for(file, behaviour);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("kubectl auth can-i get configmaps/cilium-config -n kube-system"), "{}", run.stderr);
}

#[test]
fn unreadable_events_make_the_observed_announcer_unknown_not_absent() {
    let file = Path::new("testdata/clusters/homelab-trap.yaml");
    let behaviour = Behaviour { forbidden: BTreeSet::from(["events".to_string()]), ..token_behaviour() };
    let (_api, dir, kubeconfig) = server_for(file, behaviour);
    let report = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json"]).json();
    let layer2 = &report["services"][0]["metallb"]["layer2"];
    assert_eq!(layer2["actualAnnouncers"], Value::Null);
    assert_eq!(layer2["actualUnknownBecause"], "events: forbidden (list)");
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["explain", "svc", "grafana"]);
    assert!(run.stdout.contains("Observed: unknown (could not read events: forbidden (list))"), "{}", run.stdout);
}

#[test]
fn a_server_that_is_not_kubernetes_is_named_as_such() {
    let api = FakeApi::start(Vec::new(), Behaviour { not_kubernetes: true, ..Behaviour::default() }, None);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "web", "default", TOKEN);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("is not a Kubernetes API server"), "{}", run.stderr);
    assert_eq!(api.requests(), ["GET /version"], "nothing else is tried");
}

#[test]
fn absent_crds_mean_not_installed() {
    let file = Path::new("testdata/scenarios/cilium-nodeipam-dual-stack.yaml");
    let (_api, dir, kubeconfig) = server_for(file, token_behaviour());
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let info = &run.json()["items"][0]["spec"];
    let missing: Vec<&str> = info["notInstalled"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(missing.contains(&"ipaddresspools.metallb.io"), "{missing:?}");
    assert!(info["unreadable"].as_array().unwrap().is_empty());
}

#[test]
fn https_with_the_kubeconfig_ca_and_token() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let tls = Tls::generate();
    let api = FakeApi::start(objects_of(file), token_behaviour(), Some(&tls));
    let dir = tempfile::tempdir().unwrap();
    let good = api.kubeconfig(dir.path(), "tls", "default", TOKEN);
    let run = lbdoctor(dir.path(), Some(&good), &["check", "-o", "json"]);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(run.json()["source"]["mode"], "live");

    let bad = api.kubeconfig(dir.path(), "bad-token", "default", "wrong");
    let run = lbdoctor(dir.path(), Some(&bad), &["check"]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains("rejected the credentials of context bad-token"), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "one paragraph: {}", run.stderr);

    // Another CA: the server cannot be trusted.
    let other = FakeApi::start(Vec::new(), Behaviour::default(), Some(&Tls::generate()));
    let mut text = std::fs::read_to_string(&good).unwrap();
    text = text.replace(&api.url, &other.url);
    let wrong_ca = dir.path().join("wrong-ca.kubeconfig");
    std::fs::write(&wrong_ca, text).unwrap();
    let run = lbdoctor(dir.path(), Some(&wrong_ca), &["check"]);
    assert_eq!(run.code, 3);
    assert!(run.stderr.contains("cannot trust the Kubernetes API server"), "{}", run.stderr);
    assert!(run.stderr.contains("not signed by the certificate authority the kubeconfig trusts"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn request_timeout_bounds_each_request() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let behaviour = Behaviour { latency: Duration::from_secs(5), ..token_behaviour() };
    let (_api, dir, kubeconfig) = server_for(file, behaviour);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "--request-timeout", "300ms"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("--request-timeout"), "{}", run.stderr);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "--request-timeout", "soon"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--request-timeout \"soon\""), "{}", run.stderr);
}

/// An exec credential plugin (as EKS, GKE and kubelogin use) supplies the token.
#[test]
fn exec_credential_plugin() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let (_api, dir, kubeconfig) = server_for(file, token_behaviour());
    let plugin = dir.path().join("credential-plugin");
    std::fs::write(
        &plugin,
        format!("#!/bin/sh\necho '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{TOKEN}\"}}}}'\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let text = std::fs::read_to_string(&kubeconfig).unwrap().replace(
        &format!("    token: {TOKEN}\n"),
        &format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never\n",
            plugin.display()
        ),
    );
    assert!(text.contains("exec:"));
    let exec_config = dir.path().join("exec.kubeconfig");
    std::fs::write(&exec_config, text).unwrap();
    let run = lbdoctor(dir.path(), Some(&exec_config), &["check", "-o", "json"]);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    assert_eq!(run.json()["source"]["mode"], "live");
}

#[test]
fn server_down_exits_3_with_one_paragraph() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let kubeconfig = dir.path().join("down.kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: down\n  context:\n    cluster: c\n    user: u\ncurrent-context: down\nusers:\n- name: u\n  user: {{}}\n"),
    )
    .unwrap();
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains(&format!("http://127.0.0.1:{port}")), "{}", run.stderr);
    assert!(run.stderr.contains("--context down"), "{}", run.stderr);
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
}

#[test]
fn no_kubeconfig_and_not_in_a_pod_exits_3_and_suggests_from() {
    let dir = tempfile::tempdir().unwrap();
    let run = lbdoctor(dir.path(), None, &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("--from"), "{}", run.stderr);
}

#[test]
fn unusable_kubeconfig_is_a_usage_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.kubeconfig");
    let run = lbdoctor(dir.path(), None, &["check", "--kubeconfig", missing.to_str().unwrap()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(missing.to_str().unwrap()), "{}", run.stderr);

    let run = lbdoctor(dir.path(), Some(&missing), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("none of the files in $KUBECONFIG"), "{}", run.stderr);
}

#[test]
fn kubeconfig_list_merges_and_context_namespace_is_the_default() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let (_api, dir, _) = server_for(file, token_behaviour());
    let objects = objects_of(file);
    let svc = objects.iter().find(|o| o["kind"] == "Service" && o["spec"]["type"] == "LoadBalancer").unwrap();
    let (ns, name) = (svc["metadata"]["namespace"].as_str().unwrap(), svc["metadata"]["name"].as_str().unwrap());
    let api = FakeApi::start(objects.clone(), token_behaviour(), None);
    let scoped = api.kubeconfig(dir.path(), "scoped", ns, TOKEN);
    let missing = dir.path().join("does-not-exist");
    let list = std::env::join_paths([missing.as_path(), scoped.as_path()]).unwrap();
    let run = lbdoctor(dir.path(), Some(Path::new(&list)), &["explain", "svc", name, "-o", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["services"][0]["namespace"], ns);

    let run = lbdoctor(dir.path(), Some(Path::new(&list)), &["--context", "nope", "check"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("context \"nope\" is not in the kubeconfig"), "{}", run.stderr);
    // kube alone would connect without credentials; kubectl refuses, and so does lbdoctor.
    let run = lbdoctor(dir.path(), Some(Path::new(&list)), &["--user", "nobody", "check"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("user \"nobody\" is not in the kubeconfig"), "{}", run.stderr);
}

#[test]
fn through_kubectl_plugin_mechanism() {
    let Some(kubectl) = which("kubectl") else {
        skipped("through_kubectl_plugin_mechanism", "kubectl is not installed");
        return;
    };
    let file = Path::new("testdata/clusters/homelab.yaml");
    // kubectl sends no bearer token over plain HTTP.
    let api = FakeApi::start(objects_of(file), token_behaviour(), Some(&Tls::generate()));
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "fake", "default", TOKEN);
    let bin_dir = dir.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    std::fs::copy(BIN, bin_dir.join("kubectl-lbdoctor")).unwrap();
    let path = std::env::join_paths(
        [bin_dir.clone()].into_iter().chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let kubectl_run = |args: &[&str]| {
        let out = std::process::Command::new(&kubectl)
            .args(args)
            .env("KUBECONFIG", &kubeconfig)
            .env("HOME", dir.path())
            .env("PATH", &path)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = kubectl_run(&["lbdoctor", "snapshot"]);
    assert_eq!(code, 0, "{stderr}");
    let snapshot: Value = serde_json::from_str(&stdout).unwrap();
    for (resource, kind) in [("nodes", "Node"), ("services", "Service"), ("ipaddresspools.metallb.io", "IPAddressPool")]
    {
        let (code, listed, stderr) = kubectl_run(&["get", resource, "-A", "-o", "json"]);
        assert_eq!(code, 0, "{stderr}");
        let listed: Value = serde_json::from_str(&listed).unwrap();
        let ours: Vec<&Value> = snapshot["items"].as_array().unwrap().iter().filter(|o| o["kind"] == kind).collect();
        let theirs = listed["items"].as_array().unwrap();
        assert!(!theirs.is_empty(), "{resource}");
        assert_eq!(ours.len(), theirs.len(), "{resource}");
        for (a, b) in ours.iter().zip(theirs) {
            let (mut a, mut b) = ((*a).clone(), b.clone());
            a["metadata"].as_object_mut().unwrap().remove("managedFields");
            b["metadata"].as_object_mut().unwrap().remove("managedFields");
            assert_eq!(a, b, "the snapshot holds the {kind} kubectl sees, but for managedFields");
        }
    }
    let (code, stdout, stderr) = kubectl_run(&["lbdoctor", "check", "-o", "json"]);
    assert!(!stdout.is_empty(), "{stderr}");
    let direct = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json"]);
    assert_eq!(code, direct.code, "{stderr}");
    let through_kubectl: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(without_provenance(through_kubectl), without_provenance(direct.json()));
}

/// Every request lbdoctor sends, over every scenario, is allowed by the ClusterRole in
/// docs/rbac.yaml, and that role grants nothing lbdoctor does not use.
#[test]
fn docs_rbac_grants_exactly_what_is_requested() {
    let role: Value = serde_saphyr::from_str(&std::fs::read_to_string("docs/rbac.yaml").unwrap()).unwrap();
    let rules = role["rules"].as_array().unwrap();
    let allows = |group: &str, resource: &str, verb: &str, name: Option<&str>| {
        rules.iter().any(|r| {
            let has = |field: &str, v: &str| r[field].as_array().is_some_and(|a| a.iter().any(|x| x == v));
            has("apiGroups", group)
                && has("resources", resource)
                && has("verbs", verb)
                && (r.get("resourceNames").is_none() || name.is_some_and(|n| has("resourceNames", n)))
        })
    };
    let mut used = BTreeSet::new();
    let mut used_verbs = BTreeSet::new();
    for file in std::fs::read_dir("testdata/scenarios").unwrap().map(|e| e.unwrap().path()) {
        let (api, dir, kubeconfig) = server_for(&file, token_behaviour());
        let run = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot"]);
        assert!(run.code == 0 || run.code == 3, "{}: {}", file.display(), run.stderr);
        // history reads the speakers' logs too (pods/log, a GET).
        let run = lbdoctor(dir.path(), Some(&kubeconfig), &["history"]);
        assert!(run.code <= 3, "{}: {}", file.display(), run.stderr);
        // --watch: a WATCH per list, a named ConfigMap's by its name.
        let run = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "--watch", "--timeout", "200ms"]);
        assert!(run.code <= 3, "{}: {}", file.display(), run.stderr);
        for request in api.requests() {
            let (path, query) = request.trim_start_matches("GET ").split_once('?').unwrap_or((&request[4..], ""));
            let query: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let watching = query.get("watch").is_some_and(|w| w == "true");
            let watched_name = query
                .get("fieldSelector")
                .and_then(|f| f.split(',').find_map(|p| p.strip_prefix("metadata.name=")).map(str::to_string));
            let path = path.to_string();
            let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
            let (group, rest) = match parts.as_slice() {
                ["api", "v1", rest @ ..] => ("", rest),
                ["apis", group, _, rest @ ..] => (*group, rest),
                _ => continue,
            };
            let (resource, name) = match rest {
                [] => continue, // discovery of a group version
                ["namespaces", _, "pods", name, "log"] => ("pods/log", Some(*name)),
                ["namespaces", _, resource] | [resource] => (*resource, None),
                ["namespaces", _, resource, name] | [resource, name] => (*resource, Some(*name)),
                _ => panic!("unexpected request {request}"),
            };
            let (verb, name) = match (watching, name) {
                (true, _) => ("watch", watched_name.as_deref()),
                (false, Some(n)) => ("get", Some(n)),
                (false, None) => ("list", None),
            };
            assert!(allows(group, resource, verb, name), "docs/rbac.yaml does not allow {request}");
            used_verbs.insert((group.to_string(), resource.to_string(), verb));
            used.insert((group.to_string(), resource.to_string()));
        }
    }
    for rule in rules {
        for group in rule["apiGroups"].as_array().unwrap() {
            for resource in rule["resources"].as_array().unwrap() {
                let key = (group.as_str().unwrap().to_string(), resource.as_str().unwrap().to_string());
                assert!(used.contains(&key), "docs/rbac.yaml grants {key:?}, which lbdoctor never requests");
                for verb in rule["verbs"].as_array().unwrap().iter().filter_map(Value::as_str) {
                    let (g, r) = key.clone();
                    assert!(
                        used_verbs.iter().any(|(ug, ur, uv)| (ug, ur, *uv) == (&g, &r, verb)),
                        "docs/rbac.yaml grants {verb} on {key:?}, which lbdoctor never sends"
                    );
                }
            }
        }
    }
}

#[test]
fn completion_asks_the_cluster_for_service_names_and_contexts() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let (api, dir, kubeconfig) = server_for(file, token_behaviour());
    let names = |run: &Run| -> Vec<String> {
        assert_eq!(run.code, 0, "{}", run.stderr);
        run.stdout.lines().map(|l| l.split('\t').next().unwrap().to_string()).collect()
    };
    // The context's namespace is `default`; -n picks another.
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["__complete", "explain", "svc", ""]);
    assert_eq!(names(&run), ["grafana", "prometheus", "traefik", ":4"]);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["__complete", "explain", "svc", "-n", "home", "m"]);
    assert_eq!(names(&run), ["mosquitto", ":4"]);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["__complete", "--context", ""]);
    assert_eq!(names(&run), ["fake", ":4"]);
    assert!(api.requests().iter().all(|r| r.starts_with("GET ")));
    // No server behind the kubeconfig: no candidates and cobra's error directive.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let down = dir.path().join("down.kubeconfig");
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    let server = text.lines().find_map(|l| l.trim().strip_prefix("server: ")).unwrap();
    std::fs::write(&down, text.replace(server, &format!("http://127.0.0.1:{port}"))).unwrap();
    let run = lbdoctor(dir.path(), Some(&down), &["__complete", "explain", "svc", ""]);
    assert_eq!(names(&run), [":5"]);
}

/// `history` live reads each speaker's log through pods/log and gets the same answer as the
/// snapshot with the same logs as files; the log sources are named after the Pods. Both stories:
/// the crash loop of testdata/history and the 23 fixed days of testdata/history/story.
#[test]
fn live_history_reads_pods_log_and_equals_the_offline_history() {
    live_history_equals_offline("testdata/history");
    live_history_equals_offline("testdata/history/story");
}

fn live_history_equals_offline(story: &str) {
    let (cluster, logs) = (format!("{story}/cluster.yaml"), format!("{story}/logs"));
    let dir_logs = Path::new(&logs);
    let mut pod_logs = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir_logs).unwrap() {
        let path = entry.unwrap().path();
        let pod = path.file_stem().unwrap().to_string_lossy().into_owned();
        pod_logs.insert(pod, std::fs::read_to_string(&path).unwrap());
    }
    let behaviour = Behaviour { pod_logs, ..token_behaviour() };
    let (api, dir, kubeconfig) = server_for(Path::new(&cluster), behaviour);
    let live = lbdoctor(dir.path(), Some(&kubeconfig), &["history", "-o", "json"]);
    assert_eq!(live.code, 0, "{}", live.stderr);
    let offline = lbdoctor(dir.path(), None, &["history", "--from", &cluster, "--logs", &logs, "-o", "json"]);
    let (mut live, mut offline) = (without_provenance(live.json()), without_provenance(offline.json()));
    for doc in [&mut live, &mut offline] {
        // How MetalLB's namespace was found differs (SnapshotInfo in the file, the DaemonSet live).
        doc["source"] = Value::Null;
        for log in doc["logs"].as_array_mut().unwrap() {
            let pod = log["pod"].as_str().unwrap().to_string();
            log["source"] = Value::String(pod);
        }
        doc["logs"].as_array_mut().unwrap().sort_by_key(|l| l["pod"].as_str().unwrap().to_string());
    }
    assert_eq!(json_differences(&live, &offline), Vec::<String>::new());
    let log_requests: Vec<String> = api.requests().into_iter().filter(|r| r.contains("/log")).collect();
    assert_eq!(log_requests.len(), 8, "one pods/log GET per speaker: {log_requests:?}");
    assert!(log_requests.iter().all(|r| r.starts_with("GET ") && r.contains("container=speaker")));
}

/// An exec plugin that fails, or is not installed, ends the run with exit 3 naming the plugin and
/// the user, and its install hint; one that works runs once even for `history`.
#[test]
fn exec_plugins_run_once_and_their_failures_name_the_plugin() {
    let file = Path::new("testdata/clusters/homelab.yaml");
    let (_api, dir, kubeconfig) = server_for(file, token_behaviour());
    let text = std::fs::read_to_string(&kubeconfig).unwrap();
    let with_exec = |name: &str, command: &str| {
        let exec = format!(
            "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {command}\n      interactiveMode: Never\n      installHint: install the login helper\n"
        );
        let path = dir.path().join(format!("{name}.kubeconfig"));
        std::fs::write(&path, text.replace(&format!("    token: {TOKEN}\n"), &exec)).unwrap();
        path
    };
    let script = |name: &str, body: &str| {
        use std::os::unix::fs::PermissionsExt as _;
        let path = dir.path().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    let count = dir.path().join("runs");
    let works = script(
        "works.sh",
        &format!(
            "echo run >> {}\nprintf '{{\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{TOKEN}\\\\n\"}}}}'",
            count.display()
        ),
    );
    let run = lbdoctor(dir.path(), Some(&with_exec("works", &works)), &["history"]);
    assert!(run.code < 2, "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&count).unwrap().lines().count(), 1, "history ran the plugin more than once");

    let fails = script("fails.sh", "echo 'login expired' >&2; exit 1");
    let run = lbdoctor(dir.path(), Some(&with_exec("fails", &fails)), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(run.stderr.contains("fails.sh") && run.stderr.contains("\"tester\""), "{}", run.stderr);
    assert!(run.stderr.contains("login expired"), "the plugin's own stderr passes through: {}", run.stderr);

    let run = lbdoctor(dir.path(), Some(&with_exec("missing", "/nonexistent/login")), &["check"]);
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot be started") && run.stderr.contains("install the login helper"),
        "{}",
        run.stderr
    );
}

/// A live capture lists every Lease in Cilium's namespace, so a Service nobody ever took a Lease
/// for is the symptom (LBD142 names both Lease names), not "unknown": the snapshot says so.
#[test]
fn a_missing_lease_is_absent_when_the_capture_listed_them_all() {
    let file = Path::new("testdata/scenarios/metallb-and-cilium-l2.yaml");
    let mut objects = objects_of(file);
    objects.retain(|o| o["kind"] != "Lease");
    let api = FakeApi::start(objects, token_behaviour(), None);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "fake", "default", TOKEN);
    let run = lbdoctor(dir.path(), Some(&kubeconfig), &["snapshot"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["items"][0]["spec"]["leasesListedIn"], json!(["kube-system"]));
    let saved = dir.path().join("snap.json");
    std::fs::write(&saved, &run.stdout).unwrap();
    for args in [vec!["check", "-o", "json"], vec!["check", "-o", "json", "--from", saved.to_str().unwrap()]] {
        let report = lbdoctor(dir.path(), Some(&kubeconfig), &args).json();
        let svc = &report["services"][0];
        assert_eq!(svc["cilium"]["l2"]["lease"]["leasesCaptured"], true, "{args:?}");
        assert_eq!(svc["cilium"]["l2"]["lease"]["name"], Value::Null);
        let lbd142: Vec<&Value> =
            svc["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "LBD142").collect();
        assert_eq!(lbd142.len(), 1, "{args:?}: {}", svc["findings"]);
        assert!(
            lbd142[0]["message"].as_str().unwrap().contains(
                "no Lease cilium-l2announce-default.web or cilium-l2announce-default-web exists in kube-system"
            ),
            "{}",
            lbd142[0]["message"]
        );
        let assumptions = report["source"]["assumptions"].to_string();
        assert!(!assumptions.contains("holds no Lease"), "{assumptions}");
    }
}

/// The legacy ConfigMap is read by name in MetalLB's namespace, live as from a file (LBD218).
#[test]
fn the_legacy_metallb_configmap_is_read_live() {
    let mut objects = objects_of(Path::new("testdata/scenarios/release-v0-14-9-cordoned.yaml"));
    objects.push(
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "config", "namespace": "metallb-system"},
        "data": {"config": "address-pools:\n- name: default\n  protocol: layer2\n  addresses: [198.51.100.0/28]\n"}}),
    );
    let api = FakeApi::start(objects, token_behaviour(), None);
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(dir.path(), "fake", "default", TOKEN);
    let report = lbdoctor(dir.path(), Some(&kubeconfig), &["check", "-o", "json"]).json();
    let codes: Vec<&str> = report["findings"].as_array().unwrap().iter().map(|f| f["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"LBD218"), "{codes:?}");
    assert!(
        api.requests().iter().any(|r| r == "GET /api/v1/namespaces/metallb-system/configmaps/config"),
        "{:?}",
        api.requests()
    );
}
