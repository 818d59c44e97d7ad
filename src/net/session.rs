//! The clocked loops: a probe window and the responder's run. They own the time; the decisions
//! they apply come from [`super::probe`] and [`super::responder`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::link::Link;
use super::probe::{Probe, Reply, Tally};
use super::responder::{gratuitous_schedule, Decision, Drop, Protocol, Responder, Sent};
use super::NetError;

pub struct ProbeRun {
    pub requests: u32,
    pub replies: Vec<Reply>,
    /// How long it listened: the window, or less when interrupted.
    pub listened: Duration,
}

/// Sends each probe's request `count` times, spread evenly over `window` (the first at once),
/// and collects every answer until the window closes or `stop` is raised. One run per probe.
pub fn probe(
    link: &mut Link,
    probes: &[Probe],
    count: u32,
    window: Duration,
    stop: &AtomicBool,
) -> Result<Vec<ProbeRun>, NetError> {
    let requests: Vec<Vec<u8>> = probes.iter().map(Probe::request).collect();
    let gap = window / count.max(1);
    let mut tallies: Vec<Tally> = probes.iter().map(|_| Tally::default()).collect();
    let mut sent = 0;
    let start = Instant::now();
    loop {
        let now = start.elapsed();
        if now >= window || stop.load(Ordering::Relaxed) {
            break;
        }
        if sent < count && now >= gap * sent {
            for request in &requests {
                link.send(request)?;
            }
            sent += 1;
        }
        let Some(frame) = link.recv()? else { continue };
        let at_ms = start.elapsed().as_secs_f64() * 1000.0;
        for (probe, tally) in probes.iter().zip(&mut tallies) {
            if let Some(mac) = probe.answer(&frame) {
                tally.record(mac, at_ms);
            }
        }
    }
    let listened = start.elapsed().min(window);
    Ok(tallies.iter().map(|t| ProbeRun { requests: sent, replies: t.replies(), listened }).collect())
}

pub enum Event<'a> {
    /// A gratuitous burst went out: its number (1-based) and how many frames it held.
    Burst {
        number: usize,
        frames: usize,
    },
    Reply(&'a Sent),
}

#[derive(Debug, Default)]
pub struct AnnounceSummary {
    pub replies: u64,
    pub bursts: usize,
    pub dropped: BTreeMap<(Protocol, Drop), u64>,
    pub interrupted: bool,
    pub ran_for: Duration,
}

/// Answers for the responder's IPs until `duration` has passed (or forever when `None`) or
/// `stop` is raised, sending MetalLB's gratuitous bursts from the start.
pub fn announce(
    link: &mut Link,
    responder: &Responder,
    duration: Option<Duration>,
    stop: &AtomicBool,
    on_event: &mut dyn FnMut(Event),
) -> Result<AnnounceSummary, NetError> {
    let schedule = gratuitous_schedule();
    let burst = responder.gratuitous();
    let mut summary = AnnounceSummary::default();
    let start = Instant::now();
    loop {
        let now = start.elapsed();
        if stop.load(Ordering::Relaxed) {
            summary.interrupted = true;
            break;
        }
        if duration.is_some_and(|d| now >= d) {
            break;
        }
        if summary.bursts < schedule.len() && now >= schedule[summary.bursts] {
            for frame in &burst {
                link.send(frame)?;
            }
            summary.bursts += 1;
            on_event(Event::Burst { number: summary.bursts, frames: burst.len() });
        }
        let Some(frame) = link.recv()? else { continue };
        match responder.decide(&frame) {
            Decision::Ignore => {}
            Decision::Drop(protocol, why) => *summary.dropped.entry((protocol, why)).or_default() += 1,
            Decision::Reply(sent) => {
                link.send(&sent.frame)?;
                summary.replies += 1;
                on_event(Event::Reply(&sent));
            }
        }
    }
    summary.ran_for = start.elapsed();
    Ok(summary)
}
