//! The FRRConfiguration MetalLB's speaker writes in frr-k8s mode (spec §9.6), reduced to what
//! decides traffic: which neighbours each node's routers have and which prefixes each may receive.

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;

use super::config::Peer;
use crate::snapshot::crd::{FrrConfiguration, SecretReference};
use crate::snapshot::BgpType;

/// `metadata.name` of the object written for `node`.
pub fn config_name(node: &str) -> String {
    format!("metallb-{node}")
}

/// A neighbour's identity inside one node's configuration: VRF, then address or interface.
pub type NeighborKey = (String, String);

/// The neighbours of one node and the prefixes each is allowed to receive.
pub type NodeFrr = BTreeMap<NeighborKey, BTreeSet<String>>;

/// The expected neighbour entry for a session whose peer received `prefixes`: only the
/// neighbour's own family, unless it is unnumbered or carries both families.
pub fn allowed_prefixes<'a>(peer: &Peer, prefixes: impl IntoIterator<Item = &'a IpNet>) -> BTreeSet<String> {
    let both = !peer.interface.is_empty() || peer.dual_stack_address_family;
    let v4 = peer.address.is_some_and(|a| a.is_ipv4());
    prefixes.into_iter().filter(|p| both || matches!(p, IpNet::V4(_)) == v4).map(|p| p.to_string()).collect()
}

pub fn neighbor_key(peer: &Peer) -> NeighborKey {
    (peer.vrf.clone(), peer.endpoint())
}

/// What an FRRConfiguration object says, in the same shape.
pub fn actual(cfg: &FrrConfiguration) -> NodeFrr {
    let mut out = NodeFrr::new();
    for router in &cfg.spec.bgp.routers {
        for n in &router.neighbors {
            let endpoint = if n.address.is_empty() {
                n.interface.clone()
            } else {
                crate::k8s::ip::parse_go_ip(&n.address).map(crate::k8s::ip::go_ip_string).unwrap_or(n.address.clone())
            };
            let prefixes = out.entry((router.vrf.clone(), endpoint)).or_default();
            prefixes.extend(n.to_advertise.allowed.prefixes.iter().map(|p| normalize_prefix(p)));
        }
    }
    out
}

fn normalize_prefix(p: &str) -> String {
    p.parse::<IpNet>().map(|n| n.trunc().to_string()).unwrap_or_else(|_| p.to_string())
}

/// One difference between the expected and the actual configuration of a node.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum FrrDiff {
    MissingNeighbor(NeighborKey),
    ExtraNeighbor(NeighborKey),
    MissingPrefix(NeighborKey, String),
    ExtraPrefix(NeighborKey, String),
}

pub fn diff(expected: &NodeFrr, actual: &NodeFrr) -> Vec<FrrDiff> {
    let mut out = Vec::new();
    for (key, want) in expected {
        match actual.get(key) {
            None => out.push(FrrDiff::MissingNeighbor(key.clone())),
            Some(have) => {
                out.extend(want.difference(have).map(|p| FrrDiff::MissingPrefix(key.clone(), p.clone())));
                out.extend(have.difference(want).map(|p| FrrDiff::ExtraPrefix(key.clone(), p.clone())));
            }
        }
    }
    out.extend(actual.keys().filter(|k| !expected.contains_key(*k)).map(|k| FrrDiff::ExtraNeighbor(k.clone())));
    out.sort();
    out
}

/// How a peer's password reaches the BGP backend (`passwordForSession`): frr-k8s with secret
/// pass-through hands over the Secret reference, everything else the plain text.
/// Returns (password, reference); lbdoctor itself never holds a Secret's value.
pub fn password_for_session(
    password: &str,
    secret_password: &str,
    reference: &SecretReference,
    bgp_type: BgpType,
    pass_through: bool,
) -> (String, SecretReference) {
    if bgp_type == BgpType::FrrK8s && pass_through && !reference.name.is_empty() {
        return (String::new(), reference.clone());
    }
    let plain = if password.is_empty() { secret_password } else { password };
    (plain.to_string(), SecretReference::default())
}
