//! Cilium's load-balancer features, each a pure engine: Node IPAM (node addresses as ingress),
//! LB-IPAM (addresses from CiliumLoadBalancerIPPools) and L2 announcements (a Lease race).

pub mod install;
pub mod l2;
pub mod lbipam;
pub mod nodeipam;

#[cfg(test)]
mod tests;
