//! `-o html`: what the page says and what it may do. The markup tests read the page as text;
//! the browser tests open it in headless Chromium, inside a network namespace of their own so
//! that neither the page nor the browser can reach anything.

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use sha2::{Digest, Sha256};

use crate::util::{json, run, skipped, which, ROOT};

/// Pages every test opens: the demo clusters, the scenarios with the most to draw, and the
/// snapshots whose objects carry markup.
const PAGES: &[&[&str]] = &[
    &["check", "--demo", "healthy"],
    &["check", "--demo", "trap"],
    &["check", "--from", "testdata/scenarios/alloc-sharing-conflict.yaml"],
    &["check", "--from", "testdata/scenarios/metallb-and-cilium-l2.yaml"],
    &["check", "--from", "testdata/html/hostile-config.yaml"],
    &["check", "--from", "testdata/html/hostile-annotations.yaml"],
    &["explain", "svc", "grafana", "-n", "default", "--demo", "trap"],
    &["explain", "svc", "traefik", "-n", "default", "--demo", "healthy"],
    &["explain", "svc", "-A", "--demo", "healthy"],
    &["explain", "svc", "api", "-n", "default", "--from", "testdata/html/hostile-annotations.yaml"],
];

/// History pages: the story of testdata/history/story (23 days, a flapping node, the fix) and
/// a history without logs.
const HISTORY_PAGES: &[&[&str]] = &[
    &["history", "--from", "testdata/history/story/cluster.yaml", "--logs", "testdata/history/story/logs"],
    &["history", "--from", "testdata/history/cluster.yaml"],
];

fn page(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["-o", "html"]);
    let (stdout, stderr, code) = run(&all);
    assert!(code == 0 || code == 1, "{args:?}: exit {code}: {stderr}");
    stdout
}

/// The text between the first `open` and the `close` after it.
fn between<'a>(text: &'a str, open: &str, close: &str) -> &'a str {
    let start = text.find(open).unwrap_or_else(|| panic!("no {open}")) + open.len();
    let end = text[start..].find(close).unwrap_or_else(|| panic!("no {close} after {open}")) + start;
    &text[start..end]
}

fn sha256_base64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
}

#[test]
fn the_page_runs_its_own_style_and_script_only() {
    for args in PAGES.iter().chain(HISTORY_PAGES) {
        let html = page(args);
        assert!(html.starts_with("<!DOCTYPE html>"), "{args:?}");
        let csp = between(&html, "http-equiv=\"Content-Security-Policy\" content=\"", "\"");
        assert!(csp.starts_with("default-src 'none';"), "{args:?}: {csp}");
        assert!(!csp.contains("unsafe"), "{args:?}: {csp}");
        // The one style and the one script, allowed by their hashes and by nothing else.
        assert_eq!(html.matches("<script").count(), 1, "{args:?}");
        assert_eq!(html.matches("<style").count(), 1, "{args:?}");
        let style = between(&html, "<style>", "</style>");
        let script = between(&html, "<script>", "</script>");
        assert!(csp.contains(&format!("style-src 'sha256-{}'", sha256_base64(style))), "{args:?}: {csp}");
        assert!(csp.contains(&format!("script-src 'sha256-{}'", sha256_base64(script))), "{args:?}: {csp}");
        // Nothing to fetch: no tag names another document or resource.
        for tag in tags(&html) {
            for attr in [" src=", " href=\"http", " href=\"//", " style="] {
                assert!(!tag.contains(attr), "{args:?}: {tag}");
            }
        }
        assert!(!style.contains("url(") && !style.contains("@import"), "{args:?}");
    }
}

/// The page's tags, from `<` to `>`: text holds neither unescaped.
fn tags(html: &str) -> Vec<&str> {
    html.split('<').skip(1).map(|t| &t[..t.find('>').expect("a closed tag")]).collect()
}

#[test]
fn markup_in_the_cluster_shows_as_text() {
    let config = page(&["check", "--from", "testdata/html/hostile-config.yaml"]);
    let annotations = page(&["check", "--from", "testdata/html/hostile-annotations.yaml"]);
    let one = page(&["explain", "svc", "api", "-n", "default", "--from", "testdata/html/hostile-annotations.yaml"]);
    assert!(one.contains("&lt;script&gt;alert(3)&lt;/script&gt;"), "the annotation MetalLB quotes, on api's own page");
    for html in [&config, &annotations, &one] {
        for tag in ["<b>", "<img", "<i>", "</td><img"] {
            assert!(!html.contains(tag), "{tag} reached the page as markup");
        }
        assert!(!html.contains("<script>alert"));
    }
    // The rejected selector value (LBD201) and the names the loader left out.
    assert!(config.contains("&lt;b&gt;node-b&lt;/b&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(config.contains("&lt;img src=x onerror=alert(2)&gt;web"));
    // The annotation MetalLB quotes (LBD110) and the node an Event names (LBD105).
    assert!(annotations.contains("&lt;script&gt;alert(3)&lt;/script&gt;"));
    assert!(annotations.contains("&lt;script&gt;alert(5)&lt;/script&gt;"));
}

/// Every Service of the JSON report, as `namespace` and `name`.
fn services(args: &[&str]) -> Vec<(String, String)> {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let (report, _) = json(&all);
    report["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["namespace"].as_str().unwrap().to_string(), s["name"].as_str().unwrap().to_string()))
        .collect()
}

#[test]
fn every_service_has_a_row() {
    for args in PAGES.iter().filter(|a| !html_of_one_service(a)) {
        let html = page(args);
        let expected = services(args);
        let rows = match html.find("id=\"services-table\"") {
            Some(_) => between(&html, "id=\"services-table\"", "</table>").matches("<tr>").count() - 1, // the header
            None => 0,
        };
        assert_eq!(rows, expected.len(), "{args:?}");
        for (ns, name) in expected {
            assert!(html.contains(&format!("<td>{ns}</td><td class=\"mono\">{name}</td>")), "{args:?}: {ns}/{name}");
        }
    }
}

/// `explain svc NAME`: a page about one Service, not a table of them.
fn html_of_one_service(args: &[&str]) -> bool {
    args.len() > 2 && args[0] == "explain" && !args[2].starts_with('-')
}

#[test]
fn html_is_for_the_commands_that_draw_services() {
    for args in [
        &["simulate", "--demo", "trap", "--down", "cp-1"][..],
        &["snapshot", "--demo", "trap"],
        &["explain", "pools", "--demo", "trap"],
        &["explain", "finding", "LBD101"],
    ] {
        let mut all = args.to_vec();
        all.extend(["-o", "html"]);
        let (_, stderr, code) = run(&all);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("html"), "{stderr}");
    }
}

/// What headless Chromium saw of a page.
struct Opened {
    /// Every console message: the page logs none, and a blocked request logs one.
    console: Vec<String>,
    /// URLs a document asked for (the browser's own background requests left out).
    requests: Vec<String>,
    /// The document after its script ran.
    dom: String,
    screenshot: PathBuf,
}

/// Why the browser tests cannot run here; in CI they must.
fn chromium() -> Result<PathBuf, String> {
    let Some(chromium) = which("chromium") else { return Err("chromium is not installed".into()) };
    // The browser tries Google's hosts at start: only a namespace without a network keeps that in.
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout == b"0\n").unwrap_or(false);
    if !root || which("unshare").is_none() {
        return Err("needs root and unshare for a network namespace".into());
    }
    Ok(chromium)
}

fn require_chromium(test: &str) -> Option<PathBuf> {
    match chromium() {
        Ok(path) => Some(path),
        Err(why) => {
            assert!(std::env::var_os("CI").is_none(), "{test}: {why} (.ci/run installs chromium)");
            skipped(test, &why);
            None
        }
    }
}

fn open(chromium: &Path, page: &Path, dir: &Path) -> Opened {
    open_at(chromium, page, "", dir)
}

/// `fragment`: what follows the page's path in the URL (`#services?status=dark`).
fn open_at(chromium: &Path, page: &Path, fragment: &str, dir: &Path) -> Opened {
    let net_log = dir.join("net.json");
    let screenshot = dir.join("page.png");
    let output = Command::new("timeout")
        .arg("120")
        .args(["unshare", "--net"])
        .arg(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,1600",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("--log-net-log={}", net_log.display()))
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}{fragment}", page.display()))
        .output()
        .expect("chromium runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "chromium failed on {}: {stderr}", page.display());
    // Chromium's own pages (chrome://resources/…) log to the same stream now and then ("Slow
    // network is detected" from its new-tab composebox): only the page's messages count.
    let console = stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") && !l.contains("source: chrome://"))
        .map(str::to_string)
        .collect();
    let log: serde_json::Value = serde_json::from_slice(&std::fs::read(&net_log).expect("net log")).expect("net log");
    let start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].as_u64().expect("event type");
    let requests = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"].as_u64() == Some(start))
        .filter(|e| e["params"]["initiator"].as_str() != Some("not an origin"))
        .filter_map(|e| e["params"]["url"].as_str().map(str::to_string))
        .collect();
    Opened { console, requests, dom: String::from_utf8_lossy(&output.stdout).into_owned(), screenshot }
}

/// How many distinct colours the screenshot has: a blank page has one.
fn colours(png_path: &Path) -> usize {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png_path).expect("screenshot")));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    let bytes = &buf[..info.buffer_size()];
    let step = info.color_type.samples();
    let distinct: std::collections::HashSet<&[u8]> = bytes.chunks(step).collect();
    distinct.len()
}

#[test]
fn pages_open_in_headless_chromium_without_errors_or_requests() {
    let Some(chromium) = require_chromium("pages_open_in_headless_chromium_without_errors_or_requests") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (i, args) in PAGES.iter().chain(HISTORY_PAGES).enumerate() {
        let path = dir.path().join(format!("page-{i}.html"));
        let html = page(args);
        std::fs::write(&path, &html).unwrap();
        let run_dir = dir.path().join(format!("run-{i}"));
        std::fs::create_dir(&run_dir).unwrap();
        let opened = open(&chromium, &path, &run_dir);
        assert!(opened.console.is_empty(), "{args:?}: console: {:?}", opened.console);
        assert!(opened.requests.is_empty(), "{args:?}: requests: {:?}", opened.requests);
        let expected = if args[0] == "history" { Vec::new() } else { services(args) };
        // The script ran: it counts the rows the filters leave.
        if !expected.is_empty() && html.contains("<output") {
            let shown = format!("{} shown</output>", expected.len());
            assert!(opened.dom.contains(&shown), "{args:?}: the script did not run");
        }
        for (ns, name) in &expected {
            let shown = if html_of_one_service(args) { format!(">{ns}/{name}<") } else { format!(">{name}</td>") };
            assert!(opened.dom.contains(&shown), "{args:?}: {name}");
        }
        assert!(colours(&opened.screenshot) > 8, "{args:?}: a blank screenshot");
    }
}

/// The checks above can fail: a page that logs, fetches and draws nothing is caught.
#[test]
fn the_browser_checks_catch_a_page_that_misbehaves() {
    let Some(chromium) = require_chromium("the_browser_checks_catch_a_page_that_misbehaves") else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.html");
    std::fs::write(
        &path,
        "<!DOCTYPE html><html><body><img hidden src=\"http://198.51.100.1/x.png\"><script>console.error('boom')</script></body></html>",
    )
    .unwrap();
    let opened = open(&chromium, &path, dir.path());
    assert!(opened.console.iter().any(|l| l.contains("boom")), "{:?}", opened.console);
    assert_eq!(opened.requests, ["http://198.51.100.1/x.png"]);
    assert!(colours(&opened.screenshot) <= 8, "an empty page has (nearly) one colour");
}

/// The map's mark for one node's row of `--nodes all` JSON: what the page must draw there.
fn expected_mark(row: &serde_json::Value) -> &'static str {
    let first = row["excludedBy"].as_array().and_then(|x| x.first()).and_then(|x| x.as_str());
    if row["reason"] == "" {
        return "●";
    }
    if row["rank"] == 1 {
        return "○";
    }
    match first {
        Some("noServingEndpoint") => "∅",
        Some("sharedIPWithServiceSelector") => "R",
        Some("memberlistDisabled") => "M",
        Some("noSpeaker") => "S",
        Some("networkUnavailable") => "N",
        Some("cordoned") => "C",
        Some("excludeLabel") => "X",
        Some("notSelected") => "–",
        Some("noLocalEndpoint") => "E",
        _ => match row["rank"].as_u64() {
            Some(2) => "2",
            Some(3) => "3",
            _ => "·",
        },
    }
}

/// The full map as drawn: per node, per IP column, the mark.
fn drawn_map(html: &str) -> (Vec<String>, Vec<(String, Vec<String>)>) {
    let table = between(html, "<table class=\"map\">", "</table>");
    let ips = table
        .split("<th class=\"ip\" scope=\"col\"><span>")
        .skip(1)
        .map(|t| t[..t.find('<').unwrap()].to_string())
        .collect();
    let body = between(table, "<tbody>", "</tbody>");
    let rows = body
        .split("<tr>")
        .skip(1)
        .map(|row| {
            let node = between(row, "<th scope=\"row\">", "</th>").to_string();
            let marks = row.split("<td ").skip(1).map(|c| between(c, ">", "</td>").to_string()).collect();
            (node, marks)
        })
        .collect();
    (ips, rows)
}

#[test]
fn the_map_draws_each_nodes_first_filter_as_the_json_rows_say() {
    // Twelve nodes: elections with more candidates than the three ranks a brief report keeps.
    let dir = tempfile::tempdir().unwrap();
    let twelve = dir.path().join("twelve.json");
    let generated = Command::new("python3")
        .arg(format!("{ROOT}/scripts/gen-synthetic.py"))
        .args(["--nodes", "12", "--services", "8", "--pools", "2", "--advertisements", "2", "--seed", "7", "--out"])
        .arg(&twelve)
        .output()
        .expect("python3 runs scripts/gen-synthetic.py");
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    let twelve = twelve.display().to_string();
    let cases: &[&[&str]] = &[
        &["check", "--from", &twelve],
        &["check", "--from", "testdata/scenarios/speaker-not-ready.yaml"],
        &["check", "--demo", "trap"],
        &["check", "--demo", "healthy"],
        &["check", "--from", "testdata/scenarios/network-unavailable.yaml"],
        &["check", "--from", "testdata/scenarios/etp-local-no-candidate-endpoint.yaml"],
        &["check", "--from", "testdata/scenarios/single-candidate.yaml"],
        &["check", "--from", "testdata/scenarios/memberlist-disabled-dead-winner.yaml"],
        &["check", "--from", "testdata/scenarios/release-v0-14-9-cordoned.yaml"],
        &["check", "--from", "testdata/scenarios/no-serving-endpoints.yaml"],
        &["check", "--from", "testdata/scenarios/preferred-node.yaml"],
        &["check", "--from", "testdata/scenarios/alloc-sharing-conflict.yaml"],
    ];
    let mut kinds = std::collections::BTreeSet::new();
    for args in cases {
        let html = page(args);
        let mut all = args.to_vec();
        all.extend(["-o", "json", "--nodes", "all"]);
        let (report, _) = json(&all);
        let (ips, rows) = drawn_map(&html);
        assert!(!ips.is_empty(), "{args:?}: no map");
        for (col, ip) in ips.iter().enumerate() {
            let services: Vec<&serde_json::Value> = report["services"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["metallb"]["layer2"]["ip"] == ip.as_str())
                .collect();
            assert!(!services.is_empty(), "{args:?}: {ip}");
            for (node, marks) in &rows {
                let per_service: Vec<&str> = services
                    .iter()
                    .map(|s| {
                        let row = s["metallb"]["layer2"]["nodes"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .find(|r| r["node"] == node.as_str());
                        expected_mark(row.unwrap_or_else(|| panic!("{args:?}: {node} has no row for {ip}")))
                    })
                    .collect();
                // ARP answers per IP: a node announcing any Service on it answers.
                let expected = if per_service.contains(&"●") { "●" } else { per_service[0] };
                assert_eq!(marks[col], expected, "{args:?}: {node} × {ip}");
                kinds.insert(expected);
            }
        }
    }
    // The cases cover what the map can say.
    for mark in ["●", "○", "2", "·", "S", "N", "C", "X", "–", "E", "∅"] {
        assert!(kinds.contains(mark), "no case draws {mark}: {kinds:?}");
    }
}

#[test]
fn a_map_too_large_to_draw_folds_to_a_column_per_pool() {
    // 60 nodes × 700 IPs is past the cells drawn one by one.
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("sixty.json");
    let generated = Command::new("python3")
        .arg(format!("{ROOT}/scripts/gen-synthetic.py"))
        .args(["--nodes", "60", "--services", "700", "--pools", "3", "--advertisements", "2", "--seed", "3", "--out"])
        .arg(&snap)
        .output()
        .expect("python3 runs scripts/gen-synthetic.py");
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    let args = ["check", "--from", snap.to_str().unwrap()];
    let html = page(&args);
    assert!(!html.contains("<table class=\"map\">"), "drawn cell by cell");
    let table = between(&html, "<table class=\"map folded\">", "</table>");
    let pools: Vec<&str> = table.split("<a href=\"#pool-").skip(1).map(|t| &t[..t.find('"').unwrap()]).collect();
    // What the JSON says each node answers for, per pool: distinct IPs.
    let (report, _) = json(&["check", "--from", snap.to_str().unwrap(), "-o", "json"]);
    let mut answered: std::collections::BTreeMap<(String, String), std::collections::BTreeSet<String>> =
        Default::default();
    for s in report["services"].as_array().unwrap() {
        let (Some(pool), Some(ip)) = (s["metallb"]["pool"].as_str(), s["metallb"]["layer2"]["ip"].as_str()) else {
            continue;
        };
        let announcer = s["announcer"].as_str().unwrap();
        answered.entry((announcer.to_string(), pool.to_string())).or_default().insert(ip.to_string());
    }
    let body = between(table, "<tbody>", "</tbody>");
    let mut total = 0;
    for row in body.split("<tr>").skip(1) {
        let node = between(row, "<th scope=\"row\">", "</th>");
        let marks: Vec<&str> = row.split("<td ").skip(1).map(|c| between(c, ">", "</td>")).collect();
        assert_eq!(marks.len(), pools.len(), "{node}");
        for (pool, mark) in pools.iter().zip(marks) {
            let n = answered.get(&(node.to_string(), pool.to_string())).map_or(0, |s| s.len());
            if n > 0 {
                assert_eq!(mark, n.to_string(), "{node} × {pool}");
            } else {
                assert!(mark.parse::<usize>().is_err(), "{node} × {pool}: {mark}");
            }
            total += n;
        }
    }
    assert!(total > 600, "the nodes answer for most IPs: {total}");
    // Every pool's IPs are listed under it.
    for pool in pools {
        assert!(html.contains(&format!("<details class=\"pool\" id=\"pool-{pool}\">")), "{pool}");
    }
}

#[test]
fn one_service_shows_its_funnel_and_both_sides() {
    let cases: &[&[&str]] = &[
        &["explain", "svc", "grafana", "-n", "default", "--demo", "trap"],
        &["explain", "svc", "traefik", "-n", "default", "--demo", "healthy"],
        &["explain", "svc", "pihole-dns-tcp", "-n", "home", "--demo", "healthy"],
        &["explain", "svc", "web", "-n", "default", "--from", "testdata/scenarios/network-unavailable.yaml"],
        &["explain", "svc", "web", "-n", "default", "--from", "testdata/scenarios/speaker-not-ready.yaml"],
    ];
    for args in cases {
        let html = page(args);
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        let (report, _) = json(&all);
        let l2 = &report["services"][0]["metallb"]["layer2"];
        let total = report["nodes"].as_array().unwrap().len();
        // The funnel's words: every node, each filter with what it removes, then the winner.
        let caption = between(&html, "<figcaption>", "</figcaption>");
        assert!(caption.starts_with(&format!("{total} nodes; ")), "{args:?}: {caption}");
        let winner = l2["expectedAnnouncer"].as_str();
        match winner {
            Some(w) => {
                assert!(caption.ends_with(&format!("{} available, {w} wins.", l2["available"])), "{args:?}: {caption}")
            }
            None => assert!(caption.ends_with("nobody is elected."), "{args:?}: {caption}"),
        }
        // Each filter's step leaves what the one before left less what it removes, and the last
        // leaves the available set the election ranks (computed apart, from the candidates).
        let steps: Vec<(usize, usize)> = caption
            .split("; ")
            .filter_map(|s| s.split_once(" removes "))
            .map(|(_, rest)| {
                let (removed, left) = rest.split_once(", ").unwrap();
                (removed.parse().unwrap(), left.trim_end_matches(" left").parse().unwrap())
            })
            .collect();
        let mut left = total;
        for (removed, after) in &steps {
            left -= removed;
            assert_eq!(*after, left, "{args:?}: {caption}");
        }
        if l2["emptiedBy"] != "noServingEndpoint" {
            assert_eq!(left as u64, l2["available"].as_u64().unwrap(), "{args:?}: {caption}");
        }
        // Expected beside observed.
        let compare = between(&html, "<table class=\"compare\">", "</table>");
        let announcer = between(compare, "<th scope=\"row\">Announcer</th>", "</tr>");
        assert!(announcer.contains(&format!(">{}<", winner.unwrap_or("&lt;none&gt;"))), "{args:?}: {announcer}");
        if let Some(actual) = l2["actualAnnouncers"].as_array() {
            for node in actual {
                assert!(announcer.contains(node.as_str().unwrap()), "{args:?}: {announcer}");
            }
        }
        // Every node has its row.
        let rows = between(&html, "<h2 id=\"nodes\">", "</table>").matches("<tr>").count() - 1;
        assert_eq!(rows, total, "{args:?}");
    }
}

#[test]
fn the_history_heatmap_counts_what_the_json_counts() {
    let args = HISTORY_PAGES[0];
    let html = page(args);
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    let (h, _) = json(&all);
    // Every IP × day cell says its count in its title; the JSON has it by IP and day.
    let heat = between(&html, "<h2 id=\"heatmap\">", "</table>");
    let mut cells = 0;
    for ip in h["ips"].as_array().unwrap() {
        let name = ip["ip"].as_str().unwrap();
        let by_day = ip["ownerChangesByDay"].as_object().unwrap();
        for title in heat.split(&format!("title=\"{name} on ")).skip(1) {
            let (day, rest) = title.split_once(": ").unwrap();
            let n: u64 = rest[..rest.find(' ').unwrap()].parse().unwrap();
            assert_eq!(n, by_day.get(day).and_then(|v| v.as_u64()).unwrap_or(0), "{name} on {day}");
            cells += 1;
        }
    }
    let days = between(heat, "<thead>", "</thead>").matches("class=\"day").count();
    assert_eq!(cells, days * h["ips"].as_array().unwrap().len(), "a cell per IP and day");
    // The day the configuration took the flapping node out is marked, on both tables.
    let fixed = h["flapping"][0]["fixed"]["at"].as_str().unwrap();
    assert_eq!(h["flapping"][0]["fixed"]["byConfigurationChange"], true);
    let marked: Vec<&str> =
        html.split("<th class=\"day changed\"").skip(1).map(|t| between(t, "<span>", " ⚑")).collect();
    assert_eq!(marked, [&fixed[5..10], &fixed[5..10]], "{fixed}");
    // Departures and rejoins per node and day, as the JSON's day rows.
    let churn = between(&html, "<h2 id=\"churn\">", "</table>");
    for row in h["days"].as_array().unwrap() {
        let (node, day) = (row["node"].as_str().unwrap(), row["day"].as_str().unwrap());
        let (left, rejoined, started) =
            (row["departures"].as_u64().unwrap(), row["rejoins"].as_u64().unwrap(), row["starts"].as_u64().unwrap());
        if left + rejoined + started == 0 {
            continue;
        }
        let failed = row["failed"].as_u64().unwrap();
        let cell = format!(
            "title=\"{node} on {day}: left {left} times ({failed} marked failed), rejoined {rejoined}, started {started},"
        );
        assert!(churn.contains(&cell), "{cell}");
    }
}

#[test]
fn the_cilium_map_draws_each_nodes_part_in_the_lease_as_the_json_rows_say() {
    let cases = [
        "testdata/scenarios/cilium-l2-findings.yaml",
        "testdata/scenarios/cilium-l2-holder-agent-lost.yaml",
        "testdata/scenarios/cilium-l2-renew-overdue.yaml",
        "testdata/scenarios/cilium-l2-shared-ip.yaml",
        "testdata/scenarios/metallb-and-cilium-l2.yaml",
    ];
    let mut kinds = std::collections::BTreeSet::new();
    for file in cases {
        let html = page(&["check", "--from", file]);
        let (report, _) = json(&["check", "--from", file, "-o", "json", "--nodes", "all"]);
        let table = between(&html, "<table class=\"map cilium\">", "</table>");
        let ips: Vec<&str> =
            table.split("<th class=\"ip\" scope=\"col\"><span>").skip(1).map(|t| &t[..t.find('<').unwrap()]).collect();
        assert!(!ips.is_empty(), "{file}");
        let body = between(table, "<tbody>", "</tbody>");
        for row in body.split("<tr>").skip(1) {
            let node = between(row, "<th scope=\"row\">", "</th>");
            let marks: Vec<&str> = row.split("<td ").skip(1).map(|c| between(c, ">", "</td>")).collect();
            for (ip, mark) in ips.iter().zip(marks) {
                let per_service: Vec<&str> = report["services"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|s| s["cilium"]["l2"].as_object())
                    .filter(|l2| {
                        l2["lbAddresses"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .chain(l2["externalAddresses"].as_array().unwrap())
                            .any(|a| a == ip)
                    })
                    .map(|l2| {
                        let row =
                            l2["nodes"].as_array().unwrap().iter().find(|r| r["node"] == node).expect("a row per node");
                        if l2["announcer"] == node {
                            "●"
                        } else {
                            match row["excludedBy"][0].as_str() {
                                Some("notSelectedByPolicy") => "P",
                                Some("noLocalEndpoint") => "E",
                                Some("agentNotReady") => "A",
                                _ => "◇",
                            }
                        }
                    })
                    .collect();
                let expected = if per_service.contains(&"●") { "●" } else { per_service[0] };
                assert_eq!(mark, expected, "{file}: {node} × {ip}");
                kinds.insert(expected);
            }
        }
    }
    for mark in ["●", "◇", "P"] {
        assert!(kinds.contains(mark), "no case draws {mark}: {kinds:?}");
    }
}

/// The Services table as the browser left it: each row's name and whether it shows, in order.
fn table_rows(dom: &str) -> Vec<(String, bool)> {
    let table = between(dom, "id=\"services-table\"", "</table>");
    let body = between(table, "<tbody>", "</tbody>");
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let shown = !row[..row.find('>').unwrap()].contains("hidden");
            (between(row, "<td class=\"mono\">", "</td>").to_string(), shown)
        })
        .collect()
}

#[test]
fn the_table_sorts_and_filters_as_a_link_asks() {
    let Some(chromium) = require_chromium("the_table_sorts_and_filters_as_a_link_asks") else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.html");
    std::fs::write(&path, page(&["check", "--demo", "healthy"])).unwrap();
    let (report, _) = json(&["check", "--demo", "healthy", "-o", "json"]);
    let services = report["services"].as_array().unwrap();
    let names_where = |keep: &dyn Fn(&serde_json::Value) -> bool| -> std::collections::BTreeSet<String> {
        services.iter().filter(|s| keep(s)).map(|s| s["name"].as_str().unwrap().to_string()).collect()
    };
    let cases: [(&str, std::collections::BTreeSet<String>); 3] = [
        ("#services?namespace=home&sort=Name&order=desc", names_where(&|s| s["namespace"] == "home")),
        ("#services?status=error", names_where(&|s| s["status"] == "error")),
        (
            "#services?finding=LBD104",
            names_where(&|s| s["findings"].as_array().unwrap().iter().any(|f| f["code"] == "LBD104")),
        ),
    ];
    for (i, (fragment, expected)) in cases.iter().enumerate() {
        assert!(!expected.is_empty() && expected.len() < services.len(), "{fragment}: a filter that keeps some rows");
        let run_dir = dir.path().join(format!("run-{i}"));
        std::fs::create_dir(&run_dir).unwrap();
        let opened = open_at(&chromium, &path, fragment, &run_dir);
        assert!(opened.console.is_empty(), "{fragment}: {:?}", opened.console);
        let rows = table_rows(&opened.dom);
        assert_eq!(rows.len(), services.len(), "{fragment}");
        let shown: std::collections::BTreeSet<String> = rows.iter().filter(|r| r.1).map(|r| r.0.clone()).collect();
        assert_eq!(&shown, expected, "{fragment}");
        assert!(opened.dom.contains(&format!("{} shown</output>", expected.len())), "{fragment}");
        if fragment.contains("order=desc") {
            let order: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
            let mut descending = order.clone();
            descending.sort_by(|a, b| b.cmp(a));
            assert_eq!(order, descending, "{fragment}");
        }
    }
}

#[test]
fn spof_lists_each_node_that_alone_darkens_ips() {
    let args = ["check", "--spof", "--demo", "healthy"];
    let html = page(&args);
    let (report, _) = json(&["check", "--spof", "--demo", "healthy", "-o", "json"]);
    let nodes = report["spof"].as_array().unwrap();
    assert!(!nodes.is_empty(), "the demo has single points of failure");
    let table = between(&html, "<h2 id=\"spof\">", "</table>");
    let rows: Vec<&str> = between(table, "<tbody>", "</tbody>").split("<tr>").skip(1).collect();
    assert_eq!(rows.len(), nodes.len());
    for (row, node) in rows.iter().zip(nodes) {
        assert!(
            row.starts_with(&format!(
                "<td class=\"mono\">{}</td><td>{}</td>",
                node["node"].as_str().unwrap(),
                node["ips"]
            )),
            "{row}"
        );
        for loss in node["losses"].as_array().unwrap() {
            let svc = format!("{}/{}", loss["namespace"].as_str().unwrap(), loss["name"].as_str().unwrap());
            assert!(row.contains(&svc), "{row}: {svc}");
        }
    }
    // Without --spof the section is absent.
    assert!(!page(&["check", "--demo", "healthy"]).contains("id=\"spof\""));
}
