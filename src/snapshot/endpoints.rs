//! EndpointSlices as the engines read them. A cluster has one or more per Service, each endpoint
//! of k8s-openapi's type is 352 bytes before its strings, and no engine reads more than which
//! node an endpoint sits on, its addresses and its conditions: only those are decoded (a value
//! of the wrong type there is refused as before), `ports` is checked for its shape, every other
//! field is skipped unread. Names and
//! addresses are `CompactString`s, lists boxed slices: an endpoint takes one allocation (its
//! addresses), where it took four.

use compact_str::CompactString;
pub use k8s::EndpointConditions;
use k8s_openapi::api::discovery::v1 as k8s;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use super::keys::{Checked, Metadata, TopLevel};

/// The label that ties a slice to its Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointSlice {
    pub namespace: CompactString,
    pub name: CompactString,
    /// The `kubernetes.io/service-name` label; a slice without it belongs to no Service.
    pub service: Option<CompactString>,
    pub endpoints: Box<[Endpoint]>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Endpoint {
    pub addresses: Box<[CompactString]>,
    pub conditions: Option<EndpointConditions>,
    pub node_name: Option<CompactString>,
    /// `targetRef.kind` is `Pod` (k3s ServiceLB counts only those).
    pub targets_pod: bool,
}

impl EndpointSlice {
    /// Whether the slice belongs to the Service `namespace/name`.
    pub fn serves(&self, namespace: &str, name: &str) -> bool {
        self.namespace == namespace && self.service.as_deref() == Some(name)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawEndpoint {
    #[serde(default)]
    addresses: Option<Box<[CompactString]>>,
    #[serde(default)]
    conditions: Option<EndpointConditions>,
    #[serde(default)]
    node_name: Option<CompactString>,
    #[serde(default)]
    target_ref: Option<Ref>,
}

#[derive(Deserialize)]
struct Ref {
    #[serde(default)]
    kind: Option<String>,
}

/// An EndpointSlice port, read for its shape alone: no engine uses the ports, but `ports` that
/// is not a list of objects is a broken file (an API server never returns one), refused as a
/// wrong type in `endpoints` is, not read past.
struct PortShape;

impl<'de> Deserialize<'de> for PortShape {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = PortShape;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("struct EndpointPort")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PortShape, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(PortShape)
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

impl TopLevel for EndpointSlice {
    const FIELDS: &'static [&'static str] = &["endpoints", "ports"];
    const FULL_METADATA: bool = false;
    // Kubernetes' decoder takes null or a missing list for an empty one.
    type Fields = Option<Vec<RawEndpoint>>;

    fn read<'de, A: MapAccess<'de>>(
        fields: &mut Option<Vec<RawEndpoint>>,
        index: usize,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match index {
            0 => *fields = map.next_value()?,
            // A list of a zero-sized type: nothing is allocated.
            _ => drop(map.next_value::<Option<Vec<PortShape>>>()?),
        }
        Ok(())
    }

    fn build(metadata: Option<Metadata>, endpoints: Option<Vec<RawEndpoint>>) -> EndpointSlice {
        let meta = metadata.unwrap_or_default().meta;
        EndpointSlice {
            namespace: meta.namespace.unwrap_or_default(),
            name: meta.name.unwrap_or_default(),
            service: meta.labels.and_then(|l| l.get(SERVICE_NAME_LABEL).map(CompactString::from)),
            endpoints: endpoints
                .unwrap_or_default()
                .into_iter()
                .map(|e| Endpoint {
                    targets_pod: e.target_ref.and_then(|t| t.kind).as_deref() == Some("Pod"),
                    addresses: e.addresses.unwrap_or_default(),
                    conditions: e.conditions,
                    node_name: e.node_name,
                })
                .collect(),
        }
    }
}

impl<'de> Deserialize<'de> for EndpointSlice {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Checked::<EndpointSlice>::deserialize(deserializer).map(|c| c.object)
    }
}
