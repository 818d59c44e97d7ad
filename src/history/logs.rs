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
//!   "memberlist: Marking … as failed", "memberlist: Refuting a suspect|dead message …"), spec §7;
//! * speakerlist's "node event - forcing sync" (`node name`, `node event` NodeJoin|NodeLeave|NodeUpdate);
//! * "MetalLB speaker starting …", the first line of every container.
//!
//! Fast path: every record has a fixed `msg`. A `memmem` search finds the `"msg":"` key, and only
//! lines whose `msg` is one of the above (or is escaped) are parsed with serde_json; the others have
//! their `ts` read in place (`"ts":"`, found the same way) and only their braces checked:
//! `{…}` counts as `other`, anything else as malformed. That is a deliberate approximation: a
//! broken line that still starts with `{` and ends with `}` counts as `other`, and a line with
//! `"event":"serviceAnnounced"` but another `msg` is not an announce.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
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
    /// The moments the story is told from, in log order (not part of the JSON).
    #[serde(skip)]
    pub timeline: Timeline,
}

/// [`Timeline`] keeps this many marks per log; past them it only counts (`dropped`).
pub const MAX_MARKS: usize = 4_000_000;

/// The transitions one log records, in its order: the takeovers (not the re-announces), every
/// withdrawal, container starts and memberlist departures and joins. It grows with how often
/// owners and members change, not with the lines (a mark is 24 bytes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timeline {
    pub marks: Vec<Mark>,
    /// The IPs, member names and reasons the marks refer to, by index.
    pub names: Vec<String>,
    index: HashMap<String, u32>,
    /// Marks past [`MAX_MARKS`], not kept.
    pub dropped: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Nanoseconds since the Unix epoch.
    pub at: i64,
    pub what: Happened,
}

/// What a mark records; the numbers index [`Timeline::names`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Happened {
    /// The speaker announced the IP when the window opened (`since`): the owner then, not a change.
    Held {
        ip: u32,
    },
    /// An announce that found the speaker not announcing the IP.
    Began {
        ip: u32,
    },
    Withdrew {
        ip: u32,
        reason: u32,
    },
    /// "MetalLB speaker starting": a new container, announcing nothing yet.
    Started,
    /// speakerlist's NodeLeave about a member.
    Left {
        member: u32,
    },
    /// memberlist's "Marking … as failed".
    MarkedFailed {
        member: u32,
    },
    /// speakerlist's NodeJoin about a member.
    Joined {
        member: u32,
    },
}

impl Timeline {
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }

    fn push(&mut self, at: i128, what: Happened) {
        if self.marks.len() >= MAX_MARKS {
            self.dropped += 1;
            return;
        }
        let at = i64::try_from(at).unwrap_or(if at < 0 { i64::MIN } else { i64::MAX });
        self.marks.push(Mark { at, what });
    }
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
    Ok(scanner.finish())
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
    msg_key: memmem::Finder<'static>,
    ts_key: memmem::Finder<'static>,
    clock: SecondCache,
    /// Announcing state of IPs seen only before `since` (so not yet in `stats.ips`).
    carried: BTreeMap<String, bool>,
    /// Whether a line on or after `since` has been counted: the first one marks what is held.
    window_open: bool,
    /// The counts of the day being read, out of `stats`: a log is in time order, so most lines
    /// need no lookup in the (long) maps by day.
    today: Option<Today>,
}

struct Today {
    day: [u8; 10],
    counts: DayCounts,
    members: BTreeMap<String, MemberCounts>,
}

impl Scanner {
    fn new(since: Option<Timestamp>) -> Self {
        Scanner {
            stats: LogStats::default(),
            since: since.map(Timestamp::as_nanosecond),
            msg_key: memmem::Finder::new(MSG_KEY),
            ts_key: memmem::Finder::new(TS_KEY),
            clock: SecondCache::default(),
            carried: BTreeMap::new(),
            window_open: false,
            today: None,
        }
    }

    fn finish(mut self) -> LogStats {
        self.put_today_back();
        self.stats
    }

    /// The counts of `day`, moved out of `stats` when the day changes.
    fn today(&mut self, day: &[u8; 10]) -> &mut Today {
        if self.today.as_ref().map(|t| &t.day) != Some(day) {
            self.put_today_back();
            let key = std::str::from_utf8(day).expect("a day is ASCII");
            let members = (self.stats.members.iter_mut())
                .filter_map(|(name, days)| Some((name.clone(), days.remove(key)?)))
                .collect();
            let counts = self.stats.days.remove(key).unwrap_or_default();
            self.today = Some(Today { day: *day, counts, members });
        }
        self.today.as_mut().expect("set above")
    }

    fn put_today_back(&mut self) {
        let Some(today) = self.today.take() else { return };
        let day = std::str::from_utf8(&today.day).expect("a day is ASCII").to_owned();
        for (name, counts) in today.members {
            slot(&mut self.stats.members, &name).insert(day.clone(), counts);
        }
        self.stats.days.insert(day, today.counts);
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
        let ts_only: Fields;
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
        if !self.window_open {
            self.window_open = true;
            self.mark_held(moment.nanos);
        }
        self.count(record, ts, &moment);
    }

    /// The fast path: can this line be a recognised record? Every one of them has a fixed `msg`.
    /// Inside a JSON string a quote is escaped, so `"msg":"` is always a key (a nested object's
    /// key at worst: the parse then decides).
    fn may_be_record(&self, json: &[u8]) -> bool {
        let Some(at) = self.msg_key.find(json) else { return false };
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

    /// `ts` read in place: the first `"ts":"` key, up to the closing quote.
    fn raw_ts<'a>(&self, json: &'a [u8]) -> Option<&'a str> {
        let at = self.ts_key.find(json)? + TS_KEY.len();
        let end = memchr::memchr(b'"', &json[at..])?;
        std::str::from_utf8(&json[at..at + end]).ok()
    }

    fn count(&mut self, record: Record, ts: &str, moment: &Moment) {
        let day = moment.day();
        set_ts(&mut self.stats.first_ts, &mut self.stats.last_ts, ts);
        match record {
            Record::Announce { ips, protocol } => {
                self.today(&moment.day).counts.announced += 1;
                for ip in ips {
                    let c = ip_slot(&mut self.stats.ips, &mut self.carried, ip);
                    *slot(&mut c.protocol, protocol) += 1;
                    c.announced_lines += 1;
                    let began = !c.announcing_at_end;
                    if began {
                        c.takeovers += 1;
                        *slot(&mut c.takeovers_by_day, day) += 1;
                        c.announcing_at_end = true;
                    }
                    set_ts(&mut c.first_ts, &mut c.last_ts, ts);
                    if began {
                        let t = &mut self.stats.timeline;
                        let ip = t.intern(ip);
                        t.push(moment.nanos, Happened::Began { ip });
                    }
                }
            }
            Record::Withdraw { ips, reason } => {
                let d = &mut self.today(&moment.day).counts;
                d.withdrawn += 1;
                *slot(&mut d.withdrawn_by_reason, reason) += 1;
                for ip in ips {
                    let c = ip_slot(&mut self.stats.ips, &mut self.carried, ip);
                    *slot(&mut c.withdrawals_by_reason, reason) += 1;
                    c.announcing_at_end = false;
                    set_ts(&mut c.first_ts, &mut c.last_ts, ts);
                    let t = &mut self.stats.timeline;
                    let (ip, reason) = (t.intern(ip), t.intern(reason));
                    t.push(moment.nanos, Happened::Withdrew { ip, reason });
                }
            }
            Record::Suspect(node) => slot(&mut self.today(&moment.day).members, node).suspect += 1,
            Record::Failed(node) => {
                slot(&mut self.today(&moment.day).members, node).failed += 1;
                let t = &mut self.stats.timeline;
                let member = t.intern(node);
                t.push(moment.nanos, Happened::MarkedFailed { member });
            }
            Record::Refuted => slot(&mut self.today(&moment.day).members, SELF_MEMBER).refuted += 1,
            Record::Node { name, event } => {
                let member = self.stats.timeline.intern(name);
                let m = slot(&mut self.today(&moment.day).members, name);
                let what = match event {
                    NodeEvent::Join => {
                        m.join += 1;
                        Happened::Joined { member }
                    }
                    NodeEvent::Leave => {
                        m.leave += 1;
                        Happened::Left { member }
                    }
                    NodeEvent::Update => {
                        m.update += 1;
                        return;
                    }
                };
                self.stats.timeline.push(moment.nanos, what);
            }
            Record::Start => {
                self.stats.start_count += 1;
                if self.stats.starts.len() < MAX_STARTS {
                    self.stats.starts.push(ts.to_owned());
                }
                self.stats.timeline.push(moment.nanos, Happened::Started);
                self.restart();
            }
            Record::Other => {
                self.stats.other += 1;
                self.today(&moment.day).counts.other_lines += 1;
            }
        }
    }

    /// The IPs announced when the window opens, from the lines before it.
    fn mark_held(&mut self, at: i128) {
        let LogStats { ips, timeline, .. } = &mut self.stats;
        let carried = self.carried.iter().filter(|(_, on)| **on).map(|(ip, _)| ip);
        for ip in carried.chain(ips.iter().filter(|(_, c)| c.announcing_at_end).map(|(ip, _)| ip)) {
            let ip = timeline.intern(ip);
            timeline.push(at, Happened::Held { ip });
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

/// The keys the records need; every other value is skipped unread. Keys are compared as bytes,
/// without the UTF-8 check a derived `Deserialize` would make on each of them.
#[derive(Default)]
struct Fields<'a> {
    ts: Loose<'a>,
    msg: Loose<'a>,
    event: Loose<'a>,
    ips: Loose<'a>,
    ip: Loose<'a>,
    protocol: Loose<'a>,
    reason: Loose<'a>,
    node_name: Loose<'a>,
    node_event: Loose<'a>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Fields<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldsVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for FieldsVisitor<'a> {
            type Value = Fields<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut f = Fields::default();
                while let Some(Key(key)) = map.next_key::<Key>()? {
                    let field = match key.as_ref() {
                        b"ts" => &mut f.ts,
                        b"msg" => &mut f.msg,
                        b"event" => &mut f.event,
                        b"ips" => &mut f.ips,
                        b"ip" => &mut f.ip,
                        b"protocol" => &mut f.protocol,
                        b"reason" => &mut f.reason,
                        b"node name" => &mut f.node_name,
                        b"node event" => &mut f.node_event,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                            continue;
                        }
                    };
                    *field = map.next_value()?; // a repeated key: the last one wins
                }
                Ok(f)
            }
        }
        d.deserialize_map(FieldsVisitor(PhantomData))
    }
}

/// An object key as bytes, borrowed unless it has escapes.
struct Key<'a>(Cow<'a, [u8]>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_vec())))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v.as_bytes())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.as_bytes().to_vec())))
            }
        }
        d.deserialize_bytes(KeyVisitor)
    }
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
    if text.starts_with("Refuting a suspect message") || text.starts_with("Refuting a dead message") {
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
mod tests;
