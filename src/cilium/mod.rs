//! Cilium's load-balancer features, each a pure engine: Node IPAM (node addresses as ingress),
//! LB-IPAM (addresses from CiliumLoadBalancerIPPools) and L2 announcements (a Lease race).

pub(crate) mod install;
pub(crate) mod l2;
pub(crate) mod lbipam;
pub mod nodeipam;
pub(crate) mod restart;

use crate::snapshot::Service;

use crate::k8s::selector::Labels;

/// What LB-IPAM pools and L2 policies match a serviceSelector against: the Service's labels
/// plus the pseudo-labels `io.kubernetes.service.namespace` and `io.kubernetes.service.name`.
pub fn selector_labels(svc: &Service) -> Labels {
    let mut labels = svc.metadata.labels.as_ref().map(|l| l.to_btree()).unwrap_or_default();
    labels.insert(
        "io.kubernetes.service.namespace".into(),
        svc.metadata.namespace.as_deref().unwrap_or_default().to_string(),
    );
    labels.insert("io.kubernetes.service.name".into(), svc.metadata.name.as_deref().unwrap_or_default().to_string());
    labels
}

#[cfg(test)]
mod restart_tests;
#[cfg(test)]
mod tests;
