//! What could not be read, and what that leaves unknown: a resource the answer needs stops the
//! run (exit 3) rather than let the engines guess; any other becomes LBD230, naming what is
//! unknown because of it and the `kubectl auth can-i` command that checks the permission.

use crate::report::{Code, Finding, ObjectRef};
use crate::snapshot::{Denied, Snapshot, LIST_EXPIRED_ADVICE};

/// One resource that could not be read.
#[derive(Debug, Clone)]
pub struct Gap {
    /// `pods: forbidden (list in metallb-system)`, as in `source.unreadable`.
    pub entry: String,
    /// The command that checks the permission; `None` for hand-written snapshot entries and
    /// for lists that were allowed but expired.
    pub check: Option<String>,
    /// Not a permission problem: what to do instead (a list whose continue token kept expiring).
    pub retry: Option<&'static str>,
    /// The answer cannot be given without it.
    pub required: bool,
    /// What is unknown without it; `None` when nothing lbdoctor concludes depends on it.
    pub unknown: Option<&'static str>,
    /// `pods -n kube-system`, `configmaps/cilium-config -n kube-system`: the finding's object.
    pub object: String,
}

/// Every gap in the snapshot, in `unreadable` order.
pub fn gaps(snap: &Snapshot) -> Vec<Gap> {
    let info = &snap.info;
    if info.unreadable.is_empty() {
        return Vec::new();
    }
    let metallb = crate::metallb::install::discover(snap, &Default::default());
    let cilium = crate::cilium::install::discover(snap);
    let legacy_required = info.unreadable_required();
    info.unreadable
        .iter()
        .map(|entry| match info.denied.iter().find(|d| &d.summary() == entry) {
            Some(d) => Gap {
                entry: entry.clone(),
                check: (!d.is_expired_list()).then(|| d.can_i()),
                retry: d.is_expired_list().then_some(LIST_EXPIRED_ADVICE),
                required: required(d, &metallb.namespace, cilium.installed.then_some(cilium.namespace.as_str())),
                unknown: consequence(&d.resource, &d.name, cilium.installed),
                object: d.object_with_scope(),
            },
            None => {
                let resource = entry.split([':', ' ']).next().unwrap_or("");
                Gap {
                    entry: entry.clone(),
                    check: None,
                    retry: None,
                    required: legacy_required.contains(entry),
                    unknown: consequence(resource, "", cilium.installed),
                    object: resource.to_string(),
                }
            }
        })
        .collect()
}

fn required(d: &Denied, metallb_namespace: &str, cilium_namespace: Option<&str>) -> bool {
    let plural = d.resource.split('.').next().unwrap_or("");
    match plural {
        "nodes" | "services" | "endpointslices" => true,
        // MetalLB's configuration is read as a whole: a missing kind changes every verdict.
        "ipaddresspools" | "l2advertisements" | "bgpadvertisements" | "bgppeers" | "communities" | "bfdprofiles" => {
            true
        }
        "ciliumloadbalancerippools" | "ciliuml2announcementpolicies" | "ciliumnodes" => true,
        // Speakers (and Cilium agents) tell which nodes can announce at all.
        "pods" => {
            d.namespace.is_empty() || d.namespace == metallb_namespace || Some(d.namespace.as_str()) == cilium_namespace
        }
        "configmaps" => d.name == crate::cilium::install::CONFIG_MAP && Some(d.namespace.as_str()) == cilium_namespace,
        _ => false,
    }
}

fn consequence(resource: &str, name: &str, cilium: bool) -> Option<&'static str> {
    Some(match resource.split('.').next().unwrap_or("") {
        "events" => "the Events written on Services (nodeAssigned, AllocationFailed, IPAllocated, ServiceLB's): the announcer and allocation MetalLB last reported, where no ServiceL2Status says it",
        "servicel2statuses" => "the announcer MetalLB's speakers report (ServiceL2Status): observed announcers come from Events alone",
        "servicebgpstatuses" => "the nodes MetalLB says advertise over BGP (ServiceBGPStatus): BGP drift (LBD132) is not checked",
        "frrconfigurations" => "what the speakers wrote for FRR (FRRConfiguration): frr-k8s drift (LBD215) is not checked",
        "leases" if cilium => "who holds Cilium's L2 Leases: the observed L2 announcer of Cilium Services",
        "daemonsets" | "deployments" => "the implementations' own settings (flags, environment, image versions): defaults are assumed where Pods do not show them",
        "namespaces" => "Namespace labels: IPAddressPools with namespaceSelectors match no namespace",
        "configmaps" if cilium && (name.is_empty() || name == crate::cilium::install::CONFIG_MAP) => {
            "Cilium's settings (cilium-config): its defaults are assumed"
        }
        "pods" => "Pods outside MetalLB's namespace (Cilium agents, k3s svclb): whether they run, and their readiness",
        "pods/log" => "what the speakers logged (announcements, withdrawals, memberlist changes): the history is the cluster's current state alone",
        "nodes" | "services" | "endpointslices" => "every verdict",
        // Collected for the record: no verdict reads them, but a snapshot without them is not the whole story.
        "configmaps" if name == "metallb-excludel2" => {
            "the interfaces MetalLB's speakers never announce on (metallb-excludel2): not in the snapshot"
        }
        "configmaps" if name == crate::metallb::detect::LEGACY_CONFIG_MAP => {
            "MetalLB's legacy configuration (ConfigMap config, before v0.13.0): a leftover is not found (LBD218)"
        }
        "configmaps" if name == "kube-proxy" => "kube-proxy's settings (mode, strictARP): not in the snapshot",
        // cilium-config where Cilium does not run: only a probe.
        "configmaps" => return None,
        "leases" => "who holds the Leases (Cilium's L2 announcements, leader election): not in the snapshot",
        _ => "every verdict that depends on it",
    })
}

/// LBD230 for reads refused outside the snapshot (`history`'s speaker logs).
pub fn refused_findings(refused: &[Denied]) -> Vec<Finding> {
    let gaps = refused.iter().map(|d| Gap {
        entry: d.summary(),
        check: Some(d.can_i()),
        retry: None,
        required: false,
        unknown: consequence(&d.resource, &d.name, false),
        object: d.object_with_scope(),
    });
    lbd230(gaps.collect())
}

/// LBD230: a resource that could not be read, for every gap that does not stop the run.
pub fn findings(snap: &Snapshot) -> Vec<Finding> {
    lbd230(gaps(snap))
}

fn lbd230(gaps: Vec<Gap>) -> Vec<Finding> {
    gaps.into_iter()
        .filter(|g| !g.required)
        .filter_map(|g| Some((g.unknown?, g)))
        .map(|(unknown, g)| {
            Finding::new(
                Code::LBD230,
                format!("could not read {}; unknown: {unknown}", g.entry),
                match (&g.check, &g.retry) {
                    (_, Some(retry)) => retry.to_string(),
                    (Some(check), None) => {
                        format!("grant get/list on it to whoever runs lbdoctor; check with `{check}`")
                    }
                    (None, None) => "collect the snapshot with permission to read it".into(),
                },
                vec![ObjectRef::verbatim(g.object)],
            )
        })
        .collect()
}
