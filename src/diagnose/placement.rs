//! Why the speaker DaemonSet runs no Pod on a node, from what the snapshot holds: the node's
//! taints against the DaemonSet's tolerations, and its labels against the DaemonSet's
//! nodeSelector. The scheduler's other reasons (affinity, resources) are not guessed at.

use crate::snapshot::DaemonSet;
use k8s_openapi::api::core::v1::{Taint, Toleration};

use super::world::World;

/// "; the speaker DaemonSet does not tolerate node.kubernetes.io/... on gpu-1" style clauses,
/// empty when the snapshot has no speaker DaemonSet or shows no reason.
pub(super) fn why_no_speaker(world: &World, nodes: &[usize]) -> String {
    let Some(ds) = speaker_daemon_set(world) else { return String::new() };
    let Some(pod) = ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { return String::new() };
    let tolerations = pod.tolerations.as_deref().unwrap_or_default();
    let mut reasons = Vec::new();
    for &n in nodes {
        let name = world.table.name(n);
        let Some(node) = world.snap.nodes.iter().find(|o| o.metadata.name.as_deref() == Some(name)) else { continue };
        let untolerated: Vec<String> = (node.spec.as_ref().and_then(|s| s.taints.as_deref()).unwrap_or_default())
            .iter()
            .filter(|t| matches!(t.effect.as_str(), "NoSchedule" | "NoExecute"))
            .filter(|t| !tolerations.iter().any(|tol| tolerates(tol, t)))
            .map(|t| match t.value.as_deref() {
                Some(v) if !v.is_empty() => format!("{}={v}:{}", t.key, t.effect),
                _ => format!("{}:{}", t.key, t.effect),
            })
            .collect();
        if !untolerated.is_empty() {
            reasons.push(format!(
                "{name} has taint {} that the speaker DaemonSet does not tolerate",
                untolerated.join(", ")
            ));
        }
        let labels = node.metadata.labels.as_ref();
        let missing: Vec<String> = (pod.node_selector.iter().flatten())
            .filter(|(k, v)| labels.and_then(|l| l.get(*k)) != Some(*v))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if !missing.is_empty() {
            reasons.push(format!("{name} lacks the speaker DaemonSet's nodeSelector {}", missing.join(", ")));
        }
    }
    if reasons.is_empty() {
        String::new()
    } else {
        format!(": {}", reasons.join("; "))
    }
}

fn speaker_daemon_set<'a>(world: &World<'a>) -> Option<&'a DaemonSet> {
    world.snap.daemon_sets.iter().find(|d| {
        d.metadata.namespace.as_deref() == Some(world.setup.namespace.as_str())
            && d.spec
                .as_ref()
                .and_then(|s| s.template.spec.as_ref())
                .is_some_and(|p| p.containers.iter().any(|c| c.name == "speaker"))
    })
}

/// The scheduler's rule: an empty key with Exists tolerates everything; else the keys match,
/// the effect matches (or the toleration names none), and Exists or an equal value.
fn tolerates(tol: &Toleration, taint: &Taint) -> bool {
    let op = tol.operator.as_deref().unwrap_or("Equal");
    let key = tol.key.as_deref().unwrap_or("");
    if key.is_empty() && op == "Exists" {
        return tol.effect.as_deref().is_none_or(|e| e.is_empty() || e == taint.effect);
    }
    if key != taint.key || tol.effect.as_deref().is_some_and(|e| !e.is_empty() && e != taint.effect) {
        return false;
    }
    op == "Exists" || tol.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taint(key: &str, value: Option<&str>, effect: &str) -> Taint {
        Taint { key: key.into(), value: value.map(Into::into), effect: effect.into(), ..Default::default() }
    }

    #[test]
    fn tolerations_match_as_the_scheduler_matches_them() {
        let gpu = taint("nvidia.com/gpu", Some("true"), "NoSchedule");
        let exists =
            Toleration { key: Some("nvidia.com/gpu".into()), operator: Some("Exists".into()), ..Default::default() };
        let equal = Toleration { key: Some("nvidia.com/gpu".into()), value: Some("true".into()), ..Default::default() };
        let wrong =
            Toleration { key: Some("nvidia.com/gpu".into()), value: Some("false".into()), ..Default::default() };
        let all = Toleration { operator: Some("Exists".into()), ..Default::default() };
        let other_effect = Toleration { effect: Some("NoExecute".into()), ..exists.clone() };
        assert!(tolerates(&exists, &gpu) && tolerates(&equal, &gpu) && tolerates(&all, &gpu));
        assert!(!tolerates(&wrong, &gpu) && !tolerates(&other_effect, &gpu));
    }
}
