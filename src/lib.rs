//! kubectl-lbdoctor: re-runs MetalLB's speaker logic offline against a snapshot of cluster state
//! and explains, for every LoadBalancer Service, who should announce its IP and why.
//!
//! Data flow: [`snapshot`] → engines ([`metallb`]) → [`diagnose`] → [`report::Report`] → [`render`].

pub mod app;
pub mod cilium;
pub mod cli;
pub mod demo;
pub mod diagnose;
pub mod findings;
pub mod history;
pub mod k8s;
pub mod kubevip;
pub mod live;
pub mod metallb;
pub mod net;
pub mod render;
pub mod report;
pub mod servicelb;
pub mod simulate;
pub mod snapshot;
pub mod suppress;
pub mod version;
