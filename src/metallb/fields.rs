//! CRD fields by the MetalLB release that first reads them (metallb-versions.md §7). A release
//! without a field ignores it (its own CRDs would prune it), so an object that sets one asks
//! for more than that release does: the CRDs are newer than the Pods.

use super::release::{Release, Rules};
use crate::snapshot::crd::{BgpAdvertisement, BgpPeer, CustomObject, IpAddressPool, L2Advertisement};
use crate::snapshot::MetallbObjects;

/// The component whose release decides whether a field is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    Speaker,
    Controller,
}

/// A field set on objects whose reader's release does not have it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    pub kind: &'static str,
    pub field: &'static str,
    pub reader: Reader,
    /// The first release that reads it.
    pub since: Release,
    /// What the release does instead.
    pub instead: &'static str,
    /// Names (in MetalLB's namespace) of the objects that set it, sorted.
    pub objects: Vec<String>,
}

enum SetOn {
    Pool(fn(&IpAddressPool) -> bool),
    L2(fn(&L2Advertisement) -> bool),
    Bgp(fn(&BgpAdvertisement) -> bool),
    Peer(fn(&BgpPeer) -> bool),
}

struct Field {
    kind: &'static str,
    field: &'static str,
    reader: Reader,
    read_by: fn(&Rules) -> bool,
    set: SetOn,
    instead: &'static str,
}

const FIELDS: &[Field] = &[
    Field {
        kind: "IPAddressPool",
        field: "spec.avoidBuggyIPs",
        reader: Reader::Controller,
        read_by: |r| r.avoid_buggy_ips,
        set: SetOn::Pool(|p| p.spec.avoid_buggy_ips == Some(true)),
        instead: "addresses ending in .0 and .255 are handed out",
    },
    Field {
        kind: "IPAddressPool",
        field: "spec.serviceAllocation",
        reader: Reader::Controller,
        read_by: |r| r.service_allocation,
        set: SetOn::Pool(|p| p.spec.service_allocation.is_some()),
        instead: "any Service may take the pool's addresses: no namespace or label pinning, no priority",
    },
    Field {
        kind: "L2Advertisement",
        field: "spec.interfaces",
        reader: Reader::Speaker,
        read_by: |r| r.ad_interfaces,
        set: SetOn::L2(|a| !a.spec.interfaces.is_empty()),
        instead: "the addresses are announced on every interface",
    },
    Field {
        kind: "L2Advertisement",
        field: "spec.serviceSelectors",
        reader: Reader::Speaker,
        read_by: |r| r.service_selectors,
        set: SetOn::L2(|a| !a.spec.service_selectors.is_empty()),
        instead: "the advertisement applies to every Service of its pools",
    },
    Field {
        kind: "L2Advertisement",
        field: "spec.preferredNodeSelectors",
        reader: Reader::Speaker,
        read_by: |r| r.head,
        set: SetOn::L2(|a| !a.spec.preferred_node_selectors.is_empty()),
        instead: "the election prefers no node",
    },
    Field {
        kind: "BGPAdvertisement",
        field: "spec.serviceSelectors",
        reader: Reader::Speaker,
        read_by: |r| r.service_selectors,
        set: SetOn::Bgp(|a| !a.spec.service_selectors.is_empty()),
        instead: "the advertisement applies to every Service of its pools",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.vrf",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.vrf,
        set: SetOn::Peer(|p| !p.spec.vrf_name.is_empty()),
        instead: "the session runs in the default VRF",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.connectTime",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.connect_time_disable_mp,
        set: SetOn::Peer(|p| p.spec.connect_time.is_some()),
        instead: "the backend's default connect time applies",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.disableMP",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.connect_time_disable_mp,
        set: SetOn::Peer(|p| p.spec.disable_mp),
        instead: "the flag has no effect",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.enableGracefulRestart",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.graceful_restart,
        set: SetOn::Peer(|p| p.spec.enable_graceful_restart),
        instead: "no graceful restart is negotiated",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.dynamicASN",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.dynamic_asn,
        set: SetOn::Peer(|p| !p.spec.dynamic_asn.is_empty()),
        instead: "the peer's ASN is peerASN alone (without it the configuration is refused: missing peer ASN)",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.interface",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.interface_dual_stack,
        set: SetOn::Peer(|p| !p.spec.interface.is_empty()),
        instead: "there is no unnumbered session: the peer needs peerAddress (without it the configuration is refused)",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.dualStackAddressFamily",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.interface_dual_stack,
        set: SetOn::Peer(|p| p.spec.dual_stack_address_family),
        instead: "the session carries the peer address's family only",
    },
    Field {
        kind: "BGPPeer",
        field: "spec.localASN",
        reader: Reader::Speaker,
        read_by: |r| r.peer_fields.local_asn,
        set: SetOn::Peer(|p| p.spec.local_asn != 0),
        instead: "the session uses myASN",
    },
];

/// The fields objects in `namespace` set that their reader's release does not read, in
/// [`FIELDS`] order.
pub fn unread_fields(m: &MetallbObjects, namespace: &str, speaker: Rules, controller: Rules) -> Vec<Unread> {
    let mut out = Vec::new();
    for f in FIELDS {
        let rules = match f.reader {
            Reader::Speaker => speaker,
            Reader::Controller => controller,
        };
        if (f.read_by)(&rules) {
            continue;
        }
        let mut objects: Vec<String> = match &f.set {
            SetOn::Pool(set) => names(&m.ip_address_pools, namespace, *set),
            SetOn::L2(set) => names(&m.l2_advertisements, namespace, *set),
            SetOn::Bgp(set) => names(&m.bgp_advertisements, namespace, *set),
            SetOn::Peer(set) => names(&m.bgp_peers, namespace, *set),
        };
        if objects.is_empty() {
            continue;
        }
        objects.sort();
        let since = Release::all().find(|r| (f.read_by)(&r.rules())).unwrap_or(Release::Main);
        out.push(Unread { kind: f.kind, field: f.field, reader: f.reader, since, instead: f.instead, objects });
    }
    out
}

fn names<S>(objects: &[CustomObject<S>], namespace: &str, set: fn(&CustomObject<S>) -> bool) -> Vec<String> {
    objects.iter().filter(|o| o.namespace() == namespace && set(o)).map(|o| o.name().to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn objects() -> MetallbObjects {
        let ad = |name: &str, ns: &str, spec| {
            serde_json::from_value::<L2Advertisement>(json!({
                "apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
                "metadata": {"name": name, "namespace": ns}, "spec": spec
            }))
            .unwrap()
        };
        let pool: IpAddressPool = serde_json::from_value(json!({
            "apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
            "metadata": {"name": "p", "namespace": "metallb-system"},
            "spec": {"addresses": ["192.0.2.0/24"], "avoidBuggyIPs": false,
                     "serviceAllocation": {"namespaces": ["web"]}}
        }))
        .unwrap();
        MetallbObjects {
            ip_address_pools: vec![pool],
            l2_advertisements: vec![
                ad("b", "metallb-system", json!({"serviceSelectors": [{"matchLabels": {"a": "b"}}]})),
                ad("a", "metallb-system", json!({"interfaces": ["eth0"], "serviceSelectors": [{"matchLabels": {}}]})),
                ad("elsewhere", "default", json!({"serviceSelectors": [{"matchLabels": {}}]})),
            ],
            ..MetallbObjects::default()
        }
    }

    #[test]
    fn each_release_reads_the_fields_it_has() {
        let m = objects();
        let at = |speaker: Release, controller: Release| {
            unread_fields(&m, "metallb-system", speaker.rules(), controller.rules())
                .into_iter()
                .map(|u| (u.kind, u.field, u.since.to_string(), u.objects.join(",")))
                .collect::<Vec<_>>()
        };
        let s = |t: &str| t.to_string();
        assert_eq!(
            at(Release::Tag(15, 3), Release::Tag(16, 1)),
            [("L2Advertisement", "spec.serviceSelectors", s("v0.16.0"), s("a,b"))],
            "objects outside MetalLB's namespace are not read at all (LBD205)"
        );
        assert_eq!(
            at(Release::Tag(13, 5), Release::Tag(13, 7)),
            [
                ("IPAddressPool", "spec.serviceAllocation", s("v0.13.8"), s("p")),
                ("L2Advertisement", "spec.interfaces", s("v0.13.6"), s("a")),
                ("L2Advertisement", "spec.serviceSelectors", s("v0.16.0"), s("a,b")),
            ],
            "avoidBuggyIPs: false asks for nothing"
        );
        assert!(at(Release::Tag(16, 0), Release::Tag(13, 8)).is_empty(), "each field by its reader's release");
    }
}
