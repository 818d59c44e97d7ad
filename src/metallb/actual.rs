//! What the cluster says happened: ServiceL2Status objects, then `nodeAssigned` Events (spec §3.6, §4.6).

use std::collections::{BTreeSet, HashMap};

use compact_str::CompactString;

use k8s_openapi::api::core::v1::Event;
use k8s_openapi::jiff::Timestamp;

use crate::snapshot::Snapshot;

#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub nodes: Vec<CompactString>,
    pub source: &'static str,
}

/// Observed layer-2 announcers per Service `(namespace, name)`.
pub struct ActualIndex {
    statuses: HashMap<(String, String), BTreeSet<String>>,
    events: HashMap<(String, String), (Option<Timestamp>, BTreeSet<String>)>,
    statuses_present: bool,
    /// From a bundle's speaker logs: per IP, the nodes whose log ends announcing it over layer 2.
    logs: HashMap<String, BTreeSet<String>>,
    /// Every speaker Pod of the snapshot has its log in a bundle: an IP no log announces is
    /// announced by nobody, rather than unknown.
    logs_complete: bool,
}

const NODE_LABEL: &str = "metallb.io/node";
const SVC_NAME_LABEL: &str = "metallb.io/service-name";
const SVC_NS_LABEL: &str = "metallb.io/service-namespace";

impl ActualIndex {
    pub fn new(snap: &Snapshot, metallb_namespace: &str) -> ActualIndex {
        let mut statuses: HashMap<(String, String), BTreeSet<String>> = HashMap::new();
        let relevant: Vec<_> =
            snap.metallb.service_l2_statuses.iter().filter(|s| s.namespace() == metallb_namespace).collect();
        for s in &relevant {
            let labels = s.labels();
            let status = s.status.as_ref();
            let pick = |from_status: Option<&String>, label: &str| {
                from_status
                    .filter(|v| !v.is_empty())
                    .cloned()
                    .or_else(|| labels.get(label).cloned())
                    .unwrap_or_default()
            };
            let ns = pick(status.map(|st| &st.service_namespace), SVC_NS_LABEL);
            let name = pick(status.map(|st| &st.service_name), SVC_NAME_LABEL);
            let node = pick(status.map(|st| &st.node), NODE_LABEL);
            if !name.is_empty() && !node.is_empty() {
                statuses.entry((ns, name)).or_default().insert(node);
            }
        }
        let mut events: HashMap<(String, String), (Option<Timestamp>, BTreeSet<String>)> = HashMap::new();
        for e in &snap.events {
            let Some(node) = layer2_node_of(e) else {
                continue;
            };
            let obj = &e.involved_object;
            if obj.kind.as_deref() != Some("Service") {
                continue;
            }
            let key = (obj.namespace.clone().unwrap_or_default(), obj.name.clone().unwrap_or_default());
            let when = event_time(e);
            let entry = events.entry(key).or_insert_with(|| (when, BTreeSet::new()));
            // Keep only the newest events: an older nodeAssigned is history, not the present.
            if when > entry.0 {
                *entry = (when, BTreeSet::from([node]));
            } else if when == entry.0 {
                entry.1.insert(node);
            }
        }
        let (logs, logs_complete) = speaker_logs(snap);
        ActualIndex { statuses, events, statuses_present: !relevant.is_empty(), logs, logs_complete }
    }

    /// `None` when nothing in the snapshot says who announces. ServiceL2Status first, then the
    /// latest `nodeAssigned` Events, then the speakers' own logs (a bundle's) for the Service's
    /// `ips` (as MetalLB writes them).
    pub fn for_service(&self, namespace: &str, name: &str, ips: &[CompactString]) -> Option<Observed> {
        let key = (namespace.to_string(), name.to_string());
        if let Some(nodes) = self.statuses.get(&key) {
            return Some(Observed {
                nodes: nodes.iter().map(|n| n.as_str().into()).collect(),
                source: "serviceL2Status",
            });
        }
        if let Some((_, nodes)) = self.events.get(&key) {
            return Some(Observed { nodes: nodes.iter().map(|n| n.as_str().into()).collect(), source: "events" });
        }
        let logged: BTreeSet<&String> = ips.iter().filter_map(|ip| self.logs.get(ip.as_str())).flatten().collect();
        if !logged.is_empty() {
            return Some(Observed {
                nodes: logged.into_iter().map(|n| n.as_str().into()).collect(),
                source: "speakerLogs",
            });
        }
        // Statuses were collected and none names this Service: nobody holds it.
        if self.statuses_present {
            return Some(Observed { nodes: Vec::new(), source: "serviceL2Status" });
        }
        (self.logs_complete && !ips.is_empty()).then(|| Observed { nodes: Vec::new(), source: "speakerLogs" })
    }
}

/// Per IP, the nodes whose speaker log (from a bundle) ends announcing it over layer 2, and
/// whether every speaker Pod of the snapshot has its log there. The Pod is the node.
fn speaker_logs(snap: &Snapshot) -> (HashMap<String, BTreeSet<String>>, bool) {
    let logs: Vec<&crate::snapshot::bundle::PodLog> = snap.bundled_speaker_logs().collect();
    if logs.is_empty() {
        return (HashMap::new(), false);
    }
    let node_of = |pod: &str| {
        snap.pods
            .iter()
            .find(|p| p.metadata.name.as_deref() == Some(pod))
            .and_then(|p| p.spec.as_ref()?.node_name.clone())
    };
    let mut by_ip: HashMap<String, BTreeSet<String>> = HashMap::new();
    for log in &logs {
        let Some(node) = node_of(&log.pod) else { continue };
        for ip in &log.layer2_at_end {
            by_ip.entry(ip.clone()).or_default().insert(node.clone());
        }
    }
    let speakers: Vec<&str> = snap
        .pods
        .iter()
        .filter(|p| crate::metallb::install::is_speaker_labelled(p.metadata.labels.as_ref()))
        .filter_map(|p| p.metadata.name.as_deref())
        .collect();
    let complete = !speakers.is_empty() && speakers.iter().all(|s| logs.iter().any(|l| l.pod == *s));
    (by_ip, complete)
}

/// The node of a speaker `nodeAssigned` Event for layer 2.
fn layer2_node_of(e: &Event) -> Option<String> {
    if e.reason.as_deref() != Some("nodeAssigned") {
        return None;
    }
    let msg = e.message.as_deref()?;
    let rest = msg.strip_prefix("announcing from node \"")?;
    let (node, tail) = rest.split_once('"')?;
    (tail == " with protocol \"layer2\"").then(|| node.to_string())
}

fn event_time(e: &Event) -> Option<Timestamp> {
    e.last_timestamp
        .as_ref()
        .map(|t| t.0)
        .or_else(|| e.event_time.as_ref().map(|t| t.0))
        .or_else(|| e.first_timestamp.as_ref().map(|t| t.0))
        .or_else(|| e.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// Per Service, the nodes whose speakers report BGP peers for it (ServiceBGPStatus, spec §9.5).
pub struct BgpActualIndex {
    by_service: HashMap<(String, String), std::collections::BTreeMap<String, BTreeSet<String>>>,
    present: bool,
}

impl BgpActualIndex {
    pub fn new(snap: &Snapshot, metallb_namespace: &str) -> BgpActualIndex {
        let mut by_service: HashMap<(String, String), std::collections::BTreeMap<String, BTreeSet<String>>> =
            HashMap::new();
        let relevant: Vec<_> =
            snap.metallb.service_bgp_statuses.iter().filter(|s| s.namespace() == metallb_namespace).collect();
        for s in &relevant {
            let labels = s.labels();
            let status = s.status.clone().unwrap_or_default();
            let pick = |from_status: String, label: &str| {
                if from_status.is_empty() {
                    labels.get(label).cloned().unwrap_or_default()
                } else {
                    from_status
                }
            };
            let ns = pick(status.service_namespace, SVC_NS_LABEL);
            let name = pick(status.service_name, SVC_NAME_LABEL);
            let node = pick(status.node, NODE_LABEL);
            if name.is_empty() || node.is_empty() || status.peers.is_empty() {
                continue;
            }
            by_service.entry((ns, name)).or_default().entry(node).or_default().extend(status.peers);
        }
        BgpActualIndex { by_service, present: !relevant.is_empty() }
    }

    /// `None` when the snapshot holds no ServiceBGPStatus at all (nothing is known).
    pub fn for_service(&self, namespace: &str, name: &str) -> Option<Vec<crate::report::BgpActual>> {
        if !self.present {
            return None;
        }
        let nodes = self.by_service.get(&(namespace.to_string(), name.to_string()));
        Some(
            nodes
                .into_iter()
                .flatten()
                .map(|(node, peers)| crate::report::BgpActual {
                    node: node.clone(),
                    peers: peers.iter().cloned().collect(),
                })
                .collect(),
        )
    }
}
