//! Cilium custom resources (`cilium.io`) as serde structs. Unknown fields are tolerated; both the
//! current (`v2`) and older (`v2alpha1`) versions of each kind read into one type.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Serialize};

use super::crd::CustomObject;
pub use crate::report::cilium::lbipam::Condition;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpPoolSpec {
    #[serde(default)]
    pub blocks: Vec<IpBlock>,
    /// `v2alpha1` only (deprecated); current Cilium reads `blocks` alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cidrs: Vec<IpBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_selector: Option<LabelSelector>,
    /// `Yes` or `No`; only an explicit `No` reserves the first and last address.
    #[serde(default, rename = "allowFirstLastIPs", skip_serializing_if = "Option::is_none")]
    pub allow_first_last_ips: Option<String>,
    #[serde(default)]
    pub disabled: bool,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IpBlock {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cidr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct L2PolicySpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_selector: Option<LabelSelector>,
    #[serde(default)]
    pub interfaces: Vec<String>,
    #[serde(default, rename = "externalIPs")]
    pub external_ips: bool,
    #[serde(default, rename = "loadBalancerIPs")]
    pub load_balancer_ips: bool,
}

/// `status.conditions` of Cilium objects (metav1.Condition).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Conditions {
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// Only the labels of a CiliumNode are read (L2 policies' nodeSelector matches them).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NoSpec {}

pub type IpPool = CustomObject<IpPoolSpec, Conditions>;
pub type L2Policy = CustomObject<L2PolicySpec, Conditions>;
pub type CiliumNode = CustomObject<NoSpec, serde_json::Value>;

impl Conditions {
    pub fn find(&self, types: &[&str]) -> Option<&Condition> {
        self.conditions.iter().find(|c| types.contains(&c.type_.as_str()))
    }
}
