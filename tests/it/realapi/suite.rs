//! The tests themselves. Each starts its own server (about 5 s), so they run in parallel.

use serde_json::Value;

use super::load;
use super::server::Server;
use crate::util::{json_differences, lbdoctor, output, parse_json};

/// A report with what only says where it came from left out: `source` (live or file, capture
/// time, context), and of the status writers (managedFields) the loader's own writes and the
/// times, which a server sets itself. Everything else must not depend on where it came from.
fn verdicts(mut report: Value) -> Value {
    report.as_object_mut().unwrap().remove("source");
    for svc in report["services"].as_array_mut().into_iter().flatten() {
        if let Some(writers) = svc["ownership"]["statusWriters"].as_array_mut() {
            writers.retain(|w| w["manager"] != load::MANAGER);
            for w in writers.iter_mut() {
                w.as_object_mut().unwrap().remove("time");
            }
        }
    }
    report
}

/// Fails naming every difference when two reports' verdicts (see `verdicts`) differ.
fn assert_same_verdicts(live: Value, other: Value, what: &str) {
    let diff = json_differences(&verdicts(live), &verdicts(other));
    assert!(diff.is_empty(), "{what} (live / other):\n{}", diff.join("\n"));
}

/// Loads `file` into a fresh server; the live `check -o json` must equal `check --from file`.
fn live_equals_file(test: &str, file: &str) -> Option<Server> {
    let server = Server::start(test)?;
    load::apply(&server, &load::objects(file));
    let (stdout, stderr, code) = server.lbdoctor(&["check", "-A", "-o", "json"]);
    let live = parse_json(&stdout, &stderr);
    let (fstdout, fstderr, fcode) = output(lbdoctor().args(["check", "-A", "-o", "json", "--from", file]));
    let from_file = parse_json(&fstdout, &fstderr);
    assert_same_verdicts(live.clone(), from_file, &format!("{file}: the live report differs from the file's"));
    assert_eq!(code, fcode, "{file}: exit codes differ; live stderr: {stderr}");
    assert_eq!(live["source"]["mode"], "live");
    Some(server)
}

/// `--fill-from-cluster` on a real API server: MetalLB's report of the homelab cluster (its
/// configuration; no speaker logs) with the Nodes, Services, EndpointSlices and Pods it lacks
/// read from the server gives the file's verdicts, announcers aside (the report holds no
/// ServiceL2Status, so the observed ones are unknown).
#[test]
fn a_report_filled_from_the_cluster_equals_the_file() {
    let file = crate::util::HOMELAB;
    let Some(server) = Server::start("a_report_filled_from_the_cluster_equals_the_file") else { return };
    load::apply(&server, &load::objects(file));
    let logs = tempfile::tempdir().unwrap();
    let (entries, _) = crate::bundle::report_entries_of(file, logs.path());
    let bundle = server.dir().join("metallb_report.tgz");
    crate::bundle::tgz(&bundle, &entries);
    let (stdout, stderr, code) =
        server.lbdoctor(&["check", "-A", "-o", "json", "--from", bundle.to_str().unwrap(), "--fill-from-cluster"]);
    let filled = parse_json(&stdout, &stderr);
    assert!(stderr.contains("nodes, services, endpointslices, pods read from the cluster"), "{stderr}");
    let (fstdout, fstderr, fcode) = output(lbdoctor().args(["check", "-A", "-o", "json", "--from", file]));
    let from_file = parse_json(&fstdout, &fstderr);
    let services = |r: &Value| -> Vec<(Value, Value, Value, Value)> {
        r["services"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].clone(),
                    s["status"].clone(),
                    s["metallb"]["layer2"]["expectedAnnouncer"].clone(),
                    s["allocation"].clone(),
                )
            })
            .collect()
    };
    let want = services(&from_file);
    assert!(
        want.len() >= 10 && want.iter().all(|(_, status, _, allocation)| status.is_string() && allocation.is_object())
    );
    assert_eq!(services(&filled), want);
    assert_eq!(code <= 1, fcode <= 1, "{stderr}");
}

#[test]
fn homelab_live_equals_file() {
    live_equals_file("homelab_live_equals_file", crate::util::HOMELAB);
}

#[test]
fn trap_live_equals_file() {
    live_equals_file("trap_live_equals_file", crate::util::TRAP);
}

/// Cilium's L2 Leases are judged against the clock (expired or not at capture time), so a
/// loaded file cannot equal itself there; what must hold is that `snapshot` captures what `check`
/// read: `check --from` the live snapshot gives the live report.
#[test]
fn lease_scenario_live_equals_its_own_snapshot() {
    let test = "lease_scenario_live_equals_its_own_snapshot";
    let Some(server) = Server::start(test) else { return };
    load::apply(&server, &load::objects("testdata/scenarios/cilium-l2-shared-ip.yaml"));
    let (snapshot, stderr, code) = server.lbdoctor(&["snapshot"]);
    assert_eq!(code, 0, "{stderr}");
    let (stdout, stderr, _) = server.lbdoctor(&["check", "-A", "-o", "json"]);
    let live = parse_json(&stdout, &stderr);
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), snapshot).unwrap();
    let (fstdout, fstderr, _) = output(lbdoctor().args(["check", "-A", "-o", "json", "--from"]).arg(file.path()));
    assert_same_verdicts(live.clone(), parse_json(&fstdout, &fstderr), "live and its own snapshot differ");
    // The scenario's Leases are old: the live replay must see them expired.
    assert!(live["causes"].as_array().unwrap().iter().any(|c| c["code"] == "LBD142"), "{stdout}");
}

/// Scenarios that stress what a real server changes on the way in: defaults, dual stack,
/// custom resources with and without status subresources, managedFields, Leases, BGP.
/// (Not every scenario can be: a Service with two ipFamilies and no ipFamilyPolicy, or two
/// writers of one identical status in managedFields, are states a real server never stores.)
#[test]
fn metallb_scenarios_live_equal_files() {
    all_live_equal_files(
        "metallb_scenarios_live_equal_files",
        &[
            "testdata/scenarios/alloc-sharing-conflict.yaml",
            "testdata/scenarios/bgp-two-routers.yaml",
            "testdata/scenarios/network-unavailable.yaml",
            "testdata/scenarios/etp-local-no-candidate-endpoint.yaml",
        ],
    );
}

/// Two tests of a few files each, so that the test threads load them in parallel.
#[test]
fn cilium_scenarios_live_equal_files() {
    all_live_equal_files(
        "cilium_scenarios_live_equal_files",
        &[
            "testdata/scenarios/cilium-nodeipam-dual-stack.yaml",
            "testdata/scenarios/cilium-lbipam-pending.yaml",
            "testdata/scenarios/overlapping-pools.yaml",
        ],
    );
}

/// `live_equals_file` for each file in turn; stops at the first SKIPPED.
fn all_live_equal_files(test: &str, files: &[&str]) {
    for file in files {
        if live_equals_file(test, file).is_none() {
            return;
        }
    }
}

/// By hand: `LBDOCTOR_LOAD=testdata/clusters/homelab.yaml cargo test --test it load_by_hand --
/// --ignored --nocapture` starts a server, loads the file and leaves both running; the output
/// says how to use and stop it.
#[test]
#[ignore = "by hand: leaves a server running"]
fn load_by_hand() {
    let file = std::env::var("LBDOCTOR_LOAD").expect("set LBDOCTOR_LOAD to a snapshot file");
    let Some(server) = Server::start("load_by_hand") else { return };
    load::apply(&server, &load::objects(&file));
    let dir = server.keep();
    println!("loaded {file}\n  ../shared/k8s/apiserver.sh exec {dir} kubectl get svc -A\n  ../shared/k8s/apiserver.sh exec {dir} target/debug/kubectl-lbdoctor check\n  ../shared/k8s/apiserver.sh stop {dir}", dir = dir.display());
}

/// A kubeconfig for this server with one user, given as its YAML block (`token: …`), and the CA.
fn kubeconfig(
    server: &Server,
    dir: &std::path::Path,
    name: &str,
    ca: &std::path::Path,
    user: &str,
) -> std::path::PathBuf {
    let path = dir.join(name);
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {}\n    certificate-authority: {}\n\
         users:\n- name: u\n  user:\n{user}\ncontexts:\n- name: c\n  context: {{cluster: test, user: u}}\ncurrent-context: c\n",
        server.url(),
        ca.display()
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// `--kubeconfig PATH` (apiserver.sh exec sets KUBECONFIG to the admin's).
fn with_kubeconfig(path: &std::path::Path) -> impl FnOnce(&mut std::process::Command) + '_ {
    move |cmd| {
        cmd.arg("--kubeconfig").arg(path);
    }
}

/// What each way of being wrong about credentials or the server gives: a run that works where
/// kubectl's does (tokens with a newline, an exec plugin, run once), exit 3 with the fix named
/// where it cannot.
#[test]
fn credentials_and_unusable_servers() {
    let test = "credentials_and_unusable_servers";
    let Some(server) = Server::start(test) else { return };
    load::apply(&server, &load::objects(crate::util::HOMELAB));
    let work = tempfile::tempdir().unwrap();
    let ca = server.pki("ca.crt");
    let token = "admin-token-0123456789";
    // What a working read exits with here (the homelab has findings).
    let (_, _, works) = output(lbdoctor().args(["check", "--from", crate::util::HOMELAB]));

    // 1. An inline token with the newline a YAML block scalar keeps: works, no panic.
    let inline = kubeconfig(&server, work.path(), "inline", &ca, &format!("    token: \"{token}\\n\""));
    let (_, stderr, code) = server.lbdoctor_with(&["check"], with_kubeconfig(&inline));
    assert_eq!(code, works, "inline token with a newline: {stderr}");

    // 2. A token file as `echo TOKEN > file` writes it: works, as with kubectl.
    std::fs::write(work.path().join("token"), format!("{token}\n")).unwrap();
    let file_user = format!("    tokenFile: {}", work.path().join("token").display());
    let from_file = kubeconfig(&server, work.path(), "tokenfile", &ca, &file_user);
    let (_, stderr, code) = server.lbdoctor_with(&["check"], with_kubeconfig(&from_file));
    assert_eq!(code, works, "tokenFile ending in a newline: {stderr}");

    // 3. An exec plugin runs once per command, for check and for history (which reads logs too).
    let count = work.path().join("runs");
    let plugin = work.path().join("plugin.sh");
    std::fs::write(
        &plugin,
        format!(
            "#!/bin/sh\necho run >> {}\nprintf '{{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{{\"token\":\"{token}\"}}}}'\n",
            count.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&plugin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let exec_user = format!(
        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: {}\n      interactiveMode: Never",
        plugin.display()
    );
    let exec = kubeconfig(&server, work.path(), "exec", &ca, &exec_user);
    for args in [&["check"][..], &["history"][..]] {
        let _ = std::fs::remove_file(&count);
        let (_, stderr, code) = server.lbdoctor_with(args, with_kubeconfig(&exec));
        assert!(code < 2, "{args:?} with an exec plugin: {stderr}");
        let runs = std::fs::read_to_string(&count).unwrap_or_default().lines().count();
        assert_eq!(runs, 1, "{args:?} ran the exec plugin {runs} times");
    }

    // 4. A token the server does not know: 401, log in again.
    let bogus = kubeconfig(&server, work.path(), "bogus", &ca, "    token: not-a-token");
    let (_, stderr, code) = server.lbdoctor_with(&["check"], with_kubeconfig(&bogus));
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("401 Unauthorized") && stderr.contains("Log in again"), "{stderr}");

    // 5. A valid token without rights: which permission, and the command that checks it.
    let (_, stderr, code) = server.lbdoctor(&["check", "--context", "nobody"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("kubectl auth can-i list nodes"), "{stderr}");

    // 6. A CA that did not sign the server's certificate.
    let other_ca = work.path().join("other-ca.crt");
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    std::fs::write(&other_ca, params.self_signed(&key).unwrap().pem()).unwrap();
    let wrong_ca = kubeconfig(&server, work.path(), "wrong-ca", &other_ca, &format!("    token: {token}"));
    let (_, stderr, code) = server.lbdoctor_with(&["check"], with_kubeconfig(&wrong_ca));
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("not signed by the certificate authority"), "{stderr}");
    assert!(stderr.contains("openssl s_client"), "{stderr}");

    // 7. Live explain of a Service that is not there: "in the cluster".
    let (_, stderr, code) = server.lbdoctor(&["explain", "svc", "nope"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not in the cluster"), "{stderr}");

    // 8. A frozen server: the documented timeout message, not the connector's.
    // SAFETY: kill has no memory preconditions; the pid is this test's server.
    unsafe { libc::kill(server.apiserver_pid(), libc::SIGSTOP) };
    let (_, stderr, code) = server.lbdoctor(&["check", "--request-timeout", "1s"]);
    // SAFETY: as above.
    unsafe { libc::kill(server.apiserver_pid(), libc::SIGCONT) };
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("no answer within 1s (--request-timeout)"), "{stderr}");

    // 9. A stopped server (the process gone, its network namespace still there).
    // SAFETY: as above.
    unsafe { libc::kill(server.apiserver_pid(), libc::SIGKILL) };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let (_, stderr, code) = server.lbdoctor(&["check"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("Check that the cluster is up"), "{stderr}");
}

/// What the server recorded of lbdoctor's reads: only get and list, all with its User-Agent,
/// never a Secret, query strings as a client should write them; `--chunk-size 2` really pages.
#[test]
fn audit_log_paging_and_the_kubectl_plugin() {
    let test = "audit_log_paging_and_the_kubectl_plugin";
    let Some(server) = Server::start(test) else { return };
    load::apply(&server, &load::objects(crate::util::HOMELAB));
    let (plain, stderr, code) = server.lbdoctor(&["check", "-o", "json"]);
    assert!(code < 2, "{stderr}");
    let (paged, stderr, _) = server.lbdoctor(&["check", "-o", "json", "--chunk-size", "2"]);
    assert_same_verdicts(parse_json(&paged, &stderr), parse_json(&plain, ""), "--chunk-size 2 changes the report");
    // No kubelet here: every speaker's log answers 500, each naming its own Pod and node. One
    // cause is one clause, wrapped to the terminal.
    let (history, stderr, _) = server.lbdoctor_with(&["history"], |c| {
        c.env("COLUMNS", "80");
    });
    let para: Vec<&str> = history.lines().take_while(|l| !l.is_empty()).collect();
    assert!(para[0].starts_with("Speaker logs: 8 speaker logs (speaker-"), "{history}\n{stderr}");
    assert_eq!(para.join(" ").matches("could not be read").count(), 1, "{history}");
    assert!(para.iter().all(|l| l.chars().count() <= 80), "{history}");

    let audit = server.audit();
    let ours: Vec<&Value> =
        audit.iter().filter(|e| e["userAgent"].as_str().is_some_and(|a| a.starts_with("kubectl-lbdoctor/"))).collect();
    assert!(ours.len() > 20, "lbdoctor's requests carry its User-Agent: {} found", ours.len());
    let agent = ours[0]["userAgent"].as_str().unwrap();
    let (version, _, _) = output(lbdoctor().args(["version", "-o", "json"]));
    let version = parse_json(&version, "");
    let want = format!(
        "kubectl-lbdoctor/{} (linux/amd64) {}",
        version["version"].as_str().unwrap(),
        version["gitCommit"].as_str().unwrap()
    );
    assert_eq!(agent, want);
    for e in &ours {
        let uri = e["requestURI"].as_str().unwrap();
        assert!(matches!(e["verb"].as_str(), Some("get" | "list")), "{} {uri}", e["verb"]);
        assert!(!uri.contains("/secrets") && !uri.contains("?&") && !uri.ends_with('?'), "{uri}");
    }
    // Every request from the admin's kubeconfig user is lbdoctor's or the loader's (curl).
    let others: Vec<&str> = audit
        .iter()
        .filter(|e| e["user"]["username"] == "admin")
        .filter_map(|e| e["userAgent"].as_str())
        .filter(|a| !a.starts_with("kubectl-lbdoctor/") && !a.starts_with("curl/"))
        .collect();
    assert!(others.is_empty(), "requests without lbdoctor's User-Agent: {others:?}");
    // Pages of two: the 8 Nodes took four requests, each with the previous page's token.
    let node_pages: Vec<&str> = ours
        .iter()
        .filter_map(|e| e["requestURI"].as_str())
        .filter(|u| u.starts_with("/api/v1/nodes?") && u.contains("limit=2"))
        .collect();
    assert_eq!(node_pages.len(), 4, "{node_pages:?}");
    assert_eq!(node_pages.iter().filter(|u| u.contains("continue=")).count(), 3, "{node_pages:?}");
    // History asked for the speakers' logs (which this server cannot give: no kubelet).
    assert!(ours.iter().any(|e| e["requestURI"].as_str().is_some_and(|u| u.contains("/log?container=speaker"))));

    // The kubectl plugin path: the real kubectl finds kubectl-lbdoctor on PATH, and its
    // completion runs kubectl_complete-lbdoctor, which lists the cluster's Services.
    let Some(kubectl) = crate::util::which("kubectl") else {
        crate::util::skipped(test, "kubectl is not installed: the plugin path is not tried");
        return;
    };
    let bin_dir = std::path::Path::new(crate::util::BIN).parent().unwrap().to_path_buf();
    let completions = std::path::Path::new(crate::util::ROOT).join("completions");
    let path = format!("{}:{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display(), completions.display());
    let run = |args: &[&str]| {
        let out = server.exec(&kubectl).env("PATH", &path).args(args).output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.code(),
        )
    };
    let (stdout, stderr, code) = run(&["lbdoctor", "check"]);
    let (direct, _, direct_code) = server.lbdoctor(&["check"]);
    assert_eq!(code, Some(direct_code), "kubectl lbdoctor check: {stderr}");
    assert_eq!(stdout, direct, "kubectl lbdoctor check prints what the plugin prints");
    let (stdout, stderr, _) = run(&["__complete", "lbdoctor", "explain", "svc", ""]);
    for name in ["grafana", "traefik", "prometheus"] {
        assert!(stdout.lines().any(|l| l.split('\t').next() == Some(name)), "{name} not completed: {stdout}\n{stderr}");
    }
}

/// docs/rbac.yaml is enough, and each of its rules is needed: without it lbdoctor either stops
/// with exit 3 naming the resource (what the answer cannot do without) or says LBD230 naming it
/// (what is unknown without it). Rules for kinds this server does not serve change nothing.
#[test]
fn docs_rbac_is_sufficient_and_every_rule_counts() {
    let test = "docs_rbac_is_sufficient_and_every_rule_counts";
    let Some(server) = Server::start(test) else { return };
    load::apply(&server, &load::objects(crate::util::HOMELAB));
    let text = std::fs::read_to_string(std::path::Path::new(crate::util::ROOT).join("docs/rbac.yaml")).unwrap();
    let role: Value = serde_saphyr::from_str(&text).unwrap();
    let rules = role["rules"].as_array().unwrap().clone();
    // One ClusterRole and ServiceAccount per variant: the whole file, and the file minus rule i.
    let mut objects = Vec::new();
    // And the file without `watch`: --watch then lists every 30 s.
    let no_watch: Vec<Value> = rules
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["verbs"].as_array_mut().unwrap().retain(|v| v != "watch");
            r
        })
        .collect();
    let variants: Vec<(String, Vec<Value>)> = std::iter::once(("full".to_string(), rules.clone()))
        .chain(std::iter::once(("nowatch".to_string(), no_watch)))
        .chain((0..rules.len()).map(|i| {
            let mut fewer = rules.clone();
            fewer.remove(i);
            (format!("minus-{i}"), fewer)
        }))
        .collect();
    for (name, rules) in &variants {
        let name = format!("lbd-{name}");
        objects.push(serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": name}, "rules": rules}));
        objects.push(serde_json::json!({"apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": {"name": name, "namespace": "default"}}));
        objects.push(serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": "default"}]}));
    }
    load::apply(&server, &objects);
    let work = tempfile::tempdir().unwrap();
    let config_for = |name: &str| {
        let (code, body) = server.curl(
            "POST",
            &format!("/api/v1/namespaces/default/serviceaccounts/lbd-{name}/token"),
            "application/json",
            Some(&serde_json::json!({"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": {}})),
        );
        assert_eq!(code, 201, "TokenRequest for lbd-{name}: {body}");
        let token: Value = serde_json::from_str(&body).unwrap();
        let token = token["status"]["token"].as_str().unwrap().to_string();
        kubeconfig(&server, work.path(), name, &server.pki("ca.crt"), &format!("    token: {token}"))
    };
    // RBAC reaches the authorizer's cache a moment after the write.
    std::thread::sleep(std::time::Duration::from_millis(1500));

    let (admin, stderr, admin_code) = server.lbdoctor(&["check", "-o", "json"]);
    let admin = parse_json(&admin, &stderr);
    let full = config_for("full");
    let (stdout, stderr, code) = server.lbdoctor_with(&["check", "-o", "json"], with_kubeconfig(&full));
    assert_eq!(code, admin_code, "docs/rbac.yaml alone: {stderr}");
    assert_same_verdicts(parse_json(&stdout, &stderr), admin, "docs/rbac.yaml reads less than the admin");
    let (_, stderr, _) = server.lbdoctor_with(&["history", "-o", "json"], with_kubeconfig(&full));
    assert!(!stderr.contains("forbidden"), "{stderr}");
    // --watch: every WATCH allowed, the named ConfigMaps' (by metadata.name) included.
    let (_, stderr, code) =
        server.lbdoctor_with(&["check", "--watch", "--timeout", "2s", "-o", "json"], with_kubeconfig(&full));
    assert_eq!(code, admin_code, "{stderr}");
    assert!(!stderr.contains("cannot watch") && !stderr.contains("broke"), "{stderr}");
    let (_, stderr, code) = server
        .lbdoctor_with(&["check", "--watch", "--timeout", "2s", "-o", "json"], with_kubeconfig(&config_for("nowatch")));
    assert_eq!(code, admin_code, "{stderr}");
    assert!(stderr.contains("cannot watch nodes -A") && stderr.contains("listing it again every 30 s"), "{stderr}");

    let served = |resource: &str| !resource.starts_with("frrconfigurations");
    let mut outcomes = Vec::new();
    for (i, rule) in rules.iter().enumerate() {
        let resources: Vec<String> =
            rule["resources"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
        let config = config_for(&format!("minus-{i}"));
        // pods/log is read by history only.
        let verb = if resources == ["pods/log"] { "history" } else { "check" };
        let (stdout, stderr, code) = server.lbdoctor_with(&[verb, "-o", "json"], with_kubeconfig(&config));
        let outcome = if code == 3 {
            let named = resources.iter().find(|r| stderr.contains(r.as_str()));
            assert!(named.is_some(), "without {resources:?}: exit 3 must name one of them: {stderr}");
            format!("exit 3 ({})", named.unwrap())
        } else {
            let report = parse_json(&stdout, &stderr);
            let lbd230: Vec<String> = report["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| f["code"] == "LBD230")
                .map(|f| f["objects"].to_string())
                .collect();
            if resources.iter().any(|r| served(r)) {
                assert!(
                    lbd230.iter().any(|o| resources.iter().any(|r| o.contains(r.as_str()))),
                    "without {resources:?} ({verb}): no LBD230 names them; exit {code}, LBD230 on {lbd230:?}\n{stderr}"
                );
                format!("LBD230 {}", lbd230.join(" "))
            } else {
                assert!(lbd230.is_empty(), "{resources:?} are not served here, yet: {lbd230:?}");
                "nothing (not served)".to_string()
            }
        };
        outcomes.push(format!("{resources:?}: {outcome}"));
    }
    eprintln!("{test}:\n  {}", outcomes.join("\n  "));
}

/// `check --watch` against the real server: labelling the node that announces grafana's IP with
/// the exclude label is reported as a move with its reason, within seconds; SIGINT ends it with
/// a summary; the audit log holds only get, list and watch, none on a Secret.
#[test]
fn watch_reports_a_move_as_it_happens_and_only_reads() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};

    let test = "watch_reports_a_move_as_it_happens_and_only_reads";
    let Some(server) = Server::start(test) else { return };
    load::apply(&server, &load::objects(crate::util::HOMELAB));
    let mut child = server
        .exec(crate::util::BIN)
        .args(["check", "--watch", "-o", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
        }
    });
    let next = |what: &dyn Fn(&Value) -> bool| loop {
        let doc = lines.recv_timeout(Duration::from_secs(60)).expect("the watch stopped writing");
        if what(&doc) {
            return doc;
        }
    };
    next(&|d| d["kind"] == "WatchStart");
    let patch =
        serde_json::json!({"metadata": {"labels": {"node.kubernetes.io/exclude-from-external-load-balancers": ""}}});
    let labelled = Instant::now();
    let (code, body) = server.curl("PATCH", "/api/v1/nodes/worker-b", "application/merge-patch+json", Some(&patch));
    assert_eq!(code, 200, "{body}");
    let moved = next(&|d| d["change"] == "announcer" && d["service"] == "default/grafana");
    eprintln!("{test}: the move came {:.2} s after the label", labelled.elapsed().as_secs_f64());
    assert_eq!((moved["before"].as_str(), moved["after"].as_str()), (Some("worker-b"), Some("worker-a")), "{moved}");
    assert_eq!(moved["reason"], "excludeLabel");
    assert_eq!(moved["triggers"][0]["name"], "worker-b");
    // SAFETY: kill has no memory preconditions; the pid is the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let summary = next(&|d| d["kind"] == "WatchSummary");
    assert_eq!(summary["endedBy"], "interrupted");
    assert!(summary["evaluations"].as_u64() >= Some(1), "{summary}");
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "homelab's LBD104 and the dark traefik are errors");

    let ours: Vec<Value> = server
        .audit()
        .into_iter()
        .filter(|e| e["userAgent"].as_str().is_some_and(|a| a.starts_with("kubectl-lbdoctor/")))
        .collect();
    let verbs: std::collections::BTreeSet<&str> = ours.iter().filter_map(|e| e["verb"].as_str()).collect();
    assert!(verbs.contains("watch"), "{verbs:?}");
    for e in &ours {
        let uri = e["requestURI"].as_str().unwrap();
        assert!(matches!(e["verb"].as_str(), Some("get" | "list" | "watch")), "{} {uri}", e["verb"]);
        assert!(!uri.contains("/secrets"), "{uri}");
    }
}
