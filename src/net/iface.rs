//! The host's interfaces as lbdoctor needs them, and which one carries an IP.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;

use super::{Mac, NetError};

#[derive(Debug, Clone)]
pub struct Interface {
    pub name: String,
    pub index: u32,
    pub mac: Option<Mac>,
    pub addrs: Vec<IpNet>,
    pub up: bool,
    pub broadcast: bool,
    pub loopback: bool,
    /// IFF_NOARP (0x80).
    pub noarp: bool,
    /// The bridge, bond or VRF this interface is enslaved to (`/sys/class/net/IF/master`).
    pub master: Option<String>,
}

const IFF_NOARP: u32 = 0x80;

/// Every interface of this network namespace.
pub fn list() -> Vec<Interface> {
    pnet_datalink::interfaces()
        .into_iter()
        .map(|i| Interface {
            master: master_of(&i.name),
            name: i.name.clone(),
            index: i.index,
            mac: i.mac.map(|m| Mac(m.octets())).filter(|m| *m != Mac::ZERO),
            addrs: i.ips.iter().filter_map(|n| IpNet::new(n.ip(), n.prefix()).ok()).collect(),
            up: i.is_up(),
            broadcast: i.is_broadcast(),
            loopback: i.is_loopback(),
            noarp: i.flags & IFF_NOARP != 0,
        })
        .collect()
}

fn master_of(name: &str) -> Option<String> {
    let link = std::fs::read_link(format!("/sys/class/net/{name}/master")).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

fn names(all: &[Interface]) -> String {
    let names: Vec<&str> = all.iter().map(|i| i.name.as_str()).collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

pub fn find<'a>(all: &'a [Interface], name: &str) -> Result<&'a Interface, NetError> {
    all.iter()
        .find(|i| i.name == name)
        .ok_or_else(|| NetError::NoSuchInterface { name: name.into(), known: names(all) })
}

/// The interface whose subnet holds `ip`; the most specific subnet wins. Loopback never does.
pub fn for_ip(all: &[Interface], ip: IpAddr) -> Result<&Interface, NetError> {
    all.iter()
        .filter(|i| !i.loopback)
        .flat_map(|i| i.addrs.iter().filter(|n| n.contains(&ip)).map(move |n| (n.prefix_len(), i)))
        .max_by_key(|(prefix, i)| (*prefix, std::cmp::Reverse(i.index)))
        .map(|(_, i)| i)
        .ok_or_else(|| NetError::NoInterfaceFor { ip, known: names(all) })
}

impl Interface {
    pub fn link_local(&self) -> Option<Ipv6Addr> {
        self.addrs.iter().find_map(|n| match n.addr() {
            IpAddr::V6(v6) if v6.segments()[0] & 0xffc0 == 0xfe80 => Some(v6),
            _ => None,
        })
    }

    /// The address a probe for `target` is sent from: ours in the target's subnet; else for IPv4
    /// 0.0.0.0 (an ARP probe: no foreign subnet's address leaks into the segment's caches), for
    /// IPv6 another global address, else the link-local one.
    pub fn source_for(&self, target: IpAddr) -> Option<IpAddr> {
        let in_subnet = self.addrs.iter().find(|n| n.contains(&target) && n.addr() != target).map(|n| n.addr());
        in_subnet.or_else(|| match target {
            IpAddr::V4(_) => Some(IpAddr::V4(Ipv4Addr::UNSPECIFIED)),
            IpAddr::V6(_) => {
                let link_local = self.link_local().map(IpAddr::V6);
                self.addrs
                    .iter()
                    .map(IpNet::addr)
                    .find(|a| a.is_ipv6() && Some(*a) != link_local && *a != target)
                    .or(link_local)
            }
        })
    }

    /// Whether `ip` is one of this interface's own addresses (its answers are the kernel's, sent
    /// with this MAC, which a probe from here cannot see).
    pub fn owns(&self, ip: IpAddr) -> bool {
        self.addrs.iter().any(|n| n.addr() == ip)
    }

    pub fn mac(&self) -> Result<Mac, NetError> {
        self.mac.ok_or_else(|| self.unsuitable("Ethernet frames", "it has no MAC address".into()))
    }

    /// Why MetalLB would run no responder of this family here (spec §6.1), if it would not.
    pub fn check_responder(&self, v6: bool) -> Result<(), NetError> {
        let what = if v6 { "NDP answers" } else { "ARP answers" };
        if !self.up {
            return Err(self.unsuitable(what, "it is down".into()));
        }
        if let Some(master) = &self.master {
            return Err(self.unsuitable(
                what,
                format!("it is enslaved to {master} (a bridge, bond or VRF port); name {master} instead"),
            ));
        }
        if self.noarp {
            return Err(self.unsuitable(what, "it has the NOARP flag".into()));
        }
        if !v6 && !self.broadcast {
            return Err(self.unsuitable(what, "it has no BROADCAST flag".into()));
        }
        if v6 && self.link_local().is_none() {
            return Err(self.unsuitable(what, "it has no IPv6 link-local address to answer from".into()));
        }
        self.mac.map(|_| ()).ok_or_else(|| self.unsuitable(what, "it has no MAC address".into()))
    }

    fn unsuitable(&self, what: &'static str, why: String) -> NetError {
        NetError::Unsuitable { interface: self.name.clone(), what, why }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(name: &str, index: u32, addrs: &[&str]) -> Interface {
        Interface {
            name: name.into(),
            index,
            mac: Some(Mac([2, 0, 0, 0, 0, index as u8])),
            addrs: addrs.iter().map(|a| a.parse().unwrap()).collect(),
            up: true,
            broadcast: true,
            loopback: name == "lo",
            noarp: false,
            master: None,
        }
    }

    #[test]
    fn picks_the_most_specific_subnet() {
        let all = [
            iface("lo", 1, &["127.0.0.1/8"]),
            iface("eth0", 2, &["192.0.2.1/24", "fe80::1/64"]),
            iface("eth1", 3, &["192.0.2.129/25", "2001:db8::1/64"]),
        ];
        assert_eq!(for_ip(&all, "192.0.2.200".parse().unwrap()).unwrap().name, "eth1");
        assert_eq!(for_ip(&all, "192.0.2.10".parse().unwrap()).unwrap().name, "eth0");
        assert_eq!(for_ip(&all, "2001:db8::10".parse().unwrap()).unwrap().name, "eth1");
        let err = for_ip(&all, "198.51.100.1".parse().unwrap()).unwrap_err().to_string();
        assert!(err.contains("198.51.100.1") && err.contains("--interface") && err.contains("eth1"), "{err}");
    }

    #[test]
    fn probe_sources() {
        let i = iface("eth0", 2, &["192.0.2.1/24", "fe80::1/64", "2001:db8::1/64"]);
        assert_eq!(i.source_for("192.0.2.10".parse().unwrap()), Some("192.0.2.1".parse().unwrap()));
        assert_eq!(i.source_for("2001:db8::10".parse().unwrap()), Some("2001:db8::1".parse().unwrap()));
        let bare = iface("eth1", 3, &["fe80::2/64"]);
        assert_eq!(bare.source_for("192.0.2.10".parse().unwrap()), Some("0.0.0.0".parse().unwrap()));
        assert_eq!(bare.source_for("2001:db8::10".parse().unwrap()), Some("fe80::2".parse().unwrap()));
        // Another subnet's address never speaks for this one, nor does the target itself.
        let other = iface("eth2", 4, &["198.51.100.1/24", "192.0.2.10/24", "2001:db8:1::1/64", "fe80::4/64"]);
        assert_eq!(other.source_for("203.0.113.9".parse().unwrap()), Some("0.0.0.0".parse().unwrap()));
        assert_eq!(other.source_for("192.0.2.10".parse().unwrap()), Some("0.0.0.0".parse().unwrap()));
        assert_eq!(other.source_for("2001:db8::10".parse().unwrap()), Some("2001:db8:1::1".parse().unwrap()));
        assert!(other.owns("192.0.2.10".parse().unwrap()) && !other.owns("192.0.2.11".parse().unwrap()));
    }

    #[test]
    fn responder_eligibility_follows_metallb() {
        let mut i = iface("eth0", 2, &["fe80::1/64"]);
        assert!(i.check_responder(false).is_ok() && i.check_responder(true).is_ok());
        i.master = Some("br0".into());
        assert!(i.check_responder(false).unwrap_err().to_string().contains("name br0 instead"));
        i.master = None;
        i.broadcast = false;
        assert!(i.check_responder(false).is_err());
        assert!(i.check_responder(true).is_ok(), "NDP needs no BROADCAST flag");
        i.addrs.clear();
        assert!(i.check_responder(true).unwrap_err().to_string().contains("link-local"));
    }
}
