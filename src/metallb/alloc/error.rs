//! Why an allocation step failed, as data; `Display` is MetalLB's own message, letter for letter.

use std::fmt;
use std::net::IpAddr;

use super::family::{go_q_ips, Family};
use super::svc::Port;

#[derive(Debug, Clone, PartialEq)]
pub enum AllocError {
    /// `%q is not allowed in config`: no pool holds every IP (a nil IP prints as `<nil>`).
    NotAllowed {
        ips: Vec<Option<IpAddr>>,
    },
    PoolNotCompatible {
        pool: String,
    },
    MoreThanTwo {
        ips: Vec<Option<IpAddr>>,
    },
    SameFamily {
        a: Option<IpAddr>,
        b: Option<IpAddr>,
    },
    /// Every sharing refusal; `others` are the other Services on the IP.
    SharingConflict {
        svc: String,
        ip: IpAddr,
        others: Vec<String>,
        /// Up to v0.13.7 the text ends with the wrapped `services can't share key` (C-2).
        sentinel: bool,
    },
    PortInUse {
        port: Port,
        ip: IpAddr,
        holder: String,
    },
    NoAvailableInPool {
        pool: String,
    },
    NoAvailableInPoolForFamily {
        pool: String,
        family: Family,
        /// Up to v0.14.8 the pool name is Go-quoted (C-16).
        quoted: bool,
    },
    /// Automatic allocation found nothing; MetalLB never says more.
    NoAvailable,
    UnknownPool {
        pool: String,
    },
    UnknownAllocFamily {
        family: Family,
    },
    WrongFamily {
        allocated: Family,
        service: Family,
    },
    /// An `ipfamily` error (its text already complete).
    Family(String),
    RequestFamilyMismatch {
        ips: Vec<Option<IpAddr>>,
    },
    RequestPoolMismatch {
        ips: Vec<Option<IpAddr>>,
        pool: String,
    },
    /// `annotation`: the loadBalancerIPs annotation as the release names it (C-15).
    BothRequests {
        annotation: &'static str,
    },
    InvalidAnnotation {
        raw: String,
        annotation: &'static str,
    },
    InvalidSpecIp {
        raw: String,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use AllocError::*;
        match self {
            NotAllowed { ips } => write!(f, "{} is not allowed in config", go_q_ips(ips)),
            PoolNotCompatible { pool } => write!(f, "pool {pool} not compatible for ip assignment"),
            MoreThanTwo { ips } => write!(f, "more than two addresses {}", go_q_ips(ips)),
            SameFamily { a, b } => write!(f, "{} {} has the same family", q_ip(*a), q_ip(*b)),
            SharingConflict { svc, others, sentinel, .. } => {
                write!(f, "can't change sharing key for {svc:?}, address also in use by {}", others.join(","))?;
                if *sentinel {
                    f.write_str(": services can't share key")?;
                }
                Ok(())
            }
            PortInUse { port, ip, .. } => {
                write!(f, "port {port} is already in use on {:?}", crate::k8s::ip::go_ip_string(*ip))
            }
            NoAvailableInPool { pool } => write!(f, "no available IPs in pool {pool}"),
            NoAvailableInPoolForFamily { pool, family, quoted: false } => {
                write!(f, "no available IPs in pool {pool} for {family} IPFamily")
            }
            NoAvailableInPoolForFamily { pool, family, quoted: true } => {
                write!(f, "no available IPs in pool {pool:?} for {family} IPFamily")
            }
            NoAvailable => f.write_str("no available IPs"),
            UnknownPool { pool } => write!(f, "unknown pool {pool:?}"),
            UnknownAllocFamily { family } => write!(f, "unknown allocated IP Family {family}"),
            WrongFamily { allocated, service } => {
                write!(f, "IP for wrong family assigned alloc {allocated} service family {service}")
            }
            Family(text) => f.write_str(text),
            RequestFamilyMismatch { ips } => {
                write!(f, "requested loadBalancer IP(s) {} does not match the ipFamily of the service", go_q_ips(ips))
            }
            RequestPoolMismatch { ips, pool } => write!(
                f,
                "requested loadBalancer IP(s) {} is not compatible with requested address pool {pool}",
                go_q_ips(ips)
            ),
            BothRequests { annotation } => {
                write!(f, "service can not have both {annotation} and svc.Spec.LoadBalancerIP")
            }
            InvalidAnnotation { raw, annotation } => write!(f, "invalid {annotation}: {raw:?}"),
            InvalidSpecIp { raw } => write!(f, "invalid spec.loadBalancerIP {raw:?}"),
        }
    }
}

fn q_ip(ip: Option<IpAddr>) -> String {
    format!("{:?}", super::family::ip_text(ip))
}

impl AllocError {
    /// A stable code for reports.
    pub fn code(&self) -> &'static str {
        use AllocError::*;
        match self {
            NotAllowed { ips } if ips.iter().any(Option::is_none) => "poolLacksFamily",
            NotAllowed { .. } => "ipNotInAnyPool",
            PoolNotCompatible { .. } => "poolNotCompatible",
            MoreThanTwo { .. } | SameFamily { .. } => "invalidRequest",
            SharingConflict { .. } => "sharingConflict",
            PortInUse { .. } => "portConflict",
            NoAvailableInPool { .. } | NoAvailableInPoolForFamily { .. } => "poolExhausted",
            NoAvailable => "noAvailableIPs",
            UnknownPool { .. } => "unknownPool",
            UnknownAllocFamily { .. } | WrongFamily { .. } => "familyMismatch",
            Family(_) => "invalidFamily",
            RequestFamilyMismatch { .. } => "requestFamilyMismatch",
            RequestPoolMismatch { .. } => "requestPoolMismatch",
            BothRequests { .. } => "conflictingRequests",
            InvalidAnnotation { .. } | InvalidSpecIp { .. } => "invalidRequest",
        }
    }
}
