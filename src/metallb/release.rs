//! Which MetalLB release's rules to replay (metallb-versions.md §1), and the switches those rules
//! turn on or off. Engines ask [`Rules`], never a version string: the release is decided once,
//! at discovery, and every difference between releases is one named field here.

use std::str::FromStr;

use serde::Serialize;

pub use crate::report::release::Release;

/// How a version string maps onto the releases modelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// A tag the model has, or `main`.
    Exact(Release),
    /// Not a tag of the model but placed among them: a patch newer than the last one of its
    /// minor (`v0.14.10` → v0.14.9's rules), a release after v0.16.1 (→ main).
    Nearest(Release),
    /// Before v0.13.0 (the ConfigMap era): v0.13.0's rules are the closest the model has.
    TooOld(Release),
}

impl Resolved {
    pub fn release(&self) -> Release {
        match self {
            Resolved::Exact(r) | Resolved::Nearest(r) | Resolved::TooOld(r) => *r,
        }
    }
}

impl Release {
    pub const V0_16_1: Release = Release::Tag(16, 1);
    pub const V0_16_0: Release = Release::Tag(16, 0);
    pub const FIRST: Release = Release::Tag(13, 0);
    /// The newest tagged release: what an upgrade today leads to.
    pub const NEWEST: Release = Release::V0_16_1;

    /// The last patch of every minor the model covers (metallb-versions.md §1.1).
    const LAST_PATCH: [(u8, u8); 4] = [(13, 12), (14, 9), (15, 3), (16, 1)];

    /// Every release modelled, oldest first.
    pub fn all() -> impl Iterator<Item = Release> {
        Self::LAST_PATCH
            .iter()
            .flat_map(|&(minor, last)| (0..=last).map(move |p| Release::Tag(minor, p)))
            .chain(std::iter::once(Release::Main))
    }

    /// Places a version (an image tag, a chart version, `--metallb-version`) among the releases:
    /// `v0.14.9`, `0.14.9`, `v0.14.9-rc1`, `main`, `latest`. `None` when it names no version.
    pub fn resolve(text: &str) -> Option<Resolved> {
        let text = text.trim();
        if matches!(text, "main" | "latest" | "dev") {
            return Some(Resolved::Exact(Release::Main));
        }
        let core = text.strip_prefix('v').unwrap_or(text);
        let core = core.split(['-', '+']).next().unwrap_or("");
        let mut parts = core.split('.');
        let (major, minor, patch) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() {
            return None;
        }
        let (major, minor, patch): (u64, u64, u64) = (major.parse().ok()?, minor.parse().ok()?, patch.parse().ok()?);
        if major > 0 || minor > 16 {
            return Some(Resolved::Nearest(Release::Main));
        }
        if minor < 13 {
            return Some(Resolved::TooOld(Release::FIRST));
        }
        let (minor, patch) = (minor as u8, patch);
        let last = Self::LAST_PATCH.iter().find(|(m, _)| *m == minor).map(|(_, l)| *l)?;
        if patch <= u64::from(last) {
            Some(Resolved::Exact(Release::Tag(minor, patch as u8)))
        } else if minor == 16 {
            Some(Resolved::Nearest(Release::Main))
        } else {
            Some(Resolved::Nearest(Release::Tag(minor, last)))
        }
    }

    /// The switches of this release's rules.
    pub fn rules(self) -> Rules {
        let at_least = |minor: u8, patch: u8| self >= Release::Tag(minor, patch);
        Rules {
            release: self,
            can_serve: if at_least(14, 5) {
                CanServe::ReadyOrServing
            } else if at_least(14, 0) {
                CanServe::ServingFirst
            } else {
                CanServe::ReadyOnly
            },
            memberlist_disabled_announces: at_least(15, 0),
            network_unavailable_filter: at_least(13, 10),
            exclude_label_filter: at_least(14, 0),
            ignore_exclude_lb_flag: at_least(14, 4),
            cordon_filter: self == Release::Tag(14, 9),
            service_selectors: at_least(16, 0),
            ad_interfaces: at_least(13, 6),
            aes256_memberlist: at_least(14, 0),
            configuration_state: at_least(15, 3),
            metallb_io_annotations: at_least(14, 9),
            allocated_from_annotation: if at_least(14, 9) {
                Some("metallb.io/ip-allocated-from-pool")
            } else if at_least(13, 8) {
                Some("metallb.universe.tf/ip-allocated-from-pool")
            } else {
                None
            },
            family_policy: if at_least(15, 0) {
                FamilyPolicy::OwnFamily
            } else if at_least(14, 9) {
                FamilyPolicy::AnyFamily
            } else {
                FamilyPolicy::ClusterFamily
            },
            pool_exhausted_error: at_least(16, 0),
            avoid_buggy_ips: at_least(13, 4),
            service_allocation: at_least(13, 8),
            service_allocation_duplicates: at_least(13, 10),
            selector_errors_joined: at_least(14, 6),
            priority_only_pools: at_least(15, 0),
            clear_assignment_event: at_least(13, 10),
            requested_ips_pool_check: at_least(13, 10),
            pools_may_orphan: at_least(14, 0),
            clears_unknown_family: at_least(13, 8),
            reallocates_on_sharing_refusal: at_least(13, 8),
            reprocess_on_key_change: at_least(15, 0),
            release_retry: if at_least(14, 0) {
                ReleaseRetry::WhenReleasedInPool
            } else if at_least(13, 8) {
                ReleaseRetry::WhenReleased
            } else {
                ReleaseRetry::Never
            },
            deletion_retries_always: !at_least(13, 10),
            failure_no_retry: at_least(13, 10),
            holders_first: at_least(14, 0),
            invalid_address_error: at_least(14, 0),
            pool_status: at_least(15, 0),
            node_ip_overlap_rejected: self == Release::Tag(15, 0),
            namespace_webhook: at_least(13, 5),
            peer_fields: PeerFields {
                vrf: at_least(13, 8),
                connect_time_disable_mp: at_least(14, 4),
                graceful_restart: at_least(14, 6),
                dynamic_asn: at_least(14, 9),
                interface_dual_stack: at_least(15, 0),
                local_asn: at_least(16, 0),
            },
            peer_error_wrap: if at_least(15, 0) {
                PeerWrap::Spaced
            } else if at_least(14, 6) {
                PeerWrap::Joined
            } else {
                PeerWrap::Colon
            },
            frr_peers: if at_least(16, 0) {
                FrrPeers::SharingANode
            } else if at_least(13, 8) {
                FrrPeers::PerVrf
            } else {
                FrrPeers::AllEqual
            },
            frr_k8s_mode: at_least(14, 0),
            per_node_bgp_config: at_least(16, 0),
            bgp_health_per_endpoint: at_least(16, 0),
            local_pref_check: if at_least(15, 0) {
                LocalPrefCheck::PoolFamilies
            } else if at_least(13, 10) {
                LocalPrefCheck::BothFamilies
            } else {
                LocalPrefCheck::None
            },
            large_communities: at_least(13, 10),
            timers_optional: at_least(14, 9),
            keepalive_error_names_hold_time: at_least(14, 6),
            native_ipv6_checks_bgp_pools_only: at_least(14, 9),
            head: self == Release::Main,
        }
    }
}

/// `--metallb-version`: exactly a modelled release or `main`.
impl FromStr for Release {
    type Err = String;

    fn from_str(text: &str) -> Result<Release, String> {
        match Release::resolve(text) {
            Some(Resolved::Exact(r)) => Ok(r),
            _ => Err(format!(
                "{text:?} is not a MetalLB release lbdoctor models: v0.13.0 … v0.13.12, v0.14.0 … v0.14.9, \
                 v0.15.0 … v0.15.3, v0.16.0, v0.16.1 or main"
            )),
        }
    }
}

/// How the controller reads `ipFamilyPolicy` (metallb-versions.md C-16, C-18, C-19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FamilyPolicy {
    /// Up to v0.14.8: never read. The ClusterIPs' family is asked for, a dual one from one pool;
    /// a held address of another family is released; no additional family. Errors quote the pool.
    ClusterFamily,
    /// v0.14.9: read, and PreferDualStack takes both families, else IPv4, else IPv6, even for
    /// a single-family Service; RequireDualStack with one ClusterIP is not refused.
    AnyFamily,
    /// v0.15.0 and later: a single-family Service gets only its family (`[nil]` when none is
    /// free); RequireDualStack needs two ClusterIPs.
    OwnFamily,
}

/// BGPPeer fields by the release that added them (metallb-versions.md B-6, §7); the native
/// backend refuses each from the same release (V-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeerFields {
    pub vrf: bool,
    pub connect_time_disable_mp: bool,
    pub graceful_restart: bool,
    /// With it `peerASN` becomes optional: `missing peer ASN and dynamicASN`.
    pub dynamic_asn: bool,
    /// Unnumbered peering; with it `peerAddress` becomes optional.
    pub interface_dual_stack: bool,
    pub local_asn: bool,
}

/// How a BGPPeer's parse error is wrapped (V-1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PeerWrap {
    /// Up to v0.14.5: `parsing peer NAME: ERR`.
    Colon,
    /// v0.14.6 … v0.14.9: `ERR\nparsing peer NAME`.
    Joined,
    /// v0.15.0 and later: `parsing peer NAME ERR`.
    Spaced,
}

/// B-2: the parse-time LOCAL_PREF check between advertisements of one pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum LocalPrefCheck {
    /// Up to v0.13.9: none; both are sent.
    None,
    /// v0.13.10 … v0.14.9: different aggregation lengths excuse a difference only when both
    /// the IPv4 and the IPv6 lengths differ, whatever the pool's families.
    BothFamilies,
    /// v0.15.0 and later: the lengths of the pool's own families.
    PoolFamilies,
}

/// Which BGPPeers the FRR backends compare (V-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FrrPeers {
    /// Up to v0.13.7: every peer has the first one's routerID and myASN, addresses unique.
    AllEqual,
    /// v0.13.8 … v0.15.3: routerID as before, myASN per VRF, unique address-VRF pairs.
    PerVrf,
    /// v0.16.0 and later: the same rules, only between peers whose nodeSelectors share a Node.
    SharingANode,
}

/// When a sync that takes a Service's addresses away retriggers every pending Service (C-7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ReleaseRetry {
    /// v0.13.0 … v0.13.7: never; only deletions and configuration changes retry.
    Never,
    /// v0.13.8 … v0.13.12: whenever the Service held an allocation before the sync and not after.
    WhenReleased,
    /// v0.14.0 and later: only when the Service object changed and its old addresses are still
    /// inside a pool.
    WhenReleasedInPool,
}

/// Which endpoints count as able to serve (metallb-versions.md L-1; BGP uses the same, B-3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum CanServe {
    /// v0.13.x: `ready` unset or true; `serving` is not read.
    ReadyOnly,
    /// v0.14.0 … v0.14.4: `serving` when set, else `ready` unset or true.
    ServingFirst,
    /// v0.14.5 and later: `ready` unset or true, or `serving` true.
    ReadyOrServing,
}

impl CanServe {
    pub fn can_serve(self, ready: Option<bool>, serving: Option<bool>) -> bool {
        let ready_ok = ready != Some(false);
        match self {
            CanServe::ReadyOnly => ready_ok,
            CanServe::ServingFirst => serving.unwrap_or(ready_ok),
            CanServe::ReadyOrServing => ready_ok || serving == Some(true),
        }
    }
}

/// The speaker's layer-2 rules of one release (metallb-versions.md §3, §4). Each field is one
/// spec item; `release` is for messages only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rules {
    pub release: Release,
    /// L-1.
    pub can_serve: CanServe,
    /// L-2: with memberlist disabled, v0.15.0 and later take every Node as a candidate; older
    /// releases have no candidate at all and announce nothing.
    pub memberlist_disabled_announces: bool,
    /// L-3: NetworkUnavailable removes a candidate (v0.13.10).
    pub network_unavailable_filter: bool,
    /// L-4: the exclude-from-external-load-balancers label removes a candidate (v0.14.0) ...
    pub exclude_label_filter: bool,
    /// ... and `--ignore-exclude-lb` exists to turn that off (v0.14.4).
    pub ignore_exclude_lb_flag: bool,
    /// L-5: a cordoned Node is no candidate (v0.14.9 only).
    pub cordon_filter: bool,
    /// L-6, L-9: L2Advertisement `serviceSelectors` exist, a node in no Service-matching ad
    /// answers `noMatchingAdvertisement` (before: `notOwner`), and de-duplication compares them.
    pub service_selectors: bool,
    /// L-7, S-1: L2Advertisement `interfaces` exist (v0.13.6; before, every interface), and a
    /// speaker whose interfaces are missing writes the `announceFailed` Event.
    pub ad_interfaces: bool,
    /// C-26: ConfigurationState objects report each component's configuration (v0.15.3).
    pub configuration_state: bool,
    /// C-15: the controller reads `metallb.io/` annotations (winning over `metallb.universe.tf/`)
    /// and warns `deprecatedAnnotation` (v0.14.9); before, only `metallb.universe.tf/` exists.
    pub metallb_io_annotations: bool,
    /// C-6: the annotation the controller writes with the pool an IP came from (none before v0.13.8).
    pub allocated_from_annotation: Option<&'static str>,
    /// C-16, C-18, C-19: how the controller reads `ipFamilyPolicy`.
    pub family_policy: FamilyPolicy,
    /// C-25: a pool with no free address of either family fails with `no available IPs in pool
    /// %s` before any family is chosen (v0.16.0).
    pub pool_exhausted_error: bool,
    /// C-1: `IPAddressPool.spec.avoidBuggyIPs` exists and is honoured (v0.13.4).
    pub avoid_buggy_ips: bool,
    /// C-4: `spec.serviceAllocation` exists (v0.13.8); before, every auto-assign pool is a
    /// fallback and `Assign` checks no namespace or label.
    pub service_allocation: bool,
    /// C-4: duplicate namespaces and selectors in it are rejected (v0.13.10).
    pub service_allocation_duplicates: bool,
    /// C-4: selector errors end with the wrapped inner error up to v0.14.5, start with it after.
    pub selector_errors_joined: bool,
    /// C-21: a serviceAllocation with only a priority selects every Service (v0.15.0); before,
    /// such a pool is never used for automatic allocation.
    pub priority_only_pools: bool,
    /// C-8: releasing a held IP that `Assign` refuses emits Normal `ClearAssignment` (v0.13.10);
    /// before, it is silent.
    pub clear_assignment_event: bool,
    /// C-11: requested IPs must belong to the pool `address-pool` names (v0.13.10).
    pub requested_ips_pool_check: bool,
    /// C-12, C-13: a pool configuration that leaves a held IP outside every pool (no pool at all
    /// included) is taken, and the IP released (v0.14.0); v0.13.x rejects the whole configuration
    /// and keeps allocating from its previous pools.
    pub pools_may_orphan: bool,
    /// C-5: held IPs of no valid family (two of one family, three) are released and re-allocated
    /// (v0.13.8); before, the controller warns and stops there, keeping the status.
    pub clears_unknown_family: bool,
    /// C-2: a held IP refused for its sharing key is released and the Service re-allocated
    /// (v0.13.8); before, the controller warns `svcCannotShareKey`, stops reserving the IP, keeps
    /// the status, and retries.
    pub reallocates_on_sharing_refusal: bool,
    /// C-20: a change of the allocation key (sharing and backend keys), a first allocation
    /// included, retriggers every pending Service (v0.15.0).
    pub reprocess_on_key_change: bool,
    /// C-7: when losing its addresses retriggers pending Services.
    pub release_retry: ReleaseRetry,
    /// C-10: deleting any Service, one that held no address included, retriggers pending
    /// Services (up to v0.13.9).
    pub deletion_retries_always: bool,
    /// C-9: a failed sync ends `ErrorNoRetry` (v0.13.10); before, `Success`. Neither retries; only
    /// the update-errors metric differs.
    pub failure_no_retry: bool,
    /// C-14: at start-up Services holding addresses are synced first, most ingress entries first
    /// (v0.14.0); before, in the informer's order, so a pending Service may take a held address.
    pub holders_first: bool,
    /// C-17: one unparsable address is an `Invalid address` error (v0.14.0); before, IPv6.
    pub invalid_address_error: bool,
    /// C-22: the controller writes `IPAddressPool.status` counters (v0.15.0).
    pub pool_status: bool,
    /// C-23: a pool CIDR that contains a Node's InternalIP rejects the speakers' configuration
    /// (v0.15.0 only; the controller is given no Nodes).
    pub node_ip_overlap_rejected: bool,
    /// V-5: the webhook refuses MetalLB objects outside MetalLB's namespace (v0.13.5).
    pub namespace_webhook: bool,
    /// §7, B-6, V-3: the BGPPeer fields the release has.
    pub peer_fields: PeerFields,
    /// V-1: how a BGPPeer's parse error is wrapped.
    pub peer_error_wrap: PeerWrap,
    /// V-4: which BGPPeers the FRR backends compare.
    pub frr_peers: FrrPeers,
    /// V-4, B-8: `METALLB_BGP_TYPE=frr-k8s` exists (v0.14.0): validated as FRR, FRRConfiguration
    /// objects written. Before, the speaker's validation skips it and the speaker cannot start.
    pub frr_k8s_mode: bool,
    /// B-5: each speaker parses only the BGPPeers and BGPAdvertisements that select its Node
    /// (v0.16.0), so a configuration can be valid on some nodes and rejected on others.
    pub per_node_bgp_config: bool,
    /// B-3: BGP's endpoint health is per endpoint (v0.16.0); before, per address, an unready
    /// endpoint spoiling every address it shares.
    pub bgp_health_per_endpoint: bool,
    /// B-2: how the parse compares the localPref of two advertisements on one pool.
    pub local_pref_check: LocalPrefCheck,
    /// B-4: `large:G:L1:L2` communities exist (v0.13.10); before, such a string is an unknown
    /// alias and the configuration waits for it.
    pub large_communities: bool,
    /// B-6: hold and keepalive times are optional, left to the backend (v0.14.9); before, the
    /// hold time defaults to 90 s and the keepalive to a third of it.
    pub timers_optional: bool,
    /// B-6: the keepalive error names the hold time too (v0.14.6).
    pub keepalive_error_names_hold_time: bool,
    /// V-2: the native backend refuses IPv6 only in pools a BGPAdvertisement selects (v0.14.9);
    /// before, any BGPAdvertisement makes every IPv6 pool, layer-2 ones included, refuse the
    /// configuration.
    pub native_ipv6_checks_bgp_pools_only: bool,
    /// L-10: the memberlist key is AES-256 from v0.14.0; older speakers cannot join.
    pub aes256_memberlist: bool,
    /// Newer than v0.16.1: preferredNodeSelectors and the shared-IP refusal.
    pub head: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Release::V0_16_1.rules()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::release::{ALL, NAMES};

    #[test]
    fn versions_resolve_to_the_modelled_releases() {
        let r = |t: &str| Release::resolve(t);
        assert_eq!(r("v0.14.9"), Some(Resolved::Exact(Release::Tag(14, 9))));
        assert_eq!(r("0.13.10"), Some(Resolved::Exact(Release::Tag(13, 10))));
        assert_eq!(r("v0.15.0-rc.1"), Some(Resolved::Exact(Release::Tag(15, 0))));
        assert_eq!(r("main"), Some(Resolved::Exact(Release::Main)));
        assert_eq!(r("v0.14.10"), Some(Resolved::Nearest(Release::Tag(14, 9))));
        assert_eq!(r("v0.16.2"), Some(Resolved::Nearest(Release::Main)));
        assert_eq!(r("v0.17.0"), Some(Resolved::Nearest(Release::Main)));
        assert_eq!(r("v0.17.0-rc1"), Some(Resolved::Nearest(Release::Main)));
        assert_eq!(r("v0.15.3"), Some(Resolved::Exact(Release::Tag(15, 3))));
        assert_eq!(r("v1.0.0"), Some(Resolved::Nearest(Release::Main)));
        assert_eq!(r("v0.12.1"), Some(Resolved::TooOld(Release::FIRST)));
        assert_eq!(r("sha256"), None);
        assert_eq!(r("v0.14"), None);
        assert_eq!(Release::all().count(), 13 + 10 + 4 + 2 + 1);
        assert!(Release::all().eq(ALL.iter().copied()), "the names table lists every release in order");
        assert!(NAMES.iter().all(|(r, name)| r.to_string() == *name));
        assert_eq!(Release::Tag(14, 9).to_string(), "v0.14.9");
        assert!("v0.14.10".parse::<Release>().is_err());
        assert_eq!("v0.13.7".parse::<Release>(), Ok(Release::Tag(13, 7)));
        assert!(Release::Tag(16, 1) < Release::Main && Release::Tag(13, 12) < Release::Tag(14, 0));
    }

    /// metallb-versions.md L-1's truth table, as v0.13 / v0.14.0-4 / v0.14.5+.
    #[test]
    fn the_can_serve_predicate_follows_the_release() {
        let rows = [
            ((Some(true), Some(false)), [true, false, true]),
            ((Some(false), Some(true)), [false, true, true]),
            ((None, Some(false)), [true, false, true]),
            ((Some(false), None), [false, false, false]),
            ((None, None), [true, true, true]),
        ];
        for ((ready, serving), want) in rows {
            let got = [Release::Tag(13, 12), Release::Tag(14, 4), Release::Tag(14, 5)]
                .map(|r| r.rules().can_serve.can_serve(ready, serving));
            assert_eq!(got, want, "ready {ready:?} serving {serving:?}");
        }
    }

    #[test]
    fn each_switch_turns_at_its_release() {
        let on = |f: fn(&Rules) -> bool| Release::all().filter(|r| f(&r.rules())).min();
        assert_eq!(on(|r| r.memberlist_disabled_announces), Some(Release::Tag(15, 0)));
        assert_eq!(on(|r| r.network_unavailable_filter), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| r.exclude_label_filter), Some(Release::Tag(14, 0)));
        assert_eq!(on(|r| r.ignore_exclude_lb_flag), Some(Release::Tag(14, 4)));
        assert_eq!(on(|r| r.service_selectors), Some(Release::Tag(16, 0)));
        assert_eq!(on(|r| r.ad_interfaces), Some(Release::Tag(13, 6)));
        assert_eq!(on(|r| r.configuration_state), Some(Release::Tag(15, 3)));
        assert_eq!(on(|r| r.metallb_io_annotations), Some(Release::Tag(14, 9)));
        assert_eq!(on(|r| r.avoid_buggy_ips), Some(Release::Tag(13, 4)));
        assert_eq!(on(|r| r.service_allocation), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.priority_only_pools), Some(Release::Tag(15, 0)));
        assert_eq!(on(|r| r.clear_assignment_event), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| r.requested_ips_pool_check), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| r.pools_may_orphan), Some(Release::Tag(14, 0)));
        assert_eq!(on(|r| r.clears_unknown_family), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.reallocates_on_sharing_refusal), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.native_ipv6_checks_bgp_pools_only), Some(Release::Tag(14, 9)));
        assert_eq!(on(|r| r.allocated_from_annotation.is_some()), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.head), Some(Release::Main));
        assert_eq!(on(|r| r.failure_no_retry), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| !r.deletion_retries_always), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| r.holders_first), Some(Release::Tag(14, 0)));
        assert_eq!(on(|r| r.invalid_address_error), Some(Release::Tag(14, 0)));
        assert_eq!(on(|r| r.pool_status), Some(Release::Tag(15, 0)));
        assert_eq!(on(|r| r.namespace_webhook), Some(Release::Tag(13, 5)));
        assert_eq!(on(|r| r.release_retry != ReleaseRetry::Never), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.release_retry == ReleaseRetry::WhenReleasedInPool), Some(Release::Tag(14, 0)));
        assert_eq!(on(|r| r.peer_fields.vrf), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.peer_fields.connect_time_disable_mp), Some(Release::Tag(14, 4)));
        assert_eq!(on(|r| r.peer_fields.graceful_restart), Some(Release::Tag(14, 6)));
        assert_eq!(on(|r| r.peer_fields.dynamic_asn), Some(Release::Tag(14, 9)));
        assert_eq!(on(|r| r.peer_fields.interface_dual_stack), Some(Release::Tag(15, 0)));
        assert_eq!(on(|r| r.peer_fields.local_asn), Some(Release::Tag(16, 0)));
        assert_eq!(on(|r| r.peer_error_wrap == PeerWrap::Joined), Some(Release::Tag(14, 6)));
        assert_eq!(on(|r| r.peer_error_wrap == PeerWrap::Spaced), Some(Release::Tag(15, 0)));
        assert_eq!(on(|r| r.frr_peers == FrrPeers::PerVrf), Some(Release::Tag(13, 8)));
        assert_eq!(on(|r| r.frr_peers == FrrPeers::SharingANode), Some(Release::Tag(16, 0)));
        assert_eq!(on(|r| r.frr_k8s_mode), Some(Release::Tag(14, 0)));
        assert_eq!(on(|r| r.per_node_bgp_config), Some(Release::Tag(16, 0)));
        assert_eq!(on(|r| r.bgp_health_per_endpoint), Some(Release::Tag(16, 0)));
        assert_eq!(on(|r| r.local_pref_check != LocalPrefCheck::None), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| r.local_pref_check == LocalPrefCheck::PoolFamilies), Some(Release::Tag(15, 0)));
        assert_eq!(on(|r| r.large_communities), Some(Release::Tag(13, 10)));
        assert_eq!(on(|r| r.timers_optional), Some(Release::Tag(14, 9)));
        assert_eq!(on(|r| r.keepalive_error_names_hold_time), Some(Release::Tag(14, 6)));
        let overlap: Vec<Release> = Release::all().filter(|r| r.rules().node_ip_overlap_rejected).collect();
        assert_eq!(overlap, [Release::Tag(15, 0)]);
        let cordon: Vec<Release> = Release::all().filter(|r| r.rules().cordon_filter).collect();
        assert_eq!(cordon, [Release::Tag(14, 9)]);
    }
}
