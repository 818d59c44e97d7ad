//! The objects a finding names: `Kind namespace/name`, or `Kind name` for cluster-scoped kinds.

use std::cmp::Ordering;

use serde::Serialize;

/// One Kubernetes object as findings name it. Displayed and serialised as `Kind namespace/name`
/// (or `Kind name` without a namespace); equality and order are those of that text, so sorting
/// and suppression patterns see exactly what the report shows.
#[derive(Debug, Clone)]
pub struct ObjectRef {
    pub kind: &'static str,
    /// `None` for cluster-scoped kinds (Node, CiliumLoadBalancerIPPool, …).
    pub namespace: Option<String>,
    pub name: String,
    form: Form,
}

/// How the text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `Kind namespace/name`, `Kind name`.
    Kind,
    /// `resource/namespace/name`, `resource/name`.
    Slashed,
    /// `name` alone: not an object but kubectl's words for a request (LBD230).
    Verbatim,
}

impl ObjectRef {
    pub fn new(kind: &'static str, namespace: impl Into<String>, name: impl Into<String>) -> ObjectRef {
        ObjectRef { kind, namespace: Some(namespace.into()), name: name.into(), form: Form::Kind }
    }

    /// A cluster-scoped object: `Kind name`.
    pub fn cluster(kind: &'static str, name: impl Into<String>) -> ObjectRef {
        ObjectRef { kind, namespace: None, name: name.into(), form: Form::Kind }
    }

    /// A namespaced object named without its namespace, as a few findings always have
    /// (`Kind name`; the JSON keeps that text).
    pub fn unqualified(kind: &'static str, name: impl Into<String>) -> ObjectRef {
        ObjectRef { kind, namespace: None, name: name.into(), form: Form::Kind }
    }

    /// kubectl's `resource/namespace/name` (or `resource/name`), as the findings of `arping` and
    /// `announce` name what they saw: `service/default/web`, `node/node-a`, `mac/02:00:5e:00:53:01`.
    pub fn slashed(resource: &'static str, namespace: Option<String>, name: impl Into<String>) -> ObjectRef {
        ObjectRef { kind: resource, namespace, name: name.into(), form: Form::Slashed }
    }

    /// What LBD230 names instead of an object: kubectl's words for a refused request
    /// (`pods -n kube-system`, `events -A`), written as given.
    pub fn verbatim(text: impl Into<String>) -> ObjectRef {
        ObjectRef { kind: "", namespace: None, name: text.into(), form: Form::Verbatim }
    }

    /// From a `namespace/name` key (MetalLB's and client-go's); a key without `/` has no namespace.
    pub fn from_key(kind: &'static str, key: &str) -> ObjectRef {
        match key.split_once('/') {
            Some((namespace, name)) => ObjectRef::new(kind, namespace, name),
            None => ObjectRef::unqualified(kind, key),
        }
    }

    /// The objects' texts, `sep` between them.
    pub fn join(objects: &[ObjectRef], sep: &str) -> String {
        objects.iter().map(ToString::to_string).collect::<Vec<_>>().join(sep)
    }

    /// The bytes of the text `Display` writes, without allocating.
    fn text(&self) -> impl Iterator<Item = u8> + '_ {
        let ns = self.namespace.as_deref().map(|ns| ns.bytes().chain(*b"/"));
        let kind = match self.form {
            Form::Kind => Some(self.kind.bytes().chain(*b" ")),
            Form::Slashed => Some(self.kind.bytes().chain(*b"/")),
            Form::Verbatim => None,
        };
        kind.into_iter().flatten().chain(ns.into_iter().flatten()).chain(self.name.bytes())
    }
}

impl std::fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.form {
            Form::Kind => write!(f, "{} ", self.kind)?,
            Form::Slashed => write!(f, "{}/", self.kind)?,
            Form::Verbatim => {}
        }
        if let Some(ns) = &self.namespace {
            write!(f, "{ns}/")?;
        }
        f.write_str(&self.name)
    }
}

impl Serialize for ObjectRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl PartialEq for ObjectRef {
    fn eq(&self, other: &ObjectRef) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ObjectRef {}

impl PartialOrd for ObjectRef {
    fn partial_cmp(&self, other: &ObjectRef) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ObjectRef {
    fn cmp(&self, other: &ObjectRef) -> Ordering {
        self.text().cmp(other.text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_kind_namespace_name() {
        assert_eq!(ObjectRef::new("Service", "media", "jellyfin").to_string(), "Service media/jellyfin");
        assert_eq!(ObjectRef::cluster("Node", "worker-a").to_string(), "Node worker-a");
        assert_eq!(ObjectRef::from_key("Service", "a/b"), ObjectRef::new("Service", "a", "b"));
        assert_eq!(ObjectRef::slashed("service", Some("default".into()), "web").to_string(), "service/default/web");
        assert_eq!(ObjectRef::slashed("node", None, "node-a").to_string(), "node/node-a");
        assert_eq!(ObjectRef::verbatim("pods -n kube-system").to_string(), "pods -n kube-system");
        assert_eq!(
            serde_json::to_string(&ObjectRef::new("Lease", "kube-system", "l")).unwrap(),
            "\"Lease kube-system/l\""
        );
    }

    #[test]
    fn order_is_the_order_of_the_text() {
        let mut refs = [
            ObjectRef::new("Service", "a", "b"),
            ObjectRef::new("Service", "a-x", "c"),
            ObjectRef::cluster("Node", "n"),
            ObjectRef::unqualified("Service", "a"),
            ObjectRef::slashed("service", Some("a".into()), "b"),
            ObjectRef::verbatim("events -A"),
        ];
        refs.sort();
        let texts: Vec<String> = refs.iter().map(ToString::to_string).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted);
    }
}
