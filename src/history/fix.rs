//! What to do about the flapping nodes: the nodeSelectors patch for those today's configuration
//! still lets into the elections they disturbed (its effect from the `simulate` engine), or why no
//! patch is needed; and LBD108 for the ones still in.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::engine::Inputs;
use crate::k8s::selector::Selector;
use crate::report::*;

/// Keep the flapping nodes out of the L2Advertisements that make them candidates for the IPs they
/// disturb: each nodeSelector term gets a `kubernetes.io/hostname NotIn` requirement (terms are
/// ORed, so each needs it). The effect is computed by the what-if engine.
pub(super) fn fix(i: &Inputs, all: &[Flapping]) -> Option<Fix> {
    if all.is_empty() {
        return None;
    }
    let flapping: Vec<&Flapping> = all.iter().filter(|f| f.candidate_now).collect();
    if flapping.is_empty() {
        let fixed: Vec<String> = all.iter().map(fixed_clause).collect();
        return Some(Fix {
            needed: false,
            summary: format!("no patch needed: {}", fixed.join("; ")),
            patches: Vec::new(),
            effect: Vec::new(),
        });
    }
    let labels_of = |node: &str| {
        let n = i.snap.nodes.iter().find(|n| n.metadata.name.as_deref() == Some(node));
        n.and_then(|n| n.metadata.labels.clone()).unwrap_or_default()
    };
    let labels: Vec<crate::k8s::selector::Labels> = flapping.iter().map(|f| labels_of(&f.node)).collect();
    let hostnames: Vec<String> = flapping
        .iter()
        .zip(&labels)
        .map(|(f, l)| l.get("kubernetes.io/hostname").cloned().unwrap_or_else(|| f.node.clone()))
        .collect();
    let disturbed: BTreeSet<&str> = (flapping.iter())
        .flat_map(|f| f.ips.iter().filter(|d| d.rank_now.is_some()).flat_map(|d| d.services.iter().map(String::as_str)))
        .collect();
    let mut ads: BTreeSet<String> = BTreeSet::new();
    for s in &i.report.services {
        if disturbed.contains(format!("{}/{}", s.namespace, s.name).as_str()) {
            if let Some(l2) = s.metallb.as_ref().and_then(|m| m.layer2.as_ref()) {
                ads.extend(l2.advertisements.iter().cloned());
            }
        }
    }
    let requirement = json!({"key": "kubernetes.io/hostname", "operator": "NotIn", "values": hostnames});
    let mut patches = Vec::new();
    let mut applied = crate::snapshot::Snapshot::default();
    for ad in i.snap.metallb.l2_advertisements.iter().filter(|a| ads.contains(a.name())) {
        let selects_flapper = labels.iter().any(|labels| {
            ad.spec.node_selectors.is_empty()
                || ad.spec.node_selectors.iter().any(|s| Selector::compile(s).is_ok_and(|s| s.matches(labels)))
        });
        if !selects_flapper {
            continue;
        }
        let terms: Vec<serde_json::Value> = if ad.spec.node_selectors.is_empty() {
            vec![json!({"matchExpressions": [requirement]})]
        } else {
            ad.spec
                .node_selectors
                .iter()
                .map(|s| {
                    let mut term = serde_json::to_value(s).unwrap_or_else(|_| json!({}));
                    let list = term.as_object_mut().map(|o| o.entry("matchExpressions").or_insert_with(|| json!([])));
                    if let Some(serde_json::Value::Array(exprs)) = list {
                        exprs.push(requirement.clone());
                    }
                    term
                })
                .collect()
        };
        let patch = json!({"spec": {"nodeSelectors": terms}});
        let mut patched = ad.clone();
        if let Ok(sel) = serde_json::from_value(json!(terms)) {
            patched.spec.node_selectors = sel;
        }
        applied.metallb.l2_advertisements.push(patched);
        patches.push(AdPatch {
            namespace: ad.namespace().to_string(),
            name: ad.name().to_string(),
            command: format!(
                "kubectl -n {} patch l2advertisement {} --type merge -p '{}'",
                ad.namespace(),
                ad.name(),
                serde_json::to_string(&patch).unwrap_or_default()
            ),
            patch,
        });
    }
    let nodes: Vec<&str> = flapping.iter().map(|f| f.node.as_str()).collect();
    let effect = if applied.metallb.l2_advertisements.is_empty() {
        Vec::new()
    } else {
        let opts = crate::diagnose::Options {
            scope: crate::diagnose::Scope::All,
            detail: false,
            map: false,
            overrides: Default::default(),
        };
        let edit = crate::simulate::edit::Edit::Apply { file: "the fix".into(), objects: Box::new(applied) };
        crate::simulate::simulate(i.snap, &[edit], &opts).map(|s| s.changes).unwrap_or_default()
    };
    Some(Fix {
        needed: true,
        summary: format!(
            "restrict the L2Advertisement nodeSelectors to stable nodes: keep {} out of the election for the IPs {}{}",
            nodes.join(", "),
            if nodes.len() == 1 { "it disturbs" } else { "they disturb" },
            if patches.is_empty() { " (no L2Advertisement found to patch)" } else { "" }
        ),
        patches,
        effect,
    })
}

/// "gpu-1 was fixed on 2026-11-14 by the nodeSelectors change (its last owner change at …)".
fn fixed_clause(f: &Flapping) -> String {
    let Some(fixed) = &f.fixed else {
        return format!("{} is still a candidate", f.node);
    };
    let by: Vec<&str> = fixed
        .excluded_by
        .iter()
        .map(|e| match e.as_str() {
            "notSelected" => "the L2Advertisement nodeSelectors",
            "excludeLabel" => "the exclude-from-external-load-balancers label",
            "noSpeaker" => "no live speaker there",
            "networkUnavailable" => "NetworkUnavailable",
            other => other,
        })
        .collect();
    let by = if by.is_empty() { "today's configuration".to_string() } else { by.join(" and ") };
    match (&fixed.at, fixed.by_configuration_change) {
        (Some(at), true) => format!(
            "{} was fixed on {} by a configuration change: the IPs it disturbed left it for the last time at {at}, \
             to a change no departure explains, and today {by} keep it out of their elections",
            f.node,
            at.get(..10).unwrap_or(at)
        ),
        (Some(at), false) => format!(
            "today {by} keep {} out of the elections it disturbed; it lost the last of those IPs at {at}, \
             when it left memberlist, so the configuration changed after that",
            f.node
        ),
        (None, _) => format!("today {by} keep {} out of the elections it disturbed", f.node),
    }
}

pub(super) fn findings(flapping: &[Flapping], churn: &BTreeMap<String, NodeChurn>) -> Vec<Finding> {
    flapping
        .iter()
        .filter(|f| f.candidate_now)
        .map(|f| {
            let c = &churn[&f.node];
            let now: Vec<&Disturbed> = f.ips.iter().filter(|d| d.rank_now.is_some()).collect();
            let ips: Vec<String> = now
                .iter()
                .map(|d| {
                    let services = if d.services.is_empty() { "no Service now".into() } else { d.services.join(", ") };
                    format!("{} ({services}, rank {})", d.ip, d.rank_now.unwrap_or_default())
                })
                .collect();
            let displaced: BTreeSet<&str> = now.iter().flat_map(|d| d.displaced.iter().map(String::as_str)).collect();
            let changes: Vec<String> = now
                .iter()
                .filter_map(|d| Some(format!("{} of {}", d.owner_changes.filter(|c| *c > 0)?, d.ip)))
                .collect();
            let mut objects = vec![ObjectRef::cluster("Node", &f.node)];
            objects.extend(c.pod.iter().map(|p| ObjectRef::unqualified("Pod", p)));
            objects.extend(now.iter().flat_map(|d| d.services.iter().map(|s| ObjectRef::from_key("Service", s))));
            let restarts = f.restarts.map(|r| format!("restarted {r} times; it ")).unwrap_or_default();
            Finding::new(
                Code::LBD108,
                format!(
                    "{}'s speaker {restarts}left memberlist {} times ({} marked failed) and rejoined {} times; \
                     each time {} moved between it and {}{}; it is still a candidate for {}",
                    f.node,
                    f.departures,
                    f.failed,
                    f.rejoins,
                    if now.len() == 1 { "its IP" } else { "its IPs" },
                    displaced.into_iter().collect::<Vec<_>>().join(", "),
                    if changes.is_empty() {
                        String::new()
                    } else {
                        format!(" (owner changes it caused: {})", changes.join(", "))
                    },
                    ips.join(", "),
                ),
                "find why the speaker restarts (kubectl logs --previous, its lastState), and keep the node out of \
                       the L2Advertisement's nodeSelectors until it is stable (`history` prints the patch)",
                objects,
            )
        })
        .collect()
}
