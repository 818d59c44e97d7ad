//! Bundles: MetalLB's troubleshooting report (built here as its collector builds it: `kubectl get
//! -o yaml` Lists under `report/crds/`, one directory per Pod with its `kubectl logs`, then `tar cfvz
//! metallb_report.tgz ./report`), its unpacked tree, a zip, and hostile archives.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read as _, Write};
use std::path::{Path, PathBuf};

use crate::util::run;

/// The history test cluster, split as a MetalLB report and what the report lacks.
const CLUSTER: &str = "testdata/history/cluster.yaml";
const LOGS: &str = "testdata/history/logs";

/// The collector's CRD files: `kubectl get KIND -n metallb-system -o yaml`, one per kind, empty
/// Lists included.
const CRD_FILES: [(&str, &str); 6] = [
    ("bgppeers", "BGPPeer"),
    ("bfdprofiles", "BFDProfile"),
    ("bgpAdvertisements", "BGPAdvertisement"),
    ("ipaddresspools", "IPAddressPool"),
    ("l2advertisements", "L2Advertisement"),
    ("communities", "Community"),
];

fn documents(text: &str) -> Vec<String> {
    text.split("\n---\n").skip(1).map(|d| d.trim_end().to_string() + "\n").collect()
}

fn kind_of(doc: &str) -> &str {
    doc.lines().find_map(|l| l.strip_prefix("kind: ")).unwrap_or("")
}

/// As `kubectl get -o yaml` writes a List.
fn kubectl_list(docs: &[&String]) -> String {
    if docs.is_empty() {
        return "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n".into();
    }
    format!(
        "apiVersion: v1\nitems:\n{}kind: List\nmetadata:\n  resourceVersion: \"\"\n",
        items(docs.iter().map(|d| d.as_str()))
    )
}

/// Documents as the entries of a block sequence at the margin, as kubectl writes a List's `items`.
fn items<'a>(docs: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for doc in docs {
        for (i, line) in doc.lines().enumerate() {
            out.push_str(if i == 0 {
                "- "
            } else if line.is_empty() {
                ""
            } else {
                "  "
            });
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The report's entries (path under `./report/`, contents), and the objects it lacks as one file.
fn report_entries() -> (Vec<(String, Vec<u8>)>, String) {
    report_entries_of(CLUSTER, Path::new(LOGS))
}

pub(crate) fn report_entries_of(cluster: &str, logs: &Path) -> (Vec<(String, Vec<u8>)>, String) {
    let text = std::fs::read_to_string(cluster).unwrap();
    let docs = documents(&text);
    let mut entries = Vec::new();
    for (file, kind) in CRD_FILES {
        let of_kind: Vec<&String> = docs.iter().filter(|d| kind_of(d) == kind).collect();
        entries.push((format!("crds/{file}.yaml"), kubectl_list(&of_kind).into_bytes()));
    }
    let mut logs: Vec<PathBuf> = std::fs::read_dir(logs).unwrap().map(|e| e.unwrap().path()).collect();
    logs.sort();
    for log in logs {
        let pod = log.file_stem().unwrap().to_string_lossy().into_owned();
        entries.push((format!("pods/{pod}/speaker.log"), std::fs::read(&log).unwrap()));
    }
    entries.push((
        "pods/controller-6f9c8d7b5-xk2lp/controller.log".into(),
        b"{\"caller\":\"main.go:159\",\"level\":\"info\",\"msg\":\"MetalLB controller starting version 0.16.1\"}\n"
            .to_vec(),
    ));
    let crd_kinds: Vec<&str> = CRD_FILES.iter().map(|(_, k)| *k).collect();
    let rest: String = docs.iter().filter(|d| !crd_kinds.contains(&kind_of(d))).map(|d| format!("---\n{d}")).collect();
    (entries, rest)
}

pub(crate) fn tgz(path: &Path, entries: &[(String, Vec<u8>)]) {
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    for (name, data) in entries {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, format!("./report/{name}"), data.as_slice()).unwrap();
    }
    tar.into_inner().unwrap().finish().unwrap();
}

/// `history -o json` without the parts that name where logs and objects were read.
fn history(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["history", "-o", "json"];
    all.extend_from_slice(args);
    let (stdout, stderr, code) = run(&all);
    assert_eq!(code, 0, "{stderr}");
    let mut report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    report.as_object_mut().unwrap().remove("source");
    for log in report["logs"].as_array_mut().unwrap() {
        log.as_object_mut().unwrap().remove("source");
    }
    report
}

#[test]
fn metallb_report_bundle_answers_as_the_files_and_logs_it_came_from() {
    let d = tempfile::tempdir().unwrap();
    let (entries, rest) = report_entries();
    let bundle = d.path().join("metallb_report.tgz");
    tgz(&bundle, &entries);
    let rest_path = d.path().join("cluster.yaml");
    std::fs::write(&rest_path, rest).unwrap();
    let (bundle, rest_path) = (bundle.to_str().unwrap(), rest_path.to_str().unwrap());

    let want = history(&["--from", CLUSTER, "--logs", LOGS]);
    assert!(want["flapping"].as_array().is_some_and(|f| !f.is_empty()), "the story has a flapping node");
    assert_eq!(history(&["--from", bundle, "--from", rest_path]), want, "the bundle's speaker logs stand for --logs");

    // The same, unpacked as `tar xzf` leaves it.
    let tree = d.path().join("unpacked");
    for (name, data) in &entries {
        let path = tree.join("report").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, data).unwrap();
    }
    let tree = tree.to_str().unwrap();
    assert_eq!(history(&["--from", tree, "--from", rest_path]), want, "the unpacked tree reads as the archive");

    // check reads the configuration from the bundle and says what it read.
    let (stdout, stderr, code) = run(&["check", "--from", bundle, "--from", rest_path, "-o", "json"]);
    assert!(code <= 1, "{stderr}");
    let (want_check, _, _) = run(&["check", "--from", CLUSTER, "-o", "json"]);
    let strip = |s: &str| {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        v.as_object_mut().unwrap().remove("source");
        v
    };
    let source: serde_json::Value = serde_json::from_str::<serde_json::Value>(&stdout).unwrap()["source"].clone();
    assert_eq!(
        source["bundles"],
        serde_json::json!([{"path": bundle, "layout": "metallbReport", "objectFiles": 6, "speakerLogs": 8,
            "controllerLogs": 1, "frrViews": 0, "notRead": []}])
    );
    assert_eq!(strip(&stdout), strip(&want_check));
    // The page says what it was read from.
    let (page, _, _) = run(&["check", "--from", bundle, "--from", rest_path, "-o", "html"]);
    assert!(
        page.contains("(metallbReport): 6 object files, 8 speaker logs, 1 controller logs, 0 FRR views"),
        "no bundle line"
    );
    assert!(
        stderr.contains(&format!(
            "note: {bundle}: MetalLB's troubleshooting report: read 6 object files, 8 speaker logs, 1 controller log"
        )),
        "{stderr}"
    );
}

#[test]
fn a_report_alone_says_what_it_lacks_and_the_command_that_captures_it() {
    let d = tempfile::tempdir().unwrap();
    let (entries, _) = report_entries();
    let bundle = d.path().join("metallb_report.tgz");
    tgz(&bundle, &entries);
    let bundle = bundle.to_str().unwrap();
    let (stdout, stderr, code) = run(&["check", "--from", bundle]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(stdout.is_empty());
    for part in [
        "is MetalLB's troubleshooting report: it holds no nodes, services, endpointslices or pods",
        "kubectl get nodes,services,endpointslices,pods -A -o yaml > cluster.yaml",
        &format!("kubectl lbdoctor check --from {bundle} --from cluster.yaml"),
    ] {
        assert!(stderr.contains(part), "{part}: {stderr}");
    }
}

/// A report from a v0.13 installation: its speakers write the same records (go-kit JSON, the
/// same `msg` texts and keys from v0.13.0 to v0.16.1), and the release is told from the Pods'
/// images as ever.
#[test]
fn a_report_from_an_older_release_reads_as_its_files_do() {
    let d = tempfile::tempdir().unwrap();
    let older = |text: &str| text.replace("v0.16.1", "v0.13.12").replace("0.16.1", "0.13.12");
    let cluster = d.path().join("v013.yaml");
    std::fs::write(&cluster, older(&std::fs::read_to_string(CLUSTER).unwrap())).unwrap();
    let logs = d.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    for e in std::fs::read_dir(LOGS).unwrap() {
        let path = e.unwrap().path();
        std::fs::write(logs.join(path.file_name().unwrap()), older(&std::fs::read_to_string(&path).unwrap())).unwrap();
    }
    let cluster = cluster.to_str().unwrap();
    let (entries, rest) = report_entries_of(cluster, &logs);
    assert!(entries
        .iter()
        .any(|(_, data)| String::from_utf8_lossy(data).contains("MetalLB speaker starting version 0.13.12")));
    let bundle = d.path().join("metallb_report.tgz");
    tgz(&bundle, &entries);
    let rest_path = d.path().join("rest.yaml");
    std::fs::write(&rest_path, rest).unwrap();
    let args = ["--from", bundle.to_str().unwrap(), "--from", rest_path.to_str().unwrap()];
    let want = history(&["--from", cluster, "--logs", logs.to_str().unwrap()]);
    assert_eq!(history(&args), want);
    let (stdout, stderr, _) = run(&["check", args[0], args[1], args[2], args[3], "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    assert_eq!(report["source"]["metallb"]["behaviour"], "v0.13.12", "{}", report["source"]["metallb"]);
}

/// The report zipped, and an archive under a name that does not say what it is.
#[test]
fn zip_and_renamed_archives_are_told_by_their_bytes() {
    let d = tempfile::tempdir().unwrap();
    let (entries, rest) = report_entries();
    let rest_path = d.path().join("cluster.yaml");
    std::fs::write(&rest_path, rest).unwrap();
    let zip_path = d.path().join("report.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    for (name, data) in &entries {
        zip.start_file(format!("report/{name}"), zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap();
    let renamed = d.path().join("attachment.bin");
    tgz(&renamed, &entries);
    let want = history(&["--from", CLUSTER, "--logs", LOGS]);
    for archive in [&zip_path, &renamed] {
        let got = history(&["--from", archive.to_str().unwrap(), "--from", rest_path.to_str().unwrap()]);
        assert_eq!(got, want, "{}", archive.display());
    }
    // Piped in: `curl … | kubectl lbdoctor history --from - --from cluster.yaml`.
    let (stdout, stderr, code) = crate::util::output(
        crate::util::lbdoctor()
            .args(["history", "-o", "json", "--from", "-", "--from", rest_path.to_str().unwrap()])
            .write_stdin(std::fs::read(&renamed).unwrap()),
    );
    assert_eq!(code, 0, "{stderr}");
    let mut got: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    got.as_object_mut().unwrap().remove("source");
    for log in got["logs"].as_array_mut().unwrap() {
        log.as_object_mut().unwrap().remove("source");
    }
    assert_eq!(got, want, "from standard input");
    assert!(stderr.contains("note: <stdin>: MetalLB's troubleshooting report"), "{stderr}");
}

/// A raw tar entry: `name` written into the header as is (tar::Builder refuses `..` itself).
fn raw_entry(tar: &mut tar::Builder<impl Write>, name: &[u8], kind: tar::EntryType, link: Option<&str>, data: &[u8]) {
    let mut header = tar::Header::new_gnu();
    header.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name);
    header.set_entry_type(kind);
    if let Some(link) = link {
        header.set_link_name(link).unwrap();
    }
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append(&header, data).unwrap();
}

fn refused(path: &Path) -> String {
    let (stdout, stderr, code) = run(&["check", "--from", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{}: {stdout}{stderr}", path.display());
    stderr
}

#[test]
fn hostile_archives_are_refused_with_what_is_wrong() {
    let d = tempfile::tempdir().unwrap();
    let node = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n";
    /// What, the entry's name, its type, its link target, and what the refusal says.
    type Case<'a> = (&'a str, &'a [u8], tar::EntryType, Option<&'a str>, &'a str);
    let cases: [Case; 5] = [
        ("traversal", b"report/../../evil.yaml", tar::EntryType::Regular, None, "points outside the bundle"),
        ("absolute", b"/etc/evil.yaml", tar::EntryType::Regular, None, "points outside the bundle"),
        (
            "symlink",
            b"report/crds/l2advertisements.yaml",
            tar::EntryType::Symlink,
            Some("/etc/shadow"),
            "is a link (to /etc/shadow)",
        ),
        (
            "hardlink",
            b"report/crds/ipaddresspools.yaml",
            tar::EntryType::Link,
            Some("/etc/passwd"),
            "is a link (to /etc/passwd)",
        ),
        (
            "fine-then-traversal",
            b"./report/./crds/../../../x.yaml",
            tar::EntryType::Regular,
            None,
            "points outside the bundle",
        ),
    ];
    for (what, name, kind, link, expect) in cases {
        let path = d.path().join(format!("{what}.tar"));
        let mut tar = tar::Builder::new(std::fs::File::create(&path).unwrap());
        let data: &[u8] = if link.is_some() { b"" } else { node };
        raw_entry(&mut tar, name, kind, link, data);
        tar.into_inner().unwrap().flush().unwrap();
        let stderr = refused(&path);
        assert!(stderr.contains(expect), "{what}: {stderr}");
    }

    // A header that claims a size no collector writes: refused before anything is read.
    let path = d.path().join("huge.tar");
    let mut bytes = Vec::new();
    {
        let mut tar = tar::Builder::new(&mut bytes);
        raw_entry(&mut tar, b"report/crds/x.yaml", tar::EntryType::Regular, None, node);
    }
    // Rewrite the size field (octal, at 124) to 8 GiB and fix the checksum.
    bytes[124..136].copy_from_slice(b"77777777777\0");
    let mut header = tar::Header::new_gnu();
    header.as_mut_bytes().copy_from_slice(&bytes[..512]);
    header.set_cksum();
    bytes[..512].copy_from_slice(header.as_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let stderr = refused(&path);
    assert!(stderr.contains("is 8589934591 bytes, more than the"), "{stderr}");

    // A compression bomb: 100 MB of zeros, about 100 KB packed.
    let path = d.path().join("bomb.tgz");
    let gz = flate2::write::GzEncoder::new(std::fs::File::create(&path).unwrap(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(gz);
    let mut header = tar::Header::new_gnu();
    let size = 100u64 << 20;
    header.set_size(size);
    header.set_mode(0o644);
    header.set_cksum();
    tar.append_data(&mut header, "report/pods/speaker-a/speaker.log", std::io::repeat(0).take(size)).unwrap();
    tar.into_inner().unwrap().finish().unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
    let stderr = refused(&path);
    assert!(stderr.contains("a compression bomb"), "{stderr}");

    // Not an archive after all: a gzip of one file.
    let path = d.path().join("one.yaml.gz");
    let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(&path).unwrap(), flate2::Compression::fast());
    gz.write_all(node).unwrap();
    gz.finish().unwrap();
    let stderr = refused(&path);
    assert!(stderr.contains("a gzip of one file, not a tar archive"), "{stderr}");
}

/// A Cilium sysdump as `cilium sysdump` writes it: a zip of `cilium-sysdump-<ts>/`, one file per
/// kind, written from client-go's typed Lists (no apiVersion or kind on the List or its items),
/// among files that hold no objects at all.
#[test]
fn cilium_sysdump_reads_its_typed_lists_and_says_it_lacks_endpointslices() {
    const SCENARIO: &str = "testdata/scenarios/cilium-l2-findings.yaml";
    const TS: &str = "20261206-101500";
    let files: [(&str, &str, bool); 9] = [
        ("Node", "k8s-nodes", true),
        ("Service", "k8s-services", true),
        ("Pod", "k8s-pods", true),
        ("Lease", "k8s-leases", true),
        ("CiliumNode", "ciliumnodes", true),
        ("CiliumLoadBalancerIPPool", "ciliumloadbalancerippools", true),
        ("CiliumL2AnnouncementPolicy", "ciliuml2announcementpolicies", true),
        ("ConfigMap", "cilium-configmap", false),
        ("Namespace", "k8s-namespaces", true),
    ];
    let text = std::fs::read_to_string(SCENARIO).unwrap();
    let docs = documents(&text);
    // As client-go returns them: no apiVersion or kind.
    let untyped = |doc: &str| -> String {
        doc.lines()
            .filter(|l| !l.starts_with("apiVersion:") && !l.starts_with("kind:"))
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
    let mut in_sysdump = Vec::new();
    for (kind, file, list) in files {
        let of_kind: Vec<&String> = docs.iter().filter(|d| kind_of(d) == kind).collect();
        in_sysdump.extend(of_kind.iter().map(|d| d.as_str()));
        let body = if list {
            let untyped: Vec<String> = of_kind.iter().map(|d| untyped(d)).collect();
            format!("items:\n{}metadata:\n  resourceVersion: \"48213\"\n", items(untyped.iter().map(String::as_str)))
        } else {
            let [doc] = of_kind[..] else { panic!("one {kind}") };
            untyped(doc)
        };
        entries.push((format!("{file}-{TS}.yaml"), body.into_bytes()));
    }
    // What a sysdump holds besides: Helm values, Hubble flows, agent logs, versions.
    entries.push((
        format!("cilium-helm-values-{TS}.yaml"),
        b"l2announcements:\n  enabled: true\nipam:\n  mode: kubernetes\n".to_vec(),
    ));
    entries
        .push((format!("hubble-flows-cilium-x7k2p-{TS}.json"), b"{\"flow\":{\"verdict\":\"FORWARDED\"}}\n".to_vec()));
    entries.push((format!("logs-cilium-x7k2p-cilium-agent-{TS}.log"), b"level=info msg=\"Starting\"\n".to_vec()));
    entries.push((format!("k8s-version-{TS}.txt"), b"v1.33.4\n".to_vec()));
    let rest: String = docs.iter().filter(|d| !in_sysdump.contains(&d.as_str())).map(|d| format!("---\n{d}")).collect();
    assert!(rest.contains("kind: EndpointSlice"), "the scenario has what the sysdump lacks");

    let d = tempfile::tempdir().unwrap();
    let sysdump = d.path().join(format!("cilium-sysdump-{TS}.zip"));
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&sysdump).unwrap());
    for (name, data) in &entries {
        zip.start_file(format!("cilium-sysdump-{TS}/{name}"), zip::write::SimpleFileOptions::default()).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap();
    let rest_path = d.path().join("endpointslices.yaml");
    std::fs::write(&rest_path, rest).unwrap();
    let (sysdump, rest_path) = (sysdump.to_str().unwrap(), rest_path.to_str().unwrap());

    let (stdout, stderr, code) = run(&["check", "--from", sysdump]);
    assert_eq!(code, 3, "{stdout}{stderr}");
    assert!(stderr.contains("is a Cilium sysdump: it holds no endpointslices"), "{stderr}");
    assert!(stderr.contains("kubectl get endpointslices -A -o yaml > cluster.yaml"), "{stderr}");

    let strip = |s: &str| {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        v.as_object_mut().unwrap().remove("source");
        v
    };
    let (stdout, stderr, code) = run(&["check", "--from", sysdump, "--from", rest_path, "-o", "json"]);
    let (want, _, want_code) = run(&["check", "--from", SCENARIO, "-o", "json"]);
    assert_eq!(code, want_code, "{stderr}");
    assert_eq!(strip(&stdout), strip(&want));
    assert!(
        stderr.contains(&format!("note: {sysdump}: a Cilium sysdump: read 9 object files; 4 not read (")),
        "{stderr}"
    );
    assert!(stderr.contains(&format!("cilium-helm-values-{TS}.yaml: no Kubernetes objects (no `kind`)")), "{stderr}");
}

/// One node's BGP as MetalLB configures it: (vrf, local AS) → neighbour → prefixes.
type Routers = BTreeMap<(String, u64), BTreeMap<String, BTreeSet<String>>>;

/// What FRR 9 prints for a node whose speaker configured `routers`: (vrf, local AS) → neighbour
/// → the prefixes its outbound route-map lets through (MetalLB's template, as FRR renders it),
/// the BGP table of what it originates, and every session Established.
fn frr_dump(node: &str, routers: &Routers) -> String {
    let mut lists = String::new();
    let mut bgp = String::new();
    let mut originated = BTreeSet::new();
    for ((vrf, asn), neighbors) in routers {
        let vrf_part = if vrf.is_empty() { String::new() } else { format!(" vrf {vrf}") };
        bgp.push_str(&format!("router bgp {asn}{vrf_part}\n no bgp ebgp-requires-policy\n no bgp default ipv4-unicast\n no bgp network import-check\n"));
        let mut networks = BTreeSet::new();
        for (n, prefixes) in neighbors {
            bgp.push_str(&format!(" neighbor {n} remote-as external\n"));
            for (seq, p) in prefixes.iter().enumerate() {
                lists.push_str(&format!("ip prefix-list {n}-allowed-ipv4 seq {} permit {p}\n", seq + 1));
            }
            if prefixes.is_empty() {
                lists.push_str(&format!("ip prefix-list {n}-allowed-ipv4 seq 1 deny any\n"));
            }
            lists.push_str(&format!(
                "!\nroute-map {n}-out permit 1\n match ip address prefix-list {n}-allowed-ipv4\nexit\n!\n"
            ));
            networks.extend(prefixes.iter().cloned());
        }
        bgp.push_str(" !\n address-family ipv4 unicast\n");
        for p in &networks {
            bgp.push_str(&format!("  network {p}\n"));
        }
        for n in neighbors.keys() {
            bgp.push_str(&format!("  neighbor {n} activate\n  neighbor {n} route-map {n}-out out\n"));
        }
        bgp.push_str(" exit-address-family\nexit\n!\n");
        originated.extend(networks);
    }
    let mut table = String::from("BGP table version is 3, local router ID is 192.0.2.9, vrf id 0\nDefault local pref 100, local AS 64512\nStatus codes:  s suppressed, d damped, h history, * valid, > best, = multipath,\n               i internal, r RIB-failure, S Stale, R Removed\n\n    Network          Next Hop            Metric LocPrf Weight Path\n");
    for p in &originated {
        table.push_str(&format!(" *> {p:<16} 0.0.0.0                  0         32768 i\n"));
    }
    table.push_str(&format!("\nDisplayed  {} routes and {} total paths\n", originated.len(), originated.len()));
    let mut neighbors = String::new();
    for n in routers.values().flat_map(|r| r.keys()) {
        neighbors.push_str(&format!("BGP neighbor is {n}, remote AS 64512, local AS 64512, internal link\n  BGP version 4, remote router ID {n}, local router ID 192.0.2.9\n  BGP state = Established, up for 02:03:04\n"));
    }
    format!(
        "###### show running-config\nBuilding configuration...\n\nCurrent configuration:\n!\nfrr version 9.1_git\nhostname {node}\n!\n{lists}{bgp}end\n###### show bgp ipv4\n{table}###### show bgp ipv6\nNo BGP prefixes displayed, 0 exist\n###### show bgp neighbor\n{neighbors}###### show bfd peer\nBFD Peers:\n"
    )
}

/// FRR mode: each speaker's `frr/logs/dump_frr` is FRR's own view of its node. A dump that runs
/// what MetalLB configures says nothing; a lost prefix-list line and a session down are LBD226.
#[test]
fn frr_dumps_are_compared_with_what_metallb_configures() {
    const SCENARIO: &str = "testdata/scenarios/bgp-two-routers.yaml";
    let (stdout, _, _) = run(&["check", "--from", SCENARIO, "--nodes", "all", "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // Node → (vrf, AS) → neighbour → prefixes, from the sessions lbdoctor expects.
    let mut expected: BTreeMap<String, Routers> = BTreeMap::new();
    for svc in report["services"].as_array().unwrap() {
        for node in svc["metallb"]["bgp"]["nodes"].as_array().unwrap() {
            let routers = expected.entry(node["node"].as_str().unwrap().to_string()).or_default();
            for s in node["sessions"].as_array().unwrap() {
                let router =
                    routers.entry((s["vrf"].as_str().unwrap().into(), s["myASN"].as_u64().unwrap())).or_default();
                let prefixes = router.entry(s["address"].as_str().unwrap().into()).or_default();
                prefixes
                    .extend(s["routes"].as_array().unwrap().iter().map(|r| r["prefix"].as_str().unwrap().to_string()));
            }
        }
    }
    assert_eq!(expected.len(), 4);

    let text = std::fs::read_to_string(SCENARIO).unwrap();
    let docs: Vec<serde_json::Value> = text
        .split("\n---\n")
        .filter_map(|d| d.lines().find(|l| l.starts_with('{')))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let build = |edit: &dyn Fn(&str, String) -> String| -> (tempfile::TempDir, String, String) {
        let mut entries = Vec::new();
        for (file, kind) in CRD_FILES {
            let items: Vec<&serde_json::Value> = docs.iter().filter(|d| d["kind"] == kind).collect();
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {"resourceVersion": ""}});
            entries.push((format!("crds/{file}.yaml"), serde_saphyr::to_string(&list).unwrap().into_bytes()));
        }
        for (node, routers) in &expected {
            let pod = format!("speaker-{node}");
            entries.push((format!("pods/{pod}/speaker.log"), b"{\"level\":\"info\",\"msg\":\"x\"}\n".to_vec()));
            entries.push((format!("pods/{pod}/frr/logs/dump_frr"), edit(node, frr_dump(node, routers)).into_bytes()));
            entries.push((format!("pods/{pod}/frr/logs/daemons"), b"bgpd=yes\n".to_vec()));
        }
        let crd_kinds: Vec<&str> = CRD_FILES.iter().map(|(_, k)| *k).collect();
        let rest: Vec<&serde_json::Value> =
            docs.iter().filter(|d| !crd_kinds.contains(&d["kind"].as_str().unwrap())).collect();
        let d = tempfile::tempdir().unwrap();
        let bundle = d.path().join("metallb_report.tgz");
        tgz(&bundle, &entries);
        let rest_path = d.path().join("cluster.json");
        std::fs::write(
            &rest_path,
            serde_json::to_string(&serde_json::json!({"kind": "List", "apiVersion": "v1", "items": rest})).unwrap(),
        )
        .unwrap();
        let (b, r) = (bundle.to_str().unwrap().to_string(), rest_path.to_str().unwrap().to_string());
        (d, b, r)
    };
    let findings = |bundle: &str, rest: &str| -> (Vec<serde_json::Value>, String) {
        let (stdout, stderr, _) = run(&["check", "--from", bundle, "--from", rest, "-o", "json"]);
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
        let lbd226 = report["findings"].as_array().unwrap().iter().filter(|f| f["code"] == "LBD226").cloned().collect();
        (lbd226, stderr)
    };

    let (_d, bundle, rest) = build(&|_, dump| dump);
    let (clean, stderr) = findings(&bundle, &rest);
    assert_eq!(clean, Vec::<serde_json::Value>::new(), "{stderr}");
    assert!(stderr.contains("read 6 object files, 4 speaker logs, 4 nodes' FRR views"), "{stderr}");

    let (_d, bundle, rest) = build(&|node, dump| match node {
        "worker-a" => dump.replace(
            "ip prefix-list 192.0.2.254-allowed-ipv4 seq 1 permit 198.51.100.10/32\n",
            "ip prefix-list 192.0.2.254-allowed-ipv4 seq 1 deny any\n",
        ),
        "edge-1" => {
            let at = dump.find("BGP neighbor is 198.51.100.254").unwrap();
            let (head, tail) = dump.split_at(at);
            head.to_string() + &tail.replacen("BGP state = Established, up for 02:03:04\n", "BGP state = Active\n", 1)
        }
        _ => dump,
    });
    let (drift, stderr) = findings(&bundle, &rest);
    let messages: Vec<&str> = drift.iter().map(|f| f["message"].as_str().unwrap()).collect();
    assert_eq!(
        messages,
        [
            format!("FRR on edge-1 ({bundle}/report/pods/speaker-edge-1/frr/logs/dump_frr) does not run what MetalLB configures there: session with 198.51.100.254 (router AS 64512) is Active"),
            format!("FRR on worker-a ({bundle}/report/pods/speaker-worker-a/frr/logs/dump_frr) does not run what MetalLB configures there: missing prefix 198.51.100.10/32 for 192.0.2.254 (router AS 64512)"),
        ],
        "{stderr}"
    );
    assert_eq!(drift[0]["objects"], serde_json::json!(["Pod metallb-system/speaker-edge-1", "Node edge-1"]));
}

/// MetalLB's report and `kubectl get nodes,services,endpointslices,pods` hold no ServiceL2Status
/// and no Event: the speakers' logs say who announces, as history reads them.
#[test]
fn the_speakers_logs_say_who_announces_when_nothing_else_does() {
    let d = tempfile::tempdir().unwrap();
    let (entries, rest) = report_entries();
    let rest: String = rest
        .split("---\n")
        .filter(|doc| !doc.trim().is_empty() && !matches!(kind_of(doc), "ServiceL2Status" | "Event"))
        .map(|doc| format!("---\n{doc}"))
        .collect();
    let bundle = d.path().join("metallb_report.tgz");
    tgz(&bundle, &entries);
    let rest_path = d.path().join("cluster.yaml");
    std::fs::write(&rest_path, rest).unwrap();
    let (stdout, stderr, _) =
        run(&["check", "--from", bundle.to_str().unwrap(), "--from", rest_path.to_str().unwrap(), "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let owners: BTreeMap<String, String> = history(&["--from", CLUSTER, "--logs", LOGS])["ips"]
        .as_array()
        .unwrap()
        .iter()
        .map(|ip| (ip["ip"].as_str().unwrap().to_string(), ip["currentOwner"].as_str().unwrap().to_string()))
        .collect();
    let mut seen = 0;
    for svc in report["services"].as_array().unwrap() {
        let l2 = &svc["metallb"]["layer2"];
        let Some(ip) = l2["ip"].as_str() else { continue };
        assert_eq!(l2["actualSource"], "speakerLogs", "{svc}");
        assert_eq!(l2["actualAnnouncers"], serde_json::json!([owners[ip]]), "{ip}");
        seen += 1;
    }
    assert!(seen >= 8, "{seen} layer-2 Services");
}

/// The controller's log in a report is MetalLB's own word on a Service still waiting for an IP.
#[test]
fn the_controllers_logged_failure_stands_beside_the_expected_one() {
    const SCENARIO: &str = "testdata/scenarios/alloc-pool-exhausted.yaml";
    let controller = concat!(
        r#"{"caller":"service.go:179","error":"no available IPs","level":"error","msg":"IP allocation failed","op":"allocateIPs","ts":"2026-12-01T10:00:01Z"}"#,
        "\n",
        r#"{"caller":"service_controller.go:112","controller":"ServiceReconciler","event":"failed to handle service","level":"error","name":"default/new","ts":"2026-12-01T10:00:01Z"}"#,
        "\n",
        r#"{"caller":"service.go:179","error":"no available IPs","level":"error","msg":"IP allocation failed","op":"allocateIPs","ts":"2026-12-01T10:00:02Z"}"#,
        "\n",
        r#"{"caller":"service_controller.go:112","controller":"ServiceReconciler","event":"failed to handle service","level":"error","name":"default/app0","ts":"2026-12-01T10:00:02Z"}"#,
        "\n",
    );
    let entries = vec![("pods/controller-5c8d9b7f6-abcde/controller.log".to_string(), controller.as_bytes().to_vec())];
    let d = tempfile::tempdir().unwrap();
    let bundle = d.path().join("metallb_report.tgz");
    tgz(&bundle, &entries);
    let args = |svc: &'static str, out: &'static str| {
        vec!["explain", "svc", svc, "-n", "default", "--from", SCENARIO, "--from", bundle.to_str().unwrap(), "-o", out]
    };
    let (stdout, stderr, _) = run(&args("new", "json"));
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    let allocation = &report["services"][0]["allocation"];
    assert_eq!(
        allocation["controllerLog"],
        serde_json::json!({"at": "2026-12-01T10:00:01Z", "error": "no available IPs"})
    );
    assert_eq!(allocation["metallbEvent"]["message"], "Failed to allocate IP for \"default/new\": no available IPs");
    let (text, _, _) = run(&args("new", "table"));
    assert!(
        text.contains("MetalLB's controller logged at 2026-12-01T10:00:01Z: IP allocation failed: no available IPs"),
        "{text}"
    );
    // app0 holds its IP in the snapshot: an old failure is history, not shown.
    let (stdout, _, _) = run(&args("app0", "json"));
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["services"][0]["allocation"]["controllerLog"], serde_json::Value::Null);
}

/// `--fill-from-cluster`: what the report lacks is read from the cluster (here the fake API
/// server, holding the cluster the report came from), the rest stays the report's.
#[test]
fn fill_from_cluster_reads_what_the_report_lacks_and_nothing_else() {
    use crate::fakeapi::{objects_of, Behaviour, FakeApi};
    let api = FakeApi::start(objects_of(Path::new(CLUSTER)), Behaviour::default(), None);
    let d = tempfile::tempdir().unwrap();
    let kubeconfig = api.kubeconfig(d.path(), "fake", "default", "token");
    let (entries, _) = report_entries();
    let bundle = d.path().join("metallb_report.tgz");
    tgz(&bundle, &entries);
    let run_with = |args: &[&str]| {
        crate::util::output(crate::util::lbdoctor().env("KUBECONFIG", &kubeconfig).env("HOME", d.path()).args(args))
    };
    let (stdout, stderr, code) =
        run_with(&["check", "--from", bundle.to_str().unwrap(), "--fill-from-cluster", "-o", "json"]);
    let (want, _, want_code) = run(&["check", "--from", CLUSTER, "-o", "json"]);
    assert_eq!(code, want_code, "{stderr}");
    let got: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let want: serde_json::Value = serde_json::from_str(&want).unwrap();
    assert_eq!(got["summary"], want["summary"]);
    let verdicts = |r: &serde_json::Value| -> Vec<(String, String, serde_json::Value, serde_json::Value)> {
        r["services"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let l2 = &s["metallb"]["layer2"];
                (
                    s["name"].as_str().unwrap().into(),
                    s["status"].as_str().unwrap().into(),
                    l2["expectedAnnouncer"].clone(),
                    l2["actualAnnouncers"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(verdicts(&got), verdicts(&want));
    assert!(
        stderr.contains("note: nodes, services, endpointslices, pods read from the cluster (context fake) at "),
        "{stderr}"
    );
    // Toward the cluster: GETs only, of the lacking kinds among the rest of a live read.
    let requests = api.requests();
    assert!(requests.iter().all(|r| r.starts_with("GET ")), "{requests:?}");
    assert!(requests.iter().any(|r| r.contains("/api/v1/nodes")), "{requests:?}");
    assert!(!requests.iter().any(|r| r.contains("/secrets")), "{requests:?}");

    // Without it, the report alone still says what it lacks, and how to add it.
    let (_, stderr, code) = run_with(&["check", "--from", bundle.to_str().unwrap()]);
    assert_eq!(code, 3);
    assert!(stderr.contains("or add --fill-from-cluster to read them from the cluster kubectl reads now"), "{stderr}");
    // A complete input reads nothing from the cluster.
    let before = api.requests().len();
    let (_, stderr, _) = run_with(&["check", "--from", CLUSTER, "--fill-from-cluster"]);
    assert!(stderr.contains("no --from bundle lacks anything, so the cluster was not read"), "{stderr}");
    assert_eq!(api.requests().len(), before);
}
