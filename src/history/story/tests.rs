//! The story from hand-written logs in MetalLB v0.16.1's format: go-kit JSON with keys sorted,
//! `ts` in whole seconds (`time.RFC3339`, internal/logging/logging.go), memberlist's lines through
//! speakerlist's adapter (internal/speakerlist/log.go) with hashicorp/memberlist v0.5.1's texts
//! (state.go), and speakerlist's `node event - forcing sync` (speakerlist.go:343).

use super::*;
use crate::history::logs::{scan, LogStats};

const IP: &str = "192.0.2.218";

/// One speaker's log, written line by line at whole seconds after 2026-11-08T10:00:00Z.
#[derive(Default)]
struct Log(String);

fn ts(second: u32) -> String {
    format!("2026-11-08T{:02}:{:02}:{:02}Z", 10 + second / 3600, second / 60 % 60, second % 60)
}

impl Log {
    fn line(mut self, l: String) -> Self {
        self.0.push_str(&l);
        self.0.push('\n');
        self
    }
    fn announce(self, s: u32) -> Self {
        let ts = ts(s);
        self.line(format!(
            r#"{{"caller":"main.go:481","event":"serviceAnnounced","ips":["{IP}"],"level":"info","msg":"service has IP, announcing","pool":"lan","protocol":"layer2","ts":"{ts}"}}"#
        ))
    }
    fn withdraw(self, s: u32, reason: &str) -> Self {
        let ts = ts(s);
        self.line(format!(
            r#"{{"caller":"main.go:525","event":"serviceWithdrawn","ip":["{IP}"],"level":"info","msg":"withdrawing service announcement","reason":"{reason}","ts":"{ts}"}}"#
        ))
    }
    fn start(self, s: u32) -> Self {
        let ts = ts(s);
        self.line(format!(
            r#"{{"branch":"HEAD","caller":"main.go:120","commit":"791dfcc6","goversion":"gc / go1.23.8 / amd64","level":"info","msg":"MetalLB speaker starting version 0.16.1 (commit 791dfcc6, branch HEAD)","ts":"{ts}","version":"0.16.1"}}"#
        ))
    }
    fn suspect(self, s: u32, node: &str) -> Self {
        let ts = ts(s);
        self.line(format!(
            r#"{{"caller":"state.go:521","component":"Memberlist","level":"info","msg":"memberlist: Suspect {node} has failed, no acks received","ts":"{ts}"}}"#
        ))
    }
    fn marked_failed(self, s: u32, node: &str) -> Self {
        let ts = ts(s);
        self.line(format!(
            r#"{{"caller":"state.go:1245","component":"Memberlist","level":"info","msg":"memberlist: Marking {node} as failed, suspect timeout reached (2 peer confirmations)","ts":"{ts}"}}"#
        ))
    }
    fn node_event(self, s: u32, node: &str, event: &str) -> Self {
        let ts = ts(s);
        self.line(format!(
            r#"{{"caller":"speakerlist.go:343","level":"info","msg":"node event - forcing sync","node addr":"192.0.2.51","node event":"{event}","node name":"{node}","ts":"{ts}"}}"#
        ))
    }
    fn leave(self, s: u32, node: &str) -> Self {
        self.node_event(s, node, "NodeLeave")
    }
    fn join(self, s: u32, node: &str) -> Self {
        self.node_event(s, node, "NodeJoin")
    }
    fn stats(&self) -> LogStats {
        scan(self.0.as_bytes(), None).expect("in memory")
    }
}

fn story(logs: &[(&str, Log)]) -> Story {
    let stats: Vec<(&str, LogStats)> = logs.iter().map(|(n, l)| (*n, l.stats())).collect();
    let tellers: Vec<Teller> = stats.iter().map(|(n, s)| Teller { node: Some(n), timeline: &s.timeline }).collect();
    tell(&tellers)
}

/// (second, from, to, kind, cause) of one change.
type Seen<'a> = (u32, Option<&'a str>, Option<&'a str>, Kind, Option<&'a str>);

/// Each change of [`IP`].
fn changes(s: &Story) -> Vec<Seen<'_>> {
    let base: i64 = "2026-11-08T10:00:00Z".parse::<jiff::Timestamp>().unwrap().as_second();
    s.ips
        .get(IP)
        .into_iter()
        .flatten()
        .map(|c| {
            let second = (c.at / SECOND - base) as u32;
            (second, c.from.as_deref(), c.to.as_deref(), c.kind, c.cause.as_deref())
        })
        .collect()
}

/// gpu-1 owns the IP; its speaker is SIGKILLed at 100 (no goodbye), peers notice, worker-a takes
/// over; it comes back at 130 and takes the IP back. gpu-1's own log holds both containers.
fn crash_and_return(gpu_log_survives: bool) -> Vec<(&'static str, Log)> {
    let gpu = Log::default().start(0).join(0, "gpu-1").join(0, "worker-a").join(0, "worker-b").announce(2);
    let gpu =
        if gpu_log_survives { gpu.start(130).join(130, "gpu-1").join(130, "worker-a").announce(131) } else { gpu };
    let worker_a = Log::default()
        .suspect(103, "gpu-1")
        .marked_failed(107, "gpu-1")
        .leave(107, "gpu-1")
        .announce(107)
        .join(131, "gpu-1")
        .withdraw(131, "notOwner");
    let worker_b = Log::default().suspect(104, "gpu-1").leave(108, "gpu-1").join(131, "gpu-1");
    vec![("gpu-1", gpu), ("worker-a", worker_a), ("worker-b", worker_b)]
}

#[test]
fn a_crash_is_a_takeover_and_the_return_a_takeback_both_caused_by_the_node_that_left() {
    let s = story(&crash_and_return(true));
    assert_eq!(
        changes(&s),
        [
            (107, Some("gpu-1"), Some("worker-a"), Kind::Takeover, Some("gpu-1")),
            (131, Some("worker-a"), Some("gpu-1"), Kind::Takeback, Some("gpu-1")),
        ]
    );
    let gpu = &s.members["gpu-1"];
    assert_eq!(gpu.departures.len(), 1, "two peers logged the leave, one marked it failed: one departure");
    assert!(gpu.departures[0].failed);
    assert_eq!(gpu.rejoins.len(), 1, "the start-up NodeJoins at 0 are no rejoins; the one after the leave is");
    assert!(s.members["worker-a"].departures.is_empty() && s.members["worker-a"].rejoins.is_empty());
}

#[test]
fn a_takeback_whose_new_owner_left_no_log_is_counted_from_the_notowner_withdrawal() {
    // kubectl logs shows only gpu-1's current container: its announce at 131 is gone.
    let s = story(&crash_and_return(false));
    let c = changes(&s);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(c[1], (131, Some("worker-a"), Some("gpu-1"), Kind::Takeback, Some("gpu-1")), "named by its rejoin");
}

#[test]
fn the_two_halves_of_a_takeback_pair_in_either_order_within_a_second() {
    // gpu-1's announce and worker-a's withdrawal carry the same whole second, in either order
    // across the files; with worker-a's withdrawal first in its file and gpu-1's announce later.
    for (withdraw_at, announce_at) in [(131, 131), (131, 133), (133, 131)] {
        let gpu = Log::default().start(0).announce(2).start(128).announce(announce_at);
        let worker_a =
            Log::default().leave(107, "gpu-1").announce(107).join(129, "gpu-1").withdraw(withdraw_at, "notOwner");
        let s = story(&[("gpu-1", gpu), ("worker-a", worker_a)]);
        let c = changes(&s);
        assert_eq!(c.len(), 2, "withdraw {withdraw_at}, announce {announce_at}: {c:?}");
        assert_eq!((c[1].1, c[1].2, c[1].3), (Some("worker-a"), Some("gpu-1"), Kind::Takeback));
        assert_eq!(c[1].0, withdraw_at.min(announce_at));
    }
}

#[test]
fn the_first_owner_seen_is_no_change_unless_a_returning_node_shows_it_took_over() {
    // The window opens with worker-a taking over while gpu-1 is gone, and gpu-1 takes it back:
    // gpu-1 held it before it left.
    let worker_a = Log::default().leave(5, "gpu-1").announce(6).join(40, "gpu-1").withdraw(40, "notOwner");
    let s = story(&[("worker-a", worker_a)]);
    let c = changes(&s);
    assert_eq!(c[0], (6, Some("gpu-1"), Some("worker-a"), Kind::Takeover, Some("gpu-1")));
    assert_eq!(c.len(), 2);

    // A plain first announce with nobody gone is where the window starts.
    let s = story(&[("worker-a", Log::default().announce(6))]);
    assert!(changes(&s).is_empty());
}

#[test]
fn a_node_marked_failed_that_keeps_running_flaps_the_ip_twice() {
    // gpu-1 is alive but unreachable: peers mark it failed, it refutes and rejoins. In its own
    // view it never stops announcing; worker-a announces meanwhile and withdraws when it is back.
    let gpu = Log::default().start(0).announce(2).line(format!(
        r#"{{"caller":"state.go:1284","component":"Memberlist","level":"warn","msg":"memberlist: Refuting a dead message (from: worker-a)","ts":"{}"}}"#,
        ts(60)
    ));
    let worker_a = Log::default()
        .marked_failed(50, "gpu-1")
        .leave(50, "gpu-1")
        .announce(50)
        .join(61, "gpu-1")
        .withdraw(61, "notOwner");
    let s = story(&[("gpu-1", gpu), ("worker-a", worker_a)]);
    assert_eq!(
        changes(&s),
        [
            (50, Some("gpu-1"), Some("worker-a"), Kind::Takeover, Some("gpu-1")),
            (61, Some("worker-a"), Some("gpu-1"), Kind::Takeback, Some("gpu-1")),
        ]
    );
}

#[test]
fn a_configuration_change_is_a_handover_no_node_caused() {
    // At 500 the nodeSelectors drop gpu-1: it withdraws notOwner, worker-a announces; nobody left.
    let gpu = Log::default().start(0).announce(2).withdraw(500, "notOwner");
    let worker_a = Log::default().announce(500);
    let s = story(&[("gpu-1", gpu), ("worker-a", worker_a)]);
    assert_eq!(changes(&s), [(500, Some("gpu-1"), Some("worker-a"), Kind::Handover, None)]);
}

#[test]
fn a_withdrawal_for_another_reason_and_a_later_owner_is_one_takeover() {
    // The Service loses its endpoints, then comes back on another node's election.
    let gpu = Log::default().start(0).announce(2).withdraw(300, "noIPAllocated");
    let worker_a = Log::default().announce(900);
    let s = story(&[("gpu-1", gpu), ("worker-a", worker_a)]);
    assert_eq!(changes(&s), [(900, Some("gpu-1"), Some("worker-a"), Kind::Takeover, None)]);
    // The same node announcing again is no change.
    let gpu = Log::default().start(0).announce(2).withdraw(300, "noIPAllocated").announce(900);
    assert!(changes(&story(&[("gpu-1", gpu)])).is_empty());
}

#[test]
fn every_speaker_restarting_in_a_rollout_joins_every_member_and_nobody_rejoins_twice() {
    // A rollout: worker-a then worker-b leave gracefully and start again; each new container
    // logs NodeJoin for every member. Only the joins after their own leave are rejoins.
    let worker_a = Log::default()
        .join(0, "worker-a")
        .join(0, "worker-b")
        .join(0, "gpu-1")
        .leave(100, "worker-b")
        .join(110, "worker-b");
    let worker_b = Log::default()
        .leave(50, "worker-a")
        .join(60, "worker-a")
        .start(105)
        .join(105, "worker-a")
        .join(105, "worker-b")
        .join(105, "gpu-1");
    let gpu = Log::default().leave(50, "worker-a").join(61, "worker-a").leave(100, "worker-b").join(111, "worker-b");
    let s = story(&[("worker-a", worker_a), ("worker-b", worker_b), ("gpu-1", gpu)]);
    for node in ["worker-a", "worker-b"] {
        assert_eq!(s.members[node].departures.len(), 1, "{node}");
        assert!(!s.members[node].departures[0].failed, "{node} left gracefully");
        assert_eq!(s.members[node].rejoins.len(), 1, "{node}");
    }
    let gpu = s.members.get("gpu-1").cloned().unwrap_or_default();
    assert!(gpu.departures.is_empty() && gpu.rejoins.is_empty(), "gpu-1 never left: {gpu:?}");
}

#[test]
fn departures_are_counted_once_however_few_peers_log_them() {
    // Three crashes; each time one peer marks it failed and a varying set of peers log the leave.
    let a = Log::default()
        .marked_failed(10, "gpu-1")
        .leave(10, "gpu-1")
        .join(30, "gpu-1")
        .leave(210, "gpu-1")
        .join(230, "gpu-1");
    let b = Log::default().leave(11, "gpu-1").join(31, "gpu-1").marked_failed(110, "gpu-1").join(130, "gpu-1");
    let c = Log::default().leave(111, "gpu-1").marked_failed(211, "gpu-1").leave(211, "gpu-1").join(231, "gpu-1");
    let s = story(&[("worker-a", a), ("worker-b", b), ("worker-c", c)]);
    let gpu = &s.members["gpu-1"];
    assert_eq!(gpu.departures.len(), 3);
    assert_eq!(gpu.departures.iter().filter(|d| d.failed).count(), 3);
    assert_eq!(gpu.rejoins.len(), 3);
}

#[test]
fn a_node_the_nodeselectors_drop_withdraws_nomatchingadvertisement_and_nobody_caused_the_move() {
    // v0.16.1's ShouldAnnounce: a node no L2Advertisement selects gives noMatchingAdvertisement.
    let gpu = Log::default().start(0).announce(2).withdraw(500, "noMatchingAdvertisement");
    let worker_a = Log::default().announce(500);
    let s = story(&[("gpu-1", gpu), ("worker-a", worker_a)]);
    assert_eq!(changes(&s), [(500, Some("gpu-1"), Some("worker-a"), Kind::Takeover, None)]);
}

#[test]
fn with_since_the_owner_when_the_window_opens_is_held_and_its_yield_is_a_change() {
    // worker-a announced before --since; gpu-1 comes back inside the window and takes the IP.
    let worker_a = Log::default().announce(10).join(200, "gpu-1").withdraw(200, "notOwner");
    let gpu = Log::default().start(198).announce(201);
    let since: jiff::Timestamp = ts(100).parse().unwrap();
    let stats: Vec<(&str, LogStats)> = [("worker-a", &worker_a), ("gpu-1", &gpu)]
        .into_iter()
        .map(|(n, l)| (n, scan(l.0.as_bytes(), Some(since)).expect("in memory")))
        .collect();
    assert!(stats[0].1.timeline.marks.iter().any(|m| matches!(m.what, Happened::Held { .. })));
    let tellers: Vec<Teller> = stats.iter().map(|(n, s)| Teller { node: Some(n), timeline: &s.timeline }).collect();
    let s = tell(&tellers);
    assert_eq!(changes(&s), [(200, Some("worker-a"), Some("gpu-1"), Kind::Takeback, Some("gpu-1"))]);
}

/// Issue 48's fast return: gpu-1 is back 5 s after it left and gone again 7 s later; its own
/// lines are in container logs that are gone. worker-a's withdrawal at 112 (a takeback) and its
/// next announce at 119 (a takeover) lie within PAIR, and both are owner changes.
#[test]
fn a_return_of_seconds_is_a_takeback_and_the_next_departure_a_takeover() {
    let gpu = Log::default().start(0).join(0, "gpu-1").join(0, "worker-a").announce(2);
    let worker_a = Log::default()
        .suspect(105, "gpu-1")
        .leave(107, "gpu-1")
        .announce(107)
        .join(112, "gpu-1")
        .withdraw(112, "notOwner")
        .leave(119, "gpu-1")
        .announce(119)
        .announce(119);
    let s = story(&[("gpu-1", gpu), ("worker-a", worker_a)]);
    assert_eq!(
        changes(&s),
        [
            (107, Some("gpu-1"), Some("worker-a"), Kind::Takeover, Some("gpu-1")),
            (112, Some("worker-a"), Some("gpu-1"), Kind::Takeback, Some("gpu-1")),
            (119, Some("gpu-1"), Some("worker-a"), Kind::Takeover, Some("gpu-1")),
        ]
    );
    assert_eq!(s.members["gpu-1"].departures.len(), 2, "NodeLeave alone records a departure");
}
