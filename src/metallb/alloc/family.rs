//! MetalLB's `ipfamily` package: the family of a list of addresses, with its exact error texts.

use std::fmt;
use std::net::IpAddr;

use crate::k8s::ip::{go_ip_string, parse_go_ip};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    V4,
    V6,
    Dual,
    Unknown,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::V4 => "ipv4",
            Family::V6 => "ipv6",
            Family::Dual => "dual",
            Family::Unknown => "unknown",
        }
    }

    pub fn of(ip: IpAddr) -> Family {
        match crate::k8s::ip::normalize(ip) {
            IpAddr::V4(_) => Family::V4,
            IpAddr::V6(_) => Family::V6,
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
pub fn go_q_strings<S: AsRef<str>>(items: &[S]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| format!("{:?}", s.as_ref())).collect();
    format!("[{}]", quoted.join(" "))
}

/// Go's `%v` of a `[]string`: `[a b]`.
pub fn go_v_strings<S: AsRef<str>>(items: &[S]) -> String {
    let plain: Vec<&str> = items.iter().map(|s| s.as_ref()).collect();
    format!("[{}]", plain.join(" "))
}

/// Go's `net.IP.String()` of a possibly nil IP.
pub fn ip_text(ip: Option<IpAddr>) -> String {
    ip.map(go_ip_string).unwrap_or_else(|| "<nil>".to_string())
}

/// Go's `%q` of a `[]net.IP`, nil entries printed as `"<nil>"`.
pub fn go_q_ips(ips: &[Option<IpAddr>]) -> String {
    let texts: Vec<String> = ips.iter().map(|ip| ip_text(*ip)).collect();
    go_q_strings(&texts)
}

/// `ipfamily.ForAddresses`.
pub fn for_addresses<S: AsRef<str>>(ips: &[S]) -> Result<Family, String> {
    let parse = |s: &S| parse_go_ip(s.as_ref());
    match ips {
        [one] => match parse(one) {
            Some(ip) => Ok(Family::of(ip)),
            None => Err(format!("IPFamilyForAddresses: Invalid address {}", go_q_strings(ips))),
        },
        [a, b] => {
            let (Some(a), Some(b)) = (parse(a), parse(b)) else {
                return Err(format!("IPFamilyForAddresses: Invalid address {}", go_q_strings(ips)));
            };
            if Family::of(a) == Family::of(b) {
                return Err(format!("IPFamilyForAddresses: same address family {}", go_q_strings(ips)));
            }
            Ok(Family::Dual)
        }
        _ => Err(format!("IPFamilyForAddresses: invalid ips length {} {}", ips.len(), go_q_strings(ips))),
    }
}

/// `ipfamily.ForAddressesIPs`: the IPs go through their string form first, so a nil IP is `<nil>`.
pub fn for_addresses_ips(ips: &[Option<IpAddr>]) -> Result<Family, String> {
    let texts: Vec<String> = ips.iter().map(|ip| ip_text(*ip)).collect();
    for_addresses(&texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_errors() {
        assert_eq!(for_addresses(&["10.0.0.1"]), Ok(Family::V4));
        assert_eq!(for_addresses(&["::ffff:10.0.0.1"]), Ok(Family::V4));
        assert_eq!(for_addresses(&["10.0.0.1", "fd00::1"]), Ok(Family::Dual));
        assert_eq!(for_addresses(&["None"]).unwrap_err(), r#"IPFamilyForAddresses: Invalid address ["None"]"#);
        assert_eq!(
            for_addresses(&["1.2.3.1", "1.2.3.2"]).unwrap_err(),
            r#"IPFamilyForAddresses: same address family ["1.2.3.1" "1.2.3.2"]"#
        );
        assert_eq!(for_addresses::<&str>(&[]).unwrap_err(), "IPFamilyForAddresses: invalid ips length 0 []");
        assert_eq!(for_addresses_ips(&[None]).unwrap_err(), r#"IPFamilyForAddresses: Invalid address ["<nil>"]"#);
    }
}
