//! Who should write a Service's `status.loadBalancer`, and who did (spec cilium.md §4).

use crate::snapshot::Service;

use super::implementations::Implementations;
use super::world::World;
use super::Evaluation;
use crate::cilium::{lbipam, nodeipam};
use crate::metallb::service::{handles_class, service_type};
use crate::report::{Code, Finding, Implementation, ObjectRef, Ownership, StatusWriter};
use crate::{kubevip, servicelb};

pub(crate) fn claimants(world: &World, imps: &Implementations, svc: &Service) -> Vec<Implementation> {
    if service_type(svc) != "LoadBalancer" {
        return Vec::new();
    }
    let c = &imps.cilium;
    let mut out = Vec::new();
    if world.setup.installed && handles_class(svc, &world.setup.lb_class) {
        out.push(Implementation::Metallb);
    }
    if c.installed && c.node_ipam && nodeipam::handles(svc, c.default_is("nodeipam")).is_ok() {
        out.push(Implementation::CiliumNodeipam);
    }
    // The ledger holds exactly the Services LB-IPAM is responsible for.
    let key = crate::snapshot::key_of(&svc.metadata);
    if imps.ledger_index.contains_key(&key) {
        out.push(Implementation::CiliumLbipam);
    }
    if imps.servicelb.installed && servicelb::handles(svc) {
        out.push(Implementation::K3sServicelb);
    }
    if kubevip::handles(&imps.kube_vip, svc) {
        out.push(Implementation::KubeVip);
    }
    out
}

fn manager_implementation(manager: &str) -> Option<Implementation> {
    Some(match manager {
        "cilium-operator-lb-ipam" => Implementation::CiliumLbipam,
        m if m.starts_with("cilium-operator") => Implementation::CiliumNodeipam,
        m if m == "controller" || m.contains("metallb") => Implementation::Metallb,
        m if m.contains("k3s") => Implementation::K3sServicelb,
        m if m.contains("kube-vip") => Implementation::KubeVip,
        _ => return None,
    })
}

/// Annotation prefixes and condition types that name an implementation.
const MARKS: &[(&str, &str)] = &[
    ("metallb.io/", "metallb"),
    ("metallb.universe.tf/", "metallb"),
    ("lbipam.cilium.io/", "cilium-lbipam"),
    ("io.cilium/lb-ipam-", "cilium-lbipam"),
    ("io.cilium.nodeipam/", "cilium-nodeipam"),
    ("kube-vip.io/", "kube-vip"),
    ("svccontroller.k3s.cattle.io/", "k3s-servicelb"),
];

/// `names`: where the evidence lists are held once (most Services of a cluster carry the same).
pub(crate) fn ownership(
    svc: &Service,
    claimants: Vec<Implementation>,
    names: &crate::intern::Interned<[String]>,
) -> Ownership {
    let mut status_writers: Vec<StatusWriter> = svc
        .status_writers
        .iter()
        .map(|m| {
            let manager = m.manager.clone().unwrap_or_default();
            StatusWriter {
                implementation: manager_implementation(&manager),
                manager,
                time: m.time.as_ref().map(|t| t.0.to_string()),
            }
        })
        .collect();
    status_writers.sort_by(|a, b| (&a.time, &a.manager).cmp(&(&b.time, &b.manager)));
    let mut evidence = Vec::new();
    for key in svc.metadata.annotations.iter().flatten().map(|(k, _)| k) {
        if let Some((_, imp)) = MARKS.iter().find(|(prefix, _)| key.starts_with(prefix)) {
            evidence.push(format!("annotation {key} ({imp})"));
        }
    }
    for label in svc.metadata.labels.iter().flatten().map(|(k, _)| k) {
        if label.starts_with("svccontroller.k3s.cattle.io/") {
            evidence.push(format!("label {label} (k3s-servicelb)"));
        }
    }
    for c in svc.status.iter().flat_map(|s| s.conditions.iter().flatten()) {
        if c.type_ == lbipam::CONDITION || c.type_ == lbipam::LEGACY_CONDITION {
            evidence.push(format!("condition {}={} ({}) (cilium-lbipam)", c.type_, c.status, c.reason));
        }
    }
    Ownership { claimants: claimants.into(), status_writers: status_writers.into(), evidence: names.hold(evidence) }
}

/// The implementation a report names: the one claimant, or among several the one that last
/// wrote status (if managedFields tell); `none` when an implementation runs but none claims it;
/// `unknown` when no implementation is visible at all.
pub(crate) fn decide(anything_installed: bool, o: &Ownership) -> Implementation {
    match &*o.claimants {
        [one] => *one,
        [] if anything_installed => Implementation::None,
        [] => Implementation::Unknown,
        many => o
            .status_writers
            .iter()
            .rev()
            .find_map(|w| w.implementation.filter(|i| many.contains(i)))
            .unwrap_or(Implementation::Unknown),
    }
}

pub(crate) fn finding(
    world: &World,
    imps: &Implementations,
    e: &Evaluation,
    o: &Ownership,
    anything_installed: bool,
) -> Option<Finding> {
    let svc = e.svc;
    if service_type(svc) != "LoadBalancer" || !anything_installed {
        return None;
    }
    let class = svc.spec.as_ref().and_then(|s| s.load_balancer_class.as_deref());
    let object = ObjectRef::new("Service", e.namespace, e.name);
    let writers: Vec<String> = o.status_writers.iter().map(|w| w.manager.clone()).collect();
    match o.claimants.len() {
        0 => {
            let c = &imps.cilium;
            let (message, hint) = match class {
                None if c.installed && c.default_is("nodeipam") && !c.node_ipam => (
                    "the Service has no loadBalancerClass, and Cilium's default-lb-service-ipam is nodeipam, but enable-node-ipam is off: nothing writes its status".to_string(),
                    "Set enable-node-ipam: \"true\" in cilium-config (Helm nodeIPAM.enabled=true) and restart cilium-operator, or set default-lb-service-ipam back to lbipam".to_string(),
                ),
                None => (
                    format!("the Service has no loadBalancerClass, and no installed implementation handles class-less Services ({})", installed_summary(world, imps)),
                    "Check which controller should own it: MetalLB without --lb-class, Cilium with default-lb-service-ipam lbipam/nodeipam, or k3s ServiceLB".to_string(),
                ),
                // Cilium's own classes, with the switch that is off (cilium spec: a class is
                // LB-IPAM's only while its feature is enabled).
                Some(lbipam::CLASS_BGP) if c.installed && !c.bgp_control_plane => (
                    format!(
                        "its loadBalancerClass {} asks for Cilium's BGP control plane, and cilium-config has enable-bgp-control-plane off: LB-IPAM gives it no IP and nothing advertises it",
                        lbipam::CLASS_BGP
                    ),
                    "Set enable-bgp-control-plane: \"true\" in kube-system/cilium-config (Helm bgpControlPlane.enabled=true) and restart cilium-operator and the agents, or give the Service a class that is served (io.cilium/l2-announcer with L2 announcements on)".to_string(),
                ),
                Some(lbipam::CLASS_L2) if c.installed && !c.l2_announcements => (
                    format!(
                        "its loadBalancerClass {} asks for Cilium's L2 announcements, and cilium-config has enable-l2-announcements off: LB-IPAM gives it no IP and nothing answers ARP for it",
                        lbipam::CLASS_L2
                    ),
                    "Set enable-l2-announcements: \"true\" in kube-system/cilium-config (Helm l2announcements.enabled=true) and restart cilium-operator and the agents, or give the Service a class that is served".to_string(),
                ),
                Some(class) => (
                    format!("its loadBalancerClass {class} is handled by no installed implementation ({})", installed_summary(world, imps)),
                    format!("Use a class an installed controller serves (Cilium: {}, {}, {}; MetalLB: its --lb-class), or install the controller for {class}", nodeipam::CLASS, lbipam::CLASS_L2, lbipam::CLASS_BGP),
                ),
            };
            Some(Finding::new(Code::LBD120, message, hint, vec![object]))
        }
        1 => None,
        _ => {
            let names: Vec<&str> = o.claimants.iter().map(|c| c.as_str()).collect();
            let mut message = format!(
                "claimed by {}: each writes status.loadBalancer.ingress, so the IPs flap or one implementation's addresses are stripped by the other",
                names.join(" and ")
            );
            if !writers.is_empty() {
                message.push_str(&format!("; status written by field managers {}", writers.join(", ")));
            }
            if !o.evidence.is_empty() {
                message.push_str(&format!("; evidence: {}", o.evidence.join(", ")));
            }
            Some(Finding::new(Code::LBD120, message, conflict_hint(world, imps, class, &o.claimants), vec![object]))
        }
    }
}

/// How to make each claimant let go, and the classes exactly one installed implementation serves.
fn conflict_hint(world: &World, imps: &Implementations, class: Option<&str>, claimants: &[Implementation]) -> String {
    let mut ways: Vec<String> = Vec::new();
    for c in claimants {
        ways.push(match c {
            Implementation::Metallb if world.setup.lb_class.is_empty() => {
                "start MetalLB's controller and speakers with --lb-class=<class> (they then skip class-less Services)"
                    .into()
            }
            Implementation::Metallb => {
                format!("change the Service's class away from {} (MetalLB's --lb-class)", world.setup.lb_class)
            }
            Implementation::CiliumNodeipam if class.is_none() => "set Cilium's default-lb-service-ipam to none".into(),
            Implementation::CiliumNodeipam => "change the Service's class away from io.cilium/node".into(),
            Implementation::CiliumLbipam => "set Cilium's default-lb-service-ipam to none (class-less Services)".into(),
            Implementation::K3sServicelb => "run k3s with --disable=servicelb".into(),
            Implementation::KubeVip => "set kube-vip's lb_class_only=true".into(),
            Implementation::None | Implementation::Unknown => continue,
        });
    }
    let c = &imps.cilium;
    let mut classes: Vec<String> = Vec::new();
    if world.setup.installed && !world.setup.lb_class.is_empty() {
        classes.push(format!("{} (MetalLB)", world.setup.lb_class));
    }
    if c.installed && c.node_ipam {
        classes.push(format!("{} (Cilium Node IPAM)", nodeipam::CLASS));
    }
    if c.installed && c.lb_ipam && !imps.ledger.pools.is_empty() && c.l2_announcements {
        classes.push(format!("{} (Cilium LB-IPAM + L2)", lbipam::CLASS_L2));
    }
    if c.installed && c.lb_ipam && !imps.ledger.pools.is_empty() && c.bgp_control_plane {
        classes.push(format!("{} (Cilium LB-IPAM + BGP)", lbipam::CLASS_BGP));
    }
    if imps.kube_vip.installed && imps.kube_vip.services {
        classes.push(format!("{} (kube-vip)", imps.kube_vip.class_name));
    }
    let mut hint = format!("Leave one owner: {}", ways.join("; or "));
    if !classes.is_empty() {
        hint.push_str(&format!(
            "; or give the Service a loadBalancerClass only one of them serves: {}",
            classes.join(", ")
        ));
    }
    hint
}

fn installed_summary(world: &World, imps: &Implementations) -> String {
    let mut parts = Vec::new();
    if world.setup.installed {
        if world.setup.lb_class.is_empty() {
            parts.push("MetalLB for class-less Services".to_string());
        } else {
            parts.push(format!("MetalLB for class {}", world.setup.lb_class));
        }
    }
    let c = &imps.cilium;
    if c.installed {
        parts.push(format!(
            "Cilium with node IPAM {}, LB-IPAM {} ({} pools), default-lb-service-ipam {}, L2 announcements {}, BGP control plane {}",
            on_off(c.node_ipam),
            on_off(c.lb_ipam),
            imps.ledger.pools.len(),
            c.default_lb_service_ipam,
            on_off(c.l2_announcements),
            on_off(c.bgp_control_plane)
        ));
    }
    if imps.servicelb.installed {
        parts.push("k3s ServiceLB for class-less Services".into());
    }
    if imps.kube_vip.installed {
        parts.push(if imps.kube_vip.services {
            format!("kube-vip for class {}", imps.kube_vip.class_name)
        } else {
            "kube-vip without svc_enable".into()
        });
    }
    parts.join("; ")
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}
