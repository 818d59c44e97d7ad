//! Pods, DaemonSets and Deployments as the engines read them. k8s-openapi's Pod costs about
//! 12 KB decoded (a 2 KB `Container` per container, 280 bytes per env var, every probe, port and
//! status field); a cluster has one per node for each agent that runs there. The engines read
//! of them only the containers' name, image, command, args and env, the node, the tolerations and
//! nodeSelector of a template, the phase, the conditions and the container statuses: only those
//! are decoded (a value of the wrong type there is refused as before, null reads as Kubernetes
//! reads it), every other field is skipped unread.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as k8s;
use serde::de::{IgnoredAny, MapAccess};
use serde::{Deserialize, Deserializer};

use super::keys::{Checked, Metadata, SpecStatus, TopLevel};
use super::service::Meta;
use crate::k8s::labels::LabelMap;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pod {
    pub metadata: Meta,
    pub spec: Option<PodSpec>,
    pub status: Option<PodStatus>,
}

/// A Pod's spec, or a workload's Pod template's.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(default, deserialize_with = "null_as_default")]
    pub containers: Vec<Container>,
    #[serde(default)]
    pub node_name: Option<String>,
    #[serde(default)]
    pub node_selector: Option<BTreeMap<String, String>>,
    #[serde(default)]
    pub tolerations: Option<Vec<k8s::Toleration>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default)]
    pub image: Option<String>,
    #[serde(default)]
    pub command: Option<Vec<String>>,
    #[serde(default)]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub env: Option<Vec<EnvVar>>,
    /// ConfigMaps and Secrets whose keys become env vars: only whether there are any, matters.
    #[serde(default)]
    pub env_from: Option<Vec<IgnoredAny>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnvVar {
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default)]
    pub value: Option<String>,
    /// Filled from a field, a ConfigMap or a Secret at run time: only that it is, matters.
    #[serde(default)]
    pub value_from: Option<IgnoredAny>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub conditions: Option<Vec<PodCondition>>,
    #[serde(default, rename = "podIP")]
    pub pod_ip: Option<String>,
    #[serde(default)]
    pub container_statuses: Option<Vec<ContainerStatus>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PodCondition {
    #[serde(default, rename = "type", deserialize_with = "null_as_default")]
    pub type_: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub status: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub restart_count: i32,
    #[serde(default)]
    pub last_state: Option<LastState>,
}

/// A container's previous state: only how it ended is read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct LastState {
    #[serde(default)]
    pub terminated: Option<k8s::ContainerStateTerminated>,
}

/// A DaemonSet or a Deployment: its metadata and Pod template.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Workload {
    pub metadata: Meta,
    pub spec: Option<WorkloadSpec>,
}

pub type DaemonSet = Workload;
pub type Deployment = Workload;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct WorkloadSpec {
    #[serde(default, deserialize_with = "null_as_default")]
    pub template: PodTemplate,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PodTemplate {
    #[serde(default)]
    pub metadata: Option<TemplateMeta>,
    #[serde(default)]
    pub spec: Option<PodSpec>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct TemplateMeta {
    #[serde(default)]
    pub labels: Option<LabelMap>,
}

fn null_as_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

impl TopLevel for Pod {
    const FIELDS: &'static [&'static str] = &["spec", "status"];
    const FULL_METADATA: bool = false;
    type Fields = SpecStatus<PodSpec, PodStatus>;

    fn read<'de, A: MapAccess<'de>>(fields: &mut Self::Fields, index: usize, map: &mut A) -> Result<(), A::Error> {
        fields.read(index, map)
    }

    fn build(metadata: Option<Metadata>, fields: Self::Fields) -> Pod {
        Pod { metadata: metadata.unwrap_or_default().meta, spec: fields.spec, status: fields.status }
    }
}

impl TopLevel for Workload {
    const FIELDS: &'static [&'static str] = &["spec"];
    const FULL_METADATA: bool = false;
    type Fields = Option<WorkloadSpec>;

    fn read<'de, A: MapAccess<'de>>(spec: &mut Option<WorkloadSpec>, _: usize, map: &mut A) -> Result<(), A::Error> {
        *spec = map.next_value()?;
        Ok(())
    }

    fn build(metadata: Option<Metadata>, spec: Option<WorkloadSpec>) -> Workload {
        Workload { metadata: metadata.unwrap_or_default().meta, spec }
    }
}

impl<'de> Deserialize<'de> for Pod {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Checked::<Pod>::deserialize(deserializer).map(|c| c.object)
    }
}

impl<'de> Deserialize<'de> for Workload {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Checked::<Workload>::deserialize(deserializer).map(|c| c.object)
    }
}

impl Pod {
    /// The node the Pod is scheduled on.
    pub fn node_name(&self) -> Option<&str> {
        self.spec.as_ref()?.node_name.as_deref()
    }
}

impl Workload {
    /// The spec of the Pods it runs.
    pub fn pod_spec(&self) -> Option<&PodSpec> {
        self.spec.as_ref()?.template.spec.as_ref()
    }

    /// The labels of the Pods it runs.
    pub fn pod_labels(&self) -> Option<&LabelMap> {
        self.spec.as_ref()?.template.metadata.as_ref()?.labels.as_ref()
    }
}
