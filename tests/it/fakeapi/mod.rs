//! A fake Kubernetes API server for the live-mode tests and the collection benchmark: it serves
//! a snapshot's objects on 127.0.0.1 (HTTP, or HTTPS with a CA of its own), with discovery, real
//! pagination, label and field selectors, Kubernetes `Status` errors, optional latency, and a log
//! of every request it received. Written from the API conventions, independently of lbdoctor.

#![allow(dead_code)]

mod select;
mod tls;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub use tls::Tls;

#[derive(Default)]
pub struct Behaviour {
    /// Resources (plural, e.g. `l2advertisements`) that answer 403 to every request.
    pub forbidden: BTreeSet<String>,
    /// (plural, namespace) pairs that answer 403 in that namespace only.
    pub forbidden_in: BTreeSet<(String, String)>,
    /// Resources whose first continue token is expired (410 Gone) once.
    pub expire_once: BTreeSet<String>,
    /// Resources whose every continue token is expired (410 Gone), as under constant compaction.
    pub expire_always: BTreeSet<String>,
    /// Added before every answer.
    pub latency: Duration,
    /// When set, requests must carry `Authorization: Bearer <token>` or get 401.
    pub token: Option<String>,
    /// Answer every request 404 with a plain-text body, like a web server that is not Kubernetes.
    pub not_kubernetes: bool,
    /// `pods/NAME/log` bodies by Pod name (plain text); other Pods' logs answer 404.
    pub pod_logs: BTreeMap<String, String>,
}

pub struct Served {
    pub group: String,
    pub version: String,
    pub plural: String,
    pub namespaced: bool,
}

struct State {
    /// (group, plural) → objects, sorted by namespace/name as the API server returns them.
    objects: Mutex<BTreeMap<(String, String), Vec<Value>>>,
    /// What watches read: every change since the start (or the last compaction).
    history: Mutex<History>,
    changed: Condvar,
    resources: Vec<Served>,
    behaviour: Behaviour,
    expired: Mutex<BTreeSet<String>>,
    log: Mutex<Vec<String>>,
    /// Every request from now on answers 401, as when a token expires.
    revoked: std::sync::atomic::AtomicBool,
    /// The token requests must carry: `behaviour.token`, until `set_token` rotates it.
    token: Mutex<Option<String>>,
}

/// The server's resourceVersion and its changes, as etcd would keep them.
struct History {
    version: u64,
    /// (resourceVersion, group, plural, ADDED|MODIFIED|DELETED, the object after).
    events: Vec<(u64, String, String, &'static str, Value)>,
    /// Watches from a version at or below this one get 410 Gone; open ones end with it.
    compacted: u64,
    /// Raised to cut every open watch without ending its stream.
    dropped: u64,
    /// Raised by each compaction: open watches end with 410 Gone.
    compactions: u64,
}

/// The first resourceVersion; each change adds one.
const FIRST_VERSION: u64 = 12345;
/// The longest a watch stays open here, whatever timeoutSeconds asks (tests end sooner).
const LONGEST_WATCH: Duration = Duration::from_secs(60);

pub struct FakeApi {
    pub url: String,
    pub ca_pem: Option<String>,
    state: Arc<State>,
}

/// Kind → (group, version, plural, namespaced): the resources a Kubernetes cluster with MetalLB,
/// frr-k8s and Cilium serves.
const KINDS: &[(&str, &str, &str, &str, bool)] = &[
    ("Node", "", "v1", "nodes", false),
    ("Namespace", "", "v1", "namespaces", false),
    ("Service", "", "v1", "services", true),
    ("Pod", "", "v1", "pods", true),
    ("Event", "", "v1", "events", true),
    ("ConfigMap", "", "v1", "configmaps", true),
    ("Secret", "", "v1", "secrets", true),
    ("EndpointSlice", "discovery.k8s.io", "v1", "endpointslices", true),
    ("DaemonSet", "apps", "v1", "daemonsets", true),
    ("Deployment", "apps", "v1", "deployments", true),
    ("Lease", "coordination.k8s.io", "v1", "leases", true),
    ("IPAddressPool", "metallb.io", "v1beta1", "ipaddresspools", true),
    // Served by MetalLB before v0.14.3 only: here when the cluster has such objects.
    ("AddressPool", "metallb.io", "v1beta1", "addresspools", true),
    ("L2Advertisement", "metallb.io", "v1beta1", "l2advertisements", true),
    ("BGPAdvertisement", "metallb.io", "v1beta1", "bgpadvertisements", true),
    ("BGPPeer", "metallb.io", "v1beta2", "bgppeers", true),
    ("Community", "metallb.io", "v1beta1", "communities", true),
    ("BFDProfile", "metallb.io", "v1beta1", "bfdprofiles", true),
    ("ServiceL2Status", "metallb.io", "v1beta1", "servicel2statuses", true),
    ("ServiceBGPStatus", "metallb.io", "v1beta1", "servicebgpstatuses", true),
    ("FRRConfiguration", "frrk8s.metallb.io", "v1beta1", "frrconfigurations", true),
    ("CiliumLoadBalancerIPPool", "cilium.io", "v2", "ciliumloadbalancerippools", false),
    ("CiliumL2AnnouncementPolicy", "cilium.io", "v2alpha1", "ciliuml2announcementpolicies", false),
    ("CiliumNode", "cilium.io", "v2", "ciliumnodes", false),
];

/// Objects of a snapshot file (YAML or JSON, `kind: List` expanded), without SnapshotInfo.
pub fn objects_of(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if text.trim_start().starts_with('{') {
        let mut out = Vec::new();
        expand(serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())), &mut out);
        out.retain(|o| o["kind"] != "SnapshotInfo");
        return out;
    }
    let docs: Vec<Value> =
        serde_saphyr::from_multiple_with_options(&text, serde_saphyr::options! { strict_booleans: true })
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    for doc in docs {
        expand(doc, &mut out);
    }
    out.retain(|o| o["kind"] != "SnapshotInfo");
    out
}

fn expand(doc: Value, out: &mut Vec<Value>) {
    if doc.is_null() {
        return;
    }
    if doc["kind"].as_str().is_some_and(|k| k.ends_with("List")) {
        if let Some(items) = doc.get("items").and_then(Value::as_array) {
            for item in items {
                expand(item.clone(), out);
            }
            return;
        }
    }
    out.push(doc);
}

impl FakeApi {
    /// Serves `objects`; custom resources are served only for the groups some object uses, so a
    /// snapshot without MetalLB objects looks like a cluster without MetalLB's CRDs.
    pub fn start(objects: Vec<Value>, behaviour: Behaviour, tls: Option<&Tls>) -> FakeApi {
        let used_groups: BTreeSet<String> = objects
            .iter()
            .filter_map(|o| o["apiVersion"].as_str())
            .filter_map(|a| a.rsplit_once('/').map(|(g, _)| g.to_string()))
            .collect();
        let mut resources = Vec::new();
        let mut by_resource: BTreeMap<(String, String), Vec<Value>> = BTreeMap::new();
        for (_, group, version, plural, namespaced) in KINDS {
            let builtin = group.is_empty() || !group.contains('.') || group.ends_with(".k8s.io");
            let legacy = *plural == "addresspools" && !objects.iter().any(|o| o["kind"] == "AddressPool");
            if (builtin || used_groups.contains(*group)) && !legacy {
                resources.push(Served {
                    group: group.to_string(),
                    version: version.to_string(),
                    plural: plural.to_string(),
                    namespaced: *namespaced,
                });
                by_resource.insert((group.to_string(), plural.to_string()), Vec::new());
            }
        }
        for mut o in objects {
            let kind = o["kind"].as_str().unwrap_or("").to_string();
            let Some((_, group, version, plural, _)) = KINDS.iter().find(|k| k.0 == kind) else {
                continue;
            };
            // Stored objects gain what a real server adds.
            if o["metadata"].get("managedFields").is_none() {
                o["metadata"]["managedFields"] =
                    json!([{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {}}}]);
            }
            o["apiVersion"] = json!(if group.is_empty() { version.to_string() } else { format!("{group}/{version}") });
            by_resource.entry((group.to_string(), plural.to_string())).or_default().push(o);
        }
        for list in by_resource.values_mut() {
            list.sort_by_key(|o| (meta(o, "namespace"), meta(o, "name")));
        }
        for list in by_resource.values_mut() {
            for o in list.iter_mut() {
                o["metadata"]["resourceVersion"] = json!(FIRST_VERSION.to_string());
            }
        }
        let token = Mutex::new(behaviour.token.clone());
        let state = Arc::new(State {
            token,
            objects: Mutex::new(by_resource),
            history: Mutex::new(History {
                version: FIRST_VERSION,
                events: Vec::new(),
                compacted: 0,
                dropped: 0,
                compactions: 0,
            }),
            changed: Condvar::new(),
            resources,
            behaviour,
            expired: Mutex::new(BTreeSet::new()),
            log: Mutex::new(Vec::new()),
            revoked: std::sync::atomic::AtomicBool::new(false),
        });
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().expect("local address").port();
        let config = tls.map(|t| t.server_config());
        let serving = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = serving.clone();
                let config = config.clone();
                std::thread::spawn(move || {
                    let _ = stream.set_nodelay(true);
                    match config {
                        Some(c) => {
                            if let Ok(conn) = rustls::ServerConnection::new(c) {
                                serve(rustls::StreamOwned::new(conn, stream), &state)
                            }
                        }
                        None => serve(stream, &state),
                    }
                });
            }
        });
        let scheme = if tls.is_some() { "https" } else { "http" };
        FakeApi { url: format!("{scheme}://127.0.0.1:{port}"), ca_pem: tls.map(|t| t.ca_pem.clone()), state }
    }

    /// Creates or replaces an object (by kind, namespace and name), as `kubectl apply` would:
    /// lists show it and watches get ADDED or MODIFIED.
    pub fn put(&self, mut object: Value) {
        let kind = object["kind"].as_str().unwrap_or("").to_string();
        let (_, group, version, plural, _) =
            *KINDS.iter().find(|k| k.0 == kind).expect("a kind the fake server serves");
        object["apiVersion"] = json!(if group.is_empty() { version.to_string() } else { format!("{group}/{version}") });
        let mut objects = self.state.objects.lock().unwrap();
        let mut history = self.state.history.lock().unwrap();
        history.version += 1;
        object["metadata"]["resourceVersion"] = json!(history.version.to_string());
        let list = objects.entry((group.to_string(), plural.to_string())).or_default();
        let key = (meta(&object, "namespace"), meta(&object, "name"));
        let event = match list.iter_mut().find(|o| (meta(o, "namespace"), meta(o, "name")) == key) {
            Some(old) => {
                *old = object.clone();
                "MODIFIED"
            }
            None => {
                list.push(object.clone());
                list.sort_by_key(|o| (meta(o, "namespace"), meta(o, "name")));
                "ADDED"
            }
        };
        let version = history.version;
        history.events.push((version, group.to_string(), plural.to_string(), event, object));
        self.state.changed.notify_all();
    }

    /// One object as stored, to edit and `put` back.
    pub fn get(&self, kind: &str, namespace: &str, name: &str) -> Option<Value> {
        let (_, group, _, plural, _) = *KINDS.iter().find(|k| k.0 == kind)?;
        let objects = self.state.objects.lock().unwrap();
        objects
            .get(&(group.to_string(), plural.to_string()))?
            .iter()
            .find(|o| meta(o, "namespace") == namespace && meta(o, "name") == name)
            .cloned()
    }

    pub fn delete(&self, kind: &str, namespace: &str, name: &str) {
        let (_, group, _, plural, _) = *KINDS.iter().find(|k| k.0 == kind).expect("a kind the fake server serves");
        let mut objects = self.state.objects.lock().unwrap();
        let list = objects.entry((group.to_string(), plural.to_string())).or_default();
        let Some(at) = list.iter().position(|o| meta(o, "namespace") == namespace && meta(o, "name") == name) else {
            return;
        };
        let object = list.remove(at);
        let mut history = self.state.history.lock().unwrap();
        history.version += 1;
        let version = history.version;
        history.events.push((version, group.to_string(), plural.to_string(), "DELETED", object));
        self.state.changed.notify_all();
    }

    /// Forgets the history, as etcd's compaction does: open watches end with an ERROR 410 event
    /// and watches from an older resourceVersion get one at once, so clients must list again.
    pub fn compact(&self) {
        let mut history = self.state.history.lock().unwrap();
        history.compacted = history.version;
        history.compactions += 1;
        history.events.clear();
        self.state.changed.notify_all();
    }

    /// Cuts every open watch mid-stream (no end of the chunked body), like a proxy that dies.
    pub fn drop_watches(&self) {
        self.state.history.lock().unwrap().dropped += 1;
        self.state.changed.notify_all();
    }

    /// Only `token` is accepted from now on (open watches go on: a server checks a token once,
    /// when the request starts).
    pub fn set_token(&self, token: &str) {
        *self.state.token.lock().unwrap() = Some(token.to_string());
    }

    /// The credentials stop working: open watches are cut and every request answers 401.
    pub fn revoke(&self) {
        self.state.revoked.store(true, std::sync::atomic::Ordering::SeqCst);
        self.drop_watches();
    }

    /// `METHOD path?query` of every request so far.
    pub fn requests(&self) -> Vec<String> {
        self.state.log.lock().unwrap().clone()
    }

    /// A kubeconfig for this server, written to `dir`.
    pub fn kubeconfig(&self, dir: &Path, context: &str, namespace: &str, token: &str) -> PathBuf {
        let ca = match &self.ca_pem {
            Some(pem) => {
                use base64::Engine as _;
                let data = base64::engine::general_purpose::STANDARD.encode(pem.as_bytes());
                format!("    certificate-authority-data: {data}\n")
            }
            None => String::new(),
        };
        let text = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {}\n{ca}contexts:\n- name: {context}\n  context:\n    cluster: fake\n    user: tester\n    namespace: {namespace}\ncurrent-context: {context}\nusers:\n- name: tester\n  user:\n    token: {token}\n",
            self.url
        );
        let path = dir.join(format!("{context}.kubeconfig"));
        std::fs::write(&path, text).expect("write kubeconfig");
        path
    }
}

fn meta(o: &Value, field: &str) -> String {
    o["metadata"][field].as_str().unwrap_or("").to_string()
}

fn serve<S: Read + Write>(stream: S, state: &State) {
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
        let mut headers = BTreeMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        state.log.lock().unwrap().push(format!("{method} {target}"));
        std::thread::sleep(state.behaviour.latency);
        let (code, answer) = respond(state, &method, &target, headers.get("authorization"));
        if code == 200 && is_watch(&target) {
            // The watch takes the connection; it closes when the watch ends (`Connection: close`, so the
            // client does not reuse it).
            watch(reader.get_mut(), state, &target);
            return;
        }
        let (code, text) = match answer {
            _ if state.behaviour.not_kubernetes => (404, "404 page not found".to_string()),
            // pods/NAME/log is plain text.
            Value::String(text) => (code, text),
            answer => (code, served_text(&answer)),
        };
        let reason = match code {
            200 => "OK",
            401 => "Unauthorized",
            403 => "Forbidden",
            404 => "Not Found",
            405 => "Method Not Allowed",
            410 => "Gone",
            _ => "Error",
        };
        let head = format!(
            "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            text.len()
        );
        let stream = reader.get_mut();
        if stream
            .write_all(head.as_bytes())
            .and_then(|_| stream.write_all(text.as_bytes()))
            .and_then(|_| stream.flush())
            .is_err()
        {
            return;
        }
    }
}

fn is_watch(target: &str) -> bool {
    let query = target.split_once('?').map_or("", |(_, q)| q);
    form_urlencoded::parse(query.as_bytes()).any(|(k, v)| k == "watch" && (v == "true" || v == "1"))
}

/// A watch: from `resourceVersion` (from "0": every matching object first), every change to
/// the resource as a JSON line, until timeoutSeconds, a compaction (ERROR 410) or a drop.
fn watch<S: Write>(stream: &mut S, state: &State, target: &str) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let (group, rest) = match segments.as_slice() {
        ["api", "v1", rest @ ..] => ("", rest),
        ["apis", group, _, rest @ ..] => (*group, rest),
        _ => return,
    };
    let (namespace, plural) = match rest {
        ["namespaces", ns, plural] => (Some(ns.to_string()), plural.to_string()),
        [plural] => (None, plural.to_string()),
        _ => return,
    };
    let labels = query.get("labelSelector").map(|s| select::Labels::parse(s));
    let fields = query.get("fieldSelector").map(|s| select::Fields::parse(s));
    let matches = |g: &str, p: &str, o: &Value| {
        g == group
            && p == plural
            && namespace.as_deref().is_none_or(|ns| meta(o, "namespace") == ns)
            && labels.as_ref().is_none_or(|l| l.matches(&o["metadata"]["labels"]))
            && fields.as_ref().is_none_or(|f| f.matches(o))
    };
    let send = |stream: &mut S, line: Value| -> bool {
        let text = format!("{line}\n");
        write!(stream, "{:x}\r\n{text}\r\n", text.len()).and_then(|_| stream.flush()).is_ok()
    };
    let gone = json!({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": "too old resource version", "reason": "Expired", "code": 410}});
    if write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    )
    .is_err()
    {
        return;
    }
    let seconds: u64 = query.get("timeoutSeconds").and_then(|t| t.parse().ok()).unwrap_or(60);
    let deadline = Instant::now() + Duration::from_secs(seconds).min(LONGEST_WATCH);
    let asked: u64 = query.get("resourceVersion").and_then(|v| v.parse().ok()).unwrap_or(0);
    // Objects before history, as put() takes them.
    let objects = state.objects.lock().unwrap();
    let mut history = state.history.lock().unwrap();
    let (dropped, compactions) = (history.dropped, history.compactions);
    let mut cursor = asked;
    if asked == 0 {
        cursor = history.version;
        let current: Vec<Value> = objects
            .iter()
            .flat_map(|((g, p), list)| list.iter().filter(move |o| matches(g, p, o)))
            .map(|o| json!({"type": "ADDED", "object": o}))
            .collect();
        drop(history);
        drop(objects);
        for line in current {
            if !send(stream, line) {
                return;
            }
        }
        history = state.history.lock().unwrap();
    } else if asked <= history.compacted {
        drop(history);
        drop(objects);
        let _ = send(stream, gone) && write!(stream, "0\r\n\r\n").is_ok();
        return;
    } else {
        drop(objects);
    }
    loop {
        if history.dropped != dropped {
            return;
        }
        if history.compactions != compactions {
            drop(history);
            let _ = send(stream, gone) && write!(stream, "0\r\n\r\n").is_ok();
            return;
        }
        let fresh: Vec<Value> = history
            .events
            .iter()
            .filter(|(v, g, p, _, o)| *v > cursor && matches(g, p, o))
            .map(|(_, _, _, t, o)| json!({"type": t, "object": o}))
            .collect();
        cursor = history.version;
        for line in fresh {
            if !send(stream, line) {
                return;
            }
        }
        let now = Instant::now();
        if now >= deadline {
            drop(history);
            let _ = write!(stream, "0\r\n\r\n").and_then(|_| stream.flush());
            return;
        }
        history = state.changed.wait_timeout(history, deadline - now).unwrap().0;
    }
}

fn status(code: u16, reason: &str, message: &str) -> (u16, Value) {
    (
        code,
        json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}),
    )
}

/// An answer as a real API server writes it: a List's `kind`, `apiVersion` and `metadata` (with
/// the continue token) come before its items (a `json!` object would sort its keys).
fn served_text(answer: &Value) -> String {
    const HEAD: [&str; 3] = ["kind", "apiVersion", "metadata"];
    let Some(list) = answer.as_object().filter(|o| o.contains_key("items") && o.contains_key("metadata")) else {
        return answer.to_string();
    };
    let head = HEAD.iter().filter_map(|k| list.get(*k).map(|v| (*k, v)));
    let rest = list.iter().filter(|(k, _)| !HEAD.contains(&k.as_str())).map(|(k, v)| (k.as_str(), v));
    let fields: Vec<String> = head.chain(rest).map(|(k, v)| format!("{}:{v}", Value::from(k))).collect();
    format!("{{{}}}", fields.join(","))
}

fn respond(state: &State, method: &str, target: &str, auth: Option<&String>) -> (u16, Value) {
    if method != "GET" {
        return status(405, "MethodNotAllowed", "this fake server only answers GET");
    }
    if state.revoked.load(std::sync::atomic::Ordering::SeqCst) {
        return status(401, "Unauthorized", "Unauthorized");
    }
    if let Some(token) = state.token.lock().unwrap().as_ref() {
        if auth.map(String::as_str) != Some(format!("Bearer {token}").as_str()) {
            return status(401, "Unauthorized", "Unauthorized");
        }
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query: BTreeMap<String, String> = form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["version"] => (200, json!({"major": "1", "minor": "33", "gitVersion": "v1.33.1-fake"})),
        ["api"] => (200, json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []})),
        ["api", "v1"] => resource_list(state, "", "v1"),
        ["apis"] => (200, group_list(state)),
        ["apis", group, version] => resource_list(state, group, version),
        ["api", "v1", rest @ ..] => objects(state, "", "v1", rest, &query),
        ["apis", group, version, rest @ ..] => objects(state, group, version, rest, &query),
        _ => status(404, "NotFound", &format!("the server could not find the requested resource ({path})")),
    }
}

fn group_list(state: &State) -> Value {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in state.resources.iter().filter(|r| !r.group.is_empty()) {
        let versions = groups.entry(r.group.as_str()).or_default();
        if !versions.contains(&r.version.as_str()) {
            versions.push(&r.version);
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(name, versions)| {
            let vs: Vec<Value> =
                versions.iter().map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v})).collect();
            json!({"name": name, "versions": vs, "preferredVersion": vs[0]})
        })
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

fn resource_list(state: &State, group: &str, version: &str) -> (u16, Value) {
    let resources: Vec<Value> = state
        .resources
        .iter()
        .filter(|r| r.group == group && r.version == version)
        .map(|r| {
            let kind = KINDS.iter().find(|k| k.1 == r.group && k.3 == r.plural).map(|k| k.0).unwrap_or("");
            json!({"name": r.plural, "namespaced": r.namespaced, "kind": kind, "verbs": ["get", "list", "watch"]})
        })
        .collect();
    if resources.is_empty() {
        return status(404, "NotFound", "the server could not find the requested resource");
    }
    (
        200,
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": if group.is_empty() { version.to_string() } else { format!("{group}/{version}") }, "resources": resources}),
    )
}

fn objects(state: &State, group: &str, version: &str, rest: &[&str], query: &BTreeMap<String, String>) -> (u16, Value) {
    if let ["namespaces", _, "pods", name, "log"] = rest {
        return match state.behaviour.pod_logs.get(*name) {
            Some(text) => (200, Value::String(text.clone())),
            None => status(404, "NotFound", &format!("pods \"{name}\" not found")),
        };
    }
    let (namespace, plural, name) = match rest {
        ["namespaces", ns, plural] => (Some(*ns), *plural, None),
        ["namespaces", ns, plural, name] => (Some(*ns), *plural, Some(*name)),
        [plural] => (None, *plural, None),
        [plural, name] => (None, *plural, Some(*name)),
        _ => return status(404, "NotFound", "the server could not find the requested resource"),
    };
    let Some(served) = state.resources.iter().find(|r| r.group == group && r.version == version && r.plural == plural)
    else {
        return status(404, "NotFound", "the server could not find the requested resource");
    };
    let resource = if group.is_empty() { plural.to_string() } else { format!("{plural}.{group}") };
    let denied_here =
        namespace.is_some_and(|ns| state.behaviour.forbidden_in.contains(&(plural.to_string(), ns.to_string())));
    if state.behaviour.forbidden.contains(plural) || denied_here {
        let scope =
            namespace.map(|n| format!(" in the namespace \"{n}\"")).unwrap_or_else(|| " at the cluster scope".into());
        let verb = if name.is_some() { "get" } else { "list" };
        return status(
            403,
            "Forbidden",
            &format!("{resource} is forbidden: User \"tester\" cannot {verb} resource \"{plural}\" in API group \"{group}\"{scope}"),
        );
    }
    let stored = state.objects.lock().unwrap();
    let all = &stored[&(group.to_string(), plural.to_string())];
    let in_scope = |o: &&Value| !served.namespaced || namespace.is_none_or(|ns| meta(o, "namespace") == ns);
    if let Some(name) = name {
        return match all.iter().filter(in_scope).find(|o| meta(o, "name") == name) {
            Some(o) => (200, o.clone()),
            None => status(404, "NotFound", &format!("{resource} \"{name}\" not found")),
        };
    }
    let labels = query.get("labelSelector").map(|s| select::Labels::parse(s));
    let fields = query.get("fieldSelector").map(|s| select::Fields::parse(s));
    let matching: Vec<&Value> = all
        .iter()
        .filter(in_scope)
        .filter(|o| labels.as_ref().is_none_or(|l| l.matches(&o["metadata"]["labels"])))
        .filter(|o| fields.as_ref().is_none_or(|f| f.matches(o)))
        .collect();
    let start = match query.get("continue") {
        None => 0,
        Some(token) => match select::open_token(token) {
            Some((p, offset)) if p == plural => {
                if state.behaviour.expire_always.contains(plural)
                    || (state.behaviour.expire_once.contains(plural)
                        && state.expired.lock().unwrap().insert(plural.to_string()))
                {
                    return status(410, "Expired", "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.");
                }
                offset
            }
            _ => return status(400, "BadRequest", "invalid continue token"),
        },
    };
    let limit: usize = query.get("limit").and_then(|l| l.parse().ok()).filter(|l| *l > 0).unwrap_or(usize::MAX);
    let end = start.saturating_add(limit).min(matching.len());
    let mut items: Vec<Value> = matching[start.min(end)..end].iter().map(|o| (*o).clone()).collect();
    // A real server leaves apiVersion and kind off the items of built-in kinds, and keeps them
    // on custom resources.
    let builtin = group.is_empty() || group == "apps" || group.ends_with(".k8s.io");
    for item in items.iter_mut().filter(|_| builtin) {
        if let Some(obj) = item.as_object_mut() {
            obj.remove("apiVersion");
            obj.remove("kind");
        }
    }
    let kind = KINDS.iter().find(|k| k.1 == group && k.3 == plural).map(|k| k.0).unwrap_or("");
    let mut metadata = json!({"resourceVersion": state.history.lock().unwrap().version.to_string()});
    if end < matching.len() {
        metadata["continue"] = json!(select::make_token(plural, end));
        metadata["remainingItemCount"] = json!(matching.len() - end);
    }
    let api_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    (200, json!({"kind": format!("{kind}List"), "apiVersion": api_version, "metadata": metadata, "items": items}))
}
