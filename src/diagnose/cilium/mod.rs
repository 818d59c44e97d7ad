//! Cilium's (and k3s ServiceLB's) part of a Service's report, and their findings: one module
//! per feature, as in `crate::cilium`.

mod cluster;
mod l2;
mod lbipam;
mod nodeipam;
mod servicelb;

pub(crate) use cluster::cluster_findings;

use crate::snapshot::Service;

use super::implementations::Implementations;
use crate::cilium::lbipam::CLASS_L2;
use crate::report::{CiliumService, Finding, Implementation, ObjectRef};
use crate::snapshot::Snapshot;

/// The Service every Cilium check is about.
pub(crate) struct Subject<'a> {
    pub svc: &'a Service,
    pub namespace: &'a str,
    pub name: &'a str,
    pub object: ObjectRef,
}

pub(crate) struct Parts {
    pub cilium: Option<CiliumService>,
    pub servicelb: Option<crate::servicelb::Verdict>,
    pub findings: Vec<Finding>,
}

impl<'a> Subject<'a> {
    pub fn new(svc: &'a Service, namespace: &'a str, name: &'a str) -> Self {
        Subject { svc, namespace, name, object: ObjectRef::new("Service", namespace, name) }
    }
}

pub(crate) fn service(
    snap: &Snapshot,
    imps: &Implementations,
    subject: &Subject,
    claimants: &[Implementation],
    detail: bool,
    map: bool,
) -> Parts {
    let mut findings = Vec::new();
    let Subject { svc, namespace, name, object } = subject;
    let c = &imps.cilium;
    let cilium = c.installed.then(|| {
        let nodeipam = c.node_ipam.then(|| nodeipam::report(snap, imps, subject, &mut findings)).flatten();
        let lbipam = imps.ledger_index.get(&(namespace.to_string(), name.to_string())).map(|&i| {
            let v = crate::cilium::lbipam::evaluate(&imps.ledger, i);
            lbipam::findings(&v, object, &mut findings);
            v
        });
        let expects_l2 = svc.spec.as_ref().and_then(|s| s.load_balancer_class.as_deref()) == Some(CLASS_L2)
            || (lbipam.is_some() && !c.bgp_control_plane);
        let l2 = c.l2_announcements.then(|| l2::report(imps, subject, expects_l2, (detail, map), &mut findings));
        let l2 = l2.filter(|v| {
            v.skipped != Some(crate::cilium::l2::Skip::OtherClass)
                && v.skipped != Some(crate::cilium::l2::Skip::Disabled)
        });
        let verdict = CiliumService { nodeipam, lbipam, l2 };
        l2::foreign_addresses(imps, &verdict, claimants, object, &mut findings);
        verdict
    });
    let servicelb = (imps.servicelb.installed && crate::servicelb::handles(svc)).then(|| {
        let pods = imps.svclb_pods.get(name).map(Vec::as_slice).unwrap_or_default();
        let v = crate::servicelb::evaluate(&imps.servicelb, svc, &snap.nodes, pods, imps.slices(namespace, name));
        servicelb::findings(&v, object, &mut findings);
        v
    });
    Parts { cilium, servicelb, findings }
}
