//! The one-sentence answer for a Service, written from the same values as the decision.

use std::collections::BTreeMap;

use super::world::World;
use super::L2Outcome;
use crate::k8s::EXCLUDE_LB_LABEL;
use crate::metallb::config::Pool;
use crate::report::{Exclusion, L2Node};

pub(super) fn sentence(world: &World, pool: &Pool, l2: &L2Outcome, nodes: &[L2Node]) -> String {
    let el = &l2.election;
    let ip = &el.ip;
    let head = match (el.expected_announcer(), l2.answering(world)) {
        (Some(n), Some(_)) => format!("{} announces {ip}", world.table.name(n)),
        (Some(n), None) => {
            format!("nobody answers for {ip}: the election picks {}, which runs no live speaker", world.table.name(n))
        }
        (None, _) if !el.active_endpoint => {
            format!("nobody announces {ip}: the Service has no serving endpoint")
        }
        (None, _) if el.shared_ip_refusal => {
            format!("nobody announces {ip}: newer MetalLB refuses allow-shared-ip Services on L2Advertisements with serviceSelectors")
        }
        (None, _) if pool.l2.is_empty() => format!("nobody announces {ip}: pool {} has no advertisement", pool.name),
        (None, _) if el.ads_for_service.is_empty() => {
            format!("nobody announces {ip}: no L2Advertisement of pool {} matches the Service", pool.name)
        }
        (None, _) => {
            let ctx = world.l2_context(world.setup.head(), false);
            let why = match el.emptied_by(&ctx) {
                Some(Exclusion::NotSelected) => "its advertisements select no existing node".to_string(),
                Some(Exclusion::NoSpeaker) => "no node its advertisements select runs a live speaker".to_string(),
                Some(Exclusion::NetworkUnavailable) => {
                    "every node its advertisements select has NetworkUnavailable=True".to_string()
                }
                Some(Exclusion::ExcludeLabel) => {
                    format!("every node its advertisements select carries {EXCLUDE_LB_LABEL}")
                }
                _ => "no candidate node hosts a serving endpoint (externalTrafficPolicy Local)".to_string(),
            };
            format!("nobody announces {ip}: {why}")
        }
    };

    // Group the losers by the first filter that removed them.
    let mut groups: BTreeMap<Exclusion, Vec<&L2Node>> = BTreeMap::new();
    for n in nodes {
        let filters =
            n.excluded_by.iter().filter(|c| !matches!(**c, Exclusion::NoServingEndpoint | Exclusion::SharedIpRefused));
        if let Some(first) = filters.into_iter().next() {
            groups.entry(*first).or_default().push(n);
        }
    }
    let mut parts = vec![head];
    use Exclusion::*;
    for code in [NoSpeaker, NetworkUnavailable, ExcludeLabel, NotSelected, NoLocalEndpoint, LostElection] {
        let Some(group) = groups.get(&code) else {
            continue;
        };
        let count = group.len();
        let subject = describe(group);
        let verb = if count == 1 { "is" } else { "are" };
        let text = match code {
            NoSpeaker => format!("{subject} {} no live speaker", if count == 1 { "runs" } else { "run" }),
            NetworkUnavailable => format!("{subject} {verb} out: NetworkUnavailable=True"),
            ExcludeLabel => {
                let empty = group.iter().all(|n| n.exclude_label_value.as_deref() == Some(""));
                let how = if empty { "present with an empty value" } else { "the key alone counts" };
                format!("{subject} {verb} excluded by {EXCLUDE_LB_LABEL} ({how})")
            }
            NotSelected => {
                format!("{subject} {verb} not selected by any L2Advertisement matching the Service")
            }
            NoLocalEndpoint => format!(
                "{subject} {} no serving endpoint (externalTrafficPolicy Local)",
                if count == 1 { "hosts" } else { "host" }
            ),
            _ if group.iter().copied().chain(nodes.first()).any(|n| n.score.is_some_and(|s| s > 0)) => {
                format!("{subject} lost the election (preference score first, then hash)")
            }
            _ => format!("{subject} lost the hash election"),
        };
        parts.push(text);
    }
    parts.join("; ")
}

/// "worker-b", "3 control-plane nodes (cp-1, cp-2, cp-3)" or "5 nodes (a, b, c, …)".
fn describe(group: &[&L2Node]) -> String {
    if group.len() == 1 {
        return group[0].node.to_string();
    }
    let role = group[0].roles.first().filter(|r| group.iter().all(|n| n.roles.contains(r)));
    let names: Vec<&str> = group.iter().take(4).map(|n| &*n.node).collect();
    let more = if group.len() > 4 { ", …" } else { "" };
    match role {
        Some(r) => format!("{} {r} nodes ({}{more})", group.len(), names.join(", ")),
        None => format!("{} nodes ({}{more})", group.len(), names.join(", ")),
    }
}
