//! Strict decoding for files that stand for an edit (`simulate --apply`): a field the API server
//! does not know (`nodeSelector:` for `nodeSelectors:`) makes `kubectl apply` fail, so a what-if
//! built on it can never happen. Snapshots stay tolerant: a newer server's fields are normal there.
//!
//! The known fields come from `fields.json`, written by `scripts/gen-fields.py` from the OpenAPI
//! the real kube-apiserver serves (Kubernetes v1.36 and MetalLB v0.16.1's CRDs).

use std::sync::OnceLock;

use serde_json::Value;

/// A field the server would refuse, with the object it is in and the nearest known name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// `spec.nodeSelector`, `spec.ports[0].prot`.
    pub path: String,
    /// The path's keys without indexes, to find the line in the file.
    pub keys: Vec<String>,
    /// `spec.nodeSelectors`.
    pub nearest: Option<String>,
}

fn known() -> &'static Value {
    static FIELDS: OnceLock<Value> = OnceLock::new();
    FIELDS.get_or_init(|| serde_json::from_str(include_str!("fields.json")).expect("fields.json is valid JSON"))
}

/// Whether the fields of this apiVersion and kind are known (else nothing can be said).
pub fn checks(api_version: &str, kind: &str) -> bool {
    known().get(format!("{api_version}/{kind}")).is_some()
}

/// The fields a server never returns for this kind, as far as a snapshot is checked: the whole
/// object for MetalLB's and Cilium's kinds (their schemas prune unknown fields), and for the
/// built-in kinds the top level and `metadata` only, so that a newer Kubernetes' fields deeper
/// in a spec are not called mistakes. `object` is the object's JSON text.
pub fn snapshot_unknown(api_version: &str, kind: &str, object: &str) -> Vec<UnknownField> {
    if !checks(api_version, kind) {
        return Vec::new();
    }
    let custom = api_version.starts_with("metallb.io/") || api_version.starts_with("cilium.io/");
    if custom {
        return match serde_json::from_str::<Value>(object) {
            Ok(value) => unknown_fields(api_version, kind, &value),
            Err(_) => Vec::new(),
        };
    }
    let Ok(top) = serde_json::from_str::<Top>(object) else { return Vec::new() };
    shallow(
        api_version,
        kind,
        &mut top.rest.keys().map(|k| k.as_ref()),
        top.metadata.as_ref().map(|m| Box::new(m.keys().map(|k| k.as_ref())) as Box<dyn Iterator<Item = &str>>),
    )
}

/// `snapshot_unknown` for a built-in kind whose decoder noted the keys it did not read.
pub(crate) fn unknown_keys(api_version: &str, kind: &str, other: super::keys::OtherKeys) -> Vec<UnknownField> {
    if !checks(api_version, kind) || (other.top.is_empty() && other.metadata.is_empty()) {
        return Vec::new();
    }
    // In the order `snapshot_unknown` reports them: sorted, each key once.
    let (mut top, mut metadata) = (other.top, other.metadata);
    for keys in [&mut top, &mut metadata] {
        keys.sort();
        keys.dedup();
    }
    shallow(api_version, kind, &mut top.iter().map(|k| k.as_ref()), Some(Box::new(metadata.iter().map(|k| k.as_ref()))))
}

/// Keys only: the values are skipped, not built.
type Keys<'a> = std::collections::BTreeMap<std::borrow::Cow<'a, str>, serde::de::IgnoredAny>;

/// An object's top-level keys (sorted, without `metadata`) and its metadata's keys. Written by
/// hand: `#[serde(flatten)]` would first copy every value of the object into serde's buffer.
struct Top<'a> {
    metadata: Option<Keys<'a>>,
    rest: Keys<'a>,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Top<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Visit<'a> {
            type Value = Top<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Top<'a>, A::Error> {
                let mut top = Top { metadata: None, rest: Keys::new() };
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "metadata" {
                        top.metadata = map.next_value()?;
                    } else {
                        top.rest.insert(key, map.next_value()?);
                    }
                }
                Ok(top)
            }
        }
        deserializer.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// `snapshot_unknown` for an object already read as a value (YAML).
pub fn snapshot_unknown_value(api_version: &str, kind: &str, object: &Value) -> Vec<UnknownField> {
    if !checks(api_version, kind) {
        return Vec::new();
    }
    if api_version.starts_with("metallb.io/") || api_version.starts_with("cilium.io/") {
        return unknown_fields(api_version, kind, object);
    }
    let Some(map) = object.as_object() else { return Vec::new() };
    let meta = map.get("metadata").and_then(Value::as_object);
    shallow(
        api_version,
        kind,
        &mut map.keys().map(String::as_str),
        meta.map(|m| Box::new(m.keys().map(String::as_str)) as Box<dyn Iterator<Item = &str>>),
    )
}

/// The top-level and `metadata` keys that the kind does not have.
fn shallow<'k>(
    api_version: &str,
    kind: &str,
    top: &mut dyn Iterator<Item = &'k str>,
    metadata: Option<Box<dyn Iterator<Item = &'k str> + 'k>>,
) -> Vec<UnknownField> {
    let tree = &known()[format!("{api_version}/{kind}").as_str()];
    let mut out = Vec::new();
    let mut check = |keys: &mut dyn Iterator<Item = &str>, fields: &Value, parent: &str| {
        for key in keys {
            if fields.get(key).is_none() {
                let names = fields.as_object().into_iter().flat_map(|m| m.keys().map(String::as_str));
                let path = if parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") };
                let nearest =
                    nearest(key, names)
                        .map(|n| if parent.is_empty() { n.to_string() } else { format!("{parent}.{n}") });
                let keys = path.split('.').map(str::to_string).collect();
                out.push(UnknownField { path, keys, nearest });
            }
        }
    };
    check(top, tree, "");
    if let Some(mut meta) = metadata {
        check(&mut meta, &tree["metadata"], "metadata");
    }
    out
}

/// The fields of `object` that its kind does not have, in document order; empty for a kind
/// whose fields are not known.
pub fn unknown_fields(api_version: &str, kind: &str, object: &Value) -> Vec<UnknownField> {
    let mut out = Vec::new();
    if let Some(tree) = known().get(format!("{api_version}/{kind}")) {
        walk(object, tree, &mut String::new(), &mut Vec::new(), &mut out);
    }
    out
}

fn walk(value: &Value, tree: &Value, path: &mut String, keys: &mut Vec<String>, out: &mut Vec<UnknownField>) {
    let Some(fields) = tree.as_object() else { return };
    match value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(item, tree, path, keys, out);
                path.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, inner) in map {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                keys.push(key.clone());
                match fields.get(key) {
                    Some(subtree) => walk(inner, subtree, path, keys, out),
                    None => {
                        let parent = &path[..len];
                        let nearest = nearest(key, fields.keys().map(String::as_str)).map(|n| {
                            if parent.is_empty() {
                                n.to_string()
                            } else {
                                format!("{parent}.{n}")
                            }
                        });
                        out.push(UnknownField { path: path.clone(), keys: keys.clone(), nearest });
                    }
                }
                keys.pop();
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// The known name closest to a mistyped one, when it is close enough to be what was meant.
fn nearest<'a>(key: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let known: Vec<&str> = known.collect();
    let lower = key.to_lowercase();
    // A name cut short (`prot`, `nodeSelector`) is the shortest name it begins.
    let begun =
        known.iter().filter(|k| lower.len() >= 3 && k.to_lowercase().starts_with(&lower)).min_by_key(|k| k.len());
    if let Some(k) = begun {
        return Some(k);
    }
    known
        .into_iter()
        .map(|k| (strsim::jaro_winkler(&key.to_lowercase(), &k.to_lowercase()), k))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

/// The 1-based line of the field `keys` in `text`, searching from the object's first line: each
/// key in turn, as `key:` in YAML or `"key"` in JSON. `None` when the text does not show it.
pub fn line_of(text: &str, from_line: usize, keys: &[String]) -> Option<usize> {
    let mut line = from_line.max(1);
    for key in keys {
        let yaml = format!("{key}:");
        let json = format!("\"{key}\"");
        let found = text.lines().enumerate().skip(line - 1).find(|(_, l)| {
            let t = l.trim_start().trim_start_matches("- ").trim_start_matches(['{', ' ']);
            t.starts_with(&yaml)
                || l.contains(&json)
                || l.contains(&format!(" {yaml}"))
                || l.contains(&format!("{{{yaml}"))
        })?;
        line = found.0 + 1;
    }
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_misspelt_field_is_found_with_the_name_meant() {
        let ad = json!({"apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
            "metadata": {"name": "w", "namespace": "metallb-system", "labels": {"any": "x"}},
            "spec": {"ipAddressPools": ["lan"], "nodeSelector": [{"matchLabels": {"a": "b"}}]}});
        let unknown = unknown_fields("metallb.io/v1beta1", "L2Advertisement", &ad);
        assert_eq!(unknown.len(), 1, "{unknown:?}");
        assert_eq!(unknown[0].path, "spec.nodeSelector");
        assert_eq!(unknown[0].nearest.as_deref(), Some("spec.nodeSelectors"));
    }

    #[test]
    fn lists_maps_and_newer_fields_are_walked_as_the_server_does() {
        let svc = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "annotations": {"x/y": "z"}},
            "spec": {"type": "LoadBalancer", "selector": {"app": "a"}, "ports": [{"port": 80}, {"port": 81, "prot": "TCP"}]}});
        let unknown = unknown_fields("v1", "Service", &svc);
        assert_eq!(unknown.iter().map(|u| u.path.as_str()).collect::<Vec<_>>(), ["spec.ports[1].prot"]);
        assert_eq!(unknown[0].nearest.as_deref(), Some("spec.ports[1].protocol"));
        let preferred = json!({"spec": {"preferredNodeSelectors": [{"weight": 1, "preference": {"matchLabels": {}}}]}});
        assert!(unknown_fields("metallb.io/v1beta1", "L2Advertisement", &preferred).is_empty());
        assert!(!checks("frrk8s.metallb.io/v1beta1", "FRRConfiguration"));
    }

    #[test]
    fn a_snapshot_is_checked_where_a_server_would_have_pruned() {
        let node =
            r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"a","label":{"x":"y"}},"spec":{"newField":1}}"#;
        let unknown = snapshot_unknown("v1", "Node", node);
        assert_eq!(unknown.iter().map(|u| u.path.as_str()).collect::<Vec<_>>(), ["metadata.label"]);
        assert_eq!(unknown[0].nearest.as_deref(), Some("metadata.labels"));
        let svc = r#"{"stauts":{"a":[1,{"b":null}]},"apiVersion":"v1","spec":{"x":[true,"s",{"y":{}}]},"metadata":{"name":"a","annotation":{}},"kind":"Service","Status":2}"#;
        let unknown = snapshot_unknown("v1", "Service", svc);
        // Sorted by key, then metadata's; every kind of value is read past.
        assert_eq!(
            unknown.iter().map(|u| u.path.as_str()).collect::<Vec<_>>(),
            ["Status", "stauts", "metadata.annotation"]
        );
        let ad = r#"{"apiVersion":"metallb.io/v1beta1","kind":"L2Advertisement","metadata":{"name":"a"},"spec":{"nodeSelector":[]}}"#;
        assert_eq!(snapshot_unknown("metallb.io/v1beta1", "L2Advertisement", ad)[0].path, "spec.nodeSelector");
    }

    #[test]
    fn keys_noted_while_decoding_are_found_as_a_second_reading_finds_them() {
        use crate::snapshot::keys::Checked;
        use crate::snapshot::{EndpointSlice, Service};
        let services = [
            r#"{"stauts":{"a":[1,{"b":null}]},"apiVersion":"v1","spec":{"x":[true,"s",{"y":{}}]},"metadata":{"name":"a","annotation":{},"uid":"u","labls":{}},"kind":"Service","Status":2,"Status":3}"#,
            r#"{"apiVersion":"v1","kind":"Service","metadata":{"name":"a","namespace":"b","managedFields":[],"generation":1}}"#,
            r#"{"apiVersion":"v1","kind":"Service","metadata":null,"spec":null,"speck":{}}"#,
        ];
        for text in services {
            let checked: Checked<Service> = serde_json::from_str(text).unwrap();
            assert_eq!(unknown_keys("v1", "Service", checked.other), snapshot_unknown("v1", "Service", text), "{text}");
        }
        let slices = [
            r#"{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","addressType":"IPv4","metadata":{"name":"a","annotations":{"x":"y"},"nme":"b"},"endpoint":[],"endpoints":null}"#,
            r#"{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","ports":[],"metadata":{"name":"a","labels":{"kubernetes.io/service-name":"s"}}}"#,
        ];
        let api = "discovery.k8s.io/v1";
        for text in slices {
            let checked: Checked<EndpointSlice> = serde_json::from_str(text).unwrap();
            assert_eq!(
                unknown_keys(api, "EndpointSlice", checked.other),
                snapshot_unknown(api, "EndpointSlice", text),
                "{text}"
            );
        }
        // Some of them are unknown: the comparison is not between two empty lists.
        assert_eq!(snapshot_unknown("v1", "Service", services[0]).len(), 4);
        assert_eq!(snapshot_unknown(api, "EndpointSlice", slices[0]).len(), 2);
    }

    #[test]
    fn the_line_is_found_key_by_key_from_the_object() {
        let text = "kind: Node\n---\nkind: L2Advertisement\nspec:\n  ipAddressPools: [lan]\n  nodeSelector:\n  - {}\n";
        let keys = vec!["spec".to_string(), "nodeSelector".to_string()];
        assert_eq!(line_of(text, 3, &keys), Some(6));
    }
}
