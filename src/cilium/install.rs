//! Whether Cilium runs and which of its load-balancer features are on, from `cilium-config`
//! and the agent/operator workloads (DESIGN §5).

use std::collections::BTreeMap;

use crate::snapshot::Pod;

use crate::k8s::go_duration_seconds;
use crate::metallb::install::{image_tag, pod_is_live};
pub use crate::report::cilium::{Agent, LeaseTiming, Setup};
use crate::snapshot::Snapshot;

pub const CONFIG_MAP: &str = "cilium-config";
pub const DEFAULT_NAMESPACE: &str = "kube-system";

impl Setup {
    pub fn default_is(&self, value: &str) -> bool {
        self.default_lb_service_ipam == value
    }

    /// How the node's agent Pod stands, for messages: `agent Pod cilium-x is not Ready (phase Running)`.
    pub fn agent_state(&self, node: &str) -> String {
        let Some(agents) = &self.agents else {
            return "its agent Pod is not in the snapshot".into();
        };
        match agents.iter().find(|a| a.node.as_deref() == Some(node)) {
            None => "no cilium agent Pod runs on it".into(),
            Some(a) => format!(
                "its cilium agent Pod {} is not Ready (phase {})",
                a.pod,
                a.phase.as_deref().unwrap_or("unknown")
            ),
        }
    }

    pub fn agent_ready_on(&self, node: &str) -> Option<bool> {
        let agents = self.agents.as_ref()?;
        Some(agents.iter().any(|a| a.ready && a.node.as_deref() == Some(node)))
    }
}

fn is_agent(pod: &Pod) -> bool {
    let labels = pod.metadata.labels.as_ref();
    labels
        .is_some_and(|l| l.get("k8s-app") == Some("cilium") || l.get("app.kubernetes.io/name") == Some("cilium-agent"))
}

fn is_operator(pod: &Pod) -> bool {
    pod.metadata.labels.as_ref().is_some_and(|l| {
        l.get("io.cilium/app") == Some("operator") || l.get("app.kubernetes.io/name") == Some("cilium-operator")
    })
}

fn cilium_image(image: &str) -> bool {
    let repo = image.split(['@', ':']).next().unwrap_or("");
    repo.ends_with("/cilium") || repo.ends_with("cilium/cilium") || repo.contains("cilium/operator")
}

/// The operator Deployment's image, else the first operator Pod's (by name).
fn operator_image(snap: &Snapshot) -> Option<String> {
    let from_deployment = snap
        .deployments
        .iter()
        .filter(|d| d.metadata.name.as_deref() == Some("cilium-operator"))
        .min_by(|a, b| a.metadata.namespace.cmp(&b.metadata.namespace))
        .and_then(|d| d.spec.as_ref())
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.containers.first())
        .and_then(|c| c.image.clone());
    from_deployment.or_else(|| {
        let mut pods: Vec<&Pod> = snap.pods.iter().filter(|p| is_operator(p)).collect();
        pods.sort_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
        pods.first().and_then(|p| p.spec.as_ref()).and_then(|s| s.containers.first()).and_then(|c| c.image.clone())
    })
}

pub fn discover(snap: &Snapshot) -> Setup {
    let mut evidence = Vec::new();
    let config = snap
        .config_maps
        .iter()
        .filter(|c| c.metadata.name.as_deref() == Some(CONFIG_MAP))
        .min_by_key(|c| c.metadata.namespace.as_deref() != Some(DEFAULT_NAMESPACE));
    if let Some(c) = config {
        evidence.push(format!("ConfigMap {}/{CONFIG_MAP}", c.metadata.namespace.as_deref().unwrap_or("")));
    }
    let mut agents: Vec<&Pod> = snap.pods.iter().filter(|p| is_agent(p)).collect();
    // Snapshot order must not matter (the version and namespace come from the first one).
    agents.sort_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
    if !agents.is_empty() {
        evidence.push(format!("{} cilium agent Pod(s)", agents.len()));
    }
    if snap.pods.iter().any(is_operator) {
        evidence.push("cilium-operator Pod".into());
    }
    let agent_ds = snap
        .daemon_sets
        .iter()
        .filter(|d| {
            d.metadata.name.as_deref() == Some("cilium")
                || d.spec
                    .as_ref()
                    .and_then(|s| s.template.spec.as_ref())
                    .is_some_and(|s| s.containers.iter().any(|c| c.image.as_deref().is_some_and(cilium_image)))
        })
        .min_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
    if let Some(d) = agent_ds {
        evidence.push(format!(
            "DaemonSet {}/{}",
            d.metadata.namespace.as_deref().unwrap_or(""),
            d.metadata.name.as_deref().unwrap_or("")
        ));
    }
    if snap.deployments.iter().any(|d| d.metadata.name.as_deref() == Some("cilium-operator")) {
        evidence.push("Deployment cilium-operator".into());
    }
    let c = &snap.cilium;
    if !c.ip_pools.is_empty() || !c.l2_policies.is_empty() || !c.nodes.is_empty() {
        evidence.push("cilium.io objects".into());
    }
    let installed = !evidence.is_empty();
    let namespace = config
        .and_then(|c| c.metadata.namespace.clone())
        .or_else(|| agents.first().and_then(|p| p.metadata.namespace.as_deref().map(str::to_string)))
        .or_else(|| agent_ds.and_then(|d| d.metadata.namespace.as_deref().map(str::to_string)))
        .unwrap_or_else(|| DEFAULT_NAMESPACE.to_string());
    static EMPTY: BTreeMap<String, String> = BTreeMap::new();
    let data = config.and_then(|c| c.data.as_ref()).unwrap_or(&EMPTY);
    let flag = |key: &str, default: bool| data.get(key).map(|v| v.trim() == "true").unwrap_or(default);
    let image = agent_ds
        .and_then(|d| d.spec.as_ref())
        .and_then(|s| s.template.spec.as_ref())
        .or_else(|| agents.first().and_then(|p| p.spec.as_ref()))
        .and_then(|s| s.containers.first())
        .and_then(|c| c.image.clone());
    Setup {
        installed,
        evidence,
        namespace,
        config_found: config.is_some(),
        node_ipam: flag("enable-node-ipam", false),
        lb_ipam: flag("enable-lb-ipam", true),
        default_lb_service_ipam: data.get("default-lb-service-ipam").cloned().unwrap_or_else(|| "lbipam".into()),
        l2_announcements: flag("enable-l2-announcements", false),
        bgp_control_plane: flag("enable-bgp-control-plane", false),
        ipv4: flag("enable-ipv4", true),
        ipv6: flag("enable-ipv6", false),
        kube_proxy_replacement: data.get("kube-proxy-replacement").cloned(),
        devices: data
            .get("devices")
            .map(|d| d.split([' ', ',']).filter(|s| !s.is_empty()).map(String::from).collect())
            .filter(|d: &Vec<String>| !d.is_empty()),
        lease: LeaseTiming::sanitise(
            data.get("l2-announcements-lease-duration").map(String::as_str),
            data.get("l2-announcements-renew-deadline").map(String::as_str),
            data.get("l2-announcements-retry-period").map(String::as_str),
        ),
        version: image.as_deref().and_then(image_tag),
        operator_version: operator_image(snap).as_deref().and_then(image_tag),
        agents: (!agents.is_empty()).then(|| {
            agents
                .iter()
                .map(|p| Agent {
                    pod: p.metadata.name.as_deref().unwrap_or_default().to_string(),
                    node: p.spec.as_ref().and_then(|s| s.node_name.clone()),
                    ready: pod_is_live(p),
                    phase: p.status.as_ref().and_then(|s| s.phase.clone()),
                })
                .collect()
        }),
    }
}

impl LeaseTiming {
    /// Spec §2.1: defaults 15s/5s/2s, then Cilium's corrections in its order.
    pub fn sanitise(lease: Option<&str>, renew: Option<&str>, retry: Option<&str>) -> LeaseTiming {
        let read = |v: Option<&str>, default: f64| v.and_then(go_duration_seconds).unwrap_or(default);
        let (mut lease, mut renew, mut retry) = (read(lease, 15.0), read(renew, 5.0), read(retry, 2.0));
        let mut corrections = Vec::new();
        if lease < 1.0 {
            lease = 1.0;
            corrections.push("--l2-announcements-lease-duration must be greater than 1s, defaulting to 1s".into());
        }
        if renew < 1e-9 {
            renew = 1.0;
            corrections.push("--l2-announcements-renew-deadline must be greater than 1ns, defaulting to 1s".into());
        }
        if retry < 1e-9 {
            retry = 0.2;
            corrections.push("--l2-announcements-retry-period must be greater than 1ns, defaulting to 200ms".into());
        }
        if lease <= renew {
            renew = lease / 2.0;
            corrections.push("--l2-announcements-lease-duration must be greater than --l2-announcements-renew-deadline, defaulting to a 2/1 ratio".into());
        }
        if renew <= retry * 1.2 {
            // Cilium's message says retry-period / 2; the code sets renew-deadline / 2.
            retry = renew / 2.0;
            corrections.push("--l2-announcements-renew-deadline must be greater than --l2-announcements-retry-period * 1.20, defaulting to --l2-announcements-retry-period / 2".into());
        }
        LeaseTiming { lease_duration: lease, renew_deadline: renew, retry_period: retry, corrections }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lease_timing_corrections_follow_ciliums_order() {
        let t = LeaseTiming::sanitise(None, None, None);
        assert_eq!((t.lease_duration, t.renew_deadline, t.retry_period), (15.0, 5.0, 2.0));
        assert!(t.corrections.is_empty());
        let t = LeaseTiming::sanitise(Some("4s"), Some("4s"), Some("2s"));
        // renew becomes 2s, then 2s <= 2.4s: retry becomes renew/2 = 1s.
        assert_eq!((t.lease_duration, t.renew_deadline, t.retry_period), (4.0, 2.0, 1.0));
        assert_eq!(t.corrections.len(), 2);
        let t = LeaseTiming::sanitise(Some("500ms"), None, None);
        assert_eq!(t.lease_duration, 1.0);
    }
}
