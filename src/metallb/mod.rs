//! MetalLB: configuration model, installation discovery, the speaker's service pipeline, the
//! layer-2 election and what the cluster reports back.

pub(crate) mod actual;
pub mod alloc;
pub mod bgp;
pub mod config;
pub mod detect;
pub(crate) mod digest;
pub mod fields;
pub mod install;
pub mod l2;
pub(crate) mod parse;
pub mod release;
pub(crate) mod service;
