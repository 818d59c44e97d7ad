//! Serves a snapshot file as a read-only fake Kubernetes API server on 127.0.0.1, for trying
//! live mode without a cluster (and for the docs' examples):
//!
//!   cargo run --example fake-apiserver -- testdata/clusters/homelab-trap.yaml [LATENCY_MS]
//!   KUBECONFIG=/tmp/lbdoctor-fake.kubeconfig kubectl lbdoctor check

#[path = "../tests/fakeapi/mod.rs"]
mod fakeapi;

use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(file) = args.next() else {
        eprintln!("usage: fake-apiserver SNAPSHOT [LATENCY_MS]");
        std::process::exit(2);
    };
    let latency = Duration::from_millis(args.next().and_then(|a| a.parse().ok()).unwrap_or(0));
    let objects = fakeapi::objects_of(std::path::Path::new(&file));
    let api = fakeapi::FakeApi::start(objects, fakeapi::Behaviour { latency, ..Default::default() }, None);
    let kubeconfig = api.kubeconfig(&std::env::temp_dir(), "lbdoctor-fake", "default", "unused");
    println!("serving {file} at {}", api.url);
    println!("export KUBECONFIG={}", kubeconfig.display());
    loop {
        std::thread::park();
    }
}
