//! On the wire: ARP/NDP frames, MetalLB's responder rules, the probe that counts every answer,
//! and the raw link they travel on (Linux only).
//!
//! Everything but [`link`] and [`session`] is pure: frames in, frames and decisions out, so the
//! responder's rules are tested without a socket. pnet is confined to [`frame`] (packet types),
//! [`link`] (the datalink channel) and [`iface::list`] (the interface listing); swapping it
//! touches those three places.

pub mod frame;
pub(crate) mod iface;
pub(crate) mod link;
pub(crate) mod probe;
pub(crate) mod responder;
pub(crate) mod session;

pub use crate::report::wire::Mac;
use std::str::FromStr;

impl Mac {
    pub const BROADCAST: Mac = Mac([0xff; 6]);
    pub const ZERO: Mac = Mac([0; 6]);

    pub fn is_multicast(self) -> bool {
        self.0[0] & 1 == 1
    }
}

impl FromStr for Mac {
    type Err = String;

    /// `aa:bb:cc:dd:ee:ff` or `aa-bb-…`, either case.
    fn from_str(text: &str) -> Result<Mac, String> {
        let invalid = || format!("{text:?} is not a MAC address (expected six hex pairs such as 02:00:5e:00:53:01)");
        let parts: Vec<&str> = text.split([':', '-']).collect();
        if parts.len() != 6 || parts.iter().any(|p| p.len() != 2) {
            return Err(invalid());
        }
        let mut mac = [0u8; 6];
        for (byte, part) in mac.iter_mut().zip(&parts) {
            *byte = u8::from_str_radix(part, 16).map_err(|_| invalid())?;
        }
        Ok(Mac(mac))
    }
}

/// Why the wire could not be used.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error(
        "opening a raw socket on {interface} was refused: {command} needs CAP_NET_RAW. Run it as root \
         (sudo), or grant the capability once: sudo setcap cap_net_raw+ep \"$(command -v kubectl-lbdoctor)\""
    )]
    NotPermitted { interface: String, command: &'static str },
    #[error("{command} sends raw ARP/NDP frames, which lbdoctor supports on Linux only")]
    NotLinux { command: &'static str },
    #[error("no interface named {name:?}; interfaces here: {known}")]
    NoSuchInterface { name: String, known: String },
    #[error("no interface has a subnet containing {ip}; name one with --interface (interfaces here: {known})")]
    NoInterfaceFor { ip: std::net::IpAddr, known: String },
    #[error("{interface} cannot carry {what}: {why}")]
    Unsuitable { interface: String, what: &'static str, why: String },
    #[error("{interface}: {source}")]
    Io { interface: String, source: std::io::Error },
}

#[cfg(test)]
mod tests {
    use super::Mac;

    #[test]
    fn mac_text() {
        let mac: Mac = "02-00-5E-00-53-0A".parse().unwrap();
        assert_eq!(mac.to_string(), "02:00:5e:00:53:0a");
        for bad in ["02:00:5e:00:53", "02:00:5e:00:53:0g", "2:00:5e:00:53:0a", "02:00:5e:00:53:0a:01"] {
            assert!(bad.parse::<Mac>().unwrap_err().contains("not a MAC address"), "{bad}");
        }
    }
}
