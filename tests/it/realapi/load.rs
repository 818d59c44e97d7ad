//! Puts a snapshot file's objects into a real API server, as a cluster's own controllers would
//! have left them: each object server-side applied, then its status applied through the status
//! subresource (the only way a real server takes status). One curl process sends them all.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{json, Value};

use super::server::Server;
use crate::util::ROOT;

/// The resource path segment and scope of every kind the test data holds.
fn plural(kind: &str) -> Option<(&'static str, bool)> {
    Some(match kind {
        "Namespace" => ("namespaces", false),
        "Node" => ("nodes", false),
        "Service" => ("services", true),
        "Pod" => ("pods", true),
        "Event" => ("events", true),
        "ConfigMap" => ("configmaps", true),
        "ServiceAccount" => ("serviceaccounts", true),
        "EndpointSlice" => ("endpointslices", true),
        "DaemonSet" => ("daemonsets", true),
        "Deployment" => ("deployments", true),
        "Lease" => ("leases", true),
        "ClusterRole" => ("clusterroles", false),
        "ClusterRoleBinding" => ("clusterrolebindings", false),
        "IPAddressPool" => ("ipaddresspools", true),
        "L2Advertisement" => ("l2advertisements", true),
        "BGPAdvertisement" => ("bgpadvertisements", true),
        "BGPPeer" => ("bgppeers", true),
        "Community" => ("communities", true),
        "BFDProfile" => ("bfdprofiles", true),
        "ServiceL2Status" => ("servicel2statuses", true),
        "ServiceBGPStatus" => ("servicebgpstatuses", true),
        "CiliumLoadBalancerIPPool" => ("ciliumloadbalancerippools", false),
        "CiliumL2AnnouncementPolicy" => ("ciliuml2announcementpolicies", false),
        "CiliumNode" => ("ciliumnodes", false),
        _ => return None,
    })
}

/// Namespaces the server makes by itself.
const BUILT_IN_NAMESPACES: &[&str] = &["default", "kube-system", "kube-public", "kube-node-lease"];

/// The object's URL path (without the server).
pub fn object_path(object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().unwrap();
    let kind = object["kind"].as_str().unwrap();
    let (plural, namespaced) = plural(kind).unwrap_or_else(|| panic!("the loader does not know kind {kind}"));
    let base = if api_version.contains('/') { format!("/apis/{api_version}") } else { format!("/api/{api_version}") };
    let name = object["metadata"]["name"].as_str().unwrap();
    match object["metadata"]["namespace"].as_str().filter(|_| namespaced) {
        Some(ns) => format!("{base}/namespaces/{ns}/{plural}/{name}"),
        None if namespaced => format!("{base}/namespaces/default/{plural}/{name}"),
        None => format!("{base}/{plural}/{name}"),
    }
}

/// The field manager of the loader's own writes; a file snapshot has no such writer.
pub const MANAGER: &str = "lbdoctor-test-loader";

/// One server-side apply.
struct Request {
    path: String,
    body: Value,
    manager: String,
    /// A JSON merge patch instead of a server-side apply: a Node's status lists are keyed by a
    /// field that repeats (a dual-stack Node's two InternalIPs), which apply refuses.
    merge: bool,
    /// The status of a custom resource: without a status subresource (404) it went in with the object.
    may_be_absent: bool,
}

/// The managers the object's managedFields name for its status, oldest write first; the
/// loader when there are none. Applying the same status as each makes them co-owners, as in
/// the file.
fn status_managers(object: &Value) -> Vec<String> {
    let mut entries: Vec<(&str, &str)> = object["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["subresource"] == "status")
        .filter_map(|m| Some((m["time"].as_str().unwrap_or(""), m["manager"].as_str()?)))
        .collect();
    entries.sort();
    let managers: Vec<String> = entries.into_iter().map(|(_, m)| m.to_string()).collect();
    if managers.is_empty() {
        vec![MANAGER.to_string()]
    } else {
        managers
    }
}

/// What a server takes on create: no server-owned metadata, no ClusterIP from another cluster's
/// range (the server allocates one; nothing lbdoctor reads depends on it).
fn cleaned(mut object: Value) -> Value {
    if let Some(meta) = object["metadata"].as_object_mut() {
        for field in ["resourceVersion", "uid", "creationTimestamp", "managedFields", "generation", "selfLink"] {
            meta.remove(field);
        }
    }
    if object["kind"] == "Service" {
        if let Some(spec) = object["spec"].as_object_mut() {
            spec.remove("clusterIP");
            spec.remove("clusterIPs");
        }
    }
    object
}

/// The objects of a snapshot file (a `kind: List` or documents), without lbdoctor's own SnapshotInfo.
pub fn objects(file: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(Path::new(ROOT).join(file)).unwrap();
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut out = Vec::new();
    for doc in docs.into_iter().filter(|d| !d.is_null()) {
        match doc["kind"].as_str() {
            Some("List") => out.extend(doc["items"].as_array().cloned().unwrap_or_default()),
            Some("SnapshotInfo") => {}
            _ => out.push(doc),
        }
    }
    out
}

/// Applies `objects` (and then their status) to the server; panics naming every object refused.
pub fn apply(server: &Server, objects: &[Value]) {
    let mut namespaces: Vec<String> = objects
        .iter()
        .filter_map(|o| o["metadata"]["namespace"].as_str().map(str::to_string))
        .filter(|ns| !BUILT_IN_NAMESPACES.contains(&ns.as_str()))
        .filter(|ns| !objects.iter().any(|o| o["kind"] == "Namespace" && o["metadata"]["name"] == *ns.as_str()))
        .collect();
    namespaces.sort();
    namespaces.dedup();
    let mut ordered: Vec<Value> = namespaces
        .iter()
        .map(|ns| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
        .collect();
    // Namespaces first: nothing can be created in a namespace that does not exist yet.
    let (first, rest): (Vec<&Value>, Vec<&Value>) = objects.iter().partition(|o| o["kind"] == "Namespace");
    ordered.extend(first.into_iter().cloned().map(cleaned));
    // A Pod needs its ServiceAccount (no controller-manager makes the `default` ones here).
    let mut accounts: Vec<(String, String)> = rest
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .map(|o| {
            let ns = o["metadata"]["namespace"].as_str().unwrap_or("default").to_string();
            let sa = o["spec"]["serviceAccountName"].as_str().or(o["spec"]["serviceAccount"].as_str());
            (ns, sa.unwrap_or("default").to_string())
        })
        .collect();
    accounts.sort();
    accounts.dedup();
    ordered.extend(accounts.iter().map(
        |(ns, name)| json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": ns}}),
    ));
    // Status as the managers the file names for it (real writers, oldest first), else as the loader.
    let managers: Vec<Vec<String>> =
        ordered.iter().map(|_| vec![MANAGER.to_string()]).chain(rest.iter().map(|o| status_managers(o))).collect();
    ordered.extend(rest.into_iter().cloned().map(cleaned));
    let mut requests: Vec<Request> = ordered
        .iter()
        .map(|o| Request {
            path: object_path(o),
            body: without_status(o),
            manager: MANAGER.into(),
            merge: false,
            may_be_absent: false,
        })
        .collect();
    // A second writer's status goes in a second later: managedFields times have whole seconds,
    // and the report orders writers by time.
    let mut later: std::collections::BTreeMap<usize, Vec<Request>> = Default::default();
    for (o, managers) in ordered.iter().zip(&managers) {
        if o["kind"] == "Namespace" || o.get("status").is_none_or(|s| s.as_object().is_none_or(|m| m.is_empty())) {
            continue;
        }
        let merge = o["kind"] == "Node";
        let body = if merge {
            json!({"status": o["status"]})
        } else {
            json!({
                "apiVersion": o["apiVersion"], "kind": o["kind"],
                "metadata": {"name": o["metadata"]["name"], "namespace": o["metadata"]["namespace"]},
                "status": o["status"],
            })
        };
        for (round, manager) in managers.iter().enumerate() {
            let requests = if round == 0 { &mut requests } else { later.entry(round).or_default() };
            requests.push(Request {
                path: format!("{}/status", object_path(o)),
                body: body.clone(),
                manager: manager.clone(),
                merge,
                may_be_absent: o.as_object().is_some_and(is_custom),
            });
        }
    }
    send(server, &requests);
    for round in later.values() {
        std::thread::sleep(std::time::Duration::from_millis(1100));
        send(server, round);
    }
}

fn without_status(object: &Value) -> Value {
    let mut o = object.clone();
    if let Some(m) = o.as_object_mut() {
        // A custom resource without a status subresource keeps its status in the object.
        if !is_custom(m) {
            m.remove("status");
        }
    }
    o
}

fn is_custom(m: &serde_json::Map<String, Value>) -> bool {
    m.get("apiVersion").and_then(Value::as_str).is_some_and(|v| v.contains(".io/") && !v.contains("k8s.io/"))
}

/// One curl process, one request per object, in order; each answer checked.
fn send(server: &Server, requests: &[Request]) {
    let work = tempfile::Builder::new().prefix("lbd-load-").tempdir().unwrap();
    let mut config = String::new();
    for (i, Request { path, body, manager, merge, .. }) in requests.iter().enumerate() {
        let (query, content_type) = if *merge {
            (format!("fieldManager={manager}"), "application/merge-patch+json")
        } else {
            (format!("fieldManager={manager}&force=true"), "application/apply-patch+yaml")
        };
        let body_file = work.path().join(format!("{i}.json"));
        std::fs::write(&body_file, body.to_string()).unwrap();
        let _ = writeln!(
            config,
            "url = \"{}{path}?{query}\"\nrequest = \"PATCH\"\n\
             header = \"Content-Type: {content_type}\"\ndata-binary = \"@{}\"\n\
             output = \"{}\"\ncacert = \"{}\"\ncert = \"{}\"\nkey = \"{}\"\nsilent\nshow-error\n\
             write-out = \"%{{http_code}}\\n\"{}",
            server.url(),
            body_file.display(),
            work.path().join(format!("{i}.out")).display(),
            server.pki("ca.crt").display(),
            server.pki("admin.crt").display(),
            server.pki("admin.key").display(),
            if i + 1 < requests.len() { "\nnext" } else { "" },
        );
    }
    let config_file = work.path().join("curl.conf");
    std::fs::write(&config_file, config).unwrap();
    let out = server.exec("curl").arg("-K").arg(&config_file).output().unwrap();
    let codes: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    let mut refused = Vec::new();
    for (i, Request { path, may_be_absent, .. }) in requests.iter().enumerate() {
        let code = codes.get(i).map(String::as_str).unwrap_or("none");
        if *may_be_absent && code == "404" {
            continue;
        }
        if code != "200" && code != "201" {
            let answer = std::fs::read_to_string(work.path().join(format!("{i}.out"))).unwrap_or_default();
            refused.push(format!("PATCH {path}: {code} {answer}"));
        }
    }
    assert!(
        refused.is_empty(),
        "the server refused:\n{}\ncurl: {}",
        refused.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// MetalLB's and the stand-in Cilium CRDs, applied and then waited for until served.
pub fn install_crds(server: &Server) {
    let dir = Path::new(ROOT).join("../shared/k8s/crds");
    let mut crds = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let docs: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crds.extend(docs.into_iter().filter(|d| d["kind"] == "CustomResourceDefinition"));
    }
    let requests: Vec<Request> = crds
        .iter()
        .map(|c| Request {
            path: format!(
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{}",
                c["metadata"]["name"].as_str().unwrap()
            ),
            body: c.clone(),
            manager: MANAGER.into(),
            merge: false,
            may_be_absent: false,
        })
        .collect();
    send(server, &requests);
    // A CRD is served a moment after it is stored: wait for every group's versions.
    let paths: Vec<String> = crds
        .iter()
        .flat_map(|c| {
            let group = c["spec"]["group"].as_str().unwrap().to_string();
            let plural = c["spec"]["names"]["plural"].as_str().unwrap().to_string();
            c["spec"]["versions"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|v| v["served"] == true)
                .map(move |v| format!("/apis/{group}/{}/{plural}?limit=1", v["name"].as_str().unwrap()))
                .collect::<Vec<_>>()
        })
        .collect();
    for path in paths {
        let mut tries = 0;
        loop {
            let (code, body) = server.curl("GET", &path, "application/json", None);
            if code == 200 {
                break;
            }
            tries += 1;
            assert!(tries < 100, "{path} not served after 10 s: {code} {body}");
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}
