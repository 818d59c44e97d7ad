//! The allocator's fast "lowest acceptable address" against the definition: walk every address.

use lbdoctor::k8s::cidr::parse_pool_address;
use lbdoctor::metallb::alloc::allocator::{ip_key, is_buggy, key_ip, Allocator, Key};
use lbdoctor::metallb::alloc::pools::{AllocPool, Pools};
use lbdoctor::metallb::alloc::svc::{Port, SvcView};
use proptest::prelude::*;

fn view() -> SvcView<'static> {
    let svc: lbdoctor::snapshot::Service =
        serde_json::from_value(serde_json::json!({"metadata": {"namespace": "ns", "name": "x"}})).unwrap();
    // Leaked: a view borrows its Service, and each test case needs only a few.
    SvcView::from_service(Box::leak(Box::new(svc)))
}

fn key(k: u8) -> Key {
    Key::new(["", "a", "b"][k as usize % 3], ["", "app=x"][k as usize / 3 % 2])
}

fn port(p: u8) -> Vec<Port> {
    match p % 3 {
        0 => vec![],
        1 => vec![Port { proto: "TCP".into(), port: 80 }],
        _ => vec![Port { proto: "UDP".into(), port: 53 }],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn lowest_acceptable_address_matches_a_full_walk(
        avoid in any::<bool>(),
        holders in prop::collection::vec((0u32..40, any::<u8>(), any::<u8>()), 0..30),
        unassign in prop::collection::vec(0usize..30, 0..5),
        new_key in any::<u8>(),
        new_port in any::<u8>(),
    ) {
        let cidrs = parse_pool_address("192.0.2.240-192.0.3.15").unwrap();
        let pool = AllocPool { name: "p".into(), cidrs: cidrs.clone(), auto_assign: true, avoid_buggy_ips: avoid, service_allocation: None };
        let mut a = Allocator::new();
        a.set_pools(Pools::from_list(vec![pool]));
        let svc = view();
        let base = ip_key("192.0.2.240".parse().unwrap());
        for (i, (off, k, p)) in holders.iter().enumerate() {
            let ip = key_ip(base + *off as u128);
            let _ = a.assign(&format!("s{i}"), &svc, &[Some(ip)], &port(*p), &key(*k));
        }
        for i in unassign {
            a.unassign(&format!("s{i}"));
        }
        let (k, ports) = (key(new_key), port(new_port));
        for cidr in &cidrs {
            let fast = a.ip_from_cidr(cidr, avoid, "new", &ports, &k);
            let (lo, hi) = (ip_key(cidr.network()), ip_key(cidr.broadcast()));
            let slow = (lo..=hi).map(key_ip)
                .filter(|ip| !(avoid && is_buggy(ip_key(*ip))))
                .filter(|ip| a.check_sharing("new", *ip, &ports, &k).is_ok())
                .min_by_key(|ip| ip_key(*ip));
            prop_assert_eq!(fast, slow, "cidr {}", cidr);
        }
    }
}
