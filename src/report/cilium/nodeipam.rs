//! Cilium Node IPAM: why a node contributes no address.

use serde::Serialize;

/// Why a node contributes no address, in filter order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Exclusion {
    NotMatchingNodeLabels,
    Deleting,
    ExcludeLabel,
    ToBeDeletedTaint,
    NoLocalEndpoint,
    /// No ExternalIP/InternalIP of a family the Service asks for.
    NoAddressOfFamily,
    /// Only InternalIPs, while another candidate has an ExternalIP: all-or-nothing picks external.
    ExternalPreferred,
}
