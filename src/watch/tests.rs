//! The changes between two evaluations of the demo homelab, one edited as a watch would see it.

use super::*;
use crate::demo::Demo;
use crate::simulate::edit::{self, Edit};

const EXCLUDE: &str = "node.kubernetes.io/exclude-from-external-load-balancers";

fn evaluate(snap: &Snapshot) -> Report {
    let mut r = diagnose::diagnose(
        snap,
        &Options { scope: Scope::All, detail: false, map: false, overrides: Default::default() },
    )
    .unwrap();
    diagnose::conclude(&mut r);
    r
}

fn trigger() -> Trigger {
    Trigger {
        kind: "Node".into(),
        namespace: None,
        name: "worker-b".into(),
        event: "modified",
        fields: vec!["labels".into()],
    }
}

/// The changes from `before` to `before` with `edits`, as the watch computes them.
fn watched(before: &Snapshot, edits: &[Edit]) -> (Vec<WatchChange>, Snapshot) {
    let (after, _) = edit::apply(before, edits).unwrap();
    let (b, a) = (evaluate(before), evaluate(&after));
    let opts = Options { scope: Scope::All, detail: false, map: false, overrides: Default::default() };
    let why = reasons(&after, &b, &a, &opts).unwrap();
    (changes(&b, &a, &why, &[trigger()], "T"), after)
}

fn find<'c>(changes: &'c [WatchChange], kind: ChangeKind, service: &str) -> &'c WatchChange {
    changes
        .iter()
        .find(|c| c.change == kind && c.service.as_deref() == Some(service))
        .unwrap_or_else(|| panic!("no {kind:?} change of {service}: {changes:#?}"))
}

#[test]
fn nothing_changes_between_two_evaluations_of_the_same_cluster() {
    let snap = Demo::Healthy.load().unwrap();
    let (b, a) = (evaluate(&snap), evaluate(&snap));
    assert!(affected(&b, &a).is_empty());
    assert!(changes(&b, &a, &[], &[], "T").is_empty());
}

#[test]
fn an_exclude_label_moves_every_ip_its_node_won_and_back() {
    let snap = Demo::Healthy.load().unwrap();
    let label = Edit::Label { node: "worker-b".into(), key: EXCLUDE.into(), value: String::new() };
    let (out, after) = watched(&snap, &[label]);
    let grafana = find(&out, ChangeKind::Announcer, "default/grafana");
    assert_eq!((grafana.before.as_str(), grafana.after.as_str()), (Some("worker-b"), Some("worker-a")));
    assert_eq!(grafana.reason.as_deref(), Some("excludeLabel"));
    assert_eq!(grafana.detail, "worker-b → worker-a (worker-b: excludeLabel)");
    assert_eq!(grafana.triggers, [trigger()]);
    // The records still name worker-b: the replay and the speakers disagree until they move.
    assert!(grafana.drift && grafana.observed.as_deref() == Some("worker-b"));
    // eTP Local with endpoints on worker-b only: no candidate is left.
    let traefik = find(&out, ChangeKind::Announcer, "default/traefik");
    assert!(traefik.after.is_null(), "{traefik:?}");
    let dark = find(&out, ChangeKind::Status, "default/traefik");
    assert_eq!((dark.before.as_str(), dark.after.as_str()), (Some("ok"), Some("dark")));
    assert!(out.iter().any(|c| c.change == ChangeKind::Cause && c.before.is_null()), "a cause appears: {out:#?}");
    // Nothing worker-b did not win moves.
    assert!(!out.iter().any(|c| c.change == ChangeKind::Announcer && c.before == "worker-a"), "{out:#?}");

    let unlabel = Edit::Unlabel { node: "worker-b".into(), key: EXCLUDE.into() };
    let (back, _) = watched(&after, &[unlabel]);
    let grafana = find(&back, ChangeKind::Announcer, "default/grafana");
    assert_eq!((grafana.before.as_str(), grafana.after.as_str()), (Some("worker-a"), Some("worker-b")));
    assert_eq!(grafana.reason.as_deref(), Some("lostElection"));
    assert!(back.iter().any(|c| c.change == ChangeKind::Cause && c.after.is_null()), "the cause clears: {back:#?}");
}

#[test]
fn the_tally_counts_a_shared_ip_once_and_names_flapping_ips() {
    let snap = Demo::Healthy.load().unwrap();
    let label = Edit::Label { node: "worker-b".into(), key: EXCLUDE.into(), value: String::new() };
    let (out, after) = watched(&snap, &[label]);
    let (back, _) = watched(&after, &[Edit::Unlabel { node: "worker-b".into(), key: EXCLUDE.into() }]);
    let mut tally = Tally::default();
    out.iter().chain(&back).for_each(|c| tally.record(c));
    let s = tally.summary("T2", "T0", "timeout", 2, Default::default());
    // pihole-dns-udp and pihole-dns-tcp share 198.51.100.20: one IP, moved twice.
    let shared = s.flapping.iter().find(|f| f.ip == "198.51.100.20").expect("the shared IP moved");
    assert_eq!(shared.moves, 2);
    assert_eq!(shared.announcers, [Some("worker-b".into()), Some("worker-a".into()), Some("worker-b".into())]);
    let grafana = s.services.iter().find(|x| x.service == "default/grafana").unwrap();
    assert_eq!(grafana.by_kind.get("announcer"), Some(&2));
    assert_eq!(s.changes, (out.len() + back.len()) as u64);
}

#[test]
fn chunks_never_part_services_that_share_an_ip() {
    let snap = Demo::Healthy.load().unwrap();
    let report = evaluate(&snap);
    let keys: BTreeSet<ServiceKey> =
        report.services.iter().map(|s| (s.namespace.to_string(), s.name.to_string())).collect();
    let chunks = chunks(&keys, &report, 1);
    // Ten Services, the two pihole ones on 198.51.100.20: nine chunks, that pair in one.
    assert_eq!(chunks.len(), 9);
    let pair = chunks.iter().find(|c| c.len() == 2).expect("the shared IP's pair");
    assert!(pair.contains(&("home", "pihole-dns-tcp")) && pair.contains(&("home", "pihole-dns-udp")), "{pair:?}");
    assert_eq!(chunks.iter().map(BTreeSet::len).sum::<usize>(), 10);
    assert_eq!(super::chunks(&keys, &report, 256).len(), 1);
}
