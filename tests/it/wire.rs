//! `arping` and `announce` on real links: network namespaces joined by veth pairs (and a bridge
//! in its own namespace), documentation addresses only. Nothing is created in, or sent from,
//! the namespace the tests run in. Needs root (CI runs as root); elsewhere each test says
//! SKIPPED on stderr and passes.

use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, Ipv6Addr};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lbdoctor::net::frame::{self, Frame};
use lbdoctor::net::Mac;
use serde_json::Value;

use crate::util::{json, skipped, BIN, ROOT};

const VIP4: &str = "192.0.2.10";
const VIP6: &str = "2001:db8::10";

fn mac(host: u8) -> String {
    format!("02:00:5e:00:53:{host:02x}")
}

/// Whether a program of that name is on PATH.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Runs a program (`args[0]`) of the host, not lbdoctor.
fn exec(args: &[&str]) -> Output {
    Command::new(args[0]).args(&args[1..]).output().unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn ok(args: &[&str]) {
    let out = exec(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Namespaces made for one test; deleting them removes their links.
struct Lab {
    prefix: String,
    namespaces: Vec<String>,
    home: tempfile::TempDir,
}

impl Drop for Lab {
    fn drop(&mut self) {
        for ns in &self.namespaces {
            let _ = exec(&["ip", "netns", "del", ns]);
        }
    }
}

static SEQ: AtomicUsize = AtomicUsize::new(0);

impl Lab {
    /// `None` (with a SKIPPED line) where namespaces cannot be created, or where a host
    /// program the test runs (`tools`, beside ip, sysctl and kill) is not installed.
    fn new(test: &str, tools: &[&str]) -> Option<Lab> {
        let missing: Vec<&str> =
            ["ip", "sysctl", "kill"].iter().chain(tools).copied().filter(|t| !on_path(t)).collect();
        if !missing.is_empty() {
            let why = format!(
                "{} not installed (Debian: apt-get install iproute2 procps iputils-arping ndisc6 tcpdump util-linux; .ci/run installs them)",
                missing.join(", ")
            );
            skipped(test, &why);
            return None;
        }
        let prefix = format!("lbd{}x{}", std::process::id() % 100_000, SEQ.fetch_add(1, Ordering::Relaxed));
        let probe = format!("{prefix}p");
        if !exec(&["ip", "netns", "add", &probe]).status.success() {
            skipped(test, "cannot create network namespaces here (needs root)");
            return None;
        }
        let _ = exec(&["ip", "netns", "del", &probe]);
        Some(Lab { prefix, namespaces: Vec::new(), home: tempfile::tempdir().unwrap() })
    }

    fn ns(&mut self, name: &str) -> String {
        let ns = format!("{}{name}", self.prefix);
        ok(&["ip", "netns", "add", &ns]);
        self.namespaces.push(ns.clone());
        // No duplicate address detection: addresses are usable at once.
        for key in ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"] {
            ok(&["ip", "netns", "exec", &ns, "sysctl", "-qw", key]);
        }
        ok(&["ip", "-n", &ns, "link", "set", "lo", "up"]);
        ns
    }

    /// A host namespace `name` with interface `eth0` (MAC 02:00:5e:00:53:HOST, 192.0.2.HOST/24,
    /// 2001:db8::HOST/64), its peer `peer` placed in `peer_ns`.
    fn host(&mut self, name: &str, host: u8, peer_ns: &str, peer: &str) -> String {
        let ns = self.ns(name);
        let m = mac(host);
        ok(&[
            "ip", "link", "add", "eth0", "netns", &ns, "address", &m, "type", "veth", "peer", "name", peer, "netns",
            peer_ns,
        ]);
        ok(&["ip", "-n", &ns, "addr", "add", &format!("192.0.2.{host}/24"), "dev", "eth0"]);
        ok(&["ip", "-n", &ns, "addr", "add", &format!("2001:db8::{host:x}/64"), "dev", "eth0", "nodad"]);
        ok(&["ip", "-n", &ns, "link", "set", "eth0", "up"]);
        ok(&["ip", "-n", peer_ns, "link", "set", peer, "up"]);
        ns
    }

    /// Two hosts on one veth link: `a` is host 1, `b` host 2.
    fn pair(&mut self) -> (String, String) {
        let b = self.ns("b");
        let m = mac(2);
        let a = self.host("a", 1, &b, "eth0");
        ok(&["ip", "-n", &b, "link", "set", "eth0", "address", &m]);
        ok(&["ip", "-n", &b, "addr", "add", "192.0.2.2/24", "dev", "eth0"]);
        ok(&["ip", "-n", &b, "addr", "add", "2001:db8::2/64", "dev", "eth0", "nodad"]);
        wait_link_local(&a);
        wait_link_local(&b);
        (a, b)
    }

    /// Hosts 1..=n on a bridge that lives in its own namespace.
    fn bridged(&mut self, n: u8) -> Vec<String> {
        let br = self.ns("br");
        ok(&["ip", "-n", &br, "link", "add", "br0", "type", "bridge"]);
        ok(&["ip", "-n", &br, "link", "set", "br0", "up"]);
        let hosts: Vec<String> = (1..=n)
            .map(|h| {
                let port = format!("p{h}");
                let ns = self.host(&format!("h{h}"), h, &br, &port);
                ok(&["ip", "-n", &br, "link", "set", &port, "master", "br0"]);
                ns
            })
            .collect();
        hosts.iter().for_each(|h| wait_link_local(h));
        hosts
    }

    fn lbdoctor(&self, ns: &str, args: &[&str]) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, BIN]).args(args);
        c.env("KUBECONFIG", self.home.path().join("absent")).env("HOME", self.home.path()).env_remove("NO_COLOR");
        c
    }
}

fn wait_link_local(ns: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let out = String::from_utf8(exec(&["ip", "-n", ns, "-6", "addr", "show", "dev", "eth0"]).stdout).unwrap();
        if out.contains("fe80::") && !out.contains("tentative") {
            return;
        }
        assert!(Instant::now() < deadline, "no usable link-local address in {ns}: {out}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A running `announce`, its stderr lines arriving on a channel.
struct Announcer {
    child: Child,
    lines: mpsc::Receiver<String>,
    log: Vec<String>,
}

impl Announcer {
    fn start(lab: &Lab, ns: &str, args: &[&str]) -> Announcer {
        let mut child = lab
            .lbdoctor(ns, &[&["announce", "--interface", "eth0"], args].concat())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Announcer { child, lines, log: Vec::new() }
    }

    /// Waits for a log line containing `text`.
    fn wait_for(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.log.iter().any(|l| l.contains(text)) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.log.push(line),
                Err(_) => panic!("announce never logged {text:?}; log so far:\n{}", self.log.join("\n")),
            }
        }
    }

    fn signal(&self, name: &str) {
        ok(&["kill", &format!("-{name}"), &self.child.id().to_string()]);
    }

    /// Waits up to `limit` for the exit; returns its code and the whole log.
    fn finish(mut self, limit: Duration) -> (Option<i32>, String) {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("announce still running after {limit:?}; log:\n{}", self.log.join("\n"));
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_millis(500)) {
            self.log.push(line);
        }
        (status.code(), self.log.join("\n"))
    }
}

impl Drop for Announcer {
    /// A failed assertion must not leave a responder running in a namespace.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn arping_json(lab: &Lab, ns: &str, args: &[&str]) -> (Option<i32>, Value) {
    let out = lab.lbdoctor(ns, &[&["arping", "-o", "json"], args].concat()).output().unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (out.status.code(), doc)
}

fn reply_macs(doc: &Value) -> Vec<&str> {
    doc["replies"].as_array().unwrap().iter().map(|r| r["mac"].as_str().unwrap()).collect()
}

#[test]
fn iputils_arping_and_ndisc6_get_the_announcers_mac() {
    let Some(mut lab) = Lab::new("iputils_arping_and_ndisc6_get_the_announcers_mac", &["arping", "ndisc6"]) else {
        return;
    };
    let (a, b) = lab.pair();
    // ndisc6 takes only advertisements sent from the target address itself.
    let mut announcer = Announcer::start(&lab, &a, &[VIP4, VIP6, "--duration", "8s", "--ndp-source", "target"]);
    announcer.wait_for("answering for");

    let out = exec(&["ip", "netns", "exec", &b, "arping", "-I", "eth0", "-c", "2", "-w", "3", VIP4]);
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(out.status.success() && text.contains(&format!("[{}]", mac(1))), "arping: {text}");

    let out = exec(&["ip", "netns", "exec", &b, "ndisc6", "-1", "-r", "3", VIP6, "eth0"]);
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(out.status.success() && text.contains(&format!("target link-layer address: {}", mac(1))), "ndisc6: {text}");

    announcer.signal("INT");
    let (code, log) = announcer.finish(Duration::from_secs(3));
    assert_eq!(code, Some(0), "{log}");
    // Every reply is logged with the requester.
    assert!(log.contains(&format!("arp reply: {VIP4} is-at {} -> {} (192.0.2.2)", mac(1), mac(2))), "{log}");
    assert!(log.contains(&format!("ndp reply: {VIP6} is-at {} -> {}", mac(1), mac(2))), "{log}");
}

#[test]
fn metallb_answers_ndp_from_link_local_which_ndisc6_ignores_and_arping_sees() {
    let Some(mut lab) = Lab::new("metallb_answers_ndp_from_link_local", &["ndisc6"]) else { return };
    let (a, b) = lab.pair();
    let mut announcer = Announcer::start(&lab, &a, &[VIP6, "--duration", "8s"]);
    announcer.wait_for("answering for");
    // ndisc6 1.0.5 drops advertisements whose source is not the target: MetalLB's included.
    let out = exec(&["ip", "netns", "exec", &b, "ndisc6", "-1", "-r", "2", "-w", "500", VIP6, "eth0"]);
    assert!(!out.status.success(), "ndisc6 accepted a link-local-sourced NA: {}", String::from_utf8_lossy(&out.stdout));
    let (code, doc) = arping_json(&lab, &b, &[VIP6]);
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(reply_macs(&doc), [mac(1)]);
    assert_eq!(doc["splitBrain"], false);
    announcer.signal("TERM");
    let (code, log) = announcer.finish(Duration::from_secs(3));
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("stopped after"), "{log}");
}

/// Reads a pcap stream (microsecond timestamps, Ethernet).
fn pcap_frames(bytes: &[u8]) -> Vec<(f64, Vec<u8>)> {
    assert!(bytes.len() >= 24, "no pcap header");
    let magic = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let le = match magic {
        0xa1b2c3d4 => true,
        0xd4c3b2a1 => false,
        other => panic!("not a microsecond pcap stream: magic {other:#x}"),
    };
    let u32_at = |b: &[u8], i: usize| {
        let w: [u8; 4] = b[i..i + 4].try_into().unwrap();
        if le {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        }
    };
    let mut frames = Vec::new();
    let mut at = 24;
    while at + 16 <= bytes.len() {
        let (sec, usec, len) = (u32_at(bytes, at), u32_at(bytes, at + 4), u32_at(bytes, at + 8) as usize);
        let end = at + 16 + len;
        if end > bytes.len() {
            break;
        }
        frames.push((sec as f64 + usec as f64 / 1e6, bytes[at + 16..end].to_vec()));
        at = end;
    }
    frames
}

#[test]
fn gratuitous_burst_count_spacing_and_fields() {
    let Some(mut lab) = Lab::new("gratuitous_burst_count_spacing_and_fields", &["tcpdump"]) else { return };
    let (a, b) = lab.pair();
    // The capture runs on the other end of the link: what the wire carried.
    let mut tcpdump = Command::new("ip")
        .args(["netns", "exec", &b, "tcpdump", "-i", "eth0", "-n", "-U", "-w", "-", "arp or icmp6"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = tcpdump.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        stdout.read_to_end(&mut bytes).unwrap();
        bytes
    });
    let mut err = BufReader::new(tcpdump.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("listening on"), "tcpdump: {line}");

    let announcer = Announcer::start(&lab, &a, &[VIP4, VIP6, "--duration", "6s"]);
    let (code, log) = announcer.finish(Duration::from_secs(15));
    assert_eq!(code, Some(0), "{log}");
    std::thread::sleep(Duration::from_millis(200));
    ok(&["kill", "-INT", &tcpdump.id().to_string()]);
    tcpdump.wait().unwrap();
    let frames = pcap_frames(&reader.join().unwrap());

    let ours = Mac([2, 0, 0x5e, 0, 0x53, 1]);
    let vip4: Ipv4Addr = VIP4.parse().unwrap();
    let vip6: Ipv6Addr = VIP6.parse().unwrap();
    // (time, kind) of every gratuitous frame from the announcer.
    let gratuitous: Vec<(f64, &str)> = frames
        .iter()
        .filter_map(|(t, bytes)| match frame::parse(bytes)? {
            Frame::Arp(x) if x.eth_src == ours && x.spa == vip4 && x.tpa == vip4 => {
                assert_eq!((x.eth_dst, x.sha, x.tha), (Mac::BROADCAST, ours, Mac::BROADCAST), "{x:?}");
                Some((*t, if x.op == 1 { "request" } else { "reply" }))
            }
            Frame::Advert(na) if na.eth_src == ours && !na.solicited => {
                assert_eq!(na.target, vip6);
                assert_eq!((na.override_, na.router), (true, false));
                assert_eq!((na.dst, na.hop_limit, na.target_ll), ("ff02::1".parse().unwrap(), 255, Some(ours)));
                assert_eq!(na.eth_dst.to_string(), "33:33:00:00:00:01");
                assert!(na.src.segments()[0] == 0xfe80, "sent from the link-local address: {}", na.src);
                Some((*t, "na"))
            }
            _ => None,
        })
        .collect();
    let kinds: Vec<&str> = gratuitous.iter().map(|(_, k)| *k).collect();
    assert_eq!(kinds, ["request", "reply", "na"].repeat(5), "5 bursts of request, reply, NA");
    let start = gratuitous[0].0;
    for (n, chunk) in gratuitous.chunks(3).enumerate() {
        let offset = chunk[0].0 - start;
        let expected = 1.1 * n as f64;
        assert!((offset - expected).abs() <= 0.3, "burst {} at {offset:.3}s, expected {expected:.1}s ±0.3", n + 1);
    }
    // The responder answered nothing (nobody asked) but probed first: the probe precedes the bursts.
    let probe = frames.iter().find_map(|(t, bytes)| match frame::parse(bytes)? {
        Frame::Arp(x) if x.eth_src == ours && x.op == 1 && x.tpa == vip4 && x.spa != vip4 => Some(*t),
        _ => None,
    });
    assert!(probe.is_some_and(|t| t < start), "no probe before the first burst");
}

#[test]
fn announce_refuses_an_ip_another_host_answers_unless_forced() {
    let Some(mut lab) = Lab::new("announce_refuses_an_ip_another_host_answers", &[]) else { return };
    let (a, b) = lab.pair();
    let mut holder = Announcer::start(&lab, &b, &[VIP4, "--duration", "10s"]);
    holder.wait_for("answering for");

    let out = lab.lbdoctor(&a, &["announce", VIP4, "--interface", "eth0", "--duration", "5s"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("{VIP4} is answered by {}", mac(2))) && stderr.contains("--force"), "{stderr}");
    assert!(!stderr.contains("answering for"), "{stderr}");

    let out =
        lab.lbdoctor(&a, &["announce", VIP4, "--interface", "eth0", "--duration", "1s", "--force"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("--force: answering although") && stderr.contains("answering for"), "{stderr}");
    holder.signal("INT");
    holder.finish(Duration::from_secs(3));
}

#[test]
fn arping_reports_split_brain_when_two_macs_answer() {
    let Some(mut lab) = Lab::new("arping_reports_split_brain", &[]) else { return };
    let hosts = lab.bridged(3);
    let mut first = Announcer::start(&lab, &hosts[0], &[VIP4, "--duration", "12s"]);
    first.wait_for("answering for");
    let mut second = Announcer::start(&lab, &hosts[1], &[VIP4, "--duration", "12s", "--force"]);
    second.wait_for("answering for");

    let (code, doc) = arping_json(&lab, &hosts[2], &[VIP4, "--count", "2"]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["splitBrain"], true);
    let mut macs = reply_macs(&doc);
    macs.sort();
    assert_eq!(macs, [mac(1), mac(2)]);
    assert!(doc["replies"].as_array().unwrap().iter().all(|r| r["count"].as_u64().unwrap() >= 2), "{doc}");
    assert_eq!(doc["findings"][0]["code"], "LBD240");

    let out = lab.lbdoctor(&hosts[2], &["arping", VIP4]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("split brain: 2 MACs answer") && table.contains("LBD240"), "{table}");
    first.signal("INT");
    second.signal("INT");
    first.finish(Duration::from_secs(3));
    second.finish(Duration::from_secs(3));
}

#[test]
fn sigint_stops_the_responder_within_a_second() {
    let Some(mut lab) = Lab::new("sigint_stops_the_responder_within_a_second", &[]) else { return };
    let (a, _b) = lab.pair();
    let mut announcer = Announcer::start(&lab, &a, &[VIP4, "--until-interrupted"]);
    announcer.wait_for("gratuitous burst 1");
    announcer.signal("INT");
    let (code, log) = announcer.finish(Duration::from_secs(1));
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("(signal)"), "{log}");
}

#[test]
fn arping_compares_the_answer_with_the_election() {
    let Some(mut lab) = Lab::new("arping_compares_the_answer_with_the_election", &[]) else { return };
    let (a, b) = lab.pair();
    let cluster = format!("{ROOT}/testdata/wire/cluster.yaml");
    let status = format!("{ROOT}/testdata/wire/servicel2status.yaml");
    // The election's pick, as explain reports it.
    let (report, _) = json(&["explain", "svc", "web", "-o", "json", "--from", &cluster]);
    let elected = report["services"][0]["metallb"]["layer2"]["expectedAnnouncer"].as_str().unwrap().to_string();
    let other = ["node-a", "node-b", "node-c"].into_iter().find(|n| *n != elected && *n != "node-a").unwrap();

    let mut announcer = Announcer::start(&lab, &a, &[VIP4, "--duration", "12s"]);
    announcer.wait_for("answering for");
    let maps = lab.home.path();
    let write_map = |name: &str, node: &str| {
        let path = maps.join(name);
        std::fs::write(&path, format!("# node MACs\n{} {node} eth0\n", mac(1).to_uppercase())).unwrap();
        path.display().to_string()
    };

    // The MAC belongs to the elected node: reality agrees.
    let map = write_map("elected.txt", &elected);
    let (code, doc) = arping_json(&lab, &b, &[VIP4, "--from", &cluster, "--mac-map", &map]);
    assert_eq!(code, Some(0), "{doc}");
    assert_eq!(doc["cluster"]["services"][0]["name"], "web");
    assert_eq!(doc["cluster"]["services"][0]["expectedAnnouncer"], elected.as_str());
    assert_eq!(doc["cluster"]["pools"], serde_json::json!(["metallb/pool-a"]));
    assert_eq!(doc["answers"][0]["node"], elected.as_str());
    assert_eq!(doc["answers"][0]["nodeSource"], "macMap");
    assert_eq!(doc["matchesElection"], true);
    assert_eq!(doc["findings"], serde_json::json!([]));

    // Another node's MAC answers: LBD242, a warning (exit 1 only with --fail-on warning).
    let map = write_map("other.txt", other);
    let (code, doc) = arping_json(&lab, &b, &[VIP4, "--from", &cluster, "--mac-map", &map]);
    assert_eq!((code, &doc["matchesElection"]), (Some(0), &Value::Bool(false)), "{doc}");
    assert_eq!(doc["findings"][0]["code"], "LBD242");
    let (code, _) = arping_json(&lab, &b, &[VIP4, "--from", &cluster, "--mac-map", &map, "--fail-on", "warning"]);
    assert_eq!(code, Some(1));

    // Without a map, the one answering MAC is taken to be the announcer ServiceL2Status names.
    let (_, doc) = arping_json(&lab, &b, &[VIP4, "--from", &cluster, "--from", &status]);
    assert_eq!(doc["answers"][0]["node"], "node-a");
    assert_eq!(doc["answers"][0]["nodeSource"], "serviceL2Status");
    assert_eq!(doc["matchesElection"], Value::Bool(elected == "node-a"));

    // Without any cluster, the answer stands alone and says why.
    let (code, doc) = arping_json(&lab, &b, &[VIP4]);
    assert_eq!(code, Some(0));
    assert_eq!(doc["cluster"], Value::Null);
    assert!(doc["clusterUnknownBecause"].as_str().unwrap().contains("no kubeconfig"), "{doc}");
    assert_eq!(doc["matchesElection"], Value::Null);
    announcer.signal("INT");
    announcer.finish(Duration::from_secs(3));
}

#[test]
fn nobody_answers_is_an_error_naming_the_expected_node() {
    let Some(mut lab) = Lab::new("nobody_answers_is_an_error", &[]) else { return };
    let (_a, b) = lab.pair();
    let cluster = format!("{ROOT}/testdata/wire/cluster.yaml");
    let (code, doc) = arping_json(&lab, &b, &[VIP4, "--from", &cluster, "--timeout", "300ms"]);
    assert_eq!(code, Some(1), "{doc}");
    assert_eq!(doc["replies"], serde_json::json!([]));
    assert_eq!(doc["findings"][0]["code"], "LBD241");
    let message = doc["findings"][0]["message"].as_str().unwrap();
    assert!(message.contains("default/web expects node-"), "{message}");
}

#[test]
fn dry_run_plans_and_warns_from_the_cluster() {
    let Some(mut lab) = Lab::new("dry_run_plans_and_warns_from_the_cluster", &[]) else { return };
    let (a, _b) = lab.pair();
    let cluster = format!("{ROOT}/testdata/wire/cluster.yaml");
    let out = lab
        .lbdoctor(
            &a,
            &[
                "announce",
                VIP4,
                "198.51.100.77",
                "-I",
                "eth0",
                "--duration",
                "1m",
                "--dry-run",
                "--node",
                "node-b",
                "--from",
                &cluster,
                "-o",
                "json",
            ],
        )
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(plan["kind"], "AnnouncePlan");
    assert_eq!(plan["mac"], mac(1));
    assert_eq!(plan["gratuitousAtMs"], serde_json::json!([0, 1100, 2200, 3300, 4400]));
    assert_eq!(plan["ips"][0]["gratuitousFrames"], serde_json::json!(["arp-request", "arp-reply"]));
    let codes: Vec<(&str, &str)> = plan["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["objects"][0].as_str().unwrap_or("")))
        .collect();
    assert!(codes.contains(&("LBD243", "")), "198.51.100.77 is in no pool: {codes:?}");
    let elected = plan["cluster"][VIP4]["services"][0]["expectedAnnouncer"].as_str().unwrap();
    assert_eq!(codes.iter().any(|(c, _)| *c == "LBD244"), elected != "node-b", "{codes:?}");

    // Warnings gate a CI job with --fail-on warning; a --node that is no node is a usage error.
    let base = ["announce", VIP4, "198.51.100.77", "-I", "eth0", "--duration", "1m", "--dry-run", "--from", &cluster];
    let out = lab.lbdoctor(&a, &[&base[..], &["--fail-on", "warning"]].concat()).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let out = lab.lbdoctor(&a, &[&base[..], &["--node", "node-x"]].concat()).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--node \"node-x\" is not a node") && stderr.contains("node-c"), "{stderr}");

    // Nothing went out: a capture-free check is that the table says so and no log line exists.
    let out = lab.lbdoctor(&a, &["announce", VIP4, "-I", "eth0", "--until-interrupted", "--dry-run"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("nothing is sent") && text.contains("until SIGINT/SIGTERM"), "{text}");
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn without_cap_net_raw_the_error_names_the_capability() {
    let Some(mut lab) = Lab::new("without_cap_net_raw", &["setpriv"]) else { return };
    let (a, _b) = lab.pair();
    // The unprivileged user must reach the binary: the build tree may sit in a private directory.
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("kubectl-lbdoctor");
    std::fs::copy(BIN, &bin).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new("ip")
        .args(["netns", "exec", &a, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"])
        .arg(&bin)
        .args(["arping", VIP4])
        .env("KUBECONFIG", lab.home.path().join("absent"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("CAP_NET_RAW") && stderr.contains("setcap cap_net_raw+ep"), "{stderr}");
}

#[test]
fn interface_errors_name_the_interfaces_there_are() {
    let Some(mut lab) = Lab::new("interface_errors", &[]) else { return };
    let (a, _b) = lab.pair();
    let out = lab.lbdoctor(&a, &["arping", VIP4, "--interface", "nosuch0"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no interface named \"nosuch0\"") && stderr.contains("eth0"), "{stderr}");

    let out = lab.lbdoctor(&a, &["arping", "203.0.113.5"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("203.0.113.5") && stderr.contains("--interface"), "{stderr}");

    let out = lab.lbdoctor(&a, &["announce", VIP4, "--interface", "eth0"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--duration") && stderr.contains("--until-interrupted"), "{stderr}");

    // The interface's own address: the kernel answers with this MAC, invisible from here.
    let out = lab.lbdoctor(&a, &["arping", "192.0.2.1"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is an address of eth0 itself"), "{stderr}");

    // Loopback has no BROADCAST flag: MetalLB would run no ARP responder there.
    let out = lab.lbdoctor(&a, &["announce", VIP4, "--interface", "lo", "--duration", "1s"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lo cannot carry ARP answers"), "{stderr}");
}
