//! The home-lab snapshots built into the binary, so `--demo` shows real output without a cluster.

use std::sync::Arc;

use crate::snapshot::{self, LoadError, Snapshot};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Demo {
    /// testdata/clusters/homelab.yaml: eight nodes, ten Services, one of them without endpoints
    Healthy,
    /// testdata/clusters/homelab-trap.yaml: the L2Advertisement selects only exclude-labelled nodes
    Trap,
}

impl Demo {
    /// The name errors and `source` use; the path the file has in the source tree.
    pub fn name(self) -> &'static str {
        match self {
            Demo::Healthy => "demo:testdata/clusters/homelab.yaml",
            Demo::Trap => "demo:testdata/clusters/homelab-trap.yaml",
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Demo::Healthy => include_str!("../testdata/clusters/homelab.yaml"),
            Demo::Trap => include_str!("../testdata/clusters/homelab-trap.yaml"),
        }
    }

    pub fn load(self) -> Result<Snapshot, LoadError> {
        snapshot::load_texts(&[(Arc::from(self.name()), self.text().to_string())])
    }
}
