//! The speaker's service-level pipeline before any protocol handler runs (speaker spec §3).

use std::net::IpAddr;

use crate::snapshot::Service;

use super::config::Config;
use crate::k8s::ip::parse_go_ip;
pub use crate::report::metallb::Withdraw;

/// `filterByLoadBalancerClass` (spec §3.1): does MetalLB with `--lb-class=lb_class` process it?
pub fn handles_class(svc: &Service, lb_class: &str) -> bool {
    class_handled(svc.spec.as_ref().and_then(|s| s.load_balancer_class.as_deref()), lb_class)
}

/// The same filter on the class alone (the controller's and the speakers' are identical).
pub fn class_handled(class: Option<&str>, lb_class: &str) -> bool {
    match class {
        None => lb_class.is_empty(),
        Some(class) => class == lb_class,
    }
}

/// `metallb.io/allow-shared-ip` or its legacy name is present; the value does not matter (spec §4.2).
pub fn has_shared_ip_annotation(svc: &Service) -> bool {
    svc.metadata.annotations.as_ref().is_some_and(|a| {
        a.contains_key("metallb.io/allow-shared-ip") || a.contains_key("metallb.universe.tf/allow-shared-ip")
    })
}

pub fn service_type(svc: &Service) -> &str {
    svc.spec.as_ref().and_then(|s| s.type_.as_deref()).unwrap_or("ClusterIP")
}

/// The raw `status.loadBalancer.ingress[].ip` values, `""` for hostname-only entries.
pub fn ingress_ips(svc: &Service) -> Vec<String> {
    ingress_ip_texts(svc).map(str::to_string).collect()
}

/// [`ingress_ips`] borrowed.
pub fn ingress_ip_texts(svc: &Service) -> impl Iterator<Item = &str> {
    svc.status
        .iter()
        .filter_map(|s| s.load_balancer.as_ref())
        .flat_map(|lb| lb.ingress.iter().flatten())
        .map(|i| i.ip.as_deref().unwrap_or_default())
}

/// Checks 2 and 4-6 of `SetBalancer`: on success, the pool index and the parsed ingress IPs.
pub fn service_level(svc: &Service, config: &Config) -> Result<(usize, Vec<IpAddr>), Withdraw> {
    if service_type(svc) != "LoadBalancer" {
        return Err(Withdraw::NotLoadBalancer);
    }
    let raw = ingress_ips(svc);
    if raw.is_empty() {
        return Err(Withdraw::NoIpAllocated);
    }
    let ips: Vec<IpAddr> = raw.iter().map(|s| parse_go_ip(s)).collect::<Option<_>>().ok_or(Withdraw::InvalidIp)?;
    pool_for(config, &ips).map(|p| (p, ips)).ok_or(Withdraw::IpNotAllowed)
}

/// `poolFor`: the pool whose CIDRs hold every IP.
pub fn pool_for(config: &Config, ips: &[IpAddr]) -> Option<usize> {
    config.pools.iter().position(|p| ips.iter().all(|ip| p.cidrs.iter().any(|c| c.contains(ip))))
}
