//! The load-balancer implementations other than MetalLB, set up once per snapshot.

use std::collections::BTreeSet;

use crate::fast_hash::HashMap;

use crate::snapshot::EndpointSlice;
use crate::snapshot::Pod;
use jiff::Timestamp;

use crate::cilium::{install as cilium_install, l2, lbipam};
use crate::k8s::selector::Labels;
use crate::k8s::EXCLUDE_LB_LABEL;
use crate::snapshot::Snapshot;
use crate::{kubevip, servicelb};

pub(crate) struct Implementations<'a> {
    pub cilium: cilium_install::Setup,
    pub servicelb: servicelb::Setup,
    pub kube_vip: kubevip::Setup,
    /// LB-IPAM's pools and every Service it is responsible for.
    pub ledger: lbipam::Ledger,
    pub ledger_index: HashMap<(String, String), usize>,
    /// Cilium L2 policies and what every Service's evaluation shares.
    pub l2: l2::Index<'a>,
    /// Nodes without a CiliumNode object (Node labels used instead).
    pub nodes_without_cilium_node: usize,
    pub captured_at: Option<Timestamp>,
    /// k3s ServiceLB's svclb Pods by the Service name they carry; empty without ServiceLB.
    pub svclb_pods: HashMap<&'a str, Vec<&'a Pod>>,
    /// EndpointSlices by `(namespace, kubernetes.io/service-name)`; empty without Cilium or ServiceLB.
    pub slices_by_service: HashMap<(&'a str, &'a str), Vec<&'a EndpointSlice>>,
    /// Per LoadBalancer address: the Services showing it whose L2 Lease has a fresh holder, and
    /// that holder (`namespace/name`, node). Sharing Services each have their own Lease.
    pub l2_holders_by_ip: HashMap<String, Vec<(String, String)>>,
    /// Services sharing a dash-form L2 Lease name.
    pub lease_name_groups: std::collections::HashMap<String, Vec<String>>,
}

impl<'a> Implementations<'a> {
    pub fn build(snap: &'a Snapshot) -> Implementations<'a> {
        let cilium = cilium_install::discover(snap);
        let pools = lbipam::pools(&snap.cilium.ip_pools);
        let mut requests = Vec::new();
        let mut ledger_index = HashMap::default();
        if cilium.installed {
            for svc in &snap.services {
                if lbipam::responsible(&cilium, pools.len(), svc).is_ok() {
                    let r = lbipam::request(&cilium, svc);
                    ledger_index.insert((r.namespace.clone(), r.name.clone()), requests.len());
                    requests.push(r);
                }
            }
        }
        let cilium_labels: HashMap<&str, &Labels> = snap.cilium.nodes.iter().map(|n| (n.name(), n.labels())).collect();
        let mut without = 0;
        let l2_nodes: Vec<(String, Labels, bool)> = snap
            .nodes
            .iter()
            .filter(|_| cilium.l2_announcements)
            .map(|n| {
                let name = n.metadata.name.clone().unwrap_or_default();
                let node_labels = n.metadata.labels.clone().unwrap_or_default();
                let exclude = node_labels.contains_key(EXCLUDE_LB_LABEL);
                let labels = match cilium_labels.get(name.as_str()) {
                    Some(l) => (*l).clone(),
                    None => {
                        without += 1;
                        node_labels
                    }
                };
                (name, labels, exclude)
            })
            .collect();
        let servicelb = servicelb::discover(snap);
        let mut svclb_pods: HashMap<&str, Vec<&Pod>> = HashMap::default();
        let mut slices_by_service: HashMap<(&str, &str), Vec<&EndpointSlice>> = HashMap::default();
        if servicelb.installed {
            for pod in &snap.pods {
                if let Some(name) = pod.metadata.labels.as_ref().and_then(|l| l.get(servicelb::SVC_NAME)) {
                    svclb_pods.entry(name).or_default().push(pod);
                }
            }
        }
        // Only Cilium and ServiceLB read these; big MetalLB-only snapshots skip the work.
        if cilium.installed || servicelb.installed {
            for slice in &snap.endpoint_slices {
                if let Some(name) = &slice.service {
                    slices_by_service.entry((slice.namespace.as_str(), name.as_str())).or_default().push(slice);
                }
            }
        }
        let mut l2 = l2::Index::new(
            cilium.clone(),
            l2::policies(&snap.cilium.l2_policies),
            &l2_nodes.iter().map(|(n, l, x)| (n.clone(), l, *x)).collect::<Vec<_>>(),
            &snap.leases,
        );
        l2.leases_listed = snap.info.leases_listed_in.contains(&cilium.namespace);
        let captured_at: Option<Timestamp> = snap.info.captured_at.as_deref().and_then(|t| t.parse().ok());
        let mut l2_holders_by_ip: HashMap<String, Vec<(String, String)>> = HashMap::default();
        if cilium.l2_announcements && l2.lease_objects > 0 {
            for svc in &snap.services {
                let (ns, name) = crate::snapshot::key_of(&svc.metadata);
                if let Some(holder) = l2.fresh_holder(&ns, &name, captured_at) {
                    for ip in crate::metallb::service::ingress_ips(svc).into_iter().filter(|ip| !ip.is_empty()) {
                        l2_holders_by_ip.entry(ip).or_default().push((format!("{ns}/{name}"), holder.clone()));
                    }
                }
            }
        }
        Implementations {
            l2,
            l2_holders_by_ip,
            servicelb,
            svclb_pods,
            slices_by_service,
            kube_vip: kubevip::discover(snap),
            ledger: lbipam::Ledger::new(
                pools,
                requests,
                crate::cilium::restart::Rules::for_version(
                    cilium.operator_version.as_deref().or(cilium.version.as_deref()),
                ),
            ),
            ledger_index,
            nodes_without_cilium_node: without,
            captured_at,
            lease_name_groups: l2::dash_groups(
                snap.services
                    .iter()
                    .filter(|_| cilium.l2_announcements)
                    // Only Services with addresses to announce ever get a Lease.
                    .filter(|s| {
                        s.spec.as_ref().is_some_and(|p| {
                            p.type_.as_deref() == Some("LoadBalancer")
                                || p.external_ips.as_ref().is_some_and(|e| !e.is_empty())
                        })
                    })
                    .map(|s| (s.metadata.namespace.as_deref().unwrap_or(""), s.metadata.name.as_deref().unwrap_or(""))),
            ),
            cilium,
        }
    }

    pub fn slices<'s>(&'s self, namespace: &'s str, name: &'s str) -> &'s [&'s EndpointSlice] {
        self.slices_by_service.get(&(namespace, name)).map(Vec::as_slice).unwrap_or_default()
    }

    /// The nodes of the Service's ready endpoints, as Cilium reads them.
    pub fn ready_endpoints(&self, namespace: &str, name: &str) -> BTreeSet<String> {
        crate::cilium::nodeipam::ready_endpoint_nodes(self.slices(namespace, name).iter().copied(), namespace, name)
    }
}
