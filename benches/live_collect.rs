//! Live collection against the fake API server: 1,000 nodes and 10,000 Services (20 pages of
//! 500), 20 ms latency on every request. Compares collecting everything with listing only the
//! slowest single kind (Services) page by page; the kinds should overlap rather than queue, so
//! the ratio should stay under 1.5. Run with `cargo bench --bench live_collect`.

#[path = "../tests/it/fakeapi/mod.rs"]
mod fakeapi;

use std::sync::Arc;
use std::time::{Duration, Instant};

use lbdoctor::live::{self, progress::Silent, KubeEnv, LiveOptions};
use serde_json::Value;

const RUNS: usize = 7;

fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let file = dir.path().join("synthetic.json");
    let status = std::process::Command::new("python3")
        .args(["scripts/gen-synthetic.py", "--nodes", "1000", "--services", "10000", "--out"])
        .arg(&file)
        .status()
        .expect("python3 runs scripts/gen-synthetic.py");
    assert!(status.success());
    let objects = fakeapi::objects_of(&file);
    let services = objects.iter().filter(|o| o["kind"] == "Service").count();
    let slices = objects.iter().filter(|o| o["kind"] == "EndpointSlice").count();
    let behaviour = fakeapi::Behaviour { latency: Duration::from_millis(20), ..Default::default() };
    let api = fakeapi::FakeApi::start(objects, behaviour, None);
    let kubeconfig = api.kubeconfig(dir.path(), "bench", "default", "token");
    println!("fake API server: {services} Services, {slices} EndpointSlices, 20 ms per request, 500 per page");

    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // The slowest single kind: Services or EndpointSlices, 20 pages each.
    let kinds = [("services", "/api/v1/services"), ("endpointslices", "/apis/discovery.k8s.io/v1/endpointslices")];
    let mut slowest = ("", Duration::ZERO);
    for (kind, path) in kinds {
        let runs: Vec<Duration> = (0..RUNS).map(|_| runtime.block_on(list_one(&kubeconfig, path))).collect();
        let m = median(runs);
        println!("{kind} alone, 20 pages: {:>7.1} ms (median of {RUNS})", m.as_secs_f64() * 1e3);
        if m > slowest.1 {
            slowest = (kind, m);
        }
    }

    let opts = LiveOptions { kubeconfig: Some(kubeconfig.clone()), env: KubeEnv::default(), ..LiveOptions::default() };
    let all: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            let collected = live::collect(&opts, Arc::new(Silent), "2026-01-01T00:00:00Z".into()).expect("collect");
            assert_eq!(collected.snapshot.services.len(), services);
            std::mem::forget(collected);
            start.elapsed()
        })
        .collect();
    let (s, a) = (slowest.1, median(all));
    println!("everything lbdoctor collects and decodes: {:>7.1} ms (median of {RUNS})", a.as_secs_f64() * 1e3);
    println!("slowest single kind: {}", slowest.0);
    println!("ratio: {:.2} (target < 1.5)", a.as_secs_f64() / s.as_secs_f64());
    println!("requests served: {}", api.requests().len());
}

/// One kind alone, as any client would page it: the floor for the whole collection.
async fn list_one(kubeconfig: &std::path::Path, path: &str) -> Duration {
    let kc = kube::config::Kubeconfig::read_from(kubeconfig).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kc, &Default::default()).await.expect("config");
    let client = kube::Client::try_from(config).expect("client");
    let start = Instant::now();
    let mut token: Option<String> = None;
    let mut items = 0;
    loop {
        let lp = kube::api::ListParams { limit: Some(500), continue_token: token.clone(), ..Default::default() };
        let req = kube::core::Request::new(path).list(&lp).expect("request");
        let page: Value = serde_json::from_str(&client.request_text(req).await.expect("page")).expect("JSON");
        items += page["items"].as_array().map(Vec::len).unwrap_or(0);
        token = page["metadata"]["continue"].as_str().filter(|t| !t.is_empty()).map(String::from);
        if token.is_none() {
            break;
        }
    }
    assert!(items > 0);
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
