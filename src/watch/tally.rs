//! What a watch saw, counted as it goes: bounded by the cluster's Services and IPs, not by time.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::report::{ChangeKind, FlappingIp, ServiceChanges, Summary, WatchChange, WatchSummary, API_VERSION};

#[derive(Debug, Default)]
pub struct Tally {
    pub evaluations: u64,
    pub changes: u64,
    by_service: BTreeMap<String, BTreeMap<&'static str, u64>>,
    ips: BTreeMap<String, IpMoves>,
}

#[derive(Debug, Default)]
struct IpMoves {
    services: BTreeSet<String>,
    moves: u64,
    announcers: VecDeque<Option<String>>,
}

impl Tally {
    pub fn record(&mut self, c: &WatchChange) {
        self.changes += 1;
        if let Some(service) = &c.service {
            *self.by_service.entry(service.clone()).or_default().entry(c.change.as_str()).or_default() += 1;
        }
        if c.change != ChangeKind::Announcer {
            return;
        }
        let Some(ip) = &c.ip else { return };
        let moves = self.ips.entry(ip.clone()).or_default();
        moves.services.extend(c.service.clone());
        // Services sharing the IP move together: one move of the IP.
        let to = c.after.as_str().map(str::to_string);
        if moves.announcers.back() == Some(&to) {
            return;
        }
        if moves.announcers.is_empty() {
            moves.announcers.push_back(c.before.as_str().map(str::to_string));
        }
        moves.announcers.push_back(to);
        moves.moves += 1;
        while moves.announcers.len() > FlappingIp::SHOWN {
            moves.announcers.pop_front();
        }
    }

    pub fn summary(
        &self,
        time: &str,
        started: &str,
        ended_by: &'static str,
        events: u64,
        last: Summary,
    ) -> WatchSummary {
        let mut services: Vec<ServiceChanges> = self
            .by_service
            .iter()
            .map(|(service, by_kind)| ServiceChanges {
                service: service.clone(),
                changes: by_kind.values().sum(),
                by_kind: by_kind.clone(),
            })
            .collect();
        services.sort_by(|a, b| b.changes.cmp(&a.changes).then_with(|| a.service.cmp(&b.service)));
        let mut flapping: Vec<FlappingIp> = self
            .ips
            .iter()
            .filter(|(_, m)| m.moves >= WatchSummary::FLAPPING)
            .map(|(ip, m)| FlappingIp {
                ip: ip.clone(),
                services: m.services.iter().cloned().collect(),
                moves: m.moves,
                announcers: m.announcers.iter().cloned().collect(),
            })
            .collect();
        flapping.sort_by(|a, b| b.moves.cmp(&a.moves).then_with(|| a.ip.cmp(&b.ip)));
        WatchSummary {
            api_version: API_VERSION,
            kind: "WatchSummary",
            time: time.to_string(),
            started: started.to_string(),
            ended_by,
            evaluations: self.evaluations,
            events,
            changes: self.changes,
            services,
            flapping,
            summary: last,
        }
    }
}
