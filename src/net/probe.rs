//! Who answers for an IP: the request to send, which frames count as an answer, and the tally of
//! every answering MAC (not only the first).

use std::collections::BTreeMap;
use std::net::IpAddr;

use super::frame::{self, Arp, Frame, Solicit, ARP_REPLY, ARP_REQUEST, NDP_HOP_LIMIT};
use super::Mac;
pub use crate::report::wire::Reply;

#[derive(Debug, Clone)]
pub struct Probe {
    pub target: IpAddr,
    pub mac: Mac,
    /// The sender address: the interface's own address of that family, or 0.0.0.0 (an ARP probe).
    pub source: IpAddr,
}

impl Probe {
    /// ARP who-has, broadcast; or an NS with our link-layer address to the target's solicited-node group.
    pub fn request(&self) -> Vec<u8> {
        match (self.target, self.source) {
            (IpAddr::V4(tpa), IpAddr::V4(spa)) => frame::build_arp(&Arp {
                eth_dst: Mac::BROADCAST,
                eth_src: self.mac,
                op: ARP_REQUEST,
                sha: self.mac,
                spa,
                tha: Mac::ZERO,
                tpa,
            }),
            (IpAddr::V6(target), IpAddr::V6(src)) => {
                let group = frame::solicited_node(target);
                frame::build_solicit(&Solicit {
                    eth_dst: frame::multicast_mac(group),
                    eth_src: self.mac,
                    src,
                    dst: group,
                    hop_limit: NDP_HOP_LIMIT,
                    target,
                    source_ll: Some(self.mac),
                })
            }
            _ => unreachable!("the probe's source has the target's family"),
        }
    }

    /// The MAC a frame claims the target for: ARP replies (and gratuitous requests) with the
    /// target as sender address, NAs for the target. This host's own frames do not count.
    pub fn answer(&self, bytes: &[u8]) -> Option<Mac> {
        let claimed = match frame::parse(bytes)? {
            Frame::Arp(a) if IpAddr::V4(a.spa) == self.target => {
                (a.op == ARP_REPLY || (a.op == ARP_REQUEST && a.tpa == a.spa)).then_some(a.sha)
            }
            Frame::Advert(na) if IpAddr::V6(na.target) == self.target && na.hop_limit == NDP_HOP_LIMIT => {
                Some(na.target_ll.unwrap_or(na.eth_src))
            }
            _ => None,
        }?;
        (claimed != self.mac).then_some(claimed)
    }
}

#[derive(Debug, Default)]
pub struct Tally {
    replies: BTreeMap<Mac, Reply>,
}

impl Tally {
    pub fn record(&mut self, mac: Mac, at_ms: f64) {
        let at_ms = (at_ms * 10.0).round() / 10.0;
        self.replies
            .entry(mac)
            .and_modify(|r| {
                r.count += 1;
                r.last_ms = at_ms;
            })
            .or_insert(Reply { mac, count: 1, first_ms: at_ms, last_ms: at_ms });
    }

    /// In order of first answer.
    pub fn replies(&self) -> Vec<Reply> {
        let mut replies: Vec<Reply> = self.replies.values().cloned().collect();
        replies.sort_by(|a, b| a.first_ms.total_cmp(&b.first_ms).then(a.mac.cmp(&b.mac)));
        replies
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::frame::{build_advert, build_arp, Advert};
    use std::net::Ipv4Addr;

    const OURS: Mac = Mac([2, 0, 0, 0, 0, 1]);
    const A: Mac = Mac([2, 0, 0, 0, 0, 0xa]);
    const B: Mac = Mac([2, 0, 0, 0, 0, 0xb]);

    fn v4_probe() -> Probe {
        Probe { target: "192.0.2.10".parse().unwrap(), mac: OURS, source: "192.0.2.1".parse().unwrap() }
    }

    fn arp(op: u16, sha: Mac, spa: Ipv4Addr, tpa: Ipv4Addr) -> Vec<u8> {
        build_arp(&Arp { eth_dst: OURS, eth_src: sha, op, sha, spa, tha: OURS, tpa })
    }

    #[test]
    fn arp_answers() {
        let p = v4_probe();
        let vip = Ipv4Addr::new(192, 0, 2, 10);
        let me = Ipv4Addr::new(192, 0, 2, 1);
        assert_eq!(p.answer(&arp(2, A, vip, me)), Some(A));
        assert_eq!(p.answer(&arp(1, B, vip, vip)), Some(B), "a gratuitous request claims the IP too");
        assert_eq!(p.answer(&arp(1, B, vip, me)), None, "a request from the IP's holder is no claim");
        assert_eq!(p.answer(&arp(2, A, Ipv4Addr::new(192, 0, 2, 11), me)), None);
        assert_eq!(p.answer(&p.request()), None, "its own request");
    }

    #[test]
    fn ndp_request_and_answers() {
        let p = Probe { target: "2001:db8::10".parse().unwrap(), mac: OURS, source: "2001:db8::1".parse().unwrap() };
        let Some(Frame::Solicit(ns)) = frame::parse(&p.request()) else { panic!("not an NS") };
        assert_eq!(ns.dst, "ff02::1:ff00:10".parse::<std::net::Ipv6Addr>().unwrap());
        assert_eq!((ns.source_ll, ns.hop_limit), (Some(OURS), 255));
        let na = |target_ll, hop_limit| {
            build_advert(&Advert {
                eth_dst: OURS,
                eth_src: B,
                src: "fe80::b".parse().unwrap(),
                dst: "2001:db8::1".parse().unwrap(),
                hop_limit,
                target: "2001:db8::10".parse().unwrap(),
                router: false,
                solicited: true,
                override_: false,
                target_ll,
            })
        };
        assert_eq!(p.answer(&na(Some(A), 255)), Some(A), "the option names the answering MAC");
        assert_eq!(p.answer(&na(None, 255)), Some(B));
        assert_eq!(p.answer(&na(Some(A), 64)), None);
    }

    #[test]
    fn tally_counts_every_mac() {
        let mut t = Tally::default();
        t.record(B, 3.04);
        t.record(A, 1.0);
        t.record(B, 250.26);
        assert_eq!(
            t.replies(),
            [
                Reply { mac: A, count: 1, first_ms: 1.0, last_ms: 1.0 },
                Reply { mac: B, count: 2, first_ms: 3.0, last_ms: 250.3 }
            ]
        );
    }
}
