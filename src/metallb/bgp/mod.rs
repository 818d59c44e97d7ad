//! MetalLB in BGP mode: configuration, the per-node decision and routes, frr-k8s output.

pub mod community;
pub mod config;
pub mod frr_dump;
pub mod frrk8s;
pub mod speaker;

#[cfg(test)]
mod tests;
