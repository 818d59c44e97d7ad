//! kubectl-lbdoctor: re-runs MetalLB's speaker logic offline against a snapshot of cluster state
//! and explains, for every LoadBalancer Service, who should announce its IP and why.
//!
//! Data flow: [`snapshot`] → engines ([`metallb`]) → [`diagnose`] → [`report::Report`] → [`render`].

// The raw socket (net/link.rs) and the AVX-512 digests (metallb/digest.rs) allow it where they
// need it, each block with its SAFETY reason.
#![deny(unsafe_code)]

pub mod app;
pub mod cilium;
pub mod cli;
pub(crate) mod demo;
pub mod diagnose;
pub(crate) mod fast_hash;
pub(crate) mod findings;
pub mod history;
pub mod intern;
pub mod k8s;
pub(crate) mod kubevip;
pub mod live;
pub mod metallb;
pub mod net;
pub(crate) mod plain;
pub(crate) mod render;
pub mod report;
pub(crate) mod servicelb;
pub(crate) mod simulate;
pub mod snapshot;
pub(crate) mod suppress;
pub(crate) mod version;
pub(crate) mod watch;
