//! FRR's own view of a node, as MetalLB's troubleshooting collector dumps it in FRR mode
//! (`pods/<speaker>/frr/logs/dump_frr`: `###### show running-config`, `###### show bgp ipv4`,
//! `###### show bgp ipv6`, `###### show bgp neighbor`, `###### show bfd peer`, each followed by
//! what vtysh printed), or the `frr.conf` the reloader applied. Read as FRR prints it (its text
//! tables, IPv4 and IPv6) and as its `json` variants print it, into the shape the frr-k8s check
//! compares ([`NodeFrr`]): which neighbours each router has and which prefixes its outbound
//! route-map lets through to each, the prefixes the node originates, and each session's state.
//!
//! Pure text in, data out: a line this parser does not know is read past, so a newer FRR's extra
//! lines cost nothing; what a section does not show stays `None` (unknown), never empty.

use std::collections::{BTreeMap, BTreeSet};

use ipnet::IpNet;

use super::frrk8s::{NeighborKey, NodeFrr};

/// What one node's dump shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrrDump {
    /// `show running-config` (or `frr.conf`).
    pub config: Option<RunningConfig>,
    /// `show bgp ipv4` and `show bgp ipv6`: the prefixes in the BGP table that this FRR
    /// originates itself (next hop `0.0.0.0` or `::`); `None` without either table.
    pub originated: Option<BTreeSet<String>>,
    /// `show bgp neighbor`: each neighbour's `BGP state` (`Established`, `Active`, `Idle`, …),
    /// by its address or interface. vtysh shows the default VRF's only.
    pub sessions: Option<BTreeMap<String, String>>,
}

/// The BGP part of a running configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunningConfig {
    /// By (VRF, local ASN): `router bgp 64512 vrf red`.
    pub routers: BTreeMap<(String, u32), Router>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Router {
    /// By address or interface: the prefixes the outbound route-map permits (`None`: no
    /// outbound route-map, every route of the router goes out).
    pub neighbors: BTreeMap<String, Option<BTreeSet<String>>>,
    /// `network P` under an address family: what the router originates.
    pub networks: BTreeSet<String>,
}

impl RunningConfig {
    /// In the shape the expected configuration has: per neighbour, the prefixes it may receive.
    pub fn node_frr(&self) -> NodeFrr {
        let mut out = NodeFrr::new();
        for ((vrf, asn), router) in &self.routers {
            for (endpoint, allowed) in &router.neighbors {
                let key = NeighborKey { vrf: vrf.clone(), my_asn: *asn, endpoint: endpoint.clone() };
                let prefixes = allowed.as_ref().unwrap_or(&router.networks);
                // A prefix goes out only if the router originates it.
                out.insert(key, prefixes.intersection(&router.networks).cloned().collect());
            }
        }
        out
    }

    /// Every prefix some router originates.
    pub fn networks(&self) -> BTreeSet<String> {
        self.routers.values().flat_map(|r| r.networks.iter().cloned()).collect()
    }
}

/// Reads a dump: sections after `###### COMMAND` lines, or, without any, one running
/// configuration (`frr.conf`).
pub fn parse(text: &str) -> FrrDump {
    let mut dump = FrrDump::default();
    let mut sections: Vec<(&str, String)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("######") {
            Some(command) => sections.push((command.trim(), String::new())),
            None => match sections.last_mut() {
                Some((_, body)) => {
                    body.push_str(line);
                    body.push('\n');
                }
                None if !line.trim().is_empty() => sections.push(("show running-config", format!("{line}\n"))),
                None => {}
            },
        }
    }
    for (command, body) in sections {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["show", "running-config", ..] => dump.config = Some(running_config(&body)),
            ["show", "bgp", "neighbor" | "neighbors", ..] | ["show", "ip", "bgp", "neighbor" | "neighbors", ..] => {
                if let Some(sessions) = sessions(&body) {
                    dump.sessions.get_or_insert_with(BTreeMap::new).extend(sessions);
                }
            }
            ["show", "bgp", "ipv4" | "ipv6", ..] | ["show", "ip", "bgp", ..] => {
                if let Some(local) = originated(&body) {
                    dump.originated.get_or_insert_with(BTreeSet::new).extend(local);
                }
            }
            _ => {}
        }
    }
    dump
}

/// An address as MetalLB writes it (`2001:db8::fe`), an interface as it is.
fn endpoint(word: &str) -> String {
    crate::k8s::ip::parse_go_ip(word).map(crate::k8s::ip::go_ip_string).unwrap_or_else(|| word.to_string())
}

/// A prefix in its canonical form (`198.51.100.5/32`), the host bits cleared as FRR does.
fn prefix(word: &str) -> Option<String> {
    word.parse::<IpNet>().ok().map(|n| n.trunc().to_string())
}

fn running_config(text: &str) -> RunningConfig {
    let mut config = RunningConfig::default();
    let mut lists: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut route_maps: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // (router, neighbour) → its outbound route-map.
    let mut out_maps: BTreeMap<((String, u32), String), String> = BTreeMap::new();
    let mut router: Option<(String, u32)> = None;
    let mut route_map: Option<String> = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() || words[0] == "!" {
            continue;
        }
        let indented = line.starts_with([' ', '\t']);
        if !indented {
            router = None;
            route_map = None;
        }
        match words.as_slice() {
            ["router", "bgp", asn, rest @ ..] => {
                let vrf = match rest {
                    ["vrf", name, ..] => name.to_string(),
                    _ => String::new(),
                };
                if let Ok(asn) = asn.parse() {
                    config.routers.entry((vrf.clone(), asn)).or_default();
                    router = Some((vrf, asn));
                }
            }
            ["ip" | "ipv6", "prefix-list", name, rest @ ..] => {
                let rest = match rest {
                    ["seq", _, rest @ ..] => rest,
                    rest => rest,
                };
                let entry = lists.entry(name.to_string()).or_default();
                if let ["permit", p, ..] = rest {
                    entry.extend(prefix(p));
                }
            }
            ["route-map", name, "permit", ..] => {
                route_maps.entry(name.to_string()).or_default();
                route_map = Some(name.to_string());
            }
            ["route-map", ..] => route_map = None,
            ["match", "ip" | "ipv6", "address", "prefix-list", list] => {
                if let Some(name) = &route_map {
                    route_maps.entry(name.clone()).or_default().push(list.to_string());
                }
            }
            ["neighbor", n, rest @ ..] => {
                let Some(at) = &router else { continue };
                match rest {
                    ["remote-as", ..] | ["interface", "remote-as", ..] | ["interface", "v6only", "remote-as", ..] => {
                        config.routers.get_mut(at).expect("opened").neighbors.entry(endpoint(n)).or_insert(None);
                    }
                    ["route-map", map, "out"] => {
                        out_maps.insert((at.clone(), endpoint(n)), map.to_string());
                    }
                    _ => {}
                }
            }
            ["network", p, ..] => {
                if let (Some(at), Some(p)) = (&router, prefix(p)) {
                    config.routers.get_mut(at).expect("opened").networks.insert(p);
                }
            }
            _ => {}
        }
    }
    for ((at, n), map) in out_maps {
        let Some(neighbor) = config.routers.get_mut(&at).and_then(|r| r.neighbors.get_mut(&n)) else { continue };
        let allowed: BTreeSet<String> =
            route_maps.get(&map).into_iter().flatten().filter_map(|list| lists.get(list)).flatten().cloned().collect();
        *neighbor = Some(allowed);
    }
    config
}

/// The prefixes of a `show bgp ipv4|ipv6` table (text or JSON) whose path this FRR originates:
/// next hop `0.0.0.0` or `::`. `None` when the text is neither a table nor its JSON.
fn originated(text: &str) -> Option<BTreeSet<String>> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        let value: serde_json::Value = serde_json::from_str(trimmed).ok()?;
        let routes = value.get("routes")?.as_object()?;
        let local = |path: &serde_json::Value| {
            path.get("nexthops")
                .and_then(|n| n.as_array())
                .is_some_and(|hops| hops.iter().any(|h| is_self(h.get("ip").and_then(|i| i.as_str()).unwrap_or(""))))
        };
        return Some(
            routes
                .iter()
                .filter(|(_, paths)| paths.as_array().is_some_and(|p| p.iter().any(local)))
                .filter_map(|(p, _)| prefix(p))
                .collect(),
        );
    }
    let mut lines = text.lines().skip_while(|l| !(l.contains("Network") && l.contains("Next Hop")));
    lines.next()?;
    let mut out = BTreeSet::new();
    // A prefix too long for its column sits alone on its line, the path on the next.
    let mut pending: Option<String> = None;
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else { continue };
        let status_len = first.len() - first.trim_start_matches(|c: char| "*>=sdhrSRiVIN".contains(c)).len();
        let (status, glued) = first.split_at(status_len);
        let mut rest: Vec<&str> = words[1..].to_vec();
        if !glued.is_empty() {
            rest.insert(0, glued);
        }
        if status.is_empty() {
            // The wrapped line of a long prefix: only its next hop and the rest.
            if let (Some(p), Some(hop)) = (pending.take(), words.first()) {
                if is_self(hop) {
                    out.insert(p);
                }
            }
            continue;
        }
        if !status.contains('*') {
            continue;
        }
        match rest.as_slice() {
            [p, hop, ..] if prefix(p).is_some() && is_self(hop) => out.extend(prefix(p)),
            [p] if prefix(p).is_some() => pending = prefix(p),
            _ => {}
        }
    }
    Some(out)
}

/// A next hop that is this FRR itself; newer FRR may add `(hostname)`.
fn is_self(hop: &str) -> bool {
    let hop = hop.split('(').next().unwrap_or(hop);
    hop == "0.0.0.0" || hop == "::"
}

/// `show bgp neighbor`: `BGP neighbor is 192.0.2.254, remote AS …` (or `BGP neighbor on eth1:
/// fe80::…, remote AS …` unnumbered) and its `BGP state = Established, up for …`; or its JSON,
/// an object by neighbour with `bgpState`.
fn sessions(text: &str) -> Option<BTreeMap<String, String>> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        let value: serde_json::Value = serde_json::from_str(trimmed).ok()?;
        return Some(
            value
                .as_object()?
                .iter()
                .filter_map(|(n, v)| Some((endpoint(n), v.get("bgpState")?.as_str()?.to_string())))
                .collect(),
        );
    }
    let mut out = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("BGP neighbor is ") {
            current = rest.split(',').next().map(|n| endpoint(n.trim()));
        } else if let Some(rest) = t.strip_prefix("BGP neighbor on ") {
            current = rest.split(':').next().map(|n| n.trim().to_string());
        } else if let Some(rest) = t.strip_prefix("BGP state = ") {
            let state = rest.split([',', ' ']).next().unwrap_or("").to_string();
            if let Some(n) = current.take() {
                out.insert(n, state);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As FRR 9 prints `show running-config` for what MetalLB's template wrote.
    const RUNNING: &str = "Building configuration...

Current configuration:
!
frr version 9.1_git
frr defaults traditional
hostname worker-a
log stdout informational
log timestamp precision 3
no ip forwarding
no ipv6 forwarding
!
ip prefix-list 192.0.2.254-allowed-ipv4 seq 1 permit 198.51.100.5/32
ip prefix-list 192.0.2.254-allowed-ipv4 seq 2 permit 198.51.100.6/32
ip prefix-list 192.0.2.254-300-ip-localpref-prefixes seq 1 permit 198.51.100.5/32
ip prefix-list 198.51.100.254-allowed-ipv4 seq 1 deny any
ipv6 prefix-list 192.0.2.254-allowed-ipv6 seq 1 deny any
ipv6 prefix-list eth1-allowed-ipv6 seq 1 permit 2001:db8:100::10/128
!
route-map 192.0.2.254-in deny 20
exit
!
route-map 192.0.2.254-out permit 1
 match ip address prefix-list 192.0.2.254-300-ip-localpref-prefixes
 set local-preference 300
 on-match next
exit
!
route-map 192.0.2.254-out permit 2
 match ip address prefix-list 192.0.2.254-allowed-ipv4
exit
!
route-map 192.0.2.254-out permit 3
 match ipv6 address prefix-list 192.0.2.254-allowed-ipv6
exit
!
route-map 198.51.100.254-out permit 1
 match ip address prefix-list 198.51.100.254-allowed-ipv4
exit
!
route-map eth1-out permit 1
 match ipv6 address prefix-list eth1-allowed-ipv6
exit
!
router bgp 64512
 bgp router-id 192.0.2.2
 no bgp ebgp-requires-policy
 no bgp default ipv4-unicast
 no bgp network import-check
 neighbor 192.0.2.254 remote-as 64512
 neighbor 192.0.2.254 timers 30 90
 neighbor 198.51.100.254 remote-as 65001
 neighbor eth1 interface remote-as external
 !
 address-family ipv4 unicast
  network 198.51.100.5/32
  network 198.51.100.6/32
  neighbor 192.0.2.254 activate
  neighbor 192.0.2.254 route-map 192.0.2.254-in in
  neighbor 192.0.2.254 route-map 192.0.2.254-out out
  neighbor 198.51.100.254 activate
  neighbor 198.51.100.254 route-map 198.51.100.254-out out
 exit-address-family
 !
 address-family ipv6 unicast
  network 2001:db8:100::10/128
  neighbor eth1 activate
  neighbor eth1 route-map eth1-out out
 exit-address-family
exit
!
router bgp 64512 vrf red
 neighbor 203.0.113.1 remote-as 64600
exit
!
end
";

    const BGP_IPV4: &str = "BGP table version is 2, local router ID is 192.0.2.2, vrf id 0
Default local pref 100, local AS 64512
Status codes:  s suppressed, d damped, h history, * valid, > best, = multipath,
               i internal, r RIB-failure, S Stale, R Removed
Nexthop codes: @NNN nexthop's vrf id, < announce-nh-self
Origin codes:  i - IGP, e - EGP, ? - incomplete
RPKI validation codes: V valid, I invalid, N Not found

    Network          Next Hop            Metric LocPrf Weight Path
 *> 198.51.100.5/32  0.0.0.0                  0         32768 i
 *>i203.0.113.0/24   192.0.2.254              0    100      0 i
 *  198.51.100.6/32  192.0.2.254              0    100      0 65001 i

Displayed  3 routes and 3 total paths
";

    const BGP_IPV6: &str = "BGP table version is 1, local router ID is 192.0.2.2, vrf id 0
Default local pref 100, local AS 64512
Status codes:  s suppressed, d damped, h history, * valid, > best, = multipath,
               i internal, r RIB-failure, S Stale, R Removed
Nexthop codes: @NNN nexthop's vrf id, < announce-nh-self
Origin codes:  i - IGP, e - EGP, ? - incomplete
RPKI validation codes: V valid, I invalid, N Not found

    Network          Next Hop            Metric LocPrf Weight Path
 *> 2001:db8:100::10/128
                    ::                       0         32768 i

Displayed  1 routes and 1 total paths
";

    const NEIGHBORS: &str = "BGP neighbor is 192.0.2.254, remote AS 64512, local AS 64512, internal link
  Local Role: undefined
  Remote Role: undefined
Hostname: tor
  BGP version 4, remote router ID 192.0.2.254, local router ID 192.0.2.2
  BGP state = Established, up for 01:02:03
  Last read 00:00:01, Last write 00:00:01
BGP neighbor is 198.51.100.254, remote AS 65001, local AS 64512, external link
  BGP version 4, remote router ID 0.0.0.0, local router ID 192.0.2.2
  BGP state = Active
  Last read 00:12:01, Last write never
BGP neighbor on eth1: fe80::1, remote AS 65002, local AS 64512, external link
  BGP version 4, remote router ID 198.51.100.1, local router ID 192.0.2.2
  BGP state = Established, up for 00:00:10
";

    fn dump() -> String {
        format!(
            "###### show running-config\n{RUNNING}###### show bgp ipv4\n{BGP_IPV4}###### show bgp ipv6\n{BGP_IPV6}###### show bgp neighbor\n{NEIGHBORS}###### show bfd peer\nBFD Peers:\n"
        )
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_dump_reads_into_neighbours_prefixes_and_sessions() {
        let got = parse(&dump());
        let config = got.config.as_ref().unwrap();
        let frr = config.node_frr();
        let key = |endpoint: &str, vrf: &str| NeighborKey { vrf: vrf.into(), my_asn: 64512, endpoint: endpoint.into() };
        assert_eq!(frr[&key("192.0.2.254", "")], set(&["198.51.100.5/32", "198.51.100.6/32"]));
        assert_eq!(frr[&key("198.51.100.254", "")], set(&[]), "deny any");
        assert_eq!(frr[&key("eth1", "")], set(&["2001:db8:100::10/128"]));
        // No outbound route-map: every route of the router (it originates none).
        assert_eq!(frr[&key("203.0.113.1", "red")], set(&[]));
        assert_eq!(frr.len(), 4);
        assert_eq!(config.networks(), set(&["198.51.100.5/32", "198.51.100.6/32", "2001:db8:100::10/128"]));
        // Only the paths this FRR originates; the wrapped IPv6 line included.
        assert_eq!(got.originated, Some(set(&["198.51.100.5/32", "2001:db8:100::10/128"])));
        let sessions = got.sessions.unwrap();
        assert_eq!(sessions["192.0.2.254"], "Established");
        assert_eq!(sessions["198.51.100.254"], "Active");
        assert_eq!(sessions["eth1"], "Established");
    }

    #[test]
    fn json_output_reads_as_the_text_does() {
        let ipv4 = r#"{"vrfId":0,"vrfName":"default","tableVersion":2,"routerId":"192.0.2.2","defaultLocPrf":100,"localAS":64512,"routes":{"198.51.100.5/32":[{"valid":true,"bestpath":true,"selectionReason":"First path received","pathFrom":"external","prefix":"198.51.100.5","prefixLen":32,"network":"198.51.100.5/32","metric":0,"weight":32768,"peerId":"(unspec)","path":"","origin":"IGP","nexthops":[{"ip":"0.0.0.0","hostname":"worker-a","afi":"ipv4","used":true}]}],"203.0.113.0/24":[{"valid":true,"bestpath":true,"nexthops":[{"ip":"192.0.2.254","afi":"ipv4","used":true}]}]},"totalRoutes":2,"totalPaths":2}"#;
        let neighbors = r#"{"192.0.2.254":{"remoteAs":64512,"localAs":64512,"nbrInternalLink":true,"bgpState":"Established"},"198.51.100.254":{"remoteAs":65001,"bgpState":"Connect"}}"#;
        let got = parse(&format!("###### show bgp ipv4 json\n{ipv4}\n###### show bgp neighbor json\n{neighbors}\n"));
        assert_eq!(got.originated, Some(set(&["198.51.100.5/32"])));
        let sessions = got.sessions.unwrap();
        assert_eq!((sessions["192.0.2.254"].as_str(), sessions["198.51.100.254"].as_str()), ("Established", "Connect"));
        assert_eq!(got.config, None, "no running-config: unknown, not empty");
    }

    /// The `frr.conf` MetalLB's template writes (two-space indents, no `exit`) reads as FRR's
    /// own rendering of it.
    #[test]
    fn the_templates_frr_conf_reads_as_the_running_config() {
        let conf = "log stdout informational
hostname worker-a
ip prefix-list 192.0.2.254-allowed-ipv4 seq 1 permit 198.51.100.5/32
ipv6 prefix-list 192.0.2.254-allowed-ipv6 seq 1 deny any

route-map 192.0.2.254-out permit 1
  match ip address prefix-list 192.0.2.254-allowed-ipv4

route-map 192.0.2.254-out permit 2
  match ipv6 address prefix-list 192.0.2.254-allowed-ipv6

router bgp 64512
  no bgp ebgp-requires-policy
  neighbor 192.0.2.254 remote-as 64512

  address-family ipv4 unicast
    neighbor 192.0.2.254 activate
    neighbor 192.0.2.254 route-map 192.0.2.254-out out
  exit-address-family
  address-family ipv4 unicast
    network 198.51.100.5/32
  exit-address-family
";
        let got = parse(conf);
        let frr = got.config.unwrap().node_frr();
        let key = NeighborKey { vrf: String::new(), my_asn: 64512, endpoint: "192.0.2.254".into() };
        assert_eq!(frr[&key], set(&["198.51.100.5/32"]));
        assert_eq!((got.originated, got.sessions), (None, None));
    }

    #[test]
    fn what_is_not_frr_output_reads_as_unknown() {
        let got = parse("###### show bgp ipv4\n% BGP instance not found\n###### show bgp neighbor\n");
        assert_eq!(got.originated, None, "no table");
        assert_eq!(got.sessions, Some(BTreeMap::new()), "vtysh printed no neighbour");
    }
}
