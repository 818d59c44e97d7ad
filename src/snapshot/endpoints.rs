//! EndpointSlices as the engines read them. A cluster has one or more per Service, each endpoint
//! of k8s-openapi's type is 352 bytes before its strings, and none of the engines reads more than
//! which node an endpoint sits on, its addresses and its conditions: the loader decodes the full
//! type (so a malformed slice is refused with the same error as before) and keeps this.

pub use k8s::EndpointConditions;
use k8s_openapi::api::discovery::v1 as k8s;

/// The label that ties a slice to its Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct EndpointSlice {
    pub namespace: String,
    pub name: String,
    /// The `kubernetes.io/service-name` label; a slice without it belongs to no Service.
    pub service: Option<String>,
    pub endpoints: Vec<Endpoint>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Endpoint {
    pub addresses: Vec<String>,
    pub conditions: Option<EndpointConditions>,
    pub node_name: Option<String>,
    /// `targetRef.kind` is `Pod` (k3s ServiceLB counts only those).
    pub targets_pod: bool,
}

impl EndpointSlice {
    /// Whether the slice belongs to the Service `namespace/name`.
    pub fn serves(&self, namespace: &str, name: &str) -> bool {
        self.namespace == namespace && self.service.as_deref() == Some(name)
    }
}

impl From<k8s::EndpointSlice> for EndpointSlice {
    fn from(full: k8s::EndpointSlice) -> Self {
        let mut meta = full.metadata;
        EndpointSlice {
            namespace: meta.namespace.take().unwrap_or_default(),
            name: meta.name.take().unwrap_or_default(),
            service: meta.labels.as_mut().and_then(|l| l.remove(SERVICE_NAME_LABEL)),
            endpoints: {
                // Into a new vector: `collect` would reuse the full endpoints' buffer, five
                // times the size, in place.
                let mut endpoints = Vec::with_capacity(full.endpoints.len());
                endpoints.extend(full.endpoints.into_iter().map(|e| Endpoint {
                    targets_pod: e.target_ref.as_ref().and_then(|t| t.kind.as_deref()) == Some("Pod"),
                    addresses: e.addresses,
                    conditions: e.conditions,
                    node_name: e.node_name,
                }));
                endpoints
            },
        }
    }
}
