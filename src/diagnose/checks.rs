//! Findings: each names the objects involved and carries a hint with the fix (DESIGN §6).

use std::collections::{BTreeSet, HashMap};

use super::world::World;
use super::Evaluation;
use crate::k8s::EXCLUDE_LB_LABEL;
use crate::metallb::l2::{Exclusion, NodeId};
use crate::metallb::service::Withdraw;
use crate::report::{Code, Finding, ObjectRef};

pub(super) fn names(world: &World, set: impl IntoIterator<Item = NodeId>, limit: usize) -> String {
    let all: Vec<&str> = set.into_iter().map(|n| world.table.name(n)).collect();
    let mut text = all.iter().take(limit).copied().collect::<Vec<_>>().join(", ");
    if all.len() > limit {
        text.push_str(&format!(" and {} more", all.len() - limit));
    }
    text
}

pub(super) fn service_findings(
    world: &World,
    e: &Evaluation,
    answered: &HashMap<&str, Vec<(&Evaluation, NodeId)>>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let svc_obj = ObjectRef::new("Service", &e.namespace, &e.name);
    let ns = &world.setup.namespace;

    if e.withdraw == Some(Withdraw::IpNotAllowed) {
        out.push(Finding::new(
            Code::LBD111,
            format!("{} belongs to no IPAddressPool in {ns}: every speaker withdraws it (ipNotAllowed)", e.ips.join(", ")),
            "add the address to an IPAddressPool in MetalLB's namespace, or let MetalLB assign a new one (remove the stale status or the requested IP)",
            vec![svc_obj.clone()],
        ));
    }
    if e.withdraw == Some(Withdraw::InvalidIp) {
        out.push(Finding::new(
            Code::LBD101,
            format!("nobody announces this Service: an ingress entry has no parsable IP ({:?}), so every speaker withdraws it (invalidIP)", e.ips),
            "MetalLB only announces ingress entries with an IP; remove hostname-only entries written by another controller",
            vec![svc_obj.clone()],
        ));
    }

    let Some(l2) = &e.l2 else { return out };
    let Ok(config) = world.config.as_ref() else {
        return out;
    };
    let el = &l2.election;
    let pool = &config.pools[e.pool.expect("pool set with layer2")];
    let pool_obj = ObjectRef::new("IPAddressPool", ns, &pool.name);
    let ad_objs = |idx: &[usize]| -> Vec<ObjectRef> {
        idx.iter()
            .map(|&i| ObjectRef::new("L2Advertisement", ns, &config.l2_advertisements[l2.pool_ads[i]].name))
            .collect()
    };
    let svc_ads = ad_objs(&el.ads_for_service);
    let ctx_ignore = world.setup.ignore_exclude_lb;
    let ip = &el.ip;
    let answering = l2.answering(world);
    let shared_by: Vec<String> = answered
        .get(ip.as_str())
        .into_iter()
        .flatten()
        .filter(|(other, _)| !(other.namespace == e.namespace && other.name == e.name))
        .map(|(other, node)| format!("{} for {}/{}", world.table.name(*node), other.namespace, other.name))
        .collect();

    if !el.active_endpoint {
        let also = if shared_by.is_empty() {
            String::new()
        } else {
            format!("; the shared IP {ip} is still answered by {}", shared_by.join(", "))
        };
        out.push(Finding::new(
            Code::LBD104,
            format!("the Service has no serving endpoint, so every speaker returns notOwner for it{also}"),
            "check the Pods behind the Service's selector (kubectl get endpointslices -l kubernetes.io/service-name=NAME); MetalLB counts ready or serving endpoints, under any traffic policy",
            vec![svc_obj.clone()],
        ));
    }

    // Nobody answers ARP/NDP for this IP on behalf of this Service.
    let has_l2 = !pool.l2.is_empty();
    let dark = answering.is_none() && shared_by.is_empty() && (has_l2 || pool.bgp.is_empty());
    if dark {
        let ctx_filter = el.emptied_by(&world.l2_context(world.setup.head(), false));
        let (cause, hint, mut objects) = if !has_l2 {
            (
                format!("pool {} has no L2Advertisement or BGPAdvertisement", pool.name),
                "create an L2Advertisement for the pool (spec.ipAddressPools)".to_string(),
                vec![pool_obj.clone()],
            )
        } else if !el.active_endpoint {
            ("the Service has no serving endpoint".to_string(), format!("see {}", Code::LBD104), vec![])
        } else if el.shared_ip_refusal {
            (
                "newer MetalLB refuses a Service with allow-shared-ip when an L2Advertisement with serviceSelectors applies (sharedIPWithServiceSelector)".to_string(),
                "drop the serviceSelectors from the advertisement or the allow-shared-ip annotation".to_string(),
                svc_ads.clone(),
            )
        } else if el.ads_for_service.is_empty() {
            (
                format!("none of the L2Advertisements of pool {} matches the Service's labels (serviceSelectors)", pool.name),
                "label the Service to match an advertisement's serviceSelectors, or add an advertisement without serviceSelectors".to_string(),
                ad_objs(&(0..l2.pool_ads.len()).collect::<Vec<_>>()),
            )
        } else if let Some(winner) = el.expected_announcer() {
            (
                format!(
                    "the election picks {}, which runs no live speaker (memberlist is disabled, so nobody takes over)",
                    world.table.name(winner)
                ),
                "run a speaker on every node that can win, or enable memberlist so a dead speaker drops out"
                    .to_string(),
                vec![ObjectRef::cluster("Node", world.table.name(winner))],
            )
        } else {
            let filter = ctx_filter.unwrap_or(Exclusion::NotSelected);
            let text = match filter {
                Exclusion::NoSpeaker => "no node the advertisements select runs a live speaker".to_string(),
                Exclusion::NetworkUnavailable => {
                    "every selected node with a live speaker has NetworkUnavailable=True".to_string()
                }
                Exclusion::ExcludeLabel => {
                    format!("every node the advertisements select carries {EXCLUDE_LB_LABEL}")
                }
                Exclusion::NotSelected => "the advertisements matching the Service select no existing node".to_string(),
                _ => "externalTrafficPolicy is Local and no candidate node hosts a serving endpoint".to_string(),
            };
            (
                format!("{text} (filter {})", filter.as_str()),
                "see the per-node table (kubectl lbdoctor explain svc NAME -n NS) for which filter removed each node"
                    .to_string(),
                svc_ads.clone(),
            )
        };
        objects.insert(0, svc_obj.clone());
        out.push(Finding::new(Code::LBD101, format!("no node announces {ip}: {cause}"), hint, objects));
    }

    // LBD102: the advertisement's nodes exist but every one of them carries the exclude label.
    if answering.is_none() && !ctx_ignore && el.active_endpoint && !el.ads_for_service.is_empty() {
        let mut reachable = el.after_network.clone();
        reachable.intersect_with(&el.advertised);
        let mut kept = reachable.clone();
        kept.difference_with(&world.table.excluded);
        if !reachable.is_clear() && kept.is_clear() {
            let trapped: Vec<usize> = el
                .ads_for_service
                .iter()
                .copied()
                .filter(|&i| config.l2_advertisements[l2.pool_ads[i]].has_node_selectors)
                .collect();
            let empty_values = reachable.ones().all(|n| world.exclude_values[n].as_deref() == Some(""));
            let mut objects = vec![svc_obj.clone()];
            objects.extend(ad_objs(&trapped));
            objects.extend(reachable.ones().map(|n| ObjectRef::cluster("Node", world.table.name(n))));
            out.push(Finding::new(
                Code::LBD102,
                format!(
                    "{} select{} only nodes that carry {EXCLUDE_LB_LABEL}{} ({}); MetalLB checks the key only, so none of them may announce {ip}",
                    if trapped.is_empty() {
                        "the advertisements matching the Service".to_string()
                    } else {
                        trapped
                            .iter()
                            .map(|&i| format!("L2Advertisement {}", config.l2_advertisements[l2.pool_ads[i]].name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                    if trapped.len() == 1 { "s" } else { "" },
                    if empty_values { " with an empty value" } else { "" },
                    names(world, reachable.ones(), 6),
                ),
                format!(
                    "`kubectl get nodes -L {EXCLUDE_LB_LABEL}` shows an empty column for these nodes although the key is present; select other nodes in the L2Advertisement's nodeSelectors, remove the label (kubectl label node NAME {EXCLUDE_LB_LABEL}-), or run the speakers with --ignore-exclude-lb"
                ),
                objects,
            ));
        }
    }

    // LBD103: eTP Local and no candidate hosts a serving endpoint.
    if el.local_endpoints.is_some() && el.active_endpoint && !el.candidates.is_clear() && el.available.is_clear() {
        let with_eps: BTreeSet<NodeId> = world
            .endpoints
            .get(&(e.namespace.clone(), e.name.clone()))
            .into_iter()
            .flatten()
            .filter(|ep| ep.can_serve)
            .filter_map(|ep| ep.node)
            .collect();
        out.push(Finding::new(
            Code::LBD103,
            format!(
                "externalTrafficPolicy is Local and none of the {} candidate nodes ({}) hosts a serving endpoint{}",
                el.candidates.count_ones(..),
                names(world, el.candidates.ones(), 6),
                if with_eps.is_empty() { String::new() } else { format!("; the endpoints run on {}", names(world, with_eps, 6)) }
            ),
            "schedule the Pods onto nodes the L2Advertisement selects (nodeSelector/affinity), widen the advertisement's nodeSelectors, or use externalTrafficPolicy Cluster",
            std::iter::once(svc_obj.clone()).chain(svc_ads.iter().cloned()).collect(),
        ));
    }

    // LBD105: what the cluster reports against what the election says.
    if let Some(observed) = &e.observed {
        let expected: BTreeSet<&str> = answering.map(|n| world.table.name(n)).into_iter().collect();
        let actual: BTreeSet<&str> = observed.nodes.iter().map(String::as_str).collect();
        if expected != actual {
            let source = if observed.source == "events" { "the latest nodeAssigned Event" } else { "ServiceL2Status" };
            let said = if actual.is_empty() {
                "no node".to_string()
            } else {
                actual.iter().copied().collect::<Vec<_>>().join(", ")
            };
            let want = if expected.is_empty() {
                "nobody".to_string()
            } else {
                expected.iter().copied().collect::<Vec<_>>().join(", ")
            };
            let why = if observed.source == "events" {
                "Events are history: they may predate a configuration or membership change"
            } else if actual.is_empty() {
                "the winner may hold the IP without a ServiceL2Status when its interface check failed (announceFailed), or the status was not written yet"
            } else {
                "a speaker may see a different memberlist (network partition), run an older configuration after a rejected change, or the status may be stale"
            };
            out.push(Finding::new(
                Code::LBD105,
                format!("{source} says {said} announces {ip}, the election says {want}; {why}"),
                "compare the speakers' memberlist view and ConfigurationState, and look for announceFailed Events; `arping -I <interface> <IP>` from a host on the segment shows who answers on the wire",
                std::iter::once(svc_obj.clone()).chain(actual.iter().map(|n| ObjectRef::cluster("Node", *n))).collect(),
            ));
        }
    }

    // LBD106: one candidate (before the eTP Local filter) means no failover.
    if answering.is_some() && el.candidates.count_ones(..) == 1 {
        let only = el.candidates.ones().next().expect("one candidate");
        out.push(Finding::new(
            Code::LBD106,
            format!("{} is the only candidate for {ip}: if it fails nobody takes over", world.table.name(only)),
            "widen the L2Advertisement's nodeSelectors or run speakers on more of the selected nodes",
            std::iter::once(svc_obj.clone()).chain(svc_ads.iter().cloned()).collect(),
        ));
    }

    // LBD107: the answer depends on the MetalLB version.
    if let Some(other) = l2.alternate_expected {
        let name = |n: Option<NodeId>| n.map(|n| world.table.name(n).to_string()).unwrap_or_else(|| "nobody".into());
        let (used, alt) = if world.setup.head() { ("main", "v0.16.1") } else { ("v0.16.1", "main") };
        out.push(Finding::new(
            Code::LBD107,
            format!(
                "MetalLB {used} rules elect {}, {alt} rules would elect {}; this report uses {used} ({})",
                name(el.expected_announcer()),
                name(other),
                world.setup.behaviour_reason
            ),
            "pass --metallb-version v0.16.1 or main to match the speakers you run",
            std::iter::once(svc_obj).chain(svc_ads).collect(),
        ));
    }
    out
}

pub(super) fn cluster_findings(world: &World) -> Vec<Finding> {
    let mut out = Vec::new();
    let ns = &world.setup.namespace;
    if !world.setup.installed {
        return out;
    }
    out.extend(outside_namespace(world));
    let config = match &world.config {
        Ok(c) => c,
        Err(err) => {
            out.push(Finding::new(
                Code::LBD201,
                format!("MetalLB rejects the whole configuration: {}", err.message),
                if err.message.contains("native bgp mode") || err.message.contains("native BGP mode") {
                    "the speakers run the native BGP backend (the default when METALLB_BGP_TYPE is unset), which cannot carry this: restrict the BGPAdvertisements to IPv4 pools and standard communities, or switch MetalLB to frr or frr-k8s mode. Until then every speaker keeps its last good configuration, layer 2 included"
                } else if world.controller_config.is_ok() {
                    // Advertisements and peers are the speakers' business; the controller reads pools only.
                    "fix the object named; until then every speaker keeps its last good configuration, which the snapshot cannot show (check ConfigurationState objects). The controller reads only pools, communities and namespaces, so allocation goes on"
                } else {
                    "fix the object named; until then every speaker and the controller keep their last good configuration, which the snapshot cannot show (check ConfigurationState objects)"
                },
                err.objects.clone(),
            ));
            return out;
        }
    };
    for pool in &config.pools {
        if pool.l2.is_empty() && pool.bgp.is_empty() {
            out.push(Finding::new(
                Code::LBD202,
                format!(
                    "pool {} has no L2Advertisement or BGPAdvertisement: its IPs are allocated but never announced",
                    pool.name
                ),
                "create an L2Advertisement (or BGPAdvertisement) that lists the pool in spec.ipAddressPools",
                vec![ObjectRef::new("IPAddressPool", ns, &pool.name)],
            ));
        }
    }
    for ad in &config.l2_advertisements {
        let obj = ObjectRef::new("L2Advertisement", ns, &ad.name);
        if ad.nodes.is_empty() {
            out.push(Finding::new(
                Code::LBD203,
                format!(
                    "L2Advertisement {} selects no node{}",
                    ad.name,
                    if ad.has_node_selectors {
                        " with its nodeSelectors"
                    } else {
                        " (the snapshot has no Node objects)"
                    }
                ),
                "check the nodeSelectors against `kubectl get nodes --show-labels`",
                vec![obj.clone()],
            ));
        }
        if ad.pools.is_empty() && !config.pools.is_empty() {
            out.push(Finding::new(
                Code::LBD204,
                format!("L2Advertisement {} attaches to no IPAddressPool: its ipAddressPools/ipAddressPoolSelectors match none (a selector matching nothing does not mean all pools)", ad.name),
                "name existing pools in spec.ipAddressPools, fix the selector, or remove both fields to advertise every pool",
                vec![obj],
            ));
        }
    }
    out
}

/// LBD205: MetalLB reads its CRs from its own namespace only.
fn outside_namespace(world: &World) -> Option<Finding> {
    let ns = &world.setup.namespace;
    let snap = world.snap;
    let mut outside: Vec<ObjectRef> = Vec::new();
    let m = &snap.metallb;
    for (kind, ons) in m
        .ip_address_pools
        .iter()
        .map(|o| ("IPAddressPool", (o.namespace(), o.name())))
        .chain(m.l2_advertisements.iter().map(|o| ("L2Advertisement", (o.namespace(), o.name()))))
        .chain(m.bgp_advertisements.iter().map(|o| ("BGPAdvertisement", (o.namespace(), o.name()))))
        .chain(m.bgp_peers.iter().map(|o| ("BGPPeer", (o.namespace(), o.name()))))
        .chain(m.communities.iter().map(|o| ("Community", (o.namespace(), o.name()))))
    {
        if ons.0 != ns {
            outside.push(ObjectRef::new(kind, ons.0, ons.1));
        }
    }
    (!outside.is_empty()).then(|| {
        Finding::new(
            Code::LBD205,
            format!("{} MetalLB object(s) outside MetalLB's namespace {ns} are ignored by MetalLB", outside.len()),
            format!(
                "move them to {ns}, or tell lbdoctor the namespace MetalLB runs in (SnapshotInfo metallb.namespace)"
            ),
            outside,
        )
    })
}
