//! Which watch events change what the engines read, and how: the triggers an evaluation names.

use serde_json::Value;

use super::Key;
use crate::report::Trigger;
use crate::snapshot::ObjectText;

pub(super) fn relist_event(mut t: Trigger) -> Trigger {
    t.event = "relisted";
    t
}

pub(super) fn merge(seen: &mut Trigger, next: Trigger) {
    seen.event = match (seen.event, next.event) {
        // Replaced within the window: there before and after.
        ("deleted", "added") => "modified",
        (_, "deleted") => "deleted",
        ("added", _) => "added",
        (_, e) => e,
    };
    for f in next.fields {
        if !seen.fields.contains(&f) {
            seen.fields.push(f);
        }
    }
    seen.fields.sort();
}

/// The trigger for `old` → `new` when anything the engines may read differs: timestamps that
/// change on every heartbeat (a Node condition's `lastHeartbeatTime`, a Lease's `renewTime`)
/// and bookkeeping (`resourceVersion`, `managedFields`) do not count.
pub(super) fn trigger(key: &Key, old: Option<&ObjectText>, new: Option<&ObjectText>, kind: &str) -> Option<Trigger> {
    let (event, fields) = match (old, new) {
        (None, None) => return None,
        (None, Some(_)) => ("added", Vec::new()),
        (Some(_), None) => ("deleted", Vec::new()),
        (Some(o), Some(n)) => {
            if o.text == n.text {
                return None;
            }
            let fields = differing(&significant(&o.text, kind), &significant(&n.text, kind));
            if fields.is_empty() {
                return None;
            }
            ("modified", fields)
        }
    };
    Some(Trigger {
        kind: kind.to_string(),
        namespace: Some(key.1.clone()).filter(|n| !n.is_empty()),
        name: key.2.clone(),
        event,
        fields,
    })
}

fn significant(text: &str, kind: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        for noise in ["resourceVersion", "managedFields", "generation"] {
            meta.remove(noise);
        }
    }
    if let Some(conditions) = v.pointer_mut("/status/conditions").and_then(Value::as_array_mut) {
        for c in conditions.iter_mut().filter_map(Value::as_object_mut) {
            c.remove("lastHeartbeatTime");
        }
    }
    if kind == "Lease" {
        if let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("renewTime");
        }
    }
    v
}

/// The parts that differ: `labels` and `annotations` of the metadata, else the top-level field.
fn differing(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        return vec!["object".into()];
    };
    let keys: std::collections::BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for key in keys {
        if key == "metadata" {
            let (om, nm) = (&o[key], n.get(key).unwrap_or(&Value::Null));
            for part in ["labels", "annotations"] {
                if om.get(part) != nm.get(part) {
                    out.push(part.to_string());
                }
            }
            let rest = |m: &Value| {
                let mut m = m.clone();
                if let Some(m) = m.as_object_mut() {
                    m.remove("labels");
                    m.remove("annotations");
                }
                m
            };
            if rest(om) != rest(nm) {
                out.push("metadata".into());
            }
        } else if o.get(key) != n.get(key) {
            out.push(key.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn object(kind: &str, value: serde_json::Value) -> ObjectText {
        ObjectText { origin: Arc::from("test"), api_version: "v1".into(), kind: kind.into(), text: value.to_string() }
    }

    fn key() -> Key {
        (0, String::new(), "worker-b".into())
    }

    fn node(labels: serde_json::Value, heartbeat: &str, version: &str) -> ObjectText {
        object(
            "Node",
            serde_json::json!({"metadata": {"name": "worker-b", "resourceVersion": version, "labels": labels},
                "status": {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": heartbeat}]}}),
        )
    }

    #[test]
    fn only_what_the_engines_read_is_a_change() {
        let a = node(serde_json::json!({"a": "1"}), "t1", "1");
        let beat = node(serde_json::json!({"a": "1"}), "t2", "2");
        assert_eq!(trigger(&key(), Some(&a), Some(&beat), "Node"), None, "a heartbeat and a new resourceVersion");
        let labelled = node(serde_json::json!({"a": "1", "x": ""}), "t2", "3");
        let t = trigger(&key(), Some(&a), Some(&labelled), "Node").unwrap();
        assert_eq!((t.event, t.fields.as_slice()), ("modified", ["labels".to_string()].as_slice()));
        assert_eq!(t.describe(), "Node worker-b labels");
        assert_eq!(trigger(&key(), None, Some(&a), "Node").map(|t| t.event), Some("added"));
        assert_eq!(trigger(&key(), Some(&a), None, "Node").map(|t| t.event), Some("deleted"));
        assert_eq!(trigger(&key(), Some(&a), Some(&a), "Node"), None);
    }

    #[test]
    fn a_lease_renewal_is_not_a_change_its_holder_is() {
        let lease = |holder: &str, renew: &str| {
            object(
                "Lease",
                serde_json::json!({"metadata": {"name": "l"}, "spec": {"holderIdentity": holder, "renewTime": renew}}),
            )
        };
        let (a, renewed, taken) = (lease("node-a", "t1"), lease("node-a", "t2"), lease("node-b", "t3"));
        assert_eq!(trigger(&key(), Some(&a), Some(&renewed), "Lease"), None);
        assert_eq!(trigger(&key(), Some(&a), Some(&taken), "Lease").map(|t| t.fields), Some(vec!["spec".to_string()]));
    }

    #[test]
    fn changes_of_one_object_in_a_window_merge() {
        let mut seen =
            Trigger { kind: "Node".into(), namespace: None, name: "n".into(), event: "added", fields: vec![] };
        let modified = Trigger { event: "modified", fields: vec!["labels".into()], ..seen.clone() };
        merge(&mut seen, modified);
        assert_eq!((seen.event, seen.fields.clone()), ("added", vec!["labels".to_string()]));
        let deleted = Trigger { event: "deleted", fields: vec![], ..seen.clone() };
        merge(&mut seen, deleted);
        assert_eq!(seen.event, "deleted", "came and went within the window: the last word");
        let added = Trigger { event: "added", fields: vec![], ..seen.clone() };
        merge(&mut seen, added);
        assert_eq!(seen.event, "modified", "deleted and created again: there before and after");
    }
}
