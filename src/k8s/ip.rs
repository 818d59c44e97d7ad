//! IP addresses as Go's `net` package parses and prints them: MetalLB hashes `net.IP.String()`.

use std::net::{IpAddr, Ipv6Addr};

/// Go `net.ParseIP`: dotted IPv4 or IPv6 text, no zone, no surrounding space.
/// IPv4-mapped IPv6 addresses come back as IPv4, which is how Go treats them.
pub fn parse_go_ip(s: &str) -> Option<IpAddr> {
    if s.contains('%') {
        return None;
    }
    match s.parse::<IpAddr>().ok()? {
        IpAddr::V6(v6) => Some(normalize(IpAddr::V6(v6))),
        v4 => Some(v4),
    }
}

/// Folds an IPv4-mapped IPv6 address into IPv4.
pub fn normalize(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(v6),
        },
        v4 => v4,
    }
}

/// Go `net.IP.String()`.
pub fn go_ip_string(ip: IpAddr) -> String {
    match normalize(ip) {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => go_ipv6_string(v6),
    }
}

fn go_ipv6_string(ip: Ipv6Addr) -> String {
    let seg = ip.segments();
    // Longest run of at least two zero groups; the first one wins a tie.
    let (mut best_start, mut best_len) = (usize::MAX, 0);
    let mut i = 0;
    while i < 8 {
        if seg[i] == 0 {
            let start = i;
            while i < 8 && seg[i] == 0 {
                i += 1;
            }
            if i - start > best_len {
                best_start = start;
                best_len = i - start;
            }
        } else {
            i += 1;
        }
    }
    if best_len < 2 {
        best_start = usize::MAX;
    }
    let mut out = String::with_capacity(39);
    let mut i = 0;
    while i < 8 {
        if i == best_start {
            out.push_str("::");
            i += best_len;
            continue;
        }
        if !out.is_empty() && !out.ends_with(':') {
            out.push(':');
        }
        out.push_str(&format!("{:x}", seg[i]));
        i += 1;
    }
    out
}

/// The 16-byte form Go compares IPs in (IPv4 as `::ffff:a.b.c.d`).
pub fn to16(ip: IpAddr) -> [u8; 16] {
    match ip {
        IpAddr::V4(v4) => v4.to_ipv6_mapped().octets(),
        IpAddr::V6(v6) => v6.octets(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> String {
        go_ip_string(parse_go_ip(text).unwrap())
    }

    #[test]
    fn go_string_examples_from_the_spec() {
        assert_eq!(s("::ffff:10.0.0.1"), "10.0.0.1");
        assert_eq!(s("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(s("fd00:0:0::0001"), "fd00::1");
        assert_eq!(s("2001:db8:0:1:0:0:0:1"), "2001:db8:0:1::1");
        assert_eq!(s("2001:DB8::A"), "2001:db8::a");
        assert_eq!(s("::"), "::");
        assert_eq!(s("::1"), "::1");
        assert_eq!(s("1::"), "1::");
        assert_eq!(s("1:0:1:1:1:1:1:1"), "1:0:1:1:1:1:1:1");
        assert_eq!(s("::10.0.0.1"), "::a00:1");
    }

    #[test]
    fn invalid_ips_are_rejected() {
        for bad in ["", "10.0.0", " 10.0.0.1", "fe80::1%eth0", "2000:12", "host.example", "010.0.0.1"] {
            assert!(parse_go_ip(bad).is_none(), "{bad:?}");
        }
    }
}
