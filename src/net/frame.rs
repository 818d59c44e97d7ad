//! ARP and NDP frames as plain structs: parsed from and built into Ethernet frames with pnet's
//! packet types. Pure; nothing here touches a socket.

use std::net::{Ipv4Addr, Ipv6Addr};

use pnet_packet::arp::{ArpHardwareTypes, ArpOperation, ArpPacket, MutableArpPacket};
use pnet_packet::ethernet::{EtherType, EtherTypes, EthernetPacket, MutableEthernetPacket};
use pnet_packet::icmpv6::ndp::{NdpOptionTypes, NeighborAdvertPacket, NeighborSolicitPacket};
use pnet_packet::icmpv6::{Icmpv6Packet, Icmpv6Types};
use pnet_packet::ip::IpNextHeaderProtocols;
use pnet_packet::ipv6::{Ipv6Packet, MutableIpv6Packet};
use pnet_packet::Packet;

use super::Mac;

pub const ARP_REQUEST: u16 = 1;
pub const ARP_REPLY: u16 = 2;
/// RFC 4861 §7.1: NDP messages are sent, and accepted, only with this hop limit.
pub const NDP_HOP_LIMIT: u8 = 255;
/// The shortest Ethernet frame without its FCS; shorter ARP frames are padded like Go's ethernet package does.
const MIN_FRAME: usize = 60;
const ETHERNET_HEADER: usize = 14;
const IPV6_HEADER: usize = 40;
/// NS/NA body (24 bytes) plus one link-layer address option (8 bytes).
const NDP_BODY: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    Arp(Arp),
    Solicit(Solicit),
    Advert(Advert),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arp {
    pub eth_dst: Mac,
    pub eth_src: Mac,
    pub op: u16,
    pub sha: Mac,
    pub spa: Ipv4Addr,
    pub tha: Mac,
    pub tpa: Ipv4Addr,
}

/// An ICMPv6 Neighbor Solicitation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solicit {
    pub eth_dst: Mac,
    pub eth_src: Mac,
    pub src: Ipv6Addr,
    pub dst: Ipv6Addr,
    pub hop_limit: u8,
    pub target: Ipv6Addr,
    /// The Source Link-Layer Address option.
    pub source_ll: Option<Mac>,
}

/// An ICMPv6 Neighbor Advertisement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Advert {
    pub eth_dst: Mac,
    pub eth_src: Mac,
    pub src: Ipv6Addr,
    pub dst: Ipv6Addr,
    pub hop_limit: u8,
    pub target: Ipv6Addr,
    pub router: bool,
    pub solicited: bool,
    pub override_: bool,
    /// The Target Link-Layer Address option.
    pub target_ll: Option<Mac>,
}

const FLAG_ROUTER: u8 = 0x80;
const FLAG_SOLICITED: u8 = 0x40;
const FLAG_OVERRIDE: u8 = 0x20;

/// The solicited-node multicast group of an address (RFC 4291 §2.7.1).
pub fn solicited_node(ip: Ipv6Addr) -> Ipv6Addr {
    let o = ip.octets();
    Ipv6Addr::new(0xff02, 0, 0, 0, 0, 1, 0xff00 | u16::from(o[13]), u16::from_be_bytes([o[14], o[15]]))
}

/// The Ethernet address an IPv6 multicast group is sent to (RFC 2464 §7).
pub fn multicast_mac(group: Ipv6Addr) -> Mac {
    let o = group.octets();
    Mac([0x33, 0x33, o[12], o[13], o[14], o[15]])
}

/// ff02::1, where unsolicited advertisements go.
pub const ALL_NODES: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 0, 1);

/// Reads an ARP or NDP (NS/NA) frame; anything else, or anything malformed, is `None`.
/// NDP frames with a wrong ICMPv6 checksum are `None` too: the kernel would drop them.
pub fn parse(bytes: &[u8]) -> Option<Frame> {
    let eth = EthernetPacket::new(bytes)?;
    let eth_dst = Mac(eth.get_destination().octets());
    let eth_src = Mac(eth.get_source().octets());
    match eth.get_ethertype() {
        EtherTypes::Arp => {
            let arp = ArpPacket::new(eth.payload())?;
            let ipv4_over_ethernet = arp.get_hardware_type() == ArpHardwareTypes::Ethernet
                && arp.get_protocol_type() == EtherTypes::Ipv4
                && arp.get_hw_addr_len() == 6
                && arp.get_proto_addr_len() == 4;
            ipv4_over_ethernet.then(|| {
                Frame::Arp(Arp {
                    eth_dst,
                    eth_src,
                    op: arp.get_operation().0,
                    sha: Mac(arp.get_sender_hw_addr().octets()),
                    spa: arp.get_sender_proto_addr(),
                    tha: Mac(arp.get_target_hw_addr().octets()),
                    tpa: arp.get_target_proto_addr(),
                })
            })
        }
        EtherTypes::Ipv6 => parse_ndp(eth_dst, eth_src, eth.payload()),
        _ => None,
    }
}

fn parse_ndp(eth_dst: Mac, eth_src: Mac, bytes: &[u8]) -> Option<Frame> {
    let ip = Ipv6Packet::new(bytes)?;
    if ip.get_version() != 6 || ip.get_next_header() != IpNextHeaderProtocols::Icmpv6 {
        return None;
    }
    let body = bytes.get(IPV6_HEADER..IPV6_HEADER + usize::from(ip.get_payload_length()))?;
    let icmp = Icmpv6Packet::new(body)?;
    let (src, dst) = (ip.get_source(), ip.get_destination());
    if body.len() < 24 || pnet_packet::icmpv6::checksum(&icmp, &src, &dst) != icmp.get_checksum() {
        return None;
    }
    let hop_limit = ip.get_hop_limit();
    let link_option = |options: Vec<pnet_packet::icmpv6::ndp::NdpOption>, wanted| {
        options
            .into_iter()
            .find(|o| o.option_type == wanted && o.length == 1)
            .and_then(|o| <[u8; 6]>::try_from(o.data.get(..6)?).ok())
            .map(Mac)
    };
    match icmp.get_icmpv6_type() {
        Icmpv6Types::NeighborSolicit => {
            let ns = NeighborSolicitPacket::new(body)?;
            Some(Frame::Solicit(Solicit {
                eth_dst,
                eth_src,
                src,
                dst,
                hop_limit,
                target: ns.get_target_addr(),
                source_ll: link_option(ns.get_options(), NdpOptionTypes::SourceLLAddr),
            }))
        }
        Icmpv6Types::NeighborAdvert => {
            let na = NeighborAdvertPacket::new(body)?;
            let flags = na.get_flags();
            Some(Frame::Advert(Advert {
                eth_dst,
                eth_src,
                src,
                dst,
                hop_limit,
                target: na.get_target_addr(),
                router: flags & FLAG_ROUTER != 0,
                solicited: flags & FLAG_SOLICITED != 0,
                override_: flags & FLAG_OVERRIDE != 0,
                target_ll: link_option(na.get_options(), NdpOptionTypes::TargetLLAddr),
            }))
        }
        _ => None,
    }
}

fn ethernet(buf: &mut [u8], dst: Mac, src: Mac, ethertype: EtherType) {
    let mut eth = MutableEthernetPacket::new(buf).expect("frame buffer holds an Ethernet header");
    eth.set_destination(dst.0.into());
    eth.set_source(src.0.into());
    eth.set_ethertype(ethertype);
}

/// An ARP frame, padded to the Ethernet minimum.
pub fn build_arp(a: &Arp) -> Vec<u8> {
    let mut buf = vec![0u8; MIN_FRAME];
    ethernet(&mut buf, a.eth_dst, a.eth_src, EtherTypes::Arp);
    let mut arp = MutableArpPacket::new(&mut buf[ETHERNET_HEADER..]).expect("frame buffer holds an ARP body");
    arp.set_hardware_type(ArpHardwareTypes::Ethernet);
    arp.set_protocol_type(EtherTypes::Ipv4);
    arp.set_hw_addr_len(6);
    arp.set_proto_addr_len(4);
    arp.set_operation(ArpOperation(a.op));
    arp.set_sender_hw_addr(a.sha.0.into());
    arp.set_sender_proto_addr(a.spa);
    arp.set_target_hw_addr(a.tha.0.into());
    arp.set_target_proto_addr(a.tpa);
    buf
}

/// A Neighbor Solicitation, with the Source Link-Layer Address option when `source_ll` is set.
pub fn build_solicit(s: &Solicit) -> Vec<u8> {
    let option = s.source_ll.map(|mac| (1u8, mac));
    ndp_frame(s.eth_dst, s.eth_src, s.src, s.dst, s.hop_limit, 135, 0, s.target, option)
}

/// A Neighbor Advertisement, with the Target Link-Layer Address option when `target_ll` is set.
pub fn build_advert(a: &Advert) -> Vec<u8> {
    let flags = (if a.router { FLAG_ROUTER } else { 0 })
        | (if a.solicited { FLAG_SOLICITED } else { 0 })
        | (if a.override_ { FLAG_OVERRIDE } else { 0 });
    let option = a.target_ll.map(|mac| (2u8, mac));
    ndp_frame(a.eth_dst, a.eth_src, a.src, a.dst, a.hop_limit, 136, flags, a.target, option)
}

#[allow(clippy::too_many_arguments)]
fn ndp_frame(
    eth_dst: Mac,
    eth_src: Mac,
    src: Ipv6Addr,
    dst: Ipv6Addr,
    hop_limit: u8,
    icmp_type: u8,
    flags: u8,
    target: Ipv6Addr,
    option: Option<(u8, Mac)>,
) -> Vec<u8> {
    let body_len = if option.is_some() { NDP_BODY } else { NDP_BODY - 8 };
    let mut buf = vec![0u8; ETHERNET_HEADER + IPV6_HEADER + body_len];
    ethernet(&mut buf, eth_dst, eth_src, EtherTypes::Ipv6);
    {
        let mut ip = MutableIpv6Packet::new(&mut buf[ETHERNET_HEADER..]).expect("frame buffer holds an IPv6 header");
        ip.set_version(6);
        ip.set_payload_length(body_len as u16);
        ip.set_next_header(IpNextHeaderProtocols::Icmpv6);
        ip.set_hop_limit(hop_limit);
        ip.set_source(src);
        ip.set_destination(dst);
    }
    let body = &mut buf[ETHERNET_HEADER + IPV6_HEADER..];
    body[0] = icmp_type;
    body[4] = flags;
    body[8..24].copy_from_slice(&target.octets());
    if let Some((kind, mac)) = option {
        body[24] = kind;
        body[25] = 1;
        body[26..32].copy_from_slice(&mac.0);
    }
    let checksum = pnet_packet::icmpv6::checksum(&Icmpv6Packet::new(body).expect("ICMPv6 body"), &src, &dst);
    body[2..4].copy_from_slice(&checksum.to_be_bytes());
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MAC_A: Mac = Mac([0x02, 0, 0x5e, 0, 0x53, 0x0a]);

    #[test]
    fn arp_round_trips_and_is_padded() {
        let a = Arp {
            eth_dst: Mac::BROADCAST,
            eth_src: MAC_A,
            op: ARP_REQUEST,
            sha: MAC_A,
            spa: Ipv4Addr::new(192, 0, 2, 1),
            tha: Mac::ZERO,
            tpa: Ipv4Addr::new(192, 0, 2, 10),
        };
        let bytes = build_arp(&a);
        assert_eq!(bytes.len(), 60);
        assert_eq!(&bytes[12..14], &[0x08, 0x06]);
        assert_eq!(&bytes[20..22], &[0, 1], "OPER");
        assert_eq!(parse(&bytes), Some(Frame::Arp(a)));
    }

    #[test]
    fn advert_round_trips_with_flags_and_a_valid_checksum() {
        let a = Advert {
            eth_dst: Mac([0x33, 0x33, 0, 0, 0, 1]),
            eth_src: MAC_A,
            src: "fe80::1".parse().unwrap(),
            dst: ALL_NODES,
            hop_limit: 255,
            target: "2001:db8::10".parse().unwrap(),
            router: false,
            solicited: false,
            override_: true,
            target_ll: Some(MAC_A),
        };
        let bytes = build_advert(&a);
        assert_eq!(bytes.len(), 14 + 40 + 32);
        assert_eq!(bytes[14 + 40 + 4], 0x20, "only the Override flag");
        assert_eq!(parse(&bytes), Some(Frame::Advert(a)));
        // A flipped bit breaks the checksum: the frame is not NDP any more.
        let mut broken = bytes.clone();
        broken[14 + 40 + 10] ^= 1;
        assert_eq!(parse(&broken), None);
    }

    #[test]
    fn solicit_without_source_option_parses_as_such() {
        let s = Solicit {
            eth_dst: multicast_mac(solicited_node("2001:db8::10".parse().unwrap())),
            eth_src: MAC_A,
            src: Ipv6Addr::UNSPECIFIED,
            dst: solicited_node("2001:db8::10".parse().unwrap()),
            hop_limit: 255,
            target: "2001:db8::10".parse().unwrap(),
            source_ll: None,
        };
        assert_eq!(parse(&build_solicit(&s)), Some(Frame::Solicit(s)));
    }

    #[test]
    fn solicited_node_group_and_its_mac() {
        let group = solicited_node("2001:db8::12:3456".parse().unwrap());
        assert_eq!(group, "ff02::1:ff12:3456".parse::<Ipv6Addr>().unwrap());
        assert_eq!(multicast_mac(group).to_string(), "33:33:ff:12:34:56");
    }

    proptest! {
        /// Whatever arrives on the wire, parsing never panics.
        #[test]
        fn parse_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..120), kind in 0u8..3) {
            let mut bytes = bytes;
            if bytes.len() >= 14 {
                let ethertype: [u8; 2] = match kind { 0 => [0x08, 0x06], 1 => [0x86, 0xdd], _ => [bytes[12], bytes[13]] };
                bytes[12..14].copy_from_slice(&ethertype);
                if kind == 1 && bytes.len() > 20 { bytes[14] = 0x60; bytes[20] = 58; }
            }
            let _ = parse(&bytes);
        }
    }
}
