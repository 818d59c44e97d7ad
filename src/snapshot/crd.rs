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

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpAdvertisementSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregation_length: Option<i32>,
    #[serde(default, rename = "aggregationLengthV6", skip_serializing_if = "Option::is_none")]
    pub aggregation_length_v6: Option<i32>,
    #[serde(default)]
    pub local_pref: u32,
    #[serde(default)]
    pub communities: Vec<String>,
    #[serde(default)]
    pub ip_address_pools: Vec<String>,
    #[serde(default)]
    pub ip_address_pool_selectors: Vec<LabelSelector>,
    #[serde(default)]
    pub node_selectors: Vec<LabelSelector>,
    #[serde(default)]
    pub peers: Vec<String>,
    #[serde(default)]
    pub service_selectors: Vec<LabelSelector>,
}

/// BGPPeer, v1beta2 field names (v1beta1 uses the same ones for everything read here).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BgpPeerSpec {
    #[serde(default, rename = "myASN")]
    pub my_asn: u32,
    #[serde(default, rename = "peerASN")]
    pub asn: u32,
    #[serde(default, rename = "dynamicASN")]
    pub dynamic_asn: String,
    #[serde(default, rename = "peerAddress")]
    pub address: String,
    #[serde(default)]
    pub interface: String,
    #[serde(default, rename = "sourceAddress")]
    pub src_address: String,
    #[serde(default, rename = "peerPort", skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keepalive_time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_time: Option<String>,
    #[serde(default, rename = "routerID")]
    pub router_id: String,
    #[serde(default)]
    pub node_selectors: Vec<LabelSelector>,
    /// Only whether it is set is ever used; the value is never printed.
    #[serde(default)]
    pub password: String,
    #[serde(default)]
    pub password_secret: SecretReference,
    #[serde(default)]
    pub bfd_profile: String,
    #[serde(default)]
    pub enable_graceful_restart: bool,
    #[serde(default, rename = "ebgpMultiHop")]
    pub ebgp_multi_hop: bool,
    #[serde(default, rename = "vrf")]
    pub vrf_name: String,
    #[serde(default, rename = "disableMP")]
    pub disable_mp: bool,
    #[serde(default)]
    pub dual_stack_address_family: bool,
    #[serde(default, rename = "localASN")]
    pub local_asn: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecretReference {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BfdProfileSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_mode: Option<bool>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServiceBgpStatusStatus {
    #[serde(default)]
    pub node: String,
    #[serde(default)]
    pub service_name: String,
    #[serde(default)]
    pub service_namespace: String,
    #[serde(default)]
    pub peers: Vec<String>,
}

/// The parts of frr-k8s' FRRConfiguration that MetalLB writes and lbdoctor compares.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrrConfigurationSpec {
    #[serde(default)]
    pub bgp: FrrBgp,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrrBgp {
    #[serde(default)]
    pub routers: Vec<FrrRouter>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrrRouter {
    #[serde(default)]
    pub asn: u32,
    #[serde(default)]
    pub vrf: String,
    #[serde(default)]
    pub neighbors: Vec<FrrNeighbor>,
    #[serde(default)]
    pub prefixes: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrrNeighbor {
    #[serde(default)]
    pub address: String,
    #[serde(default)]
    pub interface: String,
    #[serde(default)]
    pub asn: u32,
    #[serde(default)]
    pub to_advertise: FrrToAdvertise,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrrToAdvertise {
    #[serde(default)]
    pub allowed: FrrAllowed,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrrAllowed {
    #[serde(default)]
    pub prefixes: Vec<String>,
    #[serde(default)]
    pub mode: String,
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
pub type BgpPeer = CustomObject<BgpPeerSpec>;
pub type BfdProfile = CustomObject<BfdProfileSpec>;
pub type ServiceBgpStatus = CustomObject<serde_json::Value, ServiceBgpStatusStatus>;
pub type FrrConfiguration = CustomObject<FrrConfigurationSpec>;
pub type Community = CustomObject<CommunitySpec>;
pub type ServiceL2Status = CustomObject<serde_json::Value, ServiceL2StatusStatus>;
