//! Scanning speaker logs (src/history/logs.rs): ~1 GB in 8 files, as `scripts/gen-history.py
//! --bench` writes them, one thread per file, against `cat DIR/*.log > /dev/null` on the same files
//! as the disk-speed floor. Both run warm (the files were just written or read), alternately.
//!
//! `scripts/bench-history.sh` generates the logs, runs this and adds the peak RSS. Directly:
//! `cargo bench --bench history_logs`, with `HISTORY_BENCH_DIR=DIR` to reuse logs already written
//! and `HISTORY_BENCH_GB` (default 1) for the size to generate otherwise.

use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use lbdoctor::history::logs::{self, LogStats};

const RUNS: usize = 5;

fn main() {
    let generated;
    let dir = match std::env::var_os("HISTORY_BENCH_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            generated = tempfile::tempdir().expect("temporary directory");
            let gb = std::env::var("HISTORY_BENCH_GB").unwrap_or_else(|_| "1".into());
            let status = Command::new("python3")
                .args(["scripts/gen-history.py", "--size-gb", &gb, "--bench"])
                .arg(generated.path())
                .status()
                .expect("python3 runs scripts/gen-history.py");
            assert!(status.success());
            generated.path().to_path_buf()
        }
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("bench directory")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no *.log in {}", dir.display());
    let bytes: u64 = files.iter().map(|f| f.metadata().expect("log file").len()).sum();
    let gb = bytes as f64 / 1e9;
    println!("{} files, {:.2} GB in {}", files.len(), gb, dir.display());

    // Warm-up, and what the scan found (so that the timing is of real work).
    let stats = scan_all(&files);
    let lines: u64 = stats.iter().map(|s| s.lines).sum();
    let takeovers: u64 = stats.iter().flat_map(|s| s.ips.values()).map(|c| c.takeovers).sum();
    let other: u64 = stats.iter().map(|s| s.other).sum();
    let malformed: u64 = stats.iter().map(|s| s.malformed).sum();
    println!("{lines} lines: {other} other, {malformed} malformed, {takeovers} takeovers");
    cat(&dir);

    let (mut scans, mut cats, mut singles, mut single_cats) = (vec![], vec![], vec![], vec![]);
    let largest = files.iter().max_by_key(|f| f.metadata().map(|m| m.len()).unwrap_or(0)).expect("a file");
    for _ in 0..RUNS {
        cats.push(cat(&dir));
        let start = Instant::now();
        std::hint::black_box(scan_all(&files));
        scans.push(start.elapsed());
        single_cats.push(cat_one(largest));
        let start = Instant::now();
        std::hint::black_box(scan_one(largest));
        singles.push(start.elapsed());
    }
    let (scan, cat) = (median(scans), median(cats));
    let (single, single_cat) = (median(singles), median(single_cats));
    let one_gb = largest.metadata().expect("log file").len() as f64 / 1e9;
    println!("cat DIR/*.log > /dev/null:        {:>7.3} s  {:>5.2} GB/s (median of {RUNS})", secs(cat), gb / secs(cat));
    println!(
        "scan, {} files, a thread each:     {:>7.3} s  {:>5.2} GB/s (median of {RUNS})",
        files.len(),
        secs(scan),
        gb / secs(scan)
    );
    println!("ratio scan/cat: {:.2}", secs(scan) / secs(cat));
    println!(
        "one file ({:.0} MB), one thread: scan {:.3} s ({:.2} GB/s), cat {:.3} s; ratio {:.2}",
        one_gb * 1e3,
        secs(single),
        one_gb / secs(single),
        secs(single_cat),
        secs(single) / secs(single_cat)
    );
    println!("available parallelism: {}", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    if let Some(hwm) = vm_hwm() {
        println!("peak RSS (VmHWM): {hwm}");
    }
}

fn scan_one(file: &Path) -> LogStats {
    let reader = BufReader::with_capacity(1 << 20, File::open(file).expect("log file"));
    logs::scan(reader, None).expect("scan")
}

fn scan_all(files: &[PathBuf]) -> Vec<LogStats> {
    std::thread::scope(|s| {
        let handles: Vec<_> = files.iter().map(|f| s.spawn(move || scan_one(f))).collect();
        handles.into_iter().map(|h| h.join().expect("scanner thread")).collect()
    })
}

fn cat(dir: &Path) -> Duration {
    run_sh(r#"cat "$0"/*.log > /dev/null"#, dir)
}

fn cat_one(file: &Path) -> Duration {
    run_sh(r#"cat "$0" > /dev/null"#, file)
}

fn run_sh(script: &str, arg: &Path) -> Duration {
    let start = Instant::now();
    let status = Command::new("sh").arg("-c").arg(script).arg(arg).status().expect("sh runs");
    assert!(status.success());
    start.elapsed()
}

fn vm_hwm() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).map(|v| v.trim().to_owned())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}
