//! `version` (`kind: Version`).

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// Semver, as krew's manifest has it without the leading `v`.
    pub version: &'static str,
    /// The full commit hash, or `unknown` when built outside a git checkout.
    pub git_commit: &'static str,
    /// RFC 3339 UTC (`SOURCE_DATE_EPOCH` when set), or `unknown`.
    pub build_date: &'static str,
    /// The Kubernetes API version the built-in types come from (k8s-openapi's feature).
    pub kubernetes_api: &'static str,
    /// The MetalLB release whose behaviour is reproduced by default.
    pub metallb: &'static str,
    /// The Rust target triple.
    pub platform: &'static str,
}
