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

/// A neighbour's identity inside one node's configuration: the router it sits under (VRF and
/// local ASN), then its address or interface.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct NeighborKey {
    pub vrf: String,
    pub my_asn: u32,
    pub endpoint: String,
}

impl std::fmt::Display for NeighborKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (router AS {}", self.endpoint, self.my_asn)?;
        if !self.vrf.is_empty() {
            write!(f, ", vrf {}", self.vrf)?;
        }
        f.write_str(")")
    }
}

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
    NeighborKey { vrf: peer.vrf.clone(), my_asn: peer.my_asn, endpoint: peer.endpoint() }
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
            let key = NeighborKey { vrf: router.vrf.clone(), my_asn: router.asn, endpoint };
            let prefixes = out.entry(key).or_default();
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

#[cfg(test)]
mod tests {
    use super::*;

    fn peer(address: Option<&str>, interface: &str, dual: bool) -> Peer {
        Peer {
            name: "p".into(),
            my_asn: 64512,
            asn: 64513,
            dynamic_asn: String::new(),
            address: address.map(|a| a.parse().unwrap()),
            interface: interface.into(),
            src_address: None,
            port: 179,
            router_id: None,
            vrf: String::new(),
            node_selectors: Vec::new(),
            password_secret: SecretReference::default(),
            has_password: false,
            bfd_profile: String::new(),
            ebgp_multi_hop: false,
            dual_stack_address_family: dual,
        }
    }

    #[test]
    fn neighbours_keep_their_own_family_unless_told_otherwise() {
        let nets: Vec<IpNet> = vec!["198.51.100.5/32".parse().unwrap(), "2001:db8::5/128".parse().unwrap()];
        let v4 = allowed_prefixes(&peer(Some("192.0.2.254"), "", false), &nets);
        assert_eq!(v4.into_iter().collect::<Vec<_>>(), ["198.51.100.5/32"]);
        let v6 = allowed_prefixes(&peer(Some("2001:db8::fe"), "", false), &nets);
        assert_eq!(v6.into_iter().collect::<Vec<_>>(), ["2001:db8::5/128"]);
        assert_eq!(allowed_prefixes(&peer(Some("2001:db8::fe"), "", true), &nets).len(), 2);
        assert_eq!(allowed_prefixes(&peer(None, "eth1", false), &nets).len(), 2);
    }

    #[test]
    fn a_neighbour_under_another_router_is_missing_and_extra() {
        let key = |asn| NeighborKey { vrf: String::new(), my_asn: asn, endpoint: "192.0.2.254".into() };
        let want = NodeFrr::from([(key(64512), BTreeSet::from(["198.51.100.5/32".to_string()]))]);
        let have = NodeFrr::from([(key(64999), BTreeSet::from(["198.51.100.5/32".to_string()]))]);
        assert_eq!(diff(&want, &have), [FrrDiff::MissingNeighbor(key(64512)), FrrDiff::ExtraNeighbor(key(64999))]);
        assert!(diff(&want, &want).is_empty());
    }
}
