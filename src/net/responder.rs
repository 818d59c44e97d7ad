//! MetalLB's layer-2 responder rules (speaker spec §6.2, §6.3) as a pure function: a frame in,
//! a reply (or the reason it is dropped) out.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use super::frame::{self, Advert, Arp, Frame, ALL_NODES, ARP_REPLY, ARP_REQUEST, NDP_HOP_LIMIT};
use super::Mac;

/// What one interface answers for.
#[derive(Debug, Clone)]
pub struct Responder {
    pub mac: Mac,
    /// Where Neighbor Advertisements come from; without one the interface answers no NDP (spec §6.1).
    pub link_local: Option<Ipv6Addr>,
    pub ips: Vec<IpAddr>,
    pub ndp_source: NdpSource,
}

/// The source address of solicited Neighbor Advertisements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum NdpSource {
    /// The interface's link-local address, as MetalLB's speaker sends them (spec §6.2).
    #[default]
    LinkLocal,
    /// The announced address itself, as the kernel answers for its own addresses. Some tools
    /// (ndisc6 1.0.5) discard advertisements for a global target from any other source.
    Target,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Protocol {
    Arp,
    Ndp,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Arp => "arp",
            Protocol::Ndp => "ndp",
        }
    }
}

/// Why a request was not answered. The names follow MetalLB's drop reasons where it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Drop {
    /// An ARP frame that is not a request (replies, gratuitous replies).
    NotRequest,
    /// Ethernet destination neither broadcast nor this interface (ARP), nor multicast (NDP).
    EthernetDestination,
    /// The target is not an IP this responder announces (`dropReasonAnnounceIP`).
    AnnounceIp,
    /// A solicitation without the Source Link-Layer Address option, e.g. DAD (`dropReasonNoSourceLL`).
    NoSourceLl,
    /// NDP not sent with hop limit 255 (RFC 4861 §7.1.1).
    HopLimit,
}

impl Drop {
    /// The name in the closing log line.
    pub fn as_str(self) -> &'static str {
        match self {
            Drop::NotRequest => "notRequest",
            Drop::EthernetDestination => "ethernetDestination",
            Drop::AnnounceIp => "announceIP",
            Drop::NoSourceLl => "noSourceLL",
            Drop::HopLimit => "hopLimit",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub protocol: Protocol,
    /// The announced IP the reply claims.
    pub ip: IpAddr,
    pub requester_mac: Mac,
    pub requester_ip: IpAddr,
    pub frame: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Not a request this responder looks at (other traffic, advertisements, its own frames).
    Ignore,
    Drop(Protocol, Drop),
    Reply(Sent),
}

impl Responder {
    pub fn decide(&self, bytes: &[u8]) -> Decision {
        match frame::parse(bytes) {
            Some(Frame::Arp(arp)) if arp.eth_src != self.mac => self.arp(&arp),
            Some(Frame::Solicit(ns)) if ns.eth_src != self.mac => self.ndp(&ns),
            _ => Decision::Ignore,
        }
    }

    fn announces(&self, ip: IpAddr) -> bool {
        self.ips.contains(&ip)
    }

    fn arp(&self, req: &Arp) -> Decision {
        if req.op != ARP_REQUEST {
            return Decision::Drop(Protocol::Arp, Drop::NotRequest);
        }
        if req.eth_dst != Mac::BROADCAST && req.eth_dst != self.mac {
            return Decision::Drop(Protocol::Arp, Drop::EthernetDestination);
        }
        if !self.announces(IpAddr::V4(req.tpa)) {
            return Decision::Drop(Protocol::Arp, Drop::AnnounceIp);
        }
        // Sent to the requester's ARP sender address, not its Ethernet source (spec §6.2).
        let reply = Arp {
            eth_dst: req.sha,
            eth_src: self.mac,
            op: ARP_REPLY,
            sha: self.mac,
            spa: req.tpa,
            tha: req.sha,
            tpa: req.spa,
        };
        Decision::Reply(Sent {
            protocol: Protocol::Arp,
            ip: IpAddr::V4(req.tpa),
            requester_mac: req.sha,
            requester_ip: IpAddr::V4(req.spa),
            frame: frame::build_arp(&reply),
        })
    }

    fn ndp(&self, ns: &frame::Solicit) -> Decision {
        if !ns.eth_dst.is_multicast() && ns.eth_dst != self.mac {
            return Decision::Drop(Protocol::Ndp, Drop::EthernetDestination);
        }
        if ns.hop_limit != NDP_HOP_LIMIT {
            return Decision::Drop(Protocol::Ndp, Drop::HopLimit);
        }
        let Some(requester_mac) = ns.source_ll else {
            return Decision::Drop(Protocol::Ndp, Drop::NoSourceLl);
        };
        let Some(link_local) = self.link_local.filter(|_| self.announces(IpAddr::V6(ns.target))) else {
            return Decision::Drop(Protocol::Ndp, Drop::AnnounceIp);
        };
        // Unicast to the solicitation's source; Solicited set, Override clear (spec §6.2).
        let src = match self.ndp_source {
            NdpSource::LinkLocal => link_local,
            NdpSource::Target => ns.target,
        };
        let reply = Advert {
            eth_dst: requester_mac,
            eth_src: self.mac,
            src,
            dst: ns.src,
            hop_limit: NDP_HOP_LIMIT,
            target: ns.target,
            router: false,
            solicited: true,
            override_: false,
            target_ll: Some(self.mac),
        };
        Decision::Reply(Sent {
            protocol: Protocol::Ndp,
            ip: IpAddr::V6(ns.target),
            requester_mac,
            requester_ip: IpAddr::V6(ns.src),
            frame: frame::build_advert(&reply),
        })
    }

    /// One gratuitous burst (spec §6.3): per IPv4 address a Request then a Reply, both broadcast
    /// with THA ff:ff:ff:ff:ff:ff; per IPv6 address one unsolicited Override NA to ff02::1.
    pub fn gratuitous(&self) -> Vec<Vec<u8>> {
        let mut frames = Vec::new();
        for ip in &self.ips {
            match *ip {
                IpAddr::V4(v4) => {
                    for op in [ARP_REQUEST, ARP_REPLY] {
                        frames.push(frame::build_arp(&gratuitous_arp(self.mac, v4, op)));
                    }
                }
                IpAddr::V6(v6) => {
                    if let Some(link_local) = self.link_local {
                        frames.push(frame::build_advert(&Advert {
                            eth_dst: frame::multicast_mac(ALL_NODES),
                            eth_src: self.mac,
                            src: link_local,
                            dst: ALL_NODES,
                            hop_limit: NDP_HOP_LIMIT,
                            target: v6,
                            router: false,
                            solicited: false,
                            override_: true,
                            target_ll: Some(self.mac),
                        }));
                    }
                }
            }
        }
        frames
    }
}

fn gratuitous_arp(mac: Mac, ip: Ipv4Addr, op: u16) -> Arp {
    Arp { eth_dst: Mac::BROADCAST, eth_src: mac, op, sha: mac, spa: ip, tha: Mac::BROADCAST, tpa: ip }
}

/// MetalLB's spam loop (spec §6.3): a burst at once, then one per 1100 ms tick until the IP's
/// deadline, 5 s after the announcement, has passed.
const SPAM_TICK: Duration = Duration::from_millis(1100);
const SPAM_DEADLINE: Duration = Duration::from_secs(5);

/// When the bursts go out, counted from the start: 0, 1.1, 2.2, 3.3 and 4.4 s.
pub fn gratuitous_schedule() -> Vec<Duration> {
    let mut at = vec![Duration::ZERO];
    let mut tick = SPAM_TICK;
    while tick <= SPAM_DEADLINE {
        at.push(tick);
        tick += SPAM_TICK;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::frame::{build_solicit, multicast_mac, parse, solicited_node, Solicit};

    const OURS: Mac = Mac([0x02, 0, 0x5e, 0, 0x53, 0x0a]);
    const THEIRS: Mac = Mac([0x02, 0, 0x5e, 0, 0x53, 0x0b]);
    const VIP4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 10);

    fn vip6() -> Ipv6Addr {
        "2001:db8::10".parse().unwrap()
    }

    fn responder() -> Responder {
        Responder {
            mac: OURS,
            link_local: Some("fe80::a".parse().unwrap()),
            ips: vec![IpAddr::V4(VIP4), IpAddr::V6(vip6())],
            ndp_source: NdpSource::LinkLocal,
        }
    }

    fn arp_request(eth_dst: Mac, spa: Ipv4Addr, tpa: Ipv4Addr, op: u16) -> Vec<u8> {
        frame::build_arp(&Arp { eth_dst, eth_src: THEIRS, op, sha: THEIRS, spa, tha: Mac::ZERO, tpa })
    }

    fn reply(d: Decision) -> Sent {
        match d {
            Decision::Reply(sent) => sent,
            other => panic!("expected a reply, got {other:?}"),
        }
    }

    #[test]
    fn arp_reply_fields_follow_metallb() {
        let sent = reply(responder().decide(&arp_request(Mac::BROADCAST, Ipv4Addr::new(192, 0, 2, 2), VIP4, 1)));
        let Some(Frame::Arp(a)) = parse(&sent.frame) else { panic!("not ARP") };
        assert_eq!(
            a,
            Arp {
                eth_dst: THEIRS,
                eth_src: OURS,
                op: 2,
                sha: OURS,
                spa: VIP4,
                tha: THEIRS,
                tpa: Ipv4Addr::new(192, 0, 2, 2)
            }
        );
        assert_eq!(sent.requester_ip, IpAddr::V4(Ipv4Addr::new(192, 0, 2, 2)));
    }

    #[test]
    fn arp_reply_goes_to_the_arp_sender_even_when_the_ethernet_source_differs() {
        let mut req = Arp {
            eth_dst: Mac::BROADCAST,
            eth_src: Mac([0x02, 0, 0, 0, 0, 0x99]),
            op: 1,
            sha: THEIRS,
            spa: Ipv4Addr::new(192, 0, 2, 2),
            tha: Mac::ZERO,
            tpa: VIP4,
        };
        let sent = reply(responder().decide(&frame::build_arp(&req)));
        assert_eq!(&sent.frame[0..6], &THEIRS.0);
        // Unicast to this interface is answered too; to another host's MAC it is not.
        req.eth_dst = OURS;
        assert!(matches!(responder().decide(&frame::build_arp(&req)), Decision::Reply(_)));
        req.eth_dst = THEIRS;
        assert_eq!(
            responder().decide(&frame::build_arp(&req)),
            Decision::Drop(Protocol::Arp, Drop::EthernetDestination)
        );
    }

    #[test]
    fn arp_probes_from_0_0_0_0_are_answered() {
        let sent = reply(responder().decide(&arp_request(Mac::BROADCAST, Ipv4Addr::UNSPECIFIED, VIP4, 1)));
        let Some(Frame::Arp(a)) = parse(&sent.frame) else { panic!("not ARP") };
        assert_eq!(a.tpa, Ipv4Addr::UNSPECIFIED);
    }

    #[test]
    fn arp_drops() {
        let r = responder();
        let other = Ipv4Addr::new(192, 0, 2, 11);
        let from = Ipv4Addr::new(192, 0, 2, 2);
        assert_eq!(
            r.decide(&arp_request(Mac::BROADCAST, from, VIP4, 2)),
            Decision::Drop(Protocol::Arp, Drop::NotRequest)
        );
        assert_eq!(
            r.decide(&arp_request(Mac::BROADCAST, from, other, 1)),
            Decision::Drop(Protocol::Arp, Drop::AnnounceIp)
        );
        // Its own frames (a gratuitous request it sent) are not requests to answer.
        for own in r.gratuitous() {
            assert_eq!(r.decide(&own), Decision::Ignore);
        }
    }

    fn solicit(target: Ipv6Addr, source_ll: Option<Mac>, hop_limit: u8, src: Ipv6Addr) -> Vec<u8> {
        build_solicit(&Solicit {
            eth_dst: multicast_mac(solicited_node(target)),
            eth_src: THEIRS,
            src,
            dst: solicited_node(target),
            hop_limit,
            target,
            source_ll,
        })
    }

    #[test]
    fn solicited_advert_is_unicast_with_solicited_and_no_override() {
        let from: Ipv6Addr = "2001:db8::2".parse().unwrap();
        let sent = reply(responder().decide(&solicit(vip6(), Some(THEIRS), 255, from)));
        let Some(Frame::Advert(na)) = parse(&sent.frame) else { panic!("not an NA") };
        assert_eq!(
            na,
            Advert {
                eth_dst: THEIRS,
                eth_src: OURS,
                src: "fe80::a".parse().unwrap(),
                dst: from,
                hop_limit: 255,
                target: vip6(),
                router: false,
                solicited: true,
                override_: false,
                target_ll: Some(OURS),
            }
        );
    }

    #[test]
    fn advert_source_can_be_the_target() {
        let r = Responder { ndp_source: NdpSource::Target, ..responder() };
        let sent = reply(r.decide(&solicit(vip6(), Some(THEIRS), 255, "2001:db8::2".parse().unwrap())));
        let Some(Frame::Advert(na)) = parse(&sent.frame) else { panic!("not an NA") };
        assert_eq!((na.src, na.solicited, na.override_), (vip6(), true, false));
        // Gratuitous advertisements still come from the link-local address.
        let Some(Frame::Advert(g)) = parse(&r.gratuitous()[2]) else { panic!("not an NA") };
        assert_eq!(g.src, "fe80::a".parse::<Ipv6Addr>().unwrap());
    }

    #[test]
    fn unicast_solicitations_to_this_interface_are_answered() {
        let from: Ipv6Addr = "2001:db8::2".parse().unwrap();
        let ns = |eth_dst| {
            build_solicit(&Solicit {
                eth_dst,
                eth_src: THEIRS,
                src: from,
                dst: vip6(),
                hop_limit: 255,
                target: vip6(),
                source_ll: Some(THEIRS),
            })
        };
        assert!(matches!(responder().decide(&ns(OURS)), Decision::Reply(_)), "NUD probe to our MAC");
        assert_eq!(
            responder().decide(&ns(Mac([2, 0, 0, 0, 0, 0x77]))),
            Decision::Drop(Protocol::Ndp, Drop::EthernetDestination),
            "another host's MAC"
        );
    }

    #[test]
    fn ndp_drops() {
        let r = responder();
        let from: Ipv6Addr = "2001:db8::2".parse().unwrap();
        // DAD probes come from :: without the option.
        assert_eq!(
            r.decide(&solicit(vip6(), None, 255, Ipv6Addr::UNSPECIFIED)),
            Decision::Drop(Protocol::Ndp, Drop::NoSourceLl)
        );
        assert_eq!(r.decide(&solicit(vip6(), Some(THEIRS), 64, from)), Decision::Drop(Protocol::Ndp, Drop::HopLimit));
        let other: Ipv6Addr = "2001:db8::11".parse().unwrap();
        assert_eq!(r.decide(&solicit(other, Some(THEIRS), 255, from)), Decision::Drop(Protocol::Ndp, Drop::AnnounceIp));
        let no_link_local = Responder { link_local: None, ..responder() };
        assert_eq!(
            no_link_local.decide(&solicit(vip6(), Some(THEIRS), 255, from)),
            Decision::Drop(Protocol::Ndp, Drop::AnnounceIp)
        );
    }

    #[test]
    fn gratuitous_burst_contents() {
        let frames = responder().gratuitous();
        assert_eq!(frames.len(), 3, "request + reply for the IPv4 address, one NA for the IPv6 one");
        let parsed: Vec<Frame> = frames.iter().map(|f| parse(f).unwrap()).collect();
        assert_eq!(parsed[0], Frame::Arp(gratuitous_arp(OURS, VIP4, 1)));
        assert_eq!(parsed[1], Frame::Arp(gratuitous_arp(OURS, VIP4, 2)));
        let Frame::Advert(na) = &parsed[2] else { panic!("not an NA") };
        assert_eq!((na.solicited, na.override_, na.router), (false, true, false));
        assert_eq!((na.dst, na.eth_dst.to_string()), (ALL_NODES, "33:33:00:00:00:01".to_string()));
        assert_eq!((na.target, na.target_ll), (vip6(), Some(OURS)));
    }

    #[test]
    fn five_bursts_1100_ms_apart() {
        let ms: Vec<u128> = gratuitous_schedule().iter().map(Duration::as_millis).collect();
        assert_eq!(ms, [0, 1100, 2200, 3300, 4400]);
    }
}
