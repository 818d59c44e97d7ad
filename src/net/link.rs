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
    // libc's socket calls are the way to set the options pnet does not offer.
    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    pub fn open(iface: &Interface, command: &'static str) -> Result<Link, NetError> {
        let io = |source: std::io::Error| NetError::Io { interface: iface.name.clone(), source };
        // Protocol 0: nothing is queued until pnet binds the socket to this interface, so no
        // frame from another interface slips in before the bind.
        // SAFETY: socket() takes no pointers; a negative result is handled below.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, 0) };
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
        // SAFETY: `fd` is the socket just opened; the option value points at a live c_int and its
        // size is passed with it. A failure (older kernel) is harmless, see above.
        unsafe {
            libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                libc::PACKET_IGNORE_OUTGOING,
                &one as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
        }
        if let Err(err) = attach_arp_ndp_filter(fd) {
            // SAFETY: `fd` is ours and not yet handed to pnet, so it is closed exactly once.
            unsafe { libc::close(fd) };
            return Err(io(err));
        }
        let Some(pnet_iface) = pnet_datalink::interfaces().into_iter().find(|i| i.index == iface.index) else {
            // SAFETY: as above, `fd` is ours and closed exactly once.
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

/// A classic BPF program keeping only ARP and ICMPv6 frames: the kernel drops the rest (the
/// node's ordinary traffic) before it is copied to us.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn attach_arp_ndp_filter(fd: libc::c_int) -> std::io::Result<()> {
    const LD_H_ABS: u16 = 0x28;
    const LD_B_ABS: u16 = 0x30;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    let program = [
        op(LD_H_ABS, 0, 0, 12),       // 0: EtherType
        op(JEQ_K, 3, 0, 0x0806),      // 1: ARP → 5
        op(JEQ_K, 0, 3, 0x86dd),      // 2: not IPv6 → 6
        op(LD_B_ABS, 0, 0, 14 + 6),   // 3: IPv6 next header
        op(JEQ_K, 0, 1, 58),          // 4: not ICMPv6 → 6
        op(RET_K, 0, 0, 0x0004_0000), // 5: keep the whole frame
        op(RET_K, 0, 0, 0),           // 6: drop
    ];
    let fprog = libc::sock_fprog { len: program.len() as u16, filter: program.as_ptr() as *mut libc::sock_filter };
    // SAFETY: `fprog` and the `program` it points at outlive the call (the kernel copies the
    // program), and the size passed is that of `fprog`.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ATTACH_FILTER,
            &fprog as *const libc::sock_fprog as *const libc::c_void,
            std::mem::size_of::<libc::sock_fprog>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
