//! The scanner on hand-written lines, and on testdata/history against expected.json.

use super::*;

const D28: &str = "2026-11-28";
const D29: &str = "2026-11-29";

fn announce(ts: &str, ips: &str) -> String {
    format!(
        r#"{{"caller":"main.go:481","event":"serviceAnnounced","ips":{ips},"level":"info","msg":"service has IP, announcing","pool":"lan","protocol":"layer2","ts":"{ts}"}}"#
    )
}

fn withdraw(ts: &str, ip: &str, reason: &str) -> String {
    format!(
        r#"{{"caller":"main.go:519","event":"serviceWithdrawn","ip":{ip},"level":"info","msg":"withdrawing service announcement","reason":"{reason}","ts":"{ts}"}}"#
    )
}

fn start(ts: &str) -> String {
    format!(
        r#"{{"caller":"main.go:113","level":"info","msg":"MetalLB speaker starting version 0.16.1 (commit 791dfcc6, branch HEAD)","ts":"{ts}","version":"0.16.1"}}"#
    )
}

fn memberlist(ts: &str, msg: &str) -> String {
    format!(r#"{{"caller":"logger.go:42","component":"Memberlist","level":"info","msg":"{msg}","ts":"{ts}"}}"#)
}

fn node_event(ts: &str, node: &str, event: &str) -> String {
    format!(
        r#"{{"caller":"speakerlist.go:339","level":"info","msg":"node event - forcing sync","node addr":"192.0.2.31","node event":"{event}","node name":"{node}","ts":"{ts}"}}"#
    )
}

fn log(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn scan_str(text: &str) -> LogStats {
    scan(text.as_bytes(), None).expect("reading from memory")
}

fn ts(s: &str) -> Timestamp {
    s.parse().expect("valid timestamp")
}

fn map<V: Clone>(pairs: &[(&str, V)]) -> BTreeMap<String, V> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

#[test]
fn an_announce_counts_each_ip_its_protocol_and_one_takeover() {
    let t = "2026-11-28T10:00:00.123456789Z";
    let stats = scan_str(&log(&[announce(t, r#"["192.0.2.200","192.0.2.201"]"#)]));
    let expected_ip = IpCounts {
        protocol: map(&[("layer2", 1)]),
        announced_lines: 1,
        takeovers: 1,
        takeovers_by_day: map(&[(D28, 1)]),
        withdrawals_by_reason: BTreeMap::new(),
        first_ts: Some(t.into()),
        last_ts: Some(t.into()),
        announcing_at_end: true,
    };
    assert_eq!(stats.lines, 1);
    assert_eq!(stats.other, 0);
    assert_eq!(stats.days, map(&[(D28, DayCounts { announced: 1, ..DayCounts::default() })]));
    assert_eq!(stats.ips, map(&[("192.0.2.200", expected_ip.clone()), ("192.0.2.201", expected_ip)]));
    assert_eq!((stats.first_ts.as_deref(), stats.last_ts.as_deref()), (Some(t), Some(t)));
}

#[test]
fn reannounces_are_not_takeovers_but_the_announce_after_a_withdraw_is() {
    let ip = r#"["192.0.2.200"]"#;
    let stats = scan_str(&log(&[
        announce("2026-11-28T10:00:00Z", ip),
        announce("2026-11-28T10:05:00Z", ip),
        withdraw("2026-11-28T10:10:00Z", ip, "notOwner"),
        announce("2026-11-28T23:59:59.999Z", ip),
        withdraw("2026-11-29T00:01:00Z", ip, "loadBalancerIPChanged"),
        announce("2026-11-29T00:02:00Z", ip),
    ]));
    let c = &stats.ips["192.0.2.200"];
    assert_eq!(c.announced_lines, 4);
    assert_eq!(c.takeovers, 3);
    assert_eq!(c.takeovers_by_day, map(&[(D28, 2), (D29, 1)]));
    assert_eq!(c.withdrawals_by_reason, map(&[("loadBalancerIPChanged", 1), ("notOwner", 1)]));
    assert!(c.announcing_at_end);
    assert_eq!(c.first_ts.as_deref(), Some("2026-11-28T10:00:00Z"));
    assert_eq!(c.last_ts.as_deref(), Some("2026-11-29T00:02:00Z"));
    let d28 = DayCounts { announced: 3, withdrawn: 1, withdrawn_by_reason: map(&[("notOwner", 1)]), other_lines: 0 };
    let d29 = DayCounts {
        announced: 1,
        withdrawn: 1,
        withdrawn_by_reason: map(&[("loadBalancerIPChanged", 1)]),
        other_lines: 0,
    };
    assert_eq!(stats.days, map(&[(D28, d28), (D29, d29)]));
}

#[test]
fn a_restart_leaves_every_ip_unannounced_until_announced_again() {
    let stats = scan_str(&log(&[
        announce("2026-11-28T10:00:00Z", r#"["192.0.2.200"]"#),
        announce("2026-11-28T10:00:01Z", r#"["192.0.2.201"]"#),
        start("2026-11-28T10:07:00.5Z"),
        announce("2026-11-28T10:07:03Z", r#"["192.0.2.200"]"#),
    ]));
    assert_eq!(stats.start_count, 1);
    assert_eq!(stats.starts, ["2026-11-28T10:07:00.5Z"]);
    let (a, b) = (&stats.ips["192.0.2.200"], &stats.ips["192.0.2.201"]);
    assert_eq!((a.takeovers, a.announcing_at_end), (2, true));
    assert_eq!((b.takeovers, b.announcing_at_end), (1, false));
    assert_eq!(stats.other, 0, "the start line is a record of its own");
}

#[test]
fn a_withdrawn_ip_may_be_a_single_string_and_the_reason_may_be_missing() {
    let stats = scan_str(&log(&[
        withdraw("2026-11-28T10:00:00Z", r#""192.0.2.9""#, "noIPAllocated"),
        r#"{"event":"serviceWithdrawn","ip":["192.0.2.10"],"msg":"withdrawing service announcement","ts":"2026-11-28T10:00:01Z"}"#.into(),
    ]));
    let nine = &stats.ips["192.0.2.9"];
    assert_eq!(nine.withdrawals_by_reason, map(&[("noIPAllocated", 1)]));
    assert_eq!((nine.takeovers, nine.announced_lines, nine.announcing_at_end), (0, 0, false));
    assert_eq!(stats.ips["192.0.2.10"].withdrawals_by_reason, map(&[(MISSING, 1)]));
    assert_eq!(stats.days[D28].withdrawn, 2);
    assert_eq!(stats.days[D28].withdrawn_by_reason, map(&[(MISSING, 1), ("noIPAllocated", 1)]));
}

#[test]
fn memberlist_failure_detector_lines_count_per_member_and_day() {
    let stats = scan_str(&log(&[
        memberlist("2026-11-28T10:00:01Z", "memberlist: Suspect gpu-1 has failed, no acks received"),
        memberlist(
            "2026-11-28T10:00:05Z",
            "memberlist: Marking gpu-1 as failed, suspect timeout reached (2 peer confirmations)",
        ),
        memberlist("2026-11-29T08:00:00Z", "memberlist: Suspect gpu-1 has failed, no acks received"),
        memberlist("2026-11-28T11:00:00Z", "memberlist: Refuting a suspect message (from: worker-a)"),
        memberlist("2026-11-28T11:00:02Z", "[WARN] memberlist: Refuting a suspect message (from: worker-b)"),
        memberlist("2026-11-28T11:00:03Z", "memberlist: Stream connection from=192.0.2.22:41234"),
    ]));
    let gpu = &stats.members["gpu-1"];
    assert_eq!(gpu[D28], MemberCounts { suspect: 1, failed: 1, ..MemberCounts::default() });
    assert_eq!(gpu[D29], MemberCounts { suspect: 1, ..MemberCounts::default() });
    assert_eq!(stats.members[SELF_MEMBER], map(&[(D28, MemberCounts { refuted: 2, ..MemberCounts::default() })]));
    assert_eq!(stats.members.len(), 2, "worker-a and worker-b only sent the suspicions");
    assert_eq!((stats.other, stats.days[D28].other_lines), (1, 1));
}

#[test]
fn speakerlist_node_events_count_joins_leaves_and_updates() {
    let stats = scan_str(&log(&[
        node_event("2026-11-28T10:00:06Z", "gpu-1", "NodeLeave"),
        node_event("2026-11-28T10:04:00Z", "gpu-1", "NodeJoin"),
        node_event("2026-11-28T10:04:00Z", "worker-a", "NodeUpdate"),
        node_event("2026-11-28T10:04:01Z", "worker-a", "NodeSomethingElse"),
    ]));
    assert_eq!(stats.members["gpu-1"][D28], MemberCounts { join: 1, leave: 1, ..MemberCounts::default() });
    assert_eq!(stats.members["worker-a"][D28], MemberCounts { update: 1, ..MemberCounts::default() });
    assert_eq!(stats.other, 1);
}

#[test]
fn a_day_that_comes_back_out_of_order_keeps_its_counts() {
    let stats = scan_str(&log(&[
        announce("2026-11-28T23:59:59Z", r#"["192.0.2.200"]"#),
        memberlist("2026-11-29T00:00:01Z", "memberlist: Suspect gpu-1 has failed, no acks received"),
        // A line from a speaker whose clock lags, or two logs concatenated.
        memberlist("2026-11-28T23:59:58Z", "memberlist: Suspect gpu-1 has failed, no acks received"),
        r#"{"level":"info","msg":"late","ts":"2026-11-28T23:59:58.5Z"}"#.into(),
        node_event("2026-11-29T00:00:05Z", "gpu-1", "NodeLeave"),
    ]));
    assert_eq!(stats.days[D28], DayCounts { announced: 1, other_lines: 1, ..DayCounts::default() });
    assert_eq!(stats.days[D29], DayCounts::default(), "a day with memberlist lines only");
    let gpu = &stats.members["gpu-1"];
    assert_eq!(gpu[D28], MemberCounts { suspect: 1, ..MemberCounts::default() });
    assert_eq!(gpu[D29], MemberCounts { suspect: 1, leave: 1, ..MemberCounts::default() });
    assert_eq!(stats.last_ts.as_deref(), Some("2026-11-29T00:00:05Z"), "the last line, not the latest time");
}

#[test]
fn kubectl_timestamps_and_prefix_decorations_are_skipped() {
    let a = announce("2026-11-28T10:00:00Z", r#"["192.0.2.200"]"#);
    let stats = scan_str(&log(&[
        format!("2026-11-28T10:00:00.000000001Z {a}"),
        format!("[pod/speaker-x7k2p/speaker] {a}"),
        format!("[pod/speaker-x7k2p/speaker] 2026-11-28T10:00:00.000000002Z {a}"),
        // No `ts` of its own: kubectl's is used, as written.
        r#"2026-11-29T01:02:03.5Z {"level":"info","msg":"service has IP, announcing","ips":["192.0.2.201"]}"#.into(),
    ]));
    assert_eq!((stats.lines, stats.malformed, stats.untimed, stats.other), (4, 0, 0, 0));
    assert_eq!(stats.ips["192.0.2.200"].announced_lines, 3);
    assert_eq!(stats.ips["192.0.2.201"].protocol, map(&[(MISSING, 1)]));
    assert_eq!(stats.ips["192.0.2.201"].takeovers_by_day, map(&[(D29, 1)]));
    assert_eq!(stats.last_ts.as_deref(), Some("2026-11-29T01:02:03.5Z"));
}

#[test]
fn malformed_truncated_untimed_and_empty_lines_are_told_apart() {
    let text = [
        "",
        "W1128 10:00:00.123456       1 reflector.go:561] watch of *v1.EndpointSlice ended",
        r#"{"caller":"main.go:481","event":"serviceAnnounced","ips":["192.0.2.2"#,
        r#"{"msg":"service has IP, announcing","ips":[}"#,
        r#"{"level":"info","msg":"no time here"}"#,
        r#"{"level":"info","msg":"a time nobody can read","ts":"yesterday"}"#,
        "   \t",
        r#"{"level":"info","ts":"2026-11-28T10:00:00Z","msg":"cut sho"#,
    ]
    .join("\n");
    let stats = scan_str(&text);
    assert_eq!(stats.lines, 6, "blank lines are not lines");
    assert_eq!((stats.malformed, stats.truncated, stats.untimed, stats.other), (3, 1, 2, 0));
    assert!(stats.days.is_empty() && stats.ips.is_empty());
}

#[test]
fn a_whole_last_line_without_a_newline_is_not_truncated() {
    let stats = scan_str(r#"{"level":"info","msg":"fine","ts":"2026-11-28T10:00:00Z"}"#);
    assert_eq!((stats.lines, stats.truncated, stats.other), (1, 0, 1));
    assert_eq!(stats.days[D28].other_lines, 1);
}

#[test]
fn lines_before_since_are_skipped_but_still_set_the_announcing_state() {
    let since = ts("2026-11-28T10:00:00.5Z");
    let text = log(&[
        r#"{"caller":"service_controller.go:64","controller":"ServiceReconciler","level":"info","start reconcile":"default/web","ts":"2026-11-28T09:00:00Z"}"#.into(),
        announce("2026-11-28T09:30:00Z", r#"["192.0.2.203"]"#),
        announce("2026-11-28T09:31:00Z", r#"["192.0.2.204"]"#),
        start("2026-11-28T09:45:00Z"),
        announce("2026-11-28T10:00:00.25Z", r#"["192.0.2.200"]"#),
        announce("2026-11-28T10:00:00.5Z", r#"["192.0.2.201"]"#),
        announce("2026-11-28T10:00:00.75Z", r#"["192.0.2.200"]"#),
        announce("2026-11-28T11:00:00Z", r#"["192.0.2.203"]"#),
    ]);
    let stats = scan(text.as_bytes(), Some(since)).expect("reading from memory");
    assert_eq!(stats.skipped_before_since, 5);
    assert_eq!(stats.start_count, 0);
    // .200 was announcing before `since`: its announce after it is a re-announce.
    let a = &stats.ips["192.0.2.200"];
    assert_eq!((a.announced_lines, a.takeovers), (1, 0));
    // Exactly at `since` counts.
    assert_eq!(stats.ips["192.0.2.201"].takeovers, 1);
    // The restart before `since` ended .203's announcement.
    assert_eq!(stats.ips["192.0.2.203"].takeovers, 1);
    assert!(!stats.ips.contains_key("192.0.2.204"), "seen only before since");
    assert_eq!(stats.first_ts.as_deref(), Some("2026-11-28T10:00:00.5Z"));
    assert_eq!(stats.days[D28].announced, 3);
}

#[test]
fn timestamps_with_offsets_count_on_their_utc_day_and_impossible_dates_are_untimed() {
    let stats = scan_str(&log(&[
        announce("2026-11-28T23:30:00-02:00", r#"["192.0.2.200"]"#),
        announce("2026-11-28T10:00:00.123Z", r#"["192.0.2.201"]"#),
        announce("2026-13-01T00:00:00Z", r#"["192.0.2.202"]"#),
        announce("2026-02-30T00:00:00.5Z", r#"["192.0.2.202"]"#),
    ]));
    assert_eq!(stats.ips["192.0.2.200"].takeovers_by_day, map(&[(D29, 1)]));
    assert_eq!(stats.ips["192.0.2.201"].takeovers_by_day, map(&[(D28, 1)]));
    assert_eq!(stats.untimed, 2);
    assert!(!stats.ips.contains_key("192.0.2.202"));
}

#[test]
fn escaped_strings_are_decoded_before_they_are_recognised() {
    let stats = scan_str(&log(&[
        r#"{"level":"info","msg":"MetalLB speaker starting version 0.16.1 (\"HEAD\")","ts":"2026-11-28T10:00:00Z"}"#
            .into(),
        memberlist("2026-11-28T10:00:01Z", r"memberlist: Suspect gpu\u002d1 has failed, no acks received"),
        announce("2026-11-28T10:00:02Z", r#"["192.0.2.\u0032"]"#),
        // The words alone do not make an announce.
        r#"{"level":"info","msg":"service has IP, announcing \"twice\"","ts":"2026-11-28T10:00:03Z"}"#.into(),
    ]));
    assert_eq!(stats.start_count, 1);
    assert_eq!(stats.members["gpu-1"][D28].suspect, 1);
    assert_eq!(stats.ips["192.0.2.2"].takeovers, 1);
    assert_eq!(stats.other, 1);
}

#[test]
fn only_the_first_thousand_starts_are_kept() {
    let lines: Vec<String> =
        (0..1005).map(|i| start(&format!("2026-11-28T{:02}:{:02}:{:02}Z", i / 3600, i / 60 % 60, i % 60))).collect();
    let stats = scan_str(&log(&lines));
    assert_eq!(stats.start_count, 1005);
    assert_eq!(stats.starts.len(), MAX_STARTS);
    assert_eq!(stats.starts[999], "2026-11-28T00:16:39Z");
}

#[test]
fn an_overlong_line_is_malformed_and_the_next_line_is_read() {
    let text = format!("{}\n{}\n", "x".repeat(200), r#"{"ts":"2026-11-28T10:00:00Z"}"#);
    let stats = scan_capped(text.as_bytes(), None, 64).expect("reading from memory");
    assert_eq!((stats.lines, stats.malformed, stats.other), (2, 1, 1));
}

#[test]
fn an_io_error_ends_the_scan() {
    struct Broken;
    impl Read for Broken {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk on fire"))
        }
    }
    let err = scan(io::BufReader::new(Broken), None).expect_err("the error is returned");
    assert_eq!(err.to_string(), "disk on fire");
}

/// testdata/history (scripts/gen-history.py): every log scans to the `LogStats` the generator
/// worked out from the lines it wrote, and the headline facts of its README hold.
#[test]
fn the_testdata_logs_scan_to_what_the_generator_expects() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/history");
    let text = std::fs::read_to_string(dir.join("expected.json")).expect("testdata/history/expected.json");
    let expected: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let mut by_node = BTreeMap::new();
    for (file, node) in expected["nodes"].as_object().expect("nodes") {
        let reader = io::BufReader::new(std::fs::File::open(dir.join("logs").join(file)).expect("log file"));
        let stats = scan(reader, None).expect("reading the log");
        let json = serde_json::to_value(&stats).expect("serialisable");
        assert!(json == expected["stats"][file], "{file} ({node}) differs from expected.json");
        by_node.insert(node.as_str().expect("node name").to_owned(), stats);
    }
    assert_eq!(by_node.len(), 8);
    assert_eq!(by_node.values().map(|s| s.malformed).sum::<u64>(), 5);
    assert_eq!(by_node.values().map(|s| s.truncated).sum::<u64>(), 1);
    assert_eq!(by_node["worker-e"].truncated, 1);
    assert!(by_node.values().all(|s| s.untimed == 0));
    // gpu-1's file is its current container only: one start, and it owns both of its IPs.
    let gpu = &by_node["gpu-1"];
    assert_eq!(gpu.start_count, 1);
    assert!(gpu.ips["192.0.2.218"].announcing_at_end && gpu.ips["192.0.2.207"].announcing_at_end);
    // Every crash in the window hands jellyfin's IP to worker-a and immich's to worker-b, and
    // every return takes it back.
    for (node, ip) in [("worker-a", "192.0.2.218"), ("worker-b", "192.0.2.207")] {
        let c = &by_node[node].ips[ip];
        assert_eq!(c.takeovers, 288, "{node} {ip}");
        assert_eq!(c.withdrawals_by_reason, map(&[("notOwner", 288)]), "{node} {ip}");
        assert!(!c.announcing_at_end);
    }
    let failed: u64 = by_node.values().flat_map(|s| s.members.get("gpu-1")).flatten().map(|(_, m)| m.failed).sum();
    assert_eq!(failed, 288, "one speaker marks each crash failed");
}

#[test]
fn the_json_is_camel_case() {
    let stats = scan_str(&log(&[withdraw("2026-11-28T10:00:00Z", r#"["192.0.2.200"]"#, "notOwner")]));
    let json = serde_json::to_value(&stats).expect("serialisable");
    assert_eq!(json["skippedBeforeSince"], 0);
    assert_eq!(json["days"][D28]["withdrawnByReason"]["notOwner"], 1);
    assert_eq!(json["ips"]["192.0.2.200"]["announcingAtEnd"], false);
    assert_eq!(json["ips"]["192.0.2.200"]["withdrawalsByReason"]["notOwner"], 1);
}

#[test]
fn a_mark_is_24_bytes() {
    // docs/history.md and docs/performance.md size the timeline with this.
    assert_eq!(std::mem::size_of::<Mark>(), 24);
}
