//! The story the logs tell, put together from every speaker's [`Timeline`]: when each member left
//! and rejoined memberlist, and every owner change of every IP with its kind and its cause.
//!
//! Nothing here looks at today's configuration: the past is judged by what the logs show about
//! the past, so a node that the nodeSelectors keep out today is still seen for what it did.
//!
//! The logs of v0.16.1 stamp whole seconds, so lines of different speakers within one second have
//! no order. Membership marks sort before ownership marks of the same second (a departure or a
//! join is what makes the speakers re-elect), and the two halves of one change (the new owner's
//! announce, the old owner's `notOwner` withdrawal) are paired when they lie within [`PAIR`],
//! whichever comes first.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::logs::{Happened, Timeline};

const SECOND: i64 = 1_000_000_000;
/// The new owner's announce and the old owner's `notOwner` withdrawal of one change lie this close.
pub const PAIR: i64 = 10 * SECOND;
/// A departure or a rejoin this recent explains an owner change.
pub const CAUSE: i64 = 60 * SECOND;

/// One scanned log: the node its speaker runs on (`None`: no Pod of that name) and its marks.
pub struct Teller<'a> {
    pub node: Option<&'a str>,
    pub timeline: &'a Timeline,
}

#[derive(Debug, Default)]
pub struct Story {
    pub members: BTreeMap<String, Membership>,
    pub ips: BTreeMap<String, Vec<OwnerChange>>,
}

/// A member's departures and rejoins, each once however many peers logged it, in time order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Membership {
    pub departures: Vec<Departure>,
    pub rejoins: Vec<i64>,
    /// Container starts its own log shows.
    pub starts: Vec<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Departure {
    /// The first peer's NodeLeave or failure mark.
    pub at: i64,
    /// Some peer marked it failed (memberlist's suspicion timed out); else it left gracefully.
    pub failed: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// The new owner announced after the old one departed, restarted or stopped.
    Takeover,
    /// The old owner withdrew with `notOwner` for a node that had just rejoined.
    Takeback,
    /// The old owner withdrew with `notOwner` and no departure or rejoin explains it: the
    /// election changed (configuration, labels, endpoints).
    Handover,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OwnerChange {
    pub at: i64,
    pub from: Option<String>,
    /// `None`: the new owner's log is not there and no rejoin names it.
    pub to: Option<String>,
    pub kind: Kind,
    /// The node whose departure, restart or rejoin made the speakers re-elect.
    pub cause: Option<String>,
}

impl Membership {
    /// Whether the member was gone at `t`, or left within [`CAUSE`] before it.
    pub fn gone_at(&self, t: i64) -> bool {
        let before = self.departures.partition_point(|d| d.at <= t);
        let Some(d) = before.checked_sub(1).map(|i| self.departures[i]) else {
            return false;
        };
        !within(&self.rejoins, d.at, t) || t - d.at <= CAUSE
    }

    /// Whether the member rejoined, or its container started, within [`CAUSE`] before `t`.
    pub fn came_back_at(&self, t: i64) -> bool {
        within(&self.rejoins, t - CAUSE, t) || self.started_before(t)
    }

    fn started_before(&self, t: i64) -> bool {
        within(&self.starts, t - CAUSE, t)
    }

    /// Its last rejoin or start at or before `t`, if within [`CAUSE`].
    fn came_back_last(&self, t: i64) -> Option<i64> {
        let last = |v: &[i64]| v.partition_point(|&x| x <= t).checked_sub(1).map(|i| v[i]);
        last(&self.rejoins).max(last(&self.starts)).filter(|&x| t - x <= CAUSE)
    }
}

/// Whether the sorted `times` hold one in `from..=to`.
fn within(times: &[i64], from: i64, to: i64) -> bool {
    let i = times.partition_point(|&x| x < from);
    times.get(i).is_some_and(|&x| x <= to)
}

pub fn tell(tellers: &[Teller]) -> Story {
    let members = membership(tellers);
    let mut by_ip: HashMap<&str, Vec<(i64, &str, Event)>> = HashMap::new();
    for t in tellers {
        let Some(node) = t.node else { continue };
        for m in &t.timeline.marks {
            let (ip, event) = match m.what {
                Happened::Held { ip } => (ip, Event::Held),
                Happened::Began { ip } => (ip, Event::Began),
                Happened::Withdrew { ip, reason } => {
                    (ip, Event::Withdrew { not_owner: t.timeline.name(reason) == "notOwner" })
                }
                _ => continue,
            };
            by_ip.entry(t.timeline.name(ip)).or_default().push((m.at, node, event));
        }
    }
    let mut ips = BTreeMap::new();
    for (ip, mut events) in by_ip {
        events.sort_by_key(|e| e.0);
        ips.insert(ip.to_string(), owner_changes(&events, &members));
    }
    Story { members, ips }
}

/// Each departure once: the first NodeLeave or failure mark about a member that is present
/// starts one, and the first NodeJoin after it is its rejoin. The NodeJoins every speaker logs
/// for every member when its own container starts are therefore not rejoins.
fn membership(tellers: &[Teller]) -> BTreeMap<String, Membership> {
    // (at, teller, mark): 16 bytes each, the names looked up when the marks are replayed.
    let mut marks: Vec<(i64, u32, u32)> = Vec::new();
    for (ti, t) in tellers.iter().enumerate() {
        for (mi, m) in t.timeline.marks.iter().enumerate() {
            let about_member =
                matches!(m.what, Happened::Left { .. } | Happened::MarkedFailed { .. } | Happened::Joined { .. });
            if about_member || (matches!(m.what, Happened::Started) && t.node.is_some()) {
                marks.push((m.at, ti as u32, mi as u32));
            }
        }
    }
    marks.sort_by_key(|m| m.0);
    let mut out: BTreeMap<String, Membership> = BTreeMap::new();
    let mut gone: BTreeSet<&str> = BTreeSet::new();
    for (at, ti, mi) in marks {
        let t = &tellers[ti as usize];
        let what = t.timeline.marks[mi as usize].what;
        let member = match what {
            Happened::Left { member } | Happened::MarkedFailed { member } | Happened::Joined { member } => {
                t.timeline.name(member)
            }
            _ => t.node.expect("only the starts of a known node are kept"),
        };
        if !out.contains_key(member) {
            out.insert(member.to_string(), Membership::default());
        }
        let m = out.get_mut(member).expect("inserted above");
        match what {
            Happened::Started => m.starts.push(at),
            // A speaker never logs its own departure; a stray line naming itself is not one.
            Happened::Left { .. } | Happened::MarkedFailed { .. } if t.node == Some(member) => {}
            Happened::Left { .. } | Happened::MarkedFailed { .. } => {
                let failed = matches!(what, Happened::MarkedFailed { .. });
                if gone.insert(member) {
                    m.departures.push(Departure { at, failed });
                } else if let Some(d) = m.departures.last_mut() {
                    d.failed |= failed;
                }
            }
            Happened::Joined { .. } if gone.remove(member) => m.rejoins.push(at),
            _ => {}
        }
    }
    out
}

#[derive(Debug, Clone, Copy)]
enum Event {
    Held,
    Began,
    Withdrew { not_owner: bool },
}

enum Owner<'a> {
    /// Nobody yet: the first announce is where the window starts, not a change.
    Nobody,
    Node(&'a str),
    /// It withdrew for another reason than `notOwner` (nothing to announce): the next owner
    /// takes over from it.
    Stopped(&'a str),
    /// It yielded to a node no log names.
    Unknown {
        lost_by: &'a str,
    },
}

fn owner_changes<'a>(events: &[(i64, &'a str, Event)], members: &'a BTreeMap<String, Membership>) -> Vec<OwnerChange> {
    let mut changes: Vec<OwnerChange> = Vec::new();
    let mut former: BTreeSet<&str> = BTreeSet::new();
    let mut owner = Owner::Nobody;
    // The owner's notOwner withdrawal, waiting for its successor's announce: (at, node).
    let mut pending: Option<(i64, &str)> = None;
    // The last change was a takeover whose old owner may still withdraw (within PAIR).
    let mut open_takeover = false;
    // The first announce, taken as where the window starts: (at, node).
    let mut first: Option<(i64, &str)> = None;

    for &(at, node, event) in events {
        if let Some((since, from)) = pending.filter(|(since, _)| at - since > PAIR) {
            pending = None;
            owner = yielded(&mut changes, since, from, successor(members, since, from, &former), members);
            open_takeover = false;
        }
        match event {
            Event::Held => {
                if matches!(owner, Owner::Nobody) {
                    owner = Owner::Node(node);
                }
            }
            Event::Began => {
                let from = match (pending.take(), &owner) {
                    (Some((since, from)), _) if from != node => {
                        yielded(&mut changes, since, from, Some(node), members);
                        None
                    }
                    (None, Owner::Nobody) => {
                        first = Some((at, node));
                        None
                    }
                    // The same node announces again within PAIR of its notOwner withdrawal: the
                    // node it yielded to (one that had just come back, its announce in a log that
                    // is gone) left again at once. Two changes; a blip when nobody came back.
                    (Some((since, from)), _) => match successor(members, since, from, &former) {
                        Some(to) => {
                            yielded(&mut changes, since, from, Some(to), members);
                            Some(Some(to))
                        }
                        None => None,
                    },
                    (None, Owner::Node(m) | Owner::Stopped(m)) if *m == node => None,
                    // Whoever got it unseen may have been this node; only its former owner
                    // coming back is sure to be a change.
                    (None, Owner::Unknown { lost_by }) => (*lost_by == node).then_some(None),
                    (None, Owner::Node(m) | Owner::Stopped(m)) => Some(Some(*m)),
                };
                open_takeover = from.is_some();
                if let Some(from) = from {
                    let gone = |m: &&str| members.get(*m).is_some_and(|ms| ms.gone_at(at) || ms.started_before(at));
                    changes.push(OwnerChange {
                        at,
                        from: from.map(str::to_string),
                        to: Some(node.into()),
                        kind: Kind::Takeover,
                        cause: from.filter(gone).map(str::to_string),
                    });
                }
                former.insert(node);
                owner = Owner::Node(node);
            }
            Event::Withdrew { not_owner: true } => match owner {
                Owner::Node(m) if m == node => pending = Some((at, node)),
                _ => {
                    // The successor's announce came first (the same second, or just before).
                    let last = changes.last_mut().filter(|c| c.from.as_deref() == Some(node) && at - c.at <= PAIR);
                    if let Some(c) = last.filter(|_| open_takeover) {
                        (c.kind, c.cause) = yield_kind(c.to.as_deref(), at, members);
                        open_takeover = false;
                    }
                }
            },
            Event::Withdrew { not_owner: false } => {
                if matches!(owner, Owner::Node(m) if m == node) {
                    owner = Owner::Stopped(node);
                }
            }
        }
    }
    if let Some((since, from)) = pending {
        yielded(&mut changes, since, from, successor(members, since, from, &former), members);
    }
    // The first owner began while a node was gone that later took the IP back from it: that
    // node owned it before it left, so the first announce was a takeover too.
    if let (Some((at, node)), Some(next)) = (first, changes.first()) {
        let back = next.to.as_deref().filter(|_| next.kind == Kind::Takeback && next.from.as_deref() == Some(node));
        if let Some(back) = back.filter(|b| members.get(*b).is_some_and(|m| m.gone_at(at))) {
            let cause = Some(back.to_string());
            changes
                .insert(0, OwnerChange { at, from: cause.clone(), to: Some(node.into()), kind: Kind::Takeover, cause });
        }
    }
    changes
}

/// `from` withdrew with notOwner at `at` for `to`: the change, and who owns the IP after it.
fn yielded<'a>(
    changes: &mut Vec<OwnerChange>,
    at: i64,
    from: &'a str,
    to: Option<&'a str>,
    members: &BTreeMap<String, Membership>,
) -> Owner<'a> {
    let (kind, cause) = yield_kind(to, at, members);
    changes.push(OwnerChange { at, from: Some(from.into()), to: to.map(str::to_string), kind, cause });
    match to {
        Some(to) => Owner::Node(to),
        None => Owner::Unknown { lost_by: from },
    }
}

/// A yield is a takeback when the node it went to had just rejoined (or restarted).
fn yield_kind(to: Option<&str>, at: i64, members: &BTreeMap<String, Membership>) -> (Kind, Option<String>) {
    match to.and_then(|n| members.get(n)) {
        Some(m) if m.came_back_at(at + PAIR) => (Kind::Takeback, to.map(str::to_string)),
        _ => (Kind::Handover, None),
    }
}

/// The successor of a yield whose announce no log shows (a crash-looping speaker's earlier
/// containers): the node that rejoined last before it, a former owner of the IP first.
fn successor<'a>(
    members: &'a BTreeMap<String, Membership>,
    at: i64,
    from: &str,
    former: &BTreeSet<&str>,
) -> Option<&'a str> {
    let candidates: Vec<(&'a str, i64)> = members
        .iter()
        .filter(|(n, _)| n.as_str() != from)
        .filter_map(|(n, m)| Some((n.as_str(), m.came_back_last(at)?)))
        .collect();
    let best = |was_owner: bool| {
        candidates.iter().filter(|(n, _)| former.contains(n) == was_owner).max_by_key(|(_, r)| *r).map(|(n, _)| *n)
    };
    best(true).or_else(|| best(false))
}

#[cfg(test)]
mod tests;
