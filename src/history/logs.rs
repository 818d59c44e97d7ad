//! Streaming scanner of one MetalLB speaker log, as `kubectl logs POD -c speaker` writes it: one
//! go-kit JSON object per line (`ts`, `caller`, `level`, `msg`, ...; spec metallb-speaker.md §3.2),
//! optionally behind the `--timestamps` and `--prefix` decorations of kubectl.
//!
//! [`scan`] reads one line at a time into a single reused buffer and keeps only counters, so its
//! memory grows with days × nodes × IPs, never with the size of the file. Nothing in a log is
//! fatal: a line that is not what MetalLB writes is counted (`malformed`, `truncated`, `untimed`,
//! `other`) and skipped. Only an I/O error from the reader ends the scan.
//!
//! Recognised records (MetalLB v0.16.1):
//! * `serviceAnnounced` (`msg` "service has IP, announcing", `ips`, `pool`, `protocol`) and
//!   `serviceWithdrawn` (`msg` "withdrawing service announcement", `ip`, `reason`), spec §3.2, §3.5;
//! * memberlist's own lines (`component` Memberlist, `msg` "memberlist: Suspect …",
//!   "memberlist: Marking … as failed", "memberlist: Refuting a suspect message …"), spec §7;
//! * speakerlist's "node event - forcing sync" (`node name`, `node event` NodeJoin|NodeLeave|NodeUpdate);
//! * "MetalLB speaker starting …", the first line of every container.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, BufRead, Read};
use std::marker::PhantomData;

use jiff::tz::TimeZone;
use jiff::Timestamp;
use memchr::memmem;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

/// The key under [`LogStats::members`] for "Refuting a suspect message": memberlist refutes only
/// suspicions about the local member, and a log line does not name its own node (the file does).
pub const SELF_MEMBER: &str = "(self)";
/// The key used when a record lacks its `protocol` or `reason`.
pub const MISSING: &str = "(none)";
/// [`LogStats::starts`] keeps the timestamps of this many container starts; `start_count` counts all.
pub const MAX_STARTS: usize = 1000;
/// A longer line is not something MetalLB writes: it is counted as malformed and skipped without
/// being held in memory.
const MAX_LINE: u64 = 1 << 20;

const ANNOUNCE_MSG: &str = "service has IP, announcing";
const WITHDRAW_MSG: &str = "withdrawing service announcement";
const NODE_EVENT_MSG: &str = "node event - forcing sync";
const START_MSG: &str = "MetalLB speaker starting";
const MSG_KEY: &[u8] = b"\"msg\":\"";
const TS_KEY: &[u8] = b"\"ts\":\"";

/// Everything one speaker log says, reduced to counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogStats {
    /// Non-empty lines read, whatever became of them.
    pub lines: u64,
    /// Lines that are not a JSON object (checked structurally for lines that cannot be a record).
    pub malformed: u64,
    /// The last line, without a trailing newline, when it is not a whole JSON object.
    pub truncated: u64,
    /// JSON lines without a parseable `ts` (nor a kubectl `--timestamps` prefix).
    pub untimed: u64,
    /// JSON lines of no recognised kind, on or after `since`.
    pub other: u64,
    pub skipped_before_since: u64,
    /// `ts` of the first and the last counted line, as written.
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// `ts` of each "MetalLB speaker starting" line, the first [`MAX_STARTS`] of them.
    pub starts: Vec<String>,
    pub start_count: u64,
    /// By UTC day, `YYYY-MM-DD`.
    pub days: BTreeMap<String, DayCounts>,
    /// By IP as written in the log.
    pub ips: BTreeMap<String, IpCounts>,
    /// By memberlist member (= node name), then by UTC day.
    pub members: BTreeMap<String, BTreeMap<String, MemberCounts>>,
}

/// Lines per UTC day: `announced` and `withdrawn` count records, not IPs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DayCounts {
    pub announced: u64,
    pub withdrawn: u64,
    pub withdrawn_by_reason: BTreeMap<String, u64>,
    pub other_lines: u64,
}

/// What this speaker did with one IP.
///
/// Takeovers are counted per speaker because MetalLB's lines carry neither the Service nor the
/// node (spec §3.2, trap T13): the file is the node and the IP is the only key. Comparing the
/// files of all speakers is what turns these into "who held the IP when".
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IpCounts {
    /// Announce lines per protocol (`layer2`, `bgp`).
    pub protocol: BTreeMap<String, u64>,
    pub announced_lines: u64,
    /// Announces that found this speaker not announcing the IP: its first one in the file, the
    /// first after a withdraw, the first after a restart. Re-announces on every reconcile are not.
    pub takeovers: u64,
    pub takeovers_by_day: BTreeMap<String, u64>,
    pub withdrawals_by_reason: BTreeMap<String, u64>,
    pub first_ts: Option<String>,
    pub last_ts: Option<String>,
    /// Whether the speaker announces the IP after the last line.
    pub announcing_at_end: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberCounts {
    pub suspect: u64,
    pub failed: u64,
    pub join: u64,
    pub leave: u64,
    pub update: u64,
    /// Only under [`SELF_MEMBER`].
    pub refuted: u64,
}

/// Scans one speaker log. Lines stamped before `since` only count in `skipped_before_since`,
/// but their announces and withdraws still set the state a later takeover is measured from.
pub fn scan(reader: impl BufRead, since: Option<Timestamp>) -> io::Result<LogStats> {
    scan_capped(reader, since, MAX_LINE)
}

fn scan_capped(mut reader: impl BufRead, since: Option<Timestamp>, max_line: u64) -> io::Result<LogStats> {
    let mut scanner = Scanner::new(since);
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if (&mut reader).take(max_line).read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let complete = line.last() == Some(&b'\n');
        if !complete && line.len() as u64 == max_line {
            // Overlong: drop the rest of it, one bounded piece at a time.
            loop {
                line.clear();
                let n = (&mut reader).take(max_line).read_until(b'\n', &mut line)?;
                if n == 0 || line.last() == Some(&b'\n') {
                    break;
                }
            }
            scanner.stats.lines += 1;
            scanner.stats.malformed += 1;
            continue;
        }
        scanner.line(&line, complete);
    }
    Ok(scanner.stats)
}

/// One recognised record, borrowed from the line.
enum Record<'a> {
    Announce { ips: &'a [Cow<'a, str>], protocol: &'a str },
    Withdraw { ips: &'a [Cow<'a, str>], reason: &'a str },
    Suspect(&'a str),
    Failed(&'a str),
    Refuted,
    Node { name: &'a str, event: NodeEvent },
    Start,
    Other,
}

#[derive(Clone, Copy)]
enum NodeEvent {
    Join,
    Leave,
    Update,
}

/// A line's time: its UTC day and its instant.
struct Moment {
    day: [u8; 10],
    nanos: i128,
}

impl Moment {
    fn day(&self) -> &str {
        // Built only from validated ASCII digits and dashes.
        std::str::from_utf8(&self.day).expect("a day is ASCII")
    }
}

struct Scanner {
    stats: LogStats,
    since: Option<i128>,
    msg_key: memmem::FinderRev<'static>,
    ts_key: memmem::FinderRev<'static>,
    clock: SecondCache,
    /// Announcing state of IPs seen only before `since` (so not yet in `stats.ips`).
    carried: BTreeMap<String, bool>,
}

impl Scanner {
    fn new(since: Option<Timestamp>) -> Self {
        Scanner {
            stats: LogStats::default(),
            since: since.map(Timestamp::as_nanosecond),
            msg_key: memmem::FinderRev::new(MSG_KEY),
            ts_key: memmem::FinderRev::new(TS_KEY),
            clock: SecondCache::default(),
            carried: BTreeMap::new(),
        }
    }

    fn line(&mut self, raw: &[u8], complete: bool) {
        let text = raw.trim_ascii();
        if text.is_empty() {
            return;
        }
        self.stats.lines += 1;
        let bad = |stats: &mut LogStats| {
            if complete {
                stats.malformed += 1
            } else {
                stats.truncated += 1
            }
        };
        // kubectl's `--prefix` and `--timestamps` come before the object; the object ends the line.
        let Some(open) = memchr::memchr(b'{', text) else { return bad(&mut self.stats) };
        let (decoration, json) = text.split_at(open);
        if json.last() != Some(&b'}') {
            return bad(&mut self.stats);
        }
        let fields: Fields;
        let ts_only: TsOnly;
        let (ts, record) = if self.may_be_record(json) {
            fields = match serde_json::from_slice(json) {
                Ok(fields) => fields,
                Err(_) => return bad(&mut self.stats),
            };
            (fields.ts.text(), fields.record())
        } else {
            // Deliberate approximation: a line that cannot be a record is only checked for its
            // braces, not parsed. Its `ts` is read in place, or by a parse when it is unusual.
            match self.raw_ts(json) {
                Some(ts) => (Some(ts), Record::Other),
                None => {
                    ts_only = match serde_json::from_slice(json) {
                        Ok(t) => t,
                        Err(_) => return bad(&mut self.stats),
                    };
                    (ts_only.ts.text(), Record::Other)
                }
            }
        };
        // The speaker's own `ts` first; kubectl's `--timestamps` when the speaker's is unusable.
        let timed = ts
            .and_then(|ts| self.clock.moment(ts).map(|m| (ts, m)))
            .or_else(|| kubectl_timestamp(decoration).and_then(|ts| self.clock.moment(ts).map(|m| (ts, m))));
        let Some((ts, moment)) = timed else {
            self.stats.untimed += 1;
            return;
        };
        if self.since.is_some_and(|since| moment.nanos < since) {
            self.stats.skipped_before_since += 1;
            self.carry(&record);
            return;
        }
        self.count(record, ts, &moment);
    }

    /// The fast path: can this line be a recognised record? Every one of them has a fixed `msg`,
    /// and go-kit sorts keys, so `msg` is near the end of the line.
    fn may_be_record(&self, json: &[u8]) -> bool {
        let Some(at) = self.msg_key.rfind(json) else { return false };
        let value = &json[at + MSG_KEY.len()..];
        let Some(end) = memchr::memchr(b'"', value) else { return true };
        let msg = &value[..end];
        if memchr::memchr(b'\\', msg).is_some() {
            return true; // escaped: only the parse can tell
        }
        msg == ANNOUNCE_MSG.as_bytes()
            || msg == WITHDRAW_MSG.as_bytes()
            || msg == NODE_EVENT_MSG.as_bytes()
            || msg.starts_with(START_MSG.as_bytes())
            || memberlist_text(msg).is_some()
    }

    /// `ts` read in place: the last `"ts":"` key (inside a JSON string a quote is escaped, so the
    /// pattern is always a key), up to the closing quote.
    fn raw_ts<'a>(&self, json: &'a [u8]) -> Option<&'a str> {
        let at = self.ts_key.rfind(json)? + TS_KEY.len();
        let end = memchr::memchr(b'"', &json[at..])?;
        std::str::from_utf8(&json[at..at + end]).ok()
    }

    fn count(&mut self, record: Record, ts: &str, moment: &Moment) {
        let day = moment.day();
        let stats = &mut self.stats;
        set_ts(&mut stats.first_ts, &mut stats.last_ts, ts);
        match record {
            Record::Announce { ips, protocol } => {
                slot(&mut stats.days, day).announced += 1;
                for ip in ips {
                    let c = ip_slot(&mut stats.ips, &mut self.carried, ip);
                    *slot(&mut c.protocol, protocol) += 1;
                    c.announced_lines += 1;
                    if !c.announcing_at_end {
                        c.takeovers += 1;
                        *slot(&mut c.takeovers_by_day, day) += 1;
                        c.announcing_at_end = true;
                    }
                    set_ts(&mut c.first_ts, &mut c.last_ts, ts);
                }
            }
            Record::Withdraw { ips, reason } => {
                let d = slot(&mut stats.days, day);
                d.withdrawn += 1;
                *slot(&mut d.withdrawn_by_reason, reason) += 1;
                for ip in ips {
                    let c = ip_slot(&mut stats.ips, &mut self.carried, ip);
                    *slot(&mut c.withdrawals_by_reason, reason) += 1;
                    c.announcing_at_end = false;
                    set_ts(&mut c.first_ts, &mut c.last_ts, ts);
                }
            }
            Record::Suspect(node) => member(&mut stats.members, node, day).suspect += 1,
            Record::Failed(node) => member(&mut stats.members, node, day).failed += 1,
            Record::Refuted => member(&mut stats.members, SELF_MEMBER, day).refuted += 1,
            Record::Node { name, event } => {
                let m = member(&mut stats.members, name, day);
                match event {
                    NodeEvent::Join => m.join += 1,
                    NodeEvent::Leave => m.leave += 1,
                    NodeEvent::Update => m.update += 1,
                }
            }
            Record::Start => {
                stats.start_count += 1;
                if stats.starts.len() < MAX_STARTS {
                    stats.starts.push(ts.to_owned());
                }
                self.restart();
            }
            Record::Other => {
                stats.other += 1;
                slot(&mut stats.days, day).other_lines += 1;
            }
        }
    }

    /// A line before `since`: no counts, but the announcing state moves on.
    fn carry(&mut self, record: &Record) {
        let (ips, on) = match record {
            Record::Announce { ips, .. } => (ips, true),
            Record::Withdraw { ips, .. } => (ips, false),
            Record::Start => return self.restart(),
            _ => return,
        };
        for ip in ips.iter() {
            if let Some(c) = self.stats.ips.get_mut(ip.as_ref()) {
                c.announcing_at_end = on;
            } else if on {
                self.carried.insert(ip.to_string(), true);
            } else {
                self.carried.remove(ip.as_ref());
            }
        }
    }

    /// The process restarted: it announces nothing until it says so again.
    fn restart(&mut self) {
        self.carried.clear();
        for c in self.stats.ips.values_mut() {
            c.announcing_at_end = false;
        }
    }
}

fn set_ts(first: &mut Option<String>, last: &mut Option<String>, ts: &str) {
    if first.is_none() {
        *first = Some(ts.to_owned());
    }
    match last {
        Some(l) => {
            l.clear();
            l.push_str(ts);
        }
        None => *last = Some(ts.to_owned()),
    }
}

/// The entry for `key`, allocating the key only when it is new (most lines hit an existing one).
fn slot<'m, V: Default>(map: &'m mut BTreeMap<String, V>, key: &str) -> &'m mut V {
    if !map.contains_key(key) {
        map.insert(key.to_owned(), V::default());
    }
    map.get_mut(key).expect("inserted above")
}

fn ip_slot<'m>(
    ips: &'m mut BTreeMap<String, IpCounts>,
    carried: &mut BTreeMap<String, bool>,
    ip: &str,
) -> &'m mut IpCounts {
    if !ips.contains_key(ip) {
        let announcing_at_end = carried.remove(ip).unwrap_or(false);
        ips.insert(ip.to_owned(), IpCounts { announcing_at_end, ..IpCounts::default() });
    }
    ips.get_mut(ip).expect("inserted above")
}

fn member<'m>(
    members: &'m mut BTreeMap<String, BTreeMap<String, MemberCounts>>,
    name: &str,
    day: &str,
) -> &'m mut MemberCounts {
    slot(slot(members, name), day)
}

/// The text after "memberlist: ", allowing the `[LEVEL] ` that memberlist's standard logger
/// puts in front when nothing strips it.
fn memberlist_text(msg: &[u8]) -> Option<&[u8]> {
    let msg = match msg.strip_prefix(b"[") {
        Some(rest) => &rest[memchr::memmem::find(rest, b"] ")? + 2..],
        None => msg,
    };
    msg.strip_prefix(b"memberlist: ")
}

/// The first token of kubectl's decoration that is an RFC 3339 time (`--timestamps`); the
/// `[pod/NAME/CONTAINER]` of `--prefix` never is.
fn kubectl_timestamp(decoration: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(decoration).ok()?;
    text.split_ascii_whitespace().find(|t| t.as_bytes().first().is_some_and(u8::is_ascii_digit))
}

/// Turns `ts` into a [`Moment`]. The common shape, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, is validated
/// by jiff once per distinct second; anything else goes through jiff every time.
#[derive(Default)]
struct SecondCache {
    second: Option<[u8; 19]>,
    base: i64,
}

impl SecondCache {
    fn moment(&mut self, ts: &str) -> Option<Moment> {
        let b = ts.as_bytes();
        if let Some(fraction) = utc_fraction(b) {
            let second: [u8; 19] = b[..19].try_into().ok()?;
            if self.second != Some(second) {
                let mut z = [b'Z'; 20];
                z[..19].copy_from_slice(&second);
                let t: Timestamp = std::str::from_utf8(&z).ok()?.parse().ok()?;
                self.second = Some(second);
                self.base = t.as_second();
            }
            let day = b[..10].try_into().ok()?;
            return Some(Moment { day, nanos: i128::from(self.base) * 1_000_000_000 + i128::from(fraction) });
        }
        let t: Timestamp = ts.parse().ok()?;
        let date = t.to_zoned(TimeZone::UTC).date();
        if !(0..=9999).contains(&date.year()) {
            return None;
        }
        let text = format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day());
        Some(Moment { day: text.as_bytes().try_into().ok()?, nanos: t.as_nanosecond() })
    }
}

/// For `YYYY-MM-DDTHH:MM:SS[.d{1,9}]Z`, the fraction in nanoseconds; `None` for any other shape.
fn utc_fraction(b: &[u8]) -> Option<u32> {
    if b.len() < 20 || b.last() != Some(&b'Z') {
        return None;
    }
    let shape = b"dddd-dd-ddTdd:dd:dd";
    let digits_ok = shape.iter().zip(b).all(|(s, c)| if *s == b'd' { c.is_ascii_digit() } else { s == c });
    let frac = &b[19..b.len() - 1];
    if !digits_ok {
        return None;
    }
    if frac.is_empty() {
        return Some(0);
    }
    let digits = frac.strip_prefix(b".")?;
    if digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits.iter().fold(0u32, |v, d| v * 10 + u32::from(d - b'0'));
    Some(value * 10u32.pow(9 - digits.len() as u32))
}

// --------------------------------------------------------------------------- parsing a record

/// The keys the records need; every other key is skipped unread.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Fields<'a> {
    #[serde(borrow)]
    ts: Loose<'a>,
    #[serde(borrow)]
    msg: Loose<'a>,
    #[serde(borrow)]
    event: Loose<'a>,
    #[serde(borrow)]
    ips: Loose<'a>,
    #[serde(borrow)]
    ip: Loose<'a>,
    #[serde(borrow)]
    protocol: Loose<'a>,
    #[serde(borrow)]
    reason: Loose<'a>,
    #[serde(borrow, rename = "node name")]
    node_name: Loose<'a>,
    #[serde(borrow, rename = "node event")]
    node_event: Loose<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct TsOnly<'a> {
    #[serde(borrow)]
    ts: Loose<'a>,
}

impl Fields<'_> {
    fn record(&self) -> Record<'_> {
        let msg = self.msg.text().unwrap_or("");
        let event = self.event.text();
        if event == Some("serviceAnnounced") || msg == ANNOUNCE_MSG {
            return Record::Announce { ips: self.ips.strings(), protocol: self.protocol.or_missing() };
        }
        if event == Some("serviceWithdrawn") || msg == WITHDRAW_MSG {
            return Record::Withdraw { ips: self.ip.strings(), reason: self.reason.or_missing() };
        }
        if msg == NODE_EVENT_MSG {
            let event = match self.node_event.text() {
                Some("NodeJoin") => NodeEvent::Join,
                Some("NodeLeave") => NodeEvent::Leave,
                Some("NodeUpdate") => NodeEvent::Update,
                _ => return Record::Other,
            };
            return match self.node_name.text() {
                Some(name) => Record::Node { name, event },
                None => Record::Other,
            };
        }
        if msg.starts_with(START_MSG) {
            return Record::Start;
        }
        match memberlist_text(msg.as_bytes()) {
            Some(rest) => memberlist_record(&msg[msg.len() - rest.len()..]),
            None => Record::Other,
        }
    }
}

/// memberlist's failure-detector lines (hashicorp/memberlist `state.go`).
fn memberlist_record(text: &str) -> Record<'_> {
    if let Some(node) = text.strip_prefix("Suspect ").and_then(|r| r.strip_suffix(" has failed, no acks received")) {
        return Record::Suspect(node);
    }
    if let Some(rest) = text.strip_prefix("Marking ") {
        if let Some(end) = rest.find(" as failed, suspect timeout reached") {
            return Record::Failed(&rest[..end]);
        }
    }
    if text.starts_with("Refuting a suspect message") {
        return Record::Refuted;
    }
    Record::Other
}

/// A value as the records need it: a string (borrowed when it has no escapes), a list of
/// strings, or nothing. Any other JSON type reads as `Other`, so that an odd type makes a line
/// `other` or `untimed` rather than malformed.
#[derive(Default)]
enum Loose<'a> {
    #[default]
    Other,
    Str(Cow<'a, str>),
    List(Vec<Cow<'a, str>>),
}

impl Loose<'_> {
    fn text(&self) -> Option<&str> {
        match self {
            Loose::Str(s) => Some(s),
            _ => None,
        }
    }

    fn or_missing(&self) -> &str {
        self.text().unwrap_or(MISSING)
    }

    /// `ip`/`ips`: MetalLB logs an array of strings; a single string is taken as one IP.
    fn strings(&self) -> &[Cow<'_, str>] {
        match self {
            Loose::Str(s) => std::slice::from_ref(s),
            Loose::List(l) => l,
            Loose::Other => &[],
        }
    }
}

struct LooseVisitor<'a>(PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for LooseVisitor<'a> {
    type Value = Loose<'a>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Loose::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Loose::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Loose<'a>>()? {
            if let Loose::Str(s) = item {
                items.push(s);
            }
        }
        Ok(Loose::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Loose::Other)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(LooseVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
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
        let d28 =
            DayCounts { announced: 3, withdrawn: 1, withdrawn_by_reason: map(&[("notOwner", 1)]), other_lines: 0 };
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
    fn kubectl_timestamps_and_prefix_decorations_are_skipped() {
        let a = announce("2026-11-28T10:00:00Z", r#"["192.0.2.200"]"#);
        let stats = scan_str(&log(&[
            format!("2026-11-28T10:00:00.000000001Z {a}"),
            format!("[pod/speaker-x7k2p/speaker] {a}"),
            format!("[pod/speaker-x7k2p/speaker] 2026-11-28T10:00:00.000000002Z {a}"),
            // No `ts` of its own: kubectl's is used, as written.
            r#"2026-11-29T01:02:03.5Z {"level":"info","msg":"service has IP, announcing","ips":["192.0.2.201"]}"#
                .into(),
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
            r#"{"level":"info","msg":"MetalLB speaker starting version 0.16.1 (\"HEAD\")","ts":"2026-11-28T10:00:00Z"}"#.into(),
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
        let lines: Vec<String> = (0..1005)
            .map(|i| start(&format!("2026-11-28T{:02}:{:02}:{:02}Z", i / 3600, i / 60 % 60, i % 60)))
            .collect();
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
}
