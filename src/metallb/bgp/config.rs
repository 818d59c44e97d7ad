//! BGPPeer, BGPAdvertisement and BFDProfile CRs in MetalLB's internal form (spec §5.3, §5.4), with
//! the rules that make the speaker reject a whole configuration: `config.For`'s peer and
//! advertisement parsing, the per-pool checks and the backend-specific validation.

use crate::metallb::release::{FrrPeers, LocalPrefCheck, PeerWrap, Rules};
use std::collections::BTreeSet;
use std::net::IpAddr;

use ipnet::IpNet;

use super::community::{Community, CommunityError};
use crate::k8s::go_duration_seconds;
use crate::k8s::ip::parse_go_ip;
use crate::k8s::selector::{Labels, Selector};
use crate::metallb::parse::{
    compile_service_selectors, select_names, validate_duplicates, validate_selector_duplicates, with_context,
};
use crate::report::ObjectRef;
use crate::snapshot::crd::{
    BfdProfile, BgpAdvertisement, BgpPeer, Community as CommunityCr, IpAddressPool, SecretReference,
};
use crate::snapshot::BgpType;

/// A BGP session's configuration, as the speaker compares and runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Peer {
    pub name: String,
    pub my_asn: u32,
    pub asn: u32,
    /// `internal`, `external`, or empty when `asn` is set.
    pub dynamic_asn: String,
    pub address: Option<IpAddr>,
    /// Unnumbered peering over this interface (FRR modes).
    pub interface: String,
    pub src_address: Option<IpAddr>,
    pub port: u16,
    pub router_id: Option<IpAddr>,
    pub vrf: String,
    /// Empty CR list = every node (`labels.Everything()`).
    pub node_selectors: Vec<Selector>,
    pub password_secret: SecretReference,
    pub has_password: bool,
    pub bfd_profile: String,
    pub ebgp_multi_hop: bool,
    pub dual_stack_address_family: bool,
}

impl Peer {
    /// `syncPeers`: does this node run a session with the peer?
    pub fn runs_on(&self, node_labels: &Labels) -> bool {
        self.node_selectors.iter().any(|s| s.matches(node_labels))
    }

    /// iBGP when both ends share an AS; `None` when the peer's AS is only known at runtime.
    pub fn is_ibgp(&self) -> Option<bool> {
        match self.dynamic_asn.as_str() {
            "internal" => Some(true),
            "external" => Some(false),
            _ => Some(self.asn == self.my_asn),
        }
    }

    /// The address or, for unnumbered peering, the interface.
    pub fn endpoint(&self) -> String {
        match self.address {
            Some(ip) => crate::k8s::ip::go_ip_string(ip),
            None => self.interface.clone(),
        }
    }
}

/// A BGPAdvertisement in internal form.
#[derive(Debug, Clone, PartialEq)]
pub struct BgpAd {
    pub name: String,
    pub aggregation_length: i32,
    pub aggregation_length_v6: i32,
    /// 0 = unset.
    pub local_pref: u32,
    pub communities: BTreeSet<Community>,
    /// The resolved node set (empty `nodeSelectors` = every Node).
    pub nodes: BTreeSet<String>,
    pub has_node_selectors: bool,
    /// BGPPeer names; empty = every peer.
    pub peers: Vec<String>,
    pub service_selectors: Vec<Selector>,
    /// Names of the pools this advertisement is attached to (a pool named twice appears twice).
    pub pools: Vec<String>,
}

impl BgpAd {
    pub fn matches_service(&self, labels: &(impl crate::k8s::labels::LabelLookup + ?Sized)) -> bool {
        self.service_selectors.is_empty() || self.service_selectors.iter().any(|s| s.matches(labels))
    }

    pub fn reaches_peer(&self, peer: &str) -> bool {
        self.peers.is_empty() || self.peers.iter().any(|p| p == peer)
    }
}

/// Address families present in a pool, for LOCAL_PREF compatibility.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolFamilies {
    pub v4: bool,
    pub v6: bool,
}

impl PoolFamilies {
    pub fn of(cidrs: &[IpNet]) -> PoolFamilies {
        PoolFamilies {
            v4: cidrs.iter().any(|c| matches!(c, IpNet::V4(_))),
            v6: cidrs.iter().any(|c| matches!(c, IpNet::V6(_))),
        }
    }
}

/// `BGPAdvertisementsHaveCompatibleLocalPref` (spec §9.3).
pub fn compatible_local_pref(a: &BgpAd, b: &BgpAd, families: PoolFamilies) -> bool {
    if a.local_pref == b.local_pref {
        return true;
    }
    let v4_differs = a.aggregation_length != b.aggregation_length;
    let v6_differs = a.aggregation_length_v6 != b.aggregation_length_v6;
    let lengths_differ = match (families.v4, families.v6) {
        (false, false) => true,
        (true, false) => v4_differs,
        (false, true) => v6_differs,
        (true, true) => v4_differs && v6_differs,
    };
    if lengths_differ {
        return true;
    }
    if !a.peers.is_empty() && !b.peers.is_empty() && !a.peers.iter().any(|p| b.peers.contains(p)) {
        return true;
    }
    a.nodes.is_disjoint(&b.nodes)
}

/// A rejected configuration: MetalLB's message and the object it is about.
#[derive(Debug, Clone, PartialEq)]
pub struct BgpConfigError {
    pub message: String,
    pub object: ObjectRef,
}

fn err(object: ObjectRef, message: String) -> BgpConfigError {
    BgpConfigError { message, object }
}

/// The backend's validation (`DiscardFRROnly` for native, `DiscardNativeOnly` for the FRR modes),
/// which runs before anything is parsed.
#[allow(clippy::too_many_arguments)]
pub fn validate_backend(
    bgp_type: BgpType,
    peers: &[&BgpPeer],
    bfd_profiles: &[&BfdProfile],
    ads: &[&BgpAdvertisement],
    communities: &[&CommunityCr],
    pools: &[&IpAddressPool],
    nodes: &[(&str, &Labels)],
    rules: Rules,
) -> Result<(), BgpConfigError> {
    match bgp_type {
        BgpType::Native => validate_native(peers, bfd_profiles, ads, communities, pools, rules),
        // V-4: v0.13.x maps only `frr` to the FRR validation; `frr-k8s` gets none.
        BgpType::FrrK8s if !rules.frr_k8s_mode => Ok(()),
        BgpType::Frr | BgpType::FrrK8s => validate_frr(peers, nodes, rules.frr_peers),
    }
}

/// A BGPPeer as `rules`' release reads it: the fields it does not have are gone, as its CRD
/// prunes them and its code has no place for them (§7, B-6).
pub fn peer_as_read(cr: &BgpPeer, rules: Rules) -> BgpPeer {
    let has = rules.peer_fields;
    let mut read = cr.clone();
    let s = &mut read.spec;
    if !has.vrf {
        s.vrf_name.clear();
    }
    if !has.connect_time_disable_mp {
        s.connect_time = None;
        s.disable_mp = false;
    }
    if !has.graceful_restart {
        s.enable_graceful_restart = false;
    }
    if !has.dynamic_asn {
        s.dynamic_asn.clear();
    }
    if !has.interface_dual_stack {
        s.interface.clear();
        s.dual_stack_address_family = false;
    }
    if !has.local_asn {
        s.local_asn = 0;
    }
    read
}

/// A BGPAdvertisement as `rules`' release reads it: no `serviceSelectors` before v0.16.0 (B-1).
pub fn bgp_ad_as_read(cr: &BgpAdvertisement, rules: Rules) -> BgpAdvertisement {
    let mut read = cr.clone();
    if !rules.service_selectors {
        read.spec.service_selectors.clear();
    }
    read
}

fn peer_object(p: &BgpPeer) -> ObjectRef {
    ObjectRef::new("BGPPeer", p.namespace(), p.name())
}

fn validate_native(
    peers: &[&BgpPeer],
    bfd_profiles: &[&BfdProfile],
    ads: &[&BgpAdvertisement],
    communities: &[&CommunityCr],
    pools: &[&IpAddressPool],
    rules: Rules,
) -> Result<(), BgpConfigError> {
    for p in peers {
        let s = &p.spec;
        let set = [
            (!s.bfd_profile.is_empty(), "bfd-profile set"),
            (s.keepalive_time.as_deref().and_then(go_duration_seconds).is_some_and(|d| d != 0.0), "keepalive-time set"),
            (!s.vrf_name.is_empty(), "vrf set"),
            (s.connect_time.is_some(), "connect time set"),
            (s.enable_graceful_restart, "EnableGracefulRestart flag set"),
            (s.disable_mp, "disable MP flag set"),
            (s.dual_stack_address_family, "dualstackaddressfamily flag set"),
            (!s.dynamic_asn.is_empty(), "dynamicASN set"),
            (!s.interface.is_empty(), "interface set"),
            (s.local_asn != 0, "localASN set"),
        ];
        if let Some((_, what)) = set.iter().find(|(on, _)| *on) {
            return Err(err(peer_object(p), format!("peer {} has {what} on native bgp mode", s.address)));
        }
    }
    if let Some(b) = bfd_profiles.first() {
        return Err(err(ObjectRef::new("BFDProfile", b.namespace(), b.name()), "bfd profiles section set".into()));
    }
    // Pools under any BGPAdvertisement: all of them when one advertisement names and selects none,
    // or, up to v0.14.8, whenever there is a BGPAdvertisement at all (V-2: layer-2 pools included).
    if !ads.is_empty() {
        let all = !rules.native_ipv6_checks_bgp_pools_only
            || ads.iter().any(|a| a.spec.ip_address_pools.is_empty() && a.spec.ip_address_pool_selectors.is_empty());
        let mut selectors = Vec::new();
        for a in ads.iter() {
            for sel in &a.spec.ip_address_pool_selectors {
                let compiled = Selector::compile(sel).map_err(|_| {
                    err(
                        ObjectRef::new("BGPAdvertisement", a.namespace(), a.name()),
                        format!("invalid label selector {}", crate::k8s::selector::go_selector_v(sel)),
                    )
                })?;
                selectors.push(compiled);
            }
        }
        for pool in pools {
            let name = pool.name();
            let named = ads.iter().any(|a| a.spec.ip_address_pools.iter().any(|p| p == name));
            if !(all || named || selectors.iter().any(|s| s.matches(pool.labels()))) {
                continue;
            }
            let object = ObjectRef::new("IPAddressPool", pool.namespace(), name);
            for entry in &pool.spec.addresses {
                let nets = crate::k8s::cidr::parse_pool_address(entry)
                    .map_err(|e| err(object.clone(), format!("invalid CIDR {entry:?} in pool {name:?}: {e}")))?;
                if let Some(v6) = nets.iter().find(|n| matches!(n, IpNet::V6(_))) {
                    return Err(err(
                        object,
                        format!("pool {name:?} has ipv6 CIDR {v6}, native bgp mode does not support ipv6"),
                    ));
                }
            }
        }
    }
    // B-4: large communities, and this refusal, exist from v0.13.10.
    if !rules.large_communities {
        return Ok(());
    }
    for a in ads {
        for text in &a.spec.communities {
            if let Ok(Community::Large(..)) = Community::parse(text) {
                return Err(err(
                    ObjectRef::new("BGPAdvertisement", a.namespace(), a.name()),
                    format!(
                        "native BGP mode only supports legacy communities, BGP advertisement {:?} has non legacy community {text:?}",
                        a.name()
                    ),
                ));
            }
        }
    }
    for c in communities {
        for alias in &c.spec.communities {
            if let Ok(Community::Large(..)) = Community::parse(&alias.value) {
                return Err(err(
                    ObjectRef::new("Community", c.namespace(), c.name()),
                    format!(
                        "native BGP mode only supports legacy communities, BGP community CR {:?} has non legacy community {{{:?} {:?}}}",
                        c.name(),
                        alias.name,
                        alias.value
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `DiscardNativeOnly` (V-4), with each release's texts and quirks: up to v0.15.3 the myASN check
/// compares every peer with every peer but the first.
fn validate_frr(peers: &[&BgpPeer], nodes: &[(&str, &Labels)], rules: FrrPeers) -> Result<(), BgpConfigError> {
    if rules == FrrPeers::SharingANode {
        return validate_frr_sharing_a_node(peers, nodes);
    }
    if peers.len() > 1 {
        let first = &peers[0].spec;
        let id = |s: &crate::snapshot::crd::BgpPeerSpec| match rules {
            FrrPeers::AllEqual => s.address.clone(),
            _ => format!("{}-{}", if s.address.is_empty() { &s.interface } else { &s.address }, s.vrf_name),
        };
        let mut seen = BTreeSet::from([id(first)]);
        for p in &peers[1..] {
            if p.spec.router_id != first.router_id {
                return Err(err(
                    peer_object(p),
                    format!(
                        "peer {} has RouterID different from {}, in FRR mode all RouterID must be equal",
                        p.spec.router_id, first.router_id
                    ),
                ));
            }
            if rules == FrrPeers::AllEqual && p.spec.my_asn != first.my_asn {
                return Err(err(
                    peer_object(p),
                    format!(
                        "peer {} has myAsn different from {}, in FRR mode all myAsn must be equal",
                        p.spec.address, first.address
                    ),
                ));
            }
            if !seen.insert(id(&p.spec)) {
                return Err(err(
                    peer_object(p),
                    format!("peer {} already exists, FRR mode doesn't support duplicate BGPPeers", p.spec.address),
                ));
            }
        }
    }
    if rules == FrrPeers::PerVrf {
        for p in peers {
            for p1 in peers.iter().skip(1) {
                if p.spec.my_asn != p1.spec.my_asn && p.spec.vrf_name == p1.spec.vrf_name {
                    return Err(err(
                        peer_object(p),
                        format!(
                            "peer {} has myAsn different from {}, in FRR mode all myAsn must be equal for the same VRF",
                            p.spec.address, p1.spec.address
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// v0.16.0 and later: each pair of peers whose nodeSelectors select a common Node (every pair
/// when there is no Node) must be able to run in one FRR instance.
fn validate_frr_sharing_a_node(peers: &[&BgpPeer], nodes: &[(&str, &Labels)]) -> Result<(), BgpConfigError> {
    let id = |s: &crate::snapshot::crd::BgpPeerSpec| {
        let id = if s.address.is_empty() { &s.interface } else { &s.address };
        if s.vrf_name.is_empty() {
            id.clone()
        } else {
            format!("{id}-{}", s.vrf_name)
        }
    };
    let mut selected = Vec::with_capacity(peers.len());
    for p in peers {
        selected.push(select_names(nodes, &p.spec.node_selectors).map_err(|e| err(peer_object(p), e))?);
    }
    for (i, p) in peers.iter().enumerate() {
        for (j, q) in peers.iter().enumerate().take(i) {
            if !nodes.is_empty() && selected[i].is_disjoint(&selected[j]) {
                continue;
            }
            let (ps, qs) = (&p.spec, &q.spec);
            let message = if ps.router_id != qs.router_id {
                format!(
                    "peer {} has RouterID different from {}, in FRR mode peers selecting the same node must all have the same RouterID",
                    ps.router_id, qs.router_id
                )
            } else if id(ps) == id(qs) {
                format!(
                    "peer {} already exists, FRR mode doesn't support duplicate BGPPeers selecting the same node",
                    id(ps)
                )
            } else if ps.my_asn != qs.my_asn && ps.vrf_name == qs.vrf_name {
                format!(
                    "peer {} has myAsn different from {}, in FRR mode peers selecting the same node must have the same myAsn within the same VRF",
                    id(ps),
                    id(qs)
                )
            } else {
                continue;
            };
            return Err(BgpConfigError { message, object: peer_object(p) });
        }
    }
    Ok(())
}

/// `bfdProfilesFor`: only the names matter here (lbdoctor does not model BFD sessions).
pub fn check_bfd_profiles(profiles: &[&BfdProfile]) -> Result<(), BgpConfigError> {
    let mut seen = BTreeSet::new();
    for (i, p) in profiles.iter().enumerate() {
        let object = ObjectRef::new("BFDProfile", p.namespace(), p.name());
        if p.name().is_empty() {
            return Err(err(object, format!("parsing bfd profile #{}: missing bfd profile name", i + 1)));
        }
        if !seen.insert(p.name()) {
            return Err(err(object, format!("found duplicate bfd profile name {}", p.name())));
        }
    }
    Ok(())
}

/// `peersFor`: every BGPPeer parsed, then its BFD profile looked up.
pub fn parse_peers(
    peers: &[&BgpPeer],
    bfd_profiles: &[&BfdProfile],
    rules: Rules,
) -> Result<Vec<Peer>, BgpConfigError> {
    let mut out = Vec::new();
    for cr in peers {
        let peer = peer_from_cr(cr, rules).map_err(|e| {
            let name = cr.name();
            let message = match rules.peer_error_wrap {
                PeerWrap::Colon => format!("parsing peer {name}: {e}"),
                PeerWrap::Joined => format!("{e}\nparsing peer {name}"),
                PeerWrap::Spaced => format!("parsing peer {name} {e}"),
            };
            err(peer_object(cr), message)
        })?;
        if !peer.bfd_profile.is_empty() && !bfd_profiles.iter().any(|b| b.name() == peer.bfd_profile) {
            return Err(err(
                peer_object(cr),
                format!("peer {} referencing non existing bfd profile {}", cr.name(), peer.bfd_profile),
            ));
        }
        out.push(peer);
    }
    Ok(out)
}

/// `peerFromCR`, in MetalLB's order of checks. The password Secret is never read: lbdoctor
/// assumes it exists (MetalLB would reject a missing or malformed one).
pub fn peer_from_cr(cr: &BgpPeer, rules: Rules) -> Result<Peer, String> {
    let s = &cr.spec;
    let (ns, name) = (cr.namespace(), cr.name());
    let has = rules.peer_fields;
    if s.my_asn == 0 {
        return Err("missing local ASN".into());
    }
    if s.asn == 0 && s.dynamic_asn.is_empty() {
        // V-1: `dynamicASN` arrived in v0.14.9.
        return Err(if has.dynamic_asn { "missing peer ASN and dynamicASN" } else { "missing peer ASN" }.into());
    }
    if s.asn != 0 && !s.dynamic_asn.is_empty() {
        return Err("both peer ASN and dynamicASN specified".into());
    }
    if !s.dynamic_asn.is_empty() && s.dynamic_asn != "internal" && s.dynamic_asn != "external" {
        return Err(format!("invalid dynamicASN {}", s.dynamic_asn));
    }
    if s.asn == s.my_asn && s.ebgp_multi_hop {
        return Err("invalid ebgp-multihop parameter set for an ibgp peer".into());
    }
    // V-1: before v0.15.0 the address is required, and an empty one does not parse.
    if !has.interface_dual_stack && parse_go_ip(&s.address).is_none() {
        return Err(format!("invalid BGPPeer address {:?}", s.address));
    }
    if s.address.is_empty() && s.interface.is_empty() {
        return Err("peer has no Address or Interface specified".into());
    }
    if !s.address.is_empty() && !s.interface.is_empty() {
        return Err("peer has both Address and Interface specified".into());
    }
    if s.interface.contains(['\n', '\r']) {
        return Err(format!("interface for peer {ns:?}/{name:?} contains invalid characters"));
    }
    // B-6: defaults and words changed over the releases.
    if rules.timers_optional {
        check_timers(s.hold_time.as_deref(), s.keepalive_time.as_deref())
            .map_err(|e| format!("invalid BGPPeer timers: {e}"))?;
    } else {
        check_timers_defaulted(s.hold_time.as_deref(), s.keepalive_time.as_deref(), rules)?;
    }
    let address = if s.address.is_empty() {
        None
    } else {
        Some(parse_go_ip(&s.address).ok_or_else(|| format!("invalid BGPPeer address {:?}", s.address))?)
    };
    let router_id = if s.router_id.is_empty() {
        None
    } else {
        Some(parse_go_ip(&s.router_id).ok_or_else(|| format!("invalid router ID {:?}", s.router_id))?)
    };
    let src_address = parse_go_ip(&s.src_address);
    if !s.src_address.is_empty() && src_address.is_none() {
        return Err(format!("invalid source IP {:?}", s.src_address));
    }
    validate_selector_duplicates(&s.node_selectors, "nodeSelectors")?;
    let mut node_selectors = Vec::new();
    for sel in &s.node_selectors {
        node_selectors
            .push(Selector::compile(sel).map_err(|e| format!("{e}\nfailed to convert peer {name} node selector"))?);
    }
    if node_selectors.is_empty() {
        node_selectors.push(Selector::compile(&Default::default()).expect("the empty selector compiles"));
    }
    if !s.password.is_empty() && !s.password_secret.name.is_empty() {
        return Err(format!("can not have both password and secret ref set in peer config {ns:?}/{name:?}"));
    }
    if s.password.contains(['\n', '\r']) {
        return Err(format!("password for peer {ns:?}/{name:?} contains invalid characters"));
    }
    if s.vrf_name.contains(['\n', '\r']) {
        return Err(format!("VRF name for peer {ns:?}/{name:?} contains invalid characters"));
    }
    Ok(Peer {
        name: name.to_string(),
        my_asn: s.my_asn,
        asn: s.asn,
        dynamic_asn: s.dynamic_asn.clone(),
        address,
        interface: s.interface.clone(),
        src_address,
        port: s.port.unwrap_or(179),
        router_id,
        vrf: s.vrf_name.clone(),
        node_selectors,
        password_secret: s.password_secret.clone(),
        has_password: !s.password.is_empty(),
        bfd_profile: s.bfd_profile.clone(),
        ebgp_multi_hop: s.ebgp_multi_hop,
        dual_stack_address_family: s.dual_stack_address_family,
    })
}

/// `parseTimers`: a hold time under 3 s (other than 0) or a keepalive above the hold time is refused.
fn check_timers(hold: Option<&str>, keepalive: Option<&str>) -> Result<(), String> {
    let (h, k) = match (hold.and_then(go_duration_seconds), keepalive.and_then(go_duration_seconds)) {
        (None, None) => return Ok(()),
        (Some(h), Some(k)) => (h, k),
        (Some(h), None) => (h, h / 3.0),
        (None, Some(k)) => (k * 3.0, k),
    };
    let rounded = h.trunc();
    if rounded != 0.0 && rounded < 3.0 {
        return Err(format!("invalid hold time {:?}: must be 0 or >=3s", hold.unwrap_or_default()));
    }
    if k > h {
        return Err(format!(
            "invalid keepaliveTime {:?}, must be lower than holdTime {:?}",
            keepalive.unwrap_or_default(),
            hold.unwrap_or_default()
        ));
    }
    Ok(())
}

/// B-6 up to v0.14.8: the hold time defaults to 90 s and the keepalive to a third of it; the
/// errors print Go durations and have no `invalid BGPPeer timers` prefix.
fn check_timers_defaulted(hold: Option<&str>, keepalive: Option<&str>, rules: Rules) -> Result<(), String> {
    let set = |t: Option<&str>| t.and_then(go_duration_seconds).filter(|d| *d != 0.0);
    let h = set(hold).unwrap_or(90.0);
    if h.trunc() != 0.0 && h.trunc() < 3.0 {
        return Err(format!("invalid hold time {:?}: must be 0 or >=3s", go_duration_text(h)));
    }
    let k = set(keepalive).unwrap_or(h / 3.0);
    if k > h {
        return Err(if rules.keepalive_error_names_hold_time {
            format!(
                "invalid keepaliveTime {:?} must be smaller than holdtime {:?}",
                go_duration_text(k),
                go_duration_text(h)
            )
        } else {
            format!(
                "invalid keepaliveTime {:?}",
                go_duration_text(keepalive.and_then(go_duration_seconds).unwrap_or(0.0))
            )
        });
    }
    Ok(())
}

/// Go's `time.Duration.String()` for a non-negative number of seconds: `1m30s`, `2.5s`, `500ms`.
fn go_duration_text(seconds: f64) -> String {
    let nanos = (seconds * 1e9).round() as u64;
    if nanos == 0 {
        return "0s".into();
    }
    let trim = |whole: u64, frac: u64, digits: usize| {
        let frac = format!("{frac:0digits$}");
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            whole.to_string()
        } else {
            format!("{whole}.{frac}")
        }
    };
    if nanos < 1_000 {
        return format!("{nanos}ns");
    }
    if nanos < 1_000_000 {
        return format!("{}µs", trim(nanos / 1_000, nanos % 1_000, 3));
    }
    if nanos < 1_000_000_000 {
        return format!("{}ms", trim(nanos / 1_000_000, nanos % 1_000_000, 6));
    }
    let (hours, rest) = (nanos / 3_600_000_000_000, nanos % 3_600_000_000_000);
    let (minutes, rest) = (rest / 60_000_000_000, rest % 60_000_000_000);
    let secs = trim(rest / 1_000_000_000, rest % 1_000_000_000, 9);
    match (hours, minutes) {
        (0, 0) => format!("{secs}s"),
        (0, m) => format!("{m}m{secs}s"),
        (h, m) => format!("{h}h{m}m{secs}s"),
    }
}

/// `bgpAdvertisementFromCR`, in MetalLB's order of checks; `nodes` are every Node's name and labels.
pub fn bgp_ad_from_cr(
    cr: &BgpAdvertisement,
    aliases: &[(String, Community)],
    nodes: &[(&str, &Labels)],
    rules: Rules,
) -> Result<BgpAd, String> {
    let s = &cr.spec;
    let name = cr.name();
    validate_duplicates(&s.ip_address_pools, "ipAddressPools")?;
    validate_duplicates(&s.communities, "community")?;
    validate_duplicates(&s.peers, "peers")?;
    validate_selector_duplicates(&s.ip_address_pool_selectors, "ipAddressPoolSelectors")?;
    validate_selector_duplicates(&s.node_selectors, "nodeSelectors")?;
    validate_selector_duplicates(&s.service_selectors, "serviceSelectors")?;
    if !s.service_selectors.is_empty() {
        if s.aggregation_length.is_some_and(|l| l != 32) {
            return Err(format!(
                "serviceSelectors and aggregationLength are mutually exclusive, both cannot be set in {name}"
            ));
        }
        if s.aggregation_length_v6.is_some_and(|l| l != 128) {
            return Err(format!(
                "serviceSelectors and aggregationLengthV6 are mutually exclusive, both cannot be set in {name}"
            ));
        }
    }
    let aggregation_length = s.aggregation_length.unwrap_or(32);
    if aggregation_length > 32 {
        return Err(format!("invalid aggregation length {aggregation_length} for IPv4"));
    }
    let aggregation_length_v6 = s.aggregation_length_v6.unwrap_or(128);
    if aggregation_length_v6 > 128 {
        return Err(format!("invalid aggregation length {aggregation_length_v6} for IPv6"));
    }
    let mut communities = BTreeSet::new();
    for text in &s.communities {
        let value = match aliases.iter().find(|(alias, _)| alias == text) {
            Some((_, c)) => *c,
            None => Community::parse_under(text, rules.large_communities).map_err(|e| {
                let (CommunityError::Value(m) | CommunityError::Format(m)) = e;
                let outer = format!("invalid community {text:?} in BGP advertisement");
                with_context(rules, &m, &outer, &outer)
            })?,
        };
        communities.insert(value);
    }
    // V-1: pkg/errors wrapping, with its "ls", up to v0.14.5.
    let selected = select_names(nodes, &s.node_selectors).map_err(|e| {
        with_context(
            rules,
            &e,
            &format!("failed to parse node selector for {name}"),
            &format!("Failed to parse node selector for ls {name}"),
        )
    })?;
    let service_selectors = compile_service_selectors(&s.service_selectors)
        .map_err(|e| format!("{e}\nfailed to parse service selector for {name}"))?;
    Ok(BgpAd {
        name: name.to_string(),
        aggregation_length,
        aggregation_length_v6,
        local_pref: s.local_pref,
        communities,
        nodes: selected,
        has_node_selectors: !s.node_selectors.is_empty(),
        peers: s.peers.clone(),
        service_selectors,
        pools: Vec::new(),
    })
}

/// `validateBGPAdvPerPool`: run when `ad` is attached to a pool already holding `existing`.
/// `addresses` are the pool's entries with the CIDRs each one summarises to.
pub fn validate_ad_for_pool(
    ad: &BgpAd,
    addresses: &[(String, Vec<IpNet>)],
    existing: &[&BgpAd],
    families: PoolFamilies,
    check: LocalPrefCheck,
) -> Result<(), String> {
    for (entry, cidrs) in addresses {
        let Some(first) = cidrs.first() else { continue };
        let max_length = if matches!(first, IpNet::V6(_)) { ad.aggregation_length_v6 } else { ad.aggregation_length };
        let lowest = cidrs.iter().map(|c| i32::from(c.prefix_len())).min().unwrap_or(0);
        if max_length < lowest {
            // MetalLB prints the IPv4 length whatever the family.
            return Err(format!(
                "invalid aggregation length {}: prefix {lowest} in this pool is more specific than the aggregation length for addresses {entry}",
                ad.aggregation_length
            ));
        }
    }
    // B-2: no check up to v0.13.9; both families' lengths until v0.14.9.
    let families = match check {
        LocalPrefCheck::None => return Ok(()),
        LocalPrefCheck::BothFamilies => PoolFamilies { v4: true, v6: true },
        LocalPrefCheck::PoolFamilies => families,
    };
    if !ad.service_selectors.is_empty() {
        return Ok(());
    }
    for other in existing.iter().filter(|o| o.service_selectors.is_empty()) {
        if !compatible_local_pref(ad, other, families) {
            return Err(format!(
                "invalid local preference {}: local preferernce {} was already set for the same type of BGP update. Check existing BGP advertisements with common pools and aggregation lengths",
                ad.local_pref, other.local_pref
            ));
        }
    }
    Ok(())
}

/// Community CR aliases, already validated by the pool parse.
pub fn community_aliases(crs: &[&CommunityCr], rules: Rules) -> Vec<(String, Community)> {
    crs.iter()
        .flat_map(|cr| cr.spec.communities.iter())
        .filter_map(|a| Community::parse_under(&a.value, rules.large_communities).ok().map(|c| (a.name.clone(), c)))
        .collect()
}

/// `validateConfig`: a pool with IPv6 CIDRs must not reach a peer whose BFD profile echoes.
pub fn check_bfd_echo(
    pool: &str,
    pool_has_v6: bool,
    ads: &[&BgpAd],
    peers: &[Peer],
    profiles: &[&BfdProfile],
) -> Result<(), String> {
    if !pool_has_v6 {
        return Ok(());
    }
    let echoes = |p: &Peer| profiles.iter().any(|b| b.name() == p.bfd_profile && b.spec.echo_mode == Some(true));
    for ad in ads {
        let reached = peers.iter().filter(|p| ad.peers.is_empty() || ad.peers.contains(&p.name));
        if let Some(peer) = reached.into_iter().find(|p| echoes(p)) {
            return Err(format!(
                "pool {pool} has bgpadvertisement {} which references peer {} which has bfd echo enabled, which is not possible",
                ad.name, peer.name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(go_duration_seconds("90s"), Some(90.0));
        assert_eq!(go_duration_seconds("1m30s"), Some(90.0));
        assert_eq!(go_duration_seconds("1.5h"), Some(5400.0));
        assert_eq!(go_duration_seconds("500ms"), Some(0.5));
        assert_eq!(go_duration_seconds("0"), Some(0.0));
        assert_eq!(go_duration_seconds("5"), None);
        assert_eq!(go_duration_seconds(""), None);
    }

    #[test]
    fn timers_follow_metallb() {
        assert!(check_timers(Some("2s"), None).unwrap_err().contains("must be 0 or >=3s"));
        assert!(check_timers(Some("0s"), None).is_ok());
        assert!(check_timers(Some("9s"), Some("10s")).unwrap_err().contains("must be lower than holdTime"));
        // Keepalive alone: hold = 3 × keepalive.
        assert!(check_timers(None, Some("1s")).is_ok());
        assert!(check_timers(None, Some("500ms")).unwrap_err().contains("must be 0 or >=3s"));
    }

    /// B-6 up to v0.14.8: hold 90 s by default, keepalive a third of it, Go durations in the texts.
    #[test]
    fn timers_before_v0_14_9_have_defaults() {
        let rules = |r: &str| r.parse::<crate::metallb::release::Release>().unwrap().rules();
        let (old, mid) = (rules("v0.14.5"), rules("v0.14.8"));
        assert!(check_timers_defaulted(None, Some("30s"), mid).is_ok(), "against the 90 s default");
        assert_eq!(
            check_timers_defaulted(None, Some("120s"), mid).unwrap_err(),
            r#"invalid keepaliveTime "2m0s" must be smaller than holdtime "1m30s""#
        );
        assert_eq!(check_timers_defaulted(None, Some("120s"), old).unwrap_err(), r#"invalid keepaliveTime "2m0s""#);
        assert_eq!(
            check_timers_defaulted(Some("2000ms"), None, old).unwrap_err(),
            r#"invalid hold time "2s": must be 0 or >=3s"#
        );
        assert_eq!(go_duration_text(1.5), "1.5s");
        assert_eq!(go_duration_text(3725.0), "1h2m5s");
        assert_eq!(go_duration_text(0.25), "250ms");
    }
}
