//! The raw link: an AF_PACKET socket through pnet's datalink channel (Linux only).

use std::net::Ipv6Addr;
use std::time::Duration;

use super::iface::Interface;
use super::NetError;

/// How long one `recv` waits, so a stop request is seen within this.
pub const POLL: Duration = Duration::from_millis(20);

pub struct Link {
    interface: String,
    tx: Box<dyn pnet_datalink::DataLinkSender>,
    rx: Box<dyn pnet_datalink::DataLinkReceiver>,
    /// Sockets holding IPv6 multicast memberships: the kernel reports them (MLD) and lets the
    /// groups' frames through the NIC's filter. Dropped with the link.
    groups: Vec<std::net::UdpSocket>,
}

impl Link {
    #[cfg(target_os = "linux")]
    pub fn open(iface: &Interface, command: &'static str) -> Result<Link, NetError> {
        let io = |source: std::io::Error| NetError::Io { interface: iface.name.clone(), source };
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, (libc::ETH_P_ALL as u16).to_be() as i32) };
        if fd < 0 {
            let err = std::io::Error::last_os_error();
            return Err(match err.raw_os_error() {
                Some(libc::EPERM | libc::EACCES) => NetError::NotPermitted { interface: iface.name.clone(), command },
                _ => io(err),
            });
        }
        // Frames this host sends are not requests or answers; kernels before 4.20 lack the option,
        // and the responder and probe also skip frames from their own MAC.
        let one: libc::c_int = 1;
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                libc::PACKET_IGNORE_OUTGOING,
                &one as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        let Some(pnet_iface) = pnet_datalink::interfaces().into_iter().find(|i| i.index == iface.index) else {
            unsafe { libc::close(fd) };
            return Err(io(std::io::Error::new(std::io::ErrorKind::NotFound, "the interface disappeared")));
        };
        let config = pnet_datalink::Config {
            read_timeout: Some(POLL),
            // Promiscuous mode would change the interface's state; what we need is addressed to
            // us, broadcast, or a multicast group we join.
            promiscuous: false,
            socket_fd: Some(fd),
            ..Default::default()
        };
        match pnet_datalink::channel(&pnet_iface, config).map_err(io)? {
            pnet_datalink::Channel::Ethernet(tx, rx) => {
                Ok(Link { interface: iface.name.clone(), tx, rx, groups: Vec::new() })
            }
            _ => Err(io(std::io::Error::other("not an Ethernet channel"))),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn open(_iface: &Interface, command: &'static str) -> Result<Link, NetError> {
        Err(NetError::NotLinux { command })
    }

    /// Joins an IPv6 multicast group on the interface, as MetalLB joins each VIP's solicited-node group.
    pub fn join(&mut self, group: Ipv6Addr, index: u32) -> Result<(), NetError> {
        let io = |source| NetError::Io { interface: self.interface.clone(), source };
        let socket = std::net::UdpSocket::bind((Ipv6Addr::UNSPECIFIED, 0)).map_err(io)?;
        socket.join_multicast_v6(&group, index).map_err(io)?;
        self.groups.push(socket);
        Ok(())
    }

    pub fn send(&mut self, frame: &[u8]) -> Result<(), NetError> {
        match self.tx.send_to(frame, None) {
            Some(Ok(())) => Ok(()),
            Some(Err(source)) => Err(NetError::Io { interface: self.interface.clone(), source }),
            None => Err(NetError::Io {
                interface: self.interface.clone(),
                source: std::io::Error::other("the datalink sender refused the frame"),
            }),
        }
    }

    /// The next frame, or `None` when nothing arrived within [`POLL`].
    pub fn recv(&mut self) -> Result<Option<Vec<u8>>, NetError> {
        match self.rx.next() {
            Ok(frame) => Ok(Some(frame.to_vec())),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::TimedOut | std::io::ErrorKind::Interrupted) => Ok(None),
            Err(source) => Err(NetError::Io { interface: self.interface.clone(), source }),
        }
    }
}
