//! The integration tests, in one binary (as ripgrep does): each former `tests/*.rs` file is a
//! module here, so the tests link once instead of once per file. `util` holds the helpers they
//! share; `fakeapi` is the fake Kubernetes API server (also used by examples/fake-apiserver.rs and
//! benches/live_collect.rs). Run one area with a filter: `cargo test --test it scenarios::`.

mod fakeapi;
mod util;

mod alloc_properties;
mod architecture;
mod bundle;
mod ci;
mod cilium_properties;
mod cli;
mod conformance_alloc;
mod conformance_bgp;
mod conformance_cilium;
mod conformance_l2;
mod golden;
mod hardening;
mod history;
mod html;
mod krew;
mod live;
mod loader;
mod output;
mod properties;
mod realapi;
mod render;
mod scale;
mod scenarios;
mod ship;
mod simulate;
mod watch;
mod wire;
