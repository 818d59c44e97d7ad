//! MetalLB's `ParseCIDR`: a CIDR (Go `net.ParseCIDR`, host bits masked) or an `a-b` range summarised into CIDRs.

use std::net::IpAddr;

use ipnet::{IpNet, Ipv4Subnets, Ipv6Subnets};

use super::ip::{parse_go_ip, to16};

/// Parses one `spec.addresses` entry; the error is MetalLB's own text.
pub fn parse_pool_address(entry: &str) -> Result<Vec<IpNet>, String> {
    let Some((start_text, end_text)) = entry.split_once('-') else {
        return parse_go_cidr(entry).map(|n| vec![n]).ok_or_else(|| format!("invalid CIDR {entry:?}"));
    };
    let start = parse_go_ip(start_text.trim())
        .ok_or_else(|| format!("invalid IP range {entry:?}: invalid start IP {start_text:?}"))?;
    let end = parse_go_ip(end_text.trim())
        .ok_or_else(|| format!("invalid IP range {entry:?}: invalid end IP {end_text:?}"))?;
    if to16(start) > to16(end) {
        return Err(format!(
            "invalid IP range {entry:?}: start IP {:?} is after the end IP {:?}",
            super::ip::go_ip_string(start),
            super::ip::go_ip_string(end)
        ));
    }
    Ok(summarize(start, end))
}

/// Go `net.ParseCIDR`, returning the masked network.
pub fn parse_go_cidr(s: &str) -> Option<IpNet> {
    let (addr, len) = s.split_once('/')?;
    if len.is_empty() || len.len() > 3 || !len.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let len: u8 = len.parse().ok()?;
    let raw: IpAddr = addr.parse().ok().filter(|_| !addr.contains('%'))?;
    let net = match raw {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            // Go keeps a 4-in-6 CIDR as IPv4 when the prefix covers the ::ffff:0:0/96 part.
            Some(v4) if len >= 96 => IpNet::new(IpAddr::V4(v4), len - 96).ok()?,
            _ => IpNet::new(raw, len).ok()?,
        },
        IpAddr::V4(_) => IpNet::new(raw, len).ok()?,
    };
    Some(net.trunc())
}

/// Minimal ascending CIDR cover of `[start, end]`. Mixed families give nothing, as in MetalLB.
fn summarize(start: IpAddr, end: IpAddr) -> Vec<IpNet> {
    match (start, end) {
        (IpAddr::V4(a), IpAddr::V4(b)) => Ipv4Subnets::new(a, b, 0).map(IpNet::V4).collect(),
        (IpAddr::V6(a), IpAddr::V6(b)) => Ipv6Subnets::new(a, b, 0).map(IpNet::V6).collect(),
        _ => Vec::new(),
    }
}

/// MetalLB's `cidrsOverlap`: ordinary CIDR overlap.
pub fn overlaps(a: &IpNet, b: &IpNet) -> bool {
    a.contains(&b.network()) || b.contains(&a.network())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(v: Vec<IpNet>) -> Vec<String> {
        v.into_iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn cidr_rules() {
        assert_eq!(strs(parse_pool_address("10.0.0.5/24").unwrap()), ["10.0.0.0/24"]);
        assert_eq!(strs(parse_pool_address("::ffff:10.0.0.0/120").unwrap()), ["10.0.0.0/24"]);
        assert_eq!(parse_pool_address(" 10.0.0.0/8").unwrap_err(), r#"invalid CIDR " 10.0.0.0/8""#);
        assert!(parse_pool_address("1.2.3.4").is_err());
        assert!(parse_pool_address("010.0.0.0/8").is_err());
        assert!(parse_pool_address("10.0.0.0/33").is_err());
    }

    #[test]
    fn range_rules() {
        assert_eq!(strs(parse_pool_address("192.0.2.1-192.0.2.1").unwrap()), ["192.0.2.1/32"]);
        assert_eq!(
            strs(parse_pool_address("192.0.2.10 - 192.0.2.17").unwrap()),
            ["192.0.2.10/31", "192.0.2.12/30", "192.0.2.16/31"]
        );
        assert_eq!(strs(parse_pool_address("0.0.0.0-255.255.255.255").unwrap()), ["0.0.0.0/0"]);
        assert_eq!(strs(parse_pool_address("2001:db8::-2001:db8::ff").unwrap()), ["2001:db8::/120"]);
        assert!(parse_pool_address("10.0.0.1-fd00::1").unwrap().is_empty());
        assert_eq!(
            parse_pool_address("fd00::1-10.0.0.1").unwrap_err(),
            r#"invalid IP range "fd00::1-10.0.0.1": start IP "fd00::1" is after the end IP "10.0.0.1""#
        );
        assert_eq!(
            parse_pool_address("10.0.0.x-10.0.0.2").unwrap_err(),
            r#"invalid IP range "10.0.0.x-10.0.0.2": invalid start IP "10.0.0.x""#
        );
    }

    #[test]
    fn overlap_after_summarising() {
        let a = parse_pool_address("10.0.0.0-10.0.0.10").unwrap();
        let b = parse_go_cidr("10.0.0.8/29").unwrap();
        assert!(a.iter().any(|n| overlaps(n, &b)));
        assert!(!overlaps(&parse_go_cidr("10.0.0.0/29").unwrap(), &b));
    }
}
