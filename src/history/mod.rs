//! `kubectl lbdoctor history`: what the speakers' own logs say happened to each LoadBalancer IP
//! over time (takeovers, withdraw reasons, memberlist failures), next to what the snapshot says
//! should be happening now.
//!
//! [`logs`] reduces one speaker log to counts and a timeline of transitions, streaming and
//! without any I/O of its own; [`story`] merges the timelines into departures, rejoins and owner
//! changes with their causes, judging the past by the logs alone; [`engine`] puts that beside the
//! snapshot (election order now, Events, restarts) and `fix` says what, if anything, to patch.

pub(crate) mod engine;
mod fix;
pub mod logs;
pub(crate) mod story;
