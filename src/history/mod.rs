//! `kubectl lbdoctor history`: what the speakers' own logs say happened to each LoadBalancer IP
//! over time (takeovers, withdraw reasons, memberlist failures), next to what the snapshot says
//! should be happening now.
//!
//! [`logs`] reduces one speaker log to counts, streaming and without any I/O of its own; the
//! correlation of the per-speaker counts with a snapshot lives beside it.

pub(crate) mod engine;
pub mod logs;
pub(crate) mod story;
