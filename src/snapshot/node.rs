//! Nodes as the engines read them: k8s-openapi's type, with the metadata, the spec and only the
//! addresses and conditions of the status decoded. A Node's status also carries its images
//! (on a real node dozens, each with its tags, digests and size), capacity, allocatable,
//! nodeInfo and daemon endpoints: no engine reads them, and decoded they were most of a Node's
//! memory (4.8 KB of a synthetic Node's 2.6 KB of JSON; far more with images). Skipped unread,
//! as a Service's unread fields are ([`super::service`]).

use k8s_openapi::api::core::v1::{Node, NodeAddress, NodeCondition, NodeSpec, NodeStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Deserializer};

pub(crate) struct LeanNode(pub Node);

impl<'de> Deserialize<'de> for LeanNode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Object {
            #[serde(default)]
            metadata: Option<ObjectMeta>,
            #[serde(default)]
            spec: Option<NodeSpec>,
            #[serde(default)]
            status: Option<Status>,
        }
        #[derive(Deserialize)]
        struct Status {
            #[serde(default)]
            addresses: Option<Vec<NodeAddress>>,
            #[serde(default)]
            conditions: Option<Vec<NodeCondition>>,
        }
        let o = Object::deserialize(deserializer)?;
        Ok(LeanNode(Node {
            metadata: o.metadata.unwrap_or_default(),
            spec: o.spec,
            status: o.status.map(|s| NodeStatus {
                addresses: s.addresses,
                conditions: s.conditions,
                ..NodeStatus::default()
            }),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_the_engines_read_and_nothing_else() {
        let text = r#"{"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "a", "labels": {"node.kubernetes.io/exclude-from-external-load-balancers": ""}},
            "spec": {"unschedulable": true, "taints": [{"key": "k", "effect": "NoSchedule"}]},
            "status": {"addresses": [{"type": "InternalIP", "address": "192.0.2.1"}],
                       "conditions": [{"type": "NetworkUnavailable", "status": "True"}],
                       "capacity": {"cpu": "4"}, "nodeInfo": {"kubeletVersion": "v1.33.0"},
                       "images": [{"names": ["registry.example/app@sha256:00"], "sizeBytes": 1}]}}"#;
        let lean: LeanNode = serde_json::from_str(text).unwrap();
        let full: Node = serde_json::from_str(text).unwrap();
        let status = full.status.clone().unwrap();
        let expected = Node {
            status: Some(NodeStatus {
                addresses: status.addresses,
                conditions: status.conditions,
                ..NodeStatus::default()
            }),
            ..full
        };
        assert_eq!(lean.0, expected);
        assert!(crate::k8s::is_network_unavailable(&lean.0) && crate::k8s::has_exclude_label(&lean.0));
        // A wrong type where an engine reads is still refused.
        let wrong = r#"{"metadata": {"name": "a"}, "status": {"conditions": 3}}"#;
        assert!(serde_json::from_str::<LeanNode>(wrong).is_err());
    }
}
