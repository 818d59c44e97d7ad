//! Serves a snapshot file as a read-only fake Kubernetes API server on 127.0.0.1, for trying
//! live mode without a cluster (and for the docs' examples):
//!
//!   cargo run --example fake-apiserver -- testdata/clusters/homelab-trap.yaml \
//!       [--latency MS] [--forbid PLURAL[@NAMESPACE]]... [--kubeconfig PATH]
//!   KUBECONFIG=PATH kubectl lbdoctor check

#[path = "../tests/it/fakeapi/mod.rs"]
mod fakeapi;

use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut file = None;
    let mut behaviour = fakeapi::Behaviour::default();
    let mut kubeconfig = std::env::temp_dir().join("lbdoctor-fake.kubeconfig");
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--latency" => {
                let ms = args.next().and_then(|a| a.parse().ok()).unwrap_or_else(|| usage());
                behaviour.latency = Duration::from_millis(ms);
            }
            "--forbid" => {
                let value = args.next().unwrap_or_else(|| usage());
                match value.split_once('@') {
                    Some((plural, ns)) => behaviour.forbidden_in.insert((plural.to_string(), ns.to_string())),
                    None => behaviour.forbidden.insert(value),
                };
            }
            "-h" | "--help" => usage(),
            "--kubeconfig" => kubeconfig = args.next().unwrap_or_else(|| usage()).into(),
            _ if file.is_none() => file = Some(arg),
            _ => usage(),
        }
    }
    let file = file.unwrap_or_else(|| usage());
    let objects = fakeapi::objects_of(std::path::Path::new(&file));
    let api = fakeapi::FakeApi::start(objects, behaviour, None);
    let dir = kubeconfig.parent().unwrap_or(std::path::Path::new("."));
    let written = api.kubeconfig(dir, "lbdoctor-fake", "default", "unused");
    if written != kubeconfig {
        std::fs::rename(&written, &kubeconfig).expect("move the kubeconfig into place");
    }
    println!("serving {file} at {}", api.url);
    println!("export KUBECONFIG={}", kubeconfig.display());
    loop {
        std::thread::park();
    }
}

fn usage() -> ! {
    eprintln!("usage: fake-apiserver SNAPSHOT [--latency MS] [--forbid PLURAL[@NAMESPACE]]... [--kubeconfig PATH]");
    std::process::exit(2)
}
