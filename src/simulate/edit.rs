//! What-if edits: a new Snapshot with nodes down, labels changed or objects applied. Pure: the
//! caller loads `--apply` files; nothing here reads or writes anything.

use std::collections::BTreeMap;

use crate::snapshot::workload::{Pod, PodCondition};
use k8s_openapi::api::core::v1::{Node, NodeCondition};

use crate::metallb::install::is_speaker_labelled;
pub use crate::report::simulate::Applied;
use crate::report::ObjectRef;
use crate::snapshot::Snapshot;

/// One change the user asked for.
#[derive(Debug, Clone)]
pub enum Edit {
    /// The node stops: its speaker and its endpoints go, the Node object stays (Ready Unknown).
    Down(String),
    /// The Node object is deleted too (its speaker and endpoints go with it).
    Delete(String),
    /// Only the node's MetalLB speaker stops.
    SpeakerDown(String),
    Label {
        node: String,
        key: String,
        value: String,
    },
    Unlabel {
        node: String,
        key: String,
    },
    /// Objects from a file, replacing those of the same kind, namespace and name.
    Apply {
        file: String,
        objects: Box<Snapshot>,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    #[error("{flag} {node}: no Node {node} in the snapshot (nodes: {known})")]
    UnknownNode { flag: &'static str, node: String, known: String },
    #[error("--label {node} {text:?}: expected KEY=VALUE (use --unlabel {node} KEY to remove a label)")]
    BadLabel { node: String, text: String },
    #[error("--unlabel {node} {key}: Node {node} has no label {key}")]
    NoSuchLabel { node: String, key: String },
    #[error("--apply {file}: {message}")]
    Apply { file: String, message: String },
}

/// Parses `KEY=VALUE` (the value may be empty: `node.kubernetes.io/exclude-from-external-load-balancers=`).
pub fn label_edit(node: &str, text: &str) -> Result<Edit, EditError> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => {
            Ok(Edit::Label { node: node.to_string(), key: key.to_string(), value: value.to_string() })
        }
        _ => Err(EditError::BadLabel { node: node.to_string(), text: text.to_string() }),
    }
}

/// Objects that describe what the cluster did, not what it is told: they speak for the state
/// before the change only, so a comparison of the engines' answers leaves them out of both sides.
pub fn forget_observations(snap: &mut Snapshot) {
    snap.metallb.service_l2_statuses.clear();
    snap.metallb.service_bgp_statuses.clear();
    snap.events.retain(|e| e.reason.as_deref() != Some("nodeAssigned"));
}

/// The snapshot after the edits: applied files first, then labels, then nodes going down, in
/// the order given within each group (clap does not keep the order across flags).
pub fn apply(snap: &Snapshot, edits: &[Edit]) -> Result<(Snapshot, Vec<Applied>), EditError> {
    let mut after = snap.clone();
    let mut done = Vec::new();
    let group = |e: &Edit| match e {
        Edit::Apply { .. } => 0,
        Edit::Label { .. } | Edit::Unlabel { .. } => 1,
        Edit::Down(_) | Edit::Delete(_) | Edit::SpeakerDown(_) => 2,
    };
    let mut ordered: Vec<&Edit> = edits.iter().collect();
    ordered.sort_by_key(|e| group(e));
    for edit in ordered {
        match edit {
            Edit::Apply { file, objects } => done.extend(apply_objects(&mut after, file, objects)?),
            Edit::Label { node, key, value } => {
                let i = node_index(&after, node, "--label")?;
                let n = &mut after.nodes[i];
                let labels = n.metadata.labels.get_or_insert_with(BTreeMap::new);
                let detail = match labels.insert(key.clone(), value.clone()) {
                    Some(old) => format!("{key}={value} (was {key}={old})"),
                    None => format!("{key}={value} (new)"),
                };
                done.push(Applied { edit: "label", object: ObjectRef::cluster("Node", node), detail });
            }
            Edit::Unlabel { node, key } => {
                let i = node_index(&after, node, "--unlabel")?;
                let n = &mut after.nodes[i];
                let old = n.metadata.labels.as_mut().and_then(|l| l.remove(key));
                let Some(old) = old else {
                    return Err(EditError::NoSuchLabel { node: node.clone(), key: key.clone() });
                };
                done.push(Applied {
                    edit: "unlabel",
                    object: ObjectRef::cluster("Node", node),
                    detail: format!("{key} (was {key}={old})"),
                });
            }
            Edit::Down(node) => {
                let i = node_index(&after, node, "--down")?;
                let stopped = stop_node(&mut after, node);
                set_node_ready_unknown(&mut after.nodes[i]);
                done.push(Applied {
                    edit: "down",
                    object: ObjectRef::cluster("Node", node),
                    detail: format!("{stopped}; the Node object stays (Ready Unknown), as Kubernetes keeps it"),
                });
            }
            Edit::Delete(node) => {
                let i = node_index(&after, node, "--delete")?;
                let stopped = stop_node(&mut after, node);
                after.nodes.remove(i);
                done.push(Applied {
                    edit: "delete",
                    object: ObjectRef::cluster("Node", node),
                    detail: format!("{stopped}; the Node object is deleted"),
                });
            }
            Edit::SpeakerDown(node) => {
                node_index(&after, node, "--speaker-down")?;
                let mut count = 0;
                for pod in after
                    .pods
                    .iter_mut()
                    .filter(|p| on_node(p, node) && is_speaker_labelled(p.metadata.labels.as_ref()))
                {
                    set_pod_not_ready(pod);
                    count += 1;
                }
                let detail = match count {
                    0 => "no speaker Pod runs there".to_string(),
                    1 => "its speaker Pod stops".to_string(),
                    n => format!("its {n} speaker Pods stop"),
                };
                done.push(Applied { edit: "speakerDown", object: ObjectRef::cluster("Node", node), detail });
            }
        }
    }
    Ok((after, done))
}

/// Where the named Node is in the snapshot; an error listing the nodes when it is not there.
fn node_index(snap: &Snapshot, name: &str, flag: &'static str) -> Result<usize, EditError> {
    snap.nodes.iter().position(|n| n.metadata.name.as_deref() == Some(name)).ok_or_else(|| {
        let mut known: Vec<&str> = snap.nodes.iter().filter_map(|n| n.metadata.name.as_deref()).collect();
        known.sort_unstable();
        let known = match known.len() {
            0 => "none".to_string(),
            n if n > 12 => format!("{}, … {} in all", known[..12].join(", "), n),
            _ => known.join(", "),
        };
        EditError::UnknownNode { flag, node: name.to_string(), known }
    })
}

fn on_node(pod: &Pod, node: &str) -> bool {
    pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node)
}

/// Every Pod on the node stops being Ready and its endpoints stop serving, as the node
/// lifecycle controller and the EndpointSlice controller make it.
fn stop_node(snap: &mut Snapshot, node: &str) -> String {
    let mut pods = 0;
    for pod in snap.pods.iter_mut().filter(|p| on_node(p, node)) {
        set_pod_not_ready(pod);
        pods += 1;
    }
    let mut endpoints = 0;
    for slice in &mut snap.endpoint_slices {
        let before = slice.endpoints.len();
        let mut kept = std::mem::take(&mut slice.endpoints).into_vec();
        kept.retain(|e| e.node_name.as_deref() != Some(node));
        slice.endpoints = kept.into_boxed_slice();
        endpoints += before - slice.endpoints.len();
    }
    let plural = |n: usize, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{n} {many}") };
    format!("{} stop, {} go", plural(pods, "Pod", "Pods"), plural(endpoints, "endpoint", "endpoints"))
}

fn set_node_ready_unknown(node: &mut Node) {
    let status = node.status.get_or_insert_with(Default::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != "Ready");
    conditions.push(NodeCondition {
        type_: "Ready".into(),
        status: "Unknown".into(),
        reason: Some("NodeStatusUnknown".into()),
        message: Some("lbdoctor simulate --down".into()),
        ..Default::default()
    });
}

fn set_pod_not_ready(pod: &mut Pod) {
    let status = pod.status.get_or_insert_with(Default::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != "Ready");
    conditions.push(PodCondition { type_: "Ready".into(), status: "False".into() });
}

/// Replaces or adds each object of `from`, by kind, namespace and name.
fn apply_objects(into: &mut Snapshot, file: &str, from: &Snapshot) -> Result<Vec<Applied>, EditError> {
    let refuse = |message: String| EditError::Apply { file: file.to_string(), message };
    if from.info != Default::default() {
        return Err(refuse("holds a SnapshotInfo; apply objects only, not a whole snapshot".into()));
    }
    if let Some((kind, _)) = from.ignored_kinds.iter().next() {
        return Err(refuse(format!("{kind} is read by no engine, so applying it changes nothing")));
    }
    let mut done = Vec::new();
    let mut put = |kind: &'static str, key: (String, String), replaced: bool| {
        let object =
            if key.0.is_empty() { ObjectRef::cluster(kind, key.1) } else { ObjectRef::new(kind, key.0, key.1) };
        done.push(Applied {
            edit: "apply",
            object,
            detail: format!("{} from {file}", if replaced { "replaced" } else { "added" }),
        });
    };
    macro_rules! upsert {
        ($kind:literal, $($field:ident).+) => {
            for o in &from.$($field).+ {
                let key = crate::snapshot::key_of(&o.metadata);
                let replaced = upsert(&mut into.$($field).+, o.clone(), &key, |x| &x.metadata);
                put($kind, key, replaced);
            }
        };
    }
    upsert!("Node", nodes);
    upsert!("Service", services);
    for o in &from.endpoint_slices {
        let key = (o.namespace.to_string(), o.name.to_string());
        let at = into.endpoint_slices.iter().position(|x| x.namespace == o.namespace && x.name == o.name);
        match at {
            Some(i) => into.endpoint_slices[i] = o.clone(),
            None => into.endpoint_slices.push(o.clone()),
        }
        put("EndpointSlice", key, at.is_some());
    }
    upsert!("Namespace", namespaces);
    upsert!("Pod", pods);
    upsert!("Event", events);
    upsert!("ConfigMap", config_maps);
    upsert!("DaemonSet", daemon_sets);
    upsert!("Deployment", deployments);
    upsert!("Lease", leases);
    upsert!("IPAddressPool", metallb.ip_address_pools);
    upsert!("L2Advertisement", metallb.l2_advertisements);
    upsert!("BGPAdvertisement", metallb.bgp_advertisements);
    upsert!("BGPPeer", metallb.bgp_peers);
    upsert!("Community", metallb.communities);
    upsert!("ServiceL2Status", metallb.service_l2_statuses);
    upsert!("BFDProfile", metallb.bfd_profiles);
    upsert!("ServiceBGPStatus", metallb.service_bgp_statuses);
    upsert!("FRRConfiguration", metallb.frr_configurations);
    upsert!("CiliumLoadBalancerIPPool", cilium.ip_pools);
    upsert!("CiliumL2AnnouncementPolicy", cilium.l2_policies);
    upsert!("CiliumNode", cilium.nodes);
    if done.is_empty() {
        return Err(refuse("holds no Kubernetes objects".into()));
    }
    Ok(done)
}

/// Replaces the object with the same namespace and name, else appends; true when it replaced.
fn upsert<T, M: crate::snapshot::ObjectKey>(
    list: &mut Vec<T>,
    object: T,
    key: &(String, String),
    meta: impl Fn(&T) -> &M,
) -> bool {
    match list.iter_mut().find(|x| crate::snapshot::key_of(meta(x)) == *key) {
        Some(slot) => {
            *slot = object;
            true
        }
        None => {
            list.push(object);
            false
        }
    }
}
