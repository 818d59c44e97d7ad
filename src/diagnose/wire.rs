//! What the cluster says about one IP, for `arping` and `announce`: which Service holds it,
//! which node the election expects to answer, and whether the answers on the wire agree.
//! Pure: the probe's result comes in as data.

use std::collections::BTreeMap;
use std::net::IpAddr;

use compact_str::CompactString;
use serde::Serialize;

use super::{diagnose_in, world::World, DiagnoseError, Options, Scope};
use crate::net::probe::Reply;
use crate::net::Mac;
pub use crate::report::wire::{Answer, IpContext, IpContextSet, IpHolder};
use crate::report::{Code, Finding, ObjectRef};
use crate::snapshot::Snapshot;

/// Each IP's pools and holders, from the same engines `explain` runs (one run for all IPs).
pub fn ip_contexts(snap: &Snapshot, opts: &Options, ips: &[IpAddr]) -> Result<Vec<IpContext>, DiagnoseError> {
    let opts = Options { scope: Scope::All, detail: false, ..opts.clone() };
    // One World for the engines and for the pools below.
    let world = World::build(snap, &opts.overrides);
    let report = diagnose_in(snap, &world, &opts)?;
    let cilium_pools = crate::cilium::lbipam::pools(&snap.cilium.ip_pools);
    Ok(ips.iter().map(|&ip| context_of(&report, &world, &cilium_pools, ip)).collect())
}

fn context_of(
    report: &crate::report::Report,
    world: &World,
    cilium_pools: &[crate::cilium::lbipam::Pool],
    ip: IpAddr,
) -> IpContext {
    let text = crate::k8s::ip::go_ip_string(ip);
    let mut services = Vec::new();
    for s in &report.services {
        let holds = s.ips.iter().any(|i| *i == text)
            || s.allocation.as_ref().is_some_and(|a| a.expected_ips.iter().flatten().any(|i| *i == text));
        if !holds {
            continue;
        }
        let mut holder = IpHolder {
            namespace: s.namespace.clone(),
            name: s.name.clone(),
            implementation: s.implementation,
            protocol: "none",
            expected_announcer: None,
            actual_announcers: None,
            actual_source: None,
        };
        if let Some(l2) = s.metallb.as_ref().and_then(|m| m.layer2.as_ref()) {
            holder.protocol = "layer2";
            holder.expected_announcer = l2.expected_announcer.clone();
            holder.actual_announcers = l2.actual_announcers.as_deref().map(<[CompactString]>::to_vec);
            holder.actual_source = l2.actual_source.clone();
        } else if s.metallb.as_ref().is_some_and(|m| m.bgp.is_some()) {
            holder.protocol = "bgp";
        } else if let Some(l2) = s.cilium.as_ref().and_then(|c| c.l2.as_ref()).filter(|v| v.skipped.is_none()) {
            holder.protocol = "layer2";
            holder.expected_announcer = l2.announcer.as_deref().map(CompactString::from);
            holder.actual_announcers = l2.announcer.as_deref().map(|a| vec![a.into()]);
            holder.actual_source = l2.announcer.as_ref().map(|_| "lease".into());
        }
        services.push(holder);
    }
    let cilium: Vec<String> = cilium_pools
        .iter()
        .filter(|p| p.ranges.iter().any(|r| r.contains(ip)))
        .map(|p| format!("cilium/{}", p.name))
        .collect();
    let pools = match &world.config {
        Ok(config) => Some(
            config
                .pools
                .iter()
                .filter(|p| p.cidrs.iter().any(|c| c.contains(&ip)))
                .map(|p| format!("metallb/{}", p.name))
                .chain(cilium)
                .collect(),
        ),
        Err(_) if world.snap.metallb.ip_address_pools.is_empty() || !cilium.is_empty() => Some(cilium),
        Err(_) => None,
    };
    IpContext { pools, services }
}

/// Which node owns which MAC: `--mac-map` lines `MAC NODE [INTERFACE]`, `#` comments.
#[derive(Debug, Clone, Default)]
pub struct MacMap(BTreeMap<Mac, (String, Option<String>)>);

impl MacMap {
    pub fn parse(text: &str, origin: &str) -> Result<MacMap, String> {
        let mut map = BTreeMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (mac, node, interface) = match fields[..] {
                [mac, node] => (mac, node, None),
                [mac, node, interface] => (mac, node, Some(interface.to_string())),
                _ => return Err(format!("{origin}:{}: expected `MAC NODE [INTERFACE]`, got {line:?}", n + 1)),
            };
            let mac: Mac = mac.parse().map_err(|e| format!("{origin}:{}: {e}", n + 1))?;
            if let Some((other, _)) = map.insert(mac, (node.to_string(), interface)) {
                if other != node {
                    return Err(format!("{origin}:{}: {mac} is listed for both {other} and {node}", n + 1));
                }
            }
        }
        Ok(MacMap(map))
    }

    pub fn node(&self, mac: Mac) -> Option<&(String, Option<String>)> {
        self.0.get(&mac)
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Judgement {
    pub answers: Vec<Answer>,
    /// Whether the answering node is the one the election expects; `null` when either is unknown.
    pub matches_election: Option<bool>,
    pub findings: Vec<Finding>,
}

/// Compares the answers on the wire with what the cluster expects.
pub fn judge(ip: IpAddr, interface: &str, replies: &[Reply], ctx: Option<&IpContext>, macs: &MacMap) -> Judgement {
    let layer2 = ctx.and_then(|c| c.services.iter().find(|s| s.protocol == "layer2"));
    let service_ref = |s: &IpHolder| ObjectRef::slashed("service", Some(s.namespace.to_string()), s.name.as_str());
    let mut answers: Vec<Answer> = replies
        .iter()
        .map(|r| match macs.node(r.mac) {
            Some((node, interface)) => Answer {
                mac: r.mac,
                node: Some(node.clone()),
                interface: interface.clone(),
                node_source: Some("macMap".into()),
            },
            None => Answer { mac: r.mac, node: None, interface: None, node_source: None },
        })
        .collect();
    // One MAC answers and the cluster reports one announcer: that MAC is taken to be its.
    if let ([only], Some(holder)) = (&mut answers[..], layer2) {
        if let (None, Some([reported]), Some(source)) =
            (&only.node, holder.actual_announcers.as_deref(), &holder.actual_source)
        {
            only.node = Some(reported.to_string());
            only.node_source = Some(source.to_string());
        }
    }
    let mut findings = Vec::new();
    // An inferred owner says where the inference came from.
    let who = |a: &Answer| match (&a.node, a.node_source.as_deref()) {
        (Some(node), Some("macMap") | None) => format!("{} ({node})", a.mac),
        (Some(node), Some(source)) => format!("{} ({node}, per {source})", a.mac),
        (None, _) => a.mac.to_string(),
    };
    if answers.len() >= 2 {
        let list: Vec<String> = answers.iter().map(who).collect();
        findings.push(Finding::new(
            Code::LBD240,
            format!("{} MACs answer for {ip} on {interface}: {}", answers.len(), list.join(", ")),
            "two hosts claim the IP (split brain): clients flip between them. Find the hosts with the \
                   MACs above and stop the one the election does not pick (a stale speaker, a manual \
                   announce, a duplicate static address)",
            answers
                .iter()
                .map(|a| ObjectRef::slashed("mac", None, a.mac.to_string()))
                .chain(layer2.map(service_ref))
                .collect(),
        ));
    }
    if answers.is_empty() {
        let (message, objects) = match (ctx, layer2) {
            (_, Some(h)) => (
                format!(
                    "nobody answers ARP/NDP for {ip} on {interface}; {}/{} expects {}",
                    h.namespace,
                    h.name,
                    h.expected_announcer.as_deref().unwrap_or("no node (see explain svc)")
                ),
                vec![service_ref(h)],
            ),
            (Some(c), None) if c.services.is_empty() => {
                (format!("nobody answers ARP/NDP for {ip} on {interface}, and no Service holds it"), vec![])
            }
            (Some(c), None) => (
                format!(
                    "nobody answers ARP/NDP for {ip} on {interface}; {}/{} does not announce it on a link ({})",
                    c.services[0].namespace, c.services[0].name, c.services[0].protocol
                ),
                vec![service_ref(&c.services[0])],
            ),
            (None, None) => (format!("nobody answers ARP/NDP for {ip} on {interface}"), vec![]),
        };
        findings.push(Finding::new(
            Code::LBD241,
            message,
            "check that the interface is on the IP's layer-2 segment, then `kubectl lbdoctor explain svc` \
                   for why no speaker answers",
            objects,
        ));
    }
    let matches_election = match (&answers[..], layer2.and_then(|h| h.expected_announcer.as_deref())) {
        ([only], Some(expected)) => only.node.as_deref().map(|n| n == expected),
        _ => None,
    };
    if let (Some(false), Some(holder), [only]) = (matches_election, layer2, &answers[..]) {
        findings.push(Finding::new(
            Code::LBD242,
            format!(
                "{} answers for {ip}, but the election picks {}",
                who(only),
                holder.expected_announcer.as_deref().unwrap_or("nobody")
            ),
            "the node that answers is not the elected one: its speaker holds a stale view (memberlist, \
                   endpoints) or something else announces; see `kubectl lbdoctor explain svc`",
            vec![service_ref(holder), ObjectRef::slashed("node", None, only.node.as_deref().unwrap_or_default())],
        ));
    }
    Judgement { answers, matches_election, findings }
}

/// What `announce` should know before it answers for `ip` from node `this_node`.
pub fn announce_warnings(ip: IpAddr, ctx: &IpContext, this_node: Option<&str>) -> Vec<Finding> {
    let mut findings = Vec::new();
    if ctx.pools.as_ref().is_some_and(Vec::is_empty) {
        findings.push(Finding::new(
            Code::LBD243,
            format!("{ip} is in no MetalLB or Cilium pool"),
            "no Service can be given this IP: check the address for a typo before answering for it",
            vec![],
        ));
    }
    for holder in ctx.services.iter().filter(|h| h.protocol == "layer2") {
        let Some(expected) = &holder.expected_announcer else { continue };
        if this_node == Some(expected.as_str()) {
            continue;
        }
        findings.push(Finding::new(
            Code::LBD244,
            format!(
                "{ip} belongs to {}/{}, whose elected announcer is {expected}, not {}",
                holder.namespace,
                holder.name,
                this_node.map_or("this host (not a node of the cluster)".to_string(), |n| format!("this node ({n})"))
            ),
            format!(
                "if {expected}'s speaker still answers, two MACs will claim the IP; announce from {expected}, or \
                 make sure its speaker is down"
            ),
            vec![
                ObjectRef::slashed("service", Some(holder.namespace.to_string()), holder.name.as_str()),
                ObjectRef::slashed("node", None, expected.as_str()),
            ],
        ));
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Implementation;

    const A: Mac = Mac([2, 0, 0x5e, 0, 0x53, 1]);
    const B: Mac = Mac([2, 0, 0x5e, 0, 0x53, 2]);

    fn reply(mac: Mac) -> Reply {
        Reply { mac, count: 1, first_ms: 1.0, last_ms: 1.0 }
    }

    fn context(expected: Option<&str>, reported: Option<&str>) -> IpContext {
        IpContext {
            pools: Some(vec!["metallb/pool-a".into()]),
            services: vec![IpHolder {
                namespace: "default".into(),
                name: "web".into(),
                implementation: Implementation::Metallb,
                protocol: "layer2",
                expected_announcer: expected.map(Into::into),
                actual_announcers: reported.map(|r| vec![r.into()]),
                actual_source: reported.map(|_| "serviceL2Status".into()),
            }],
        }
    }

    fn ip() -> IpAddr {
        "192.0.2.10".parse().unwrap()
    }

    #[test]
    fn mac_map_lines_and_errors() {
        let map =
            MacMap::parse("# nodes\n02:00:5E:00:53:01 node-a eth0\n\n02-00-5e-00-53-02 node-b # bond0\n", "m.txt")
                .unwrap();
        assert_eq!(map.node(A), Some(&("node-a".to_string(), Some("eth0".to_string()))));
        assert_eq!(map.node(B), Some(&("node-b".to_string(), None)));
        let err = MacMap::parse("02:00:5e:00:53:01 a\nnode-b\n", "m.txt").unwrap_err();
        assert!(err.starts_with("m.txt:2:"), "{err}");
        let err = MacMap::parse("02:00:5e:00:53:01 a\n02:00:5e:00:53:01 b\n", "m.txt").unwrap_err();
        assert!(err.contains("both a and b"), "{err}");
    }

    #[test]
    fn two_macs_are_a_split_brain_whatever_the_cluster_says() {
        let j = judge(ip(), "eth0", &[reply(A), reply(B)], Some(&context(Some("node-a"), None)), &MacMap::default());
        assert_eq!(j.findings.iter().map(|f| f.code).collect::<Vec<_>>(), [Code::LBD240]);
        assert_eq!(j.matches_election, None);
        assert!(j.findings[0].objects.iter().any(|o| o.to_string() == "service/default/web"));
    }

    #[test]
    fn nobody_answers_names_the_expected_node() {
        let j = judge(ip(), "eth0", &[], Some(&context(Some("node-c"), None)), &MacMap::default());
        assert_eq!(j.findings[0].code, Code::LBD241);
        assert!(j.findings[0].message.ends_with("default/web expects node-c"), "{}", j.findings[0].message);
        let j = judge(ip(), "eth0", &[], None, &MacMap::default());
        assert_eq!(j.findings[0].message, "nobody answers ARP/NDP for 192.0.2.10 on eth0");
    }

    #[test]
    fn the_answering_node_comes_from_the_map_else_from_the_one_reported_announcer() {
        let map = MacMap::parse("02:00:5e:00:53:01 node-c", "m").unwrap();
        let j = judge(ip(), "eth0", &[reply(A)], Some(&context(Some("node-c"), Some("node-a"))), &map);
        assert_eq!((j.matches_election, j.findings.len()), (Some(true), 0), "the map wins over the report");

        let j = judge(ip(), "eth0", &[reply(A)], Some(&context(Some("node-c"), Some("node-a"))), &MacMap::default());
        assert_eq!(j.answers[0].node_source.as_deref(), Some("serviceL2Status"));
        assert_eq!(j.matches_election, Some(false));
        assert_eq!(j.findings[0].code, Code::LBD242);
        assert!(j.findings[0].message.contains("(node-a, per serviceL2Status)"), "{}", j.findings[0].message);

        // Nothing names the MAC: unknown, and no finding.
        let j = judge(ip(), "eth0", &[reply(A)], Some(&context(Some("node-c"), None)), &MacMap::default());
        assert_eq!((j.answers[0].node.as_deref(), j.matches_election, j.findings.len()), (None, None, 0));
    }

    #[test]
    fn announce_warns_about_pools_and_other_elected_nodes() {
        let mut ctx = context(Some("node-c"), None);
        assert!(announce_warnings(ip(), &ctx, Some("node-c")).is_empty(), "this node is the elected one");
        let w = announce_warnings(ip(), &ctx, Some("node-b"));
        assert_eq!((w.len(), w[0].code), (1, Code::LBD244));
        assert!(w[0].message.contains("not this node (node-b)"));
        ctx.services[0].expected_announcer = None;
        assert!(announce_warnings(ip(), &ctx, None).is_empty(), "nobody announces: the reason to announce");
        let empty = IpContext { pools: Some(vec![]), services: vec![] };
        assert_eq!(announce_warnings(ip(), &empty, None)[0].code, Code::LBD243);
        let unknown = IpContext { pools: None, services: vec![] };
        assert!(announce_warnings(ip(), &unknown, None).is_empty(), "unknown pools raise nothing");
    }
}
