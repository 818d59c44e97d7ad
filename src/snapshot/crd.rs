//! MetalLB custom resources as serde structs. Unknown fields are tolerated.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde::{Deserialize, Serialize};

/// A namespaced custom object with a typed spec and status.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "Spec: Deserialize<'de> + Default, Status: Deserialize<'de>"))]
pub struct CustomObject<Spec, Status = serde_json::Value> {
    pub api_version: String,
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default, deserialize_with = "null_as_default")]
    pub spec: Spec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
}

impl<S, T> CustomObject<S, T> {
    pub fn name(&self) -> &str {
        self.metadata.name.as_deref().unwrap_or("")
    }
    pub fn namespace(&self) -> &str {
        self.metadata.namespace.as_deref().unwrap_or("")
    }
    pub fn labels(&self) -> &BTreeMap<String, String> {
        static EMPTY: BTreeMap<String, String> = BTreeMap::new();
        self.metadata.labels.as_ref().unwrap_or(&EMPTY)
    }
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpAddressPoolSpec {
    #[serde(default)]
    pub addresses: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_assign: Option<bool>,
    #[serde(default, rename = "avoidBuggyIPs", skip_serializing_if = "Option::is_none")]
    pub avoid_buggy_ips: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_allocation: Option<ServiceAllocation>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceAllocation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    #[serde(default)]
    pub namespaces: Vec<String>,
    #[serde(default)]
    pub namespace_selectors: Vec<LabelSelector>,
    #[serde(default)]
    pub service_selectors: Vec<LabelSelector>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct L2AdvertisementSpec {
    #[serde(default)]
    pub ip_address_pools: Vec<String>,
    #[serde(default)]
    pub ip_address_pool_selectors: Vec<LabelSelector>,
    #[serde(default)]
    pub node_selectors: Vec<LabelSelector>,
    #[serde(default)]
    pub interfaces: Vec<String>,
    #[serde(default)]
    pub service_selectors: Vec<LabelSelector>,
    /// Newer than v0.16.1 (spec §4.4).
    #[serde(default)]
    pub preferred_node_selectors: Vec<PreferredNodeSelector>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PreferredNodeSelector {
    pub weight: i32,
    #[serde(default)]
    pub preference: LabelSelector,
}

/// Only the pool attachment is read here; the BGP engine reads the rest.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpAdvertisementSpec {
    #[serde(default)]
    pub ip_address_pools: Vec<String>,
    #[serde(default)]
    pub ip_address_pool_selectors: Vec<LabelSelector>,
    #[serde(default)]
    pub node_selectors: Vec<LabelSelector>,
    #[serde(flatten)]
    pub rest: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommunitySpec {
    #[serde(default)]
    pub communities: Vec<CommunityAlias>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CommunityAlias {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceL2StatusStatus {
    #[serde(default)]
    pub node: String,
    #[serde(default)]
    pub service_name: String,
    #[serde(default)]
    pub service_namespace: String,
    #[serde(default)]
    pub interfaces: Vec<serde_json::Value>,
}

pub type IpAddressPool = CustomObject<IpAddressPoolSpec>;
pub type L2Advertisement = CustomObject<L2AdvertisementSpec>;
pub type BgpAdvertisement = CustomObject<BgpAdvertisementSpec>;
pub type BgpPeer = CustomObject<serde_json::Value>;
pub type Community = CustomObject<CommunitySpec>;
pub type ServiceL2Status = CustomObject<serde_json::Value, ServiceL2StatusStatus>;
