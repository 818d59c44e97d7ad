//! kube-vip's Service load balancing (spec cilium.md §6): only whether it runs and which
//! Services it claims; its Lease election is not modelled.

use crate::snapshot::workload::Container;
use crate::snapshot::Service;
use serde::Serialize;

use crate::snapshot::Snapshot;

pub const DEFAULT_CLASS: &str = "kube-vip.io/kube-vip-class";

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Setup {
    pub installed: bool,
    pub evidence: Vec<String>,
    /// `svc_enable=true`: kube-vip load-balances Services, not only the control-plane VIP.
    pub services: bool,
    /// `lb_class_only=true`: class-less Services are left alone.
    pub class_only: bool,
    pub class_name: String,
}

fn env<'a>(c: &'a Container, name: &str) -> Option<&'a str> {
    c.env.iter().flatten().find(|e| e.name == name).and_then(|e| e.value.as_deref())
}

pub fn discover(snap: &Snapshot) -> Setup {
    let is_kube_vip = |c: &Container| c.image.as_deref().is_some_and(|i| i.contains("kube-vip"));
    // The first by namespace/name, so snapshot order does not matter.
    let mut daemon_sets: Vec<_> = snap.daemon_sets.iter().collect();
    daemon_sets
        .sort_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
    let mut pods: Vec<_> = snap.pods.iter().collect();
    pods.sort_by(|a, b| (&a.metadata.namespace, &a.metadata.name).cmp(&(&b.metadata.namespace, &b.metadata.name)));
    let from_ds = daemon_sets.into_iter().find_map(|d| {
        let c = d.spec.as_ref()?.template.spec.as_ref()?.containers.iter().find(|c| is_kube_vip(c))?;
        Some((
            format!(
                "DaemonSet {}/{}",
                d.metadata.namespace.as_deref().unwrap_or(""),
                d.metadata.name.as_deref().unwrap_or("")
            ),
            c,
        ))
    });
    let from_pod = pods.into_iter().find_map(|p| {
        let c = p.spec.as_ref()?.containers.iter().find(|c| is_kube_vip(c))?;
        Some((
            format!(
                "Pod {}/{}",
                p.metadata.namespace.as_deref().unwrap_or(""),
                p.metadata.name.as_deref().unwrap_or("")
            ),
            c,
        ))
    });
    let Some((evidence, container)) = from_ds.or(from_pod) else {
        return Setup {
            installed: false,
            evidence: Vec::new(),
            services: false,
            class_only: false,
            class_name: DEFAULT_CLASS.into(),
        };
    };
    Setup {
        installed: true,
        evidence: vec![evidence],
        services: env(container, "svc_enable") == Some("true"),
        class_only: env(container, "lb_class_only") == Some("true"),
        class_name: env(container, "lb_class_name").filter(|s| !s.is_empty()).unwrap_or(DEFAULT_CLASS).to_string(),
    }
}

pub fn handles(setup: &Setup, svc: &Service) -> bool {
    let spec = svc.spec.as_ref();
    if !setup.installed || !setup.services || spec.and_then(|s| s.type_.as_deref()) != Some("LoadBalancer") {
        return false;
    }
    match spec.and_then(|s| s.load_balancer_class.as_deref()) {
        None => !setup.class_only,
        Some(c) => c == setup.class_name,
    }
}
