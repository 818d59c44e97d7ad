//! What a user gets right after `kubectl krew install lbdoctor`: the version stamp, the demo,
//! shell completion (the committed scripts and kubectl's plugin-completion protocol).

use serde_json::Value;

use crate::util::{lbdoctor, run, skipped, which, BIN, HOMELAB, ROOT, TRAP};

#[test]
fn version_names_the_commit_the_build_date_and_the_kubernetes_api() {
    let (text, _, code) = run(&["version", "-o", "json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["kind"], "Version");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    let head = std::process::Command::new("git")
        .args(["-C", ROOT, "rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string());
    match head {
        Some(head) => assert_eq!(v["gitCommit"], head.as_str(), "the checkout's commit"),
        None => assert_eq!(v["gitCommit"], "unknown", "outside git: unknown, never a made-up value"),
    }
    let date = v["buildDate"].as_str().unwrap();
    date.parse::<jiff::Timestamp>().unwrap_or_else(|e| panic!("buildDate {date:?}: {e}"));
    // The k8s-openapi feature Cargo.toml enables.
    let manifest = std::fs::read_to_string(format!("{ROOT}/Cargo.toml")).unwrap();
    let feature = manifest.lines().find(|l| l.starts_with("k8s-openapi")).unwrap();
    let minor = feature.split("\"v1_").nth(1).unwrap().split('"').next().unwrap();
    assert_eq!(v["kubernetesApi"], format!("1.{minor}"));

    let (text, _, _) = run(&["version"]);
    assert_eq!(text.lines().next().unwrap(), format!("kubectl-lbdoctor {}", env!("CARGO_PKG_VERSION")));
    assert!(text.contains(&format!("git commit:      {}", v["gitCommit"].as_str().unwrap())));
}

#[test]
fn demo_is_the_homelab_snapshot_built_in() {
    for (demo, file) in [(&["--demo"][..], HOMELAB), (&["--demo", "trap"], TRAP), (&["--demo=healthy"], HOMELAB)] {
        for command in
            [&["check"][..], &["explain", "svc", "-A"], &["explain", "pools"], &["explain", "svc", "grafana"]]
        {
            let with_demo = run(&[command, demo, &["--color", "never"]].concat());
            let with_file = run(&[command, &["--from", file, "--color", "never"]].concat());
            assert_eq!(with_demo, with_file, "{command:?} {demo:?}");
        }
    }
    // The value is optional: before the subcommand a bare --demo does not swallow it.
    assert_eq!(run(&["--demo", "check", "--color", "never"]), run(&["check", "--from", HOMELAB, "--color", "never"]));
    assert_eq!(
        run(&["--demo", "trap", "check", "--color", "never"]),
        run(&["check", "--from", TRAP, "--color", "never"])
    );
    let (_, _, code) = run(&["check", "--demo"]);
    assert_eq!(code, 1, "the healthy demo still has one Service without endpoints");
    let out = lbdoctor().args(["check", "--demo", "--from", HOMELAB]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--demo and --from exclude each other");
}

#[test]
fn snapshot_of_the_demo_reads_back_as_the_demo() {
    let (list, _, code) = run(&["snapshot", "--demo"]);
    assert_eq!(code, 0);
    let doc: Value = serde_json::from_str(&list).unwrap();
    assert_eq!(doc["kind"], "List");
    let back = lbdoctor().args(["check", "--from", "-", "-o", "json"]).write_stdin(list).output().unwrap();
    let demo = lbdoctor().args(["check", "--demo", "-o", "json"]).output().unwrap();
    let strip = |v: &[u8]| {
        let mut v: Value = serde_json::from_slice(v).unwrap();
        v["source"] = Value::Null;
        v
    };
    assert_eq!(strip(&back.stdout), strip(&demo.stdout));
}

#[test]
fn committed_completion_scripts_are_what_the_binary_generates() {
    let dir = format!("{ROOT}/completions");
    for (shell, file) in [
        ("bash", "kubectl-lbdoctor.bash"),
        ("zsh", "_kubectl-lbdoctor"),
        ("fish", "kubectl-lbdoctor.fish"),
        ("kubectl", "kubectl_complete-lbdoctor"),
    ] {
        let (generated, _, code) = run(&["completion", shell]);
        assert_eq!(code, 0);
        let committed = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
        assert!(
            generated == committed,
            "completions/{file} is stale: run `kubectl-lbdoctor completion {shell} > completions/{file}`"
        );
    }
}

/// The bash script completes below a subcommand too (clap_complete's labels need a fix for a
/// binary name with a `-`, see write_completion).
#[test]
fn bash_completion_completes_subcommands_flags_and_values() {
    let script = format!("{ROOT}/completions/kubectl-lbdoctor.bash");
    let complete = |words: &[&str]| -> Vec<String> {
        let line = words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" ");
        let program = format!(
            "source '{script}'; COMP_WORDS=({line}); COMP_CWORD={}; \
             _kubectl__lbdoctor kubectl-lbdoctor \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            words.len() - 1
        );
        let out = std::process::Command::new("bash").args(["-c", &program]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().filter(|l| !l.is_empty()).map(str::to_string).collect()
    };
    assert_eq!(complete(&["kubectl-lbdoctor", "ch"]), ["check"]);
    assert_eq!(complete(&["kubectl-lbdoctor", "check", "--fail-on", ""]), ["error", "warning", "info", "never"]);
    assert_eq!(complete(&["kubectl-lbdoctor", "check", "--no-"]), ["--no-config", "--no-headers"]);
    assert_eq!(complete(&["kubectl-lbdoctor", "completion", "f"]), ["fish"]);
}

#[test]
fn zsh_and_fish_scripts_parse() {
    for (shell, file) in [("zsh", "_kubectl-lbdoctor"), ("fish", "kubectl-lbdoctor.fish")] {
        let path = format!("{ROOT}/completions/{file}");
        match std::process::Command::new(shell).args(["-n", &path]).output() {
            Ok(out) => assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr)),
            Err(_) => skipped("zsh_and_fish_scripts_parse", &format!("{shell} is not installed")),
        }
    }
}

/// `kubectl-lbdoctor __complete WORDS… PARTIAL`: candidates, then cobra's `:<directive>`.
fn complete(words: &[&str]) -> (Vec<String>, String) {
    let (text, _, code) = run(&[&["__complete"], words].concat());
    assert_eq!(code, 0, "{words:?}");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let directive = lines.pop().unwrap();
    assert!(directive.starts_with(':'), "{text}");
    (lines.into_iter().map(|l| l.split('\t').next().unwrap().to_string()).collect(), directive)
}

#[test]
fn plugin_completion_offers_commands_flags_values_and_services() {
    let (subs, d) = complete(&[""]);
    assert!(subs.contains(&"explain".to_string()) && subs.contains(&"check".to_string()), "{subs:?}");
    assert!(!subs.iter().any(|s| s.starts_with("__")), "the protocol entry stays hidden");
    assert_eq!(d, ":4");
    assert_eq!(complete(&["ch"]).0, ["check"]);
    assert_eq!(complete(&["explain", ""]).0, ["svc", "pool"]);
    // Service names from the snapshot named on the line, in the namespace given (or the default).
    assert_eq!(complete(&["--from", HOMELAB, "explain", "svc", ""]).0, ["grafana", "prometheus", "traefik"]);
    assert_eq!(complete(&["explain", "svc", "-n", "media", "--from", HOMELAB, "j"]).0, ["jellyfin"]);
    assert_eq!(
        complete(&["--demo", "explain", "svc", "--namespace=home", "pihole"]).0,
        ["pihole-dns-tcp", "pihole-dns-udp"]
    );
    assert_eq!(complete(&["--demo", "trap", "explain", "pool", ""]).0, ["homelab"]);
    assert_eq!(complete(&["--demo", "-n", ""]).0, ["default", "home", "media", "metallb-system"]);
    // Flags of the subcommand and the global ones; values of enum flags; files for --from.
    let flags = complete(&["check", "--ig"]).0;
    assert_eq!(flags, ["--ignore", "--ignore-exclude-lb"]);
    assert_eq!(complete(&["check", "-o", "j"]).0, ["json", "junit"]);
    assert_eq!(
        complete(&["check", "--fail-on="]).0,
        ["--fail-on=error", "--fail-on=warning", "--fail-on=info", "--fail-on=never"]
    );
    assert_eq!(complete(&["--from", ""]), (vec!["yaml".into(), "yml".into(), "json".into()], ":8".into()));
    assert_eq!(complete(&["completion", ""]).0, ["bash", "zsh", "fish", "kubectl"]);
    // An optional value, or what may follow it; formats the command accepts.
    assert_eq!(complete(&["check", "--demo", ""]).0, ["healthy", "trap"]);
    assert_eq!(complete(&["--demo", "ex"]).0, ["explain"]);
    assert_eq!(complete(&["version", "-o", ""]).0, ["table", "wide", "json", "yaml"]);
    assert_eq!(complete(&["snapshot", "-o", ""]).0, ["json", "yaml"]);
    // simulate's edits complete node names; history takes svc NAME and a directory of logs.
    assert_eq!(complete(&["--demo", "simulate", "--down", "w"]).0, ["worker-a", "worker-b"]);
    assert_eq!(complete(&["simulate", "--from", HOMELAB, "--label", "gpu"]).0, ["gpu-1", "gpu-2", "gpu-3"]);
    assert_eq!(complete(&["simulate", "--apply", ""]).1, ":8");
    assert_eq!(complete(&["history", ""]).0, ["svc"]);
    assert_eq!(complete(&["--demo", "history", "svc", "-n", "media", "j"]).0, ["jellyfin"]);
    assert_eq!(complete(&["history", "--logs", ""]), (vec![], ":16".into()));
    // No cluster to ask: cobra's error directive, no candidates, no guess.
    assert_eq!(complete(&["explain", "svc", ""]), (vec![], ":5".into()));
    assert_eq!(complete(&["simulate", "--down", ""]), (vec![], ":5".into()));
}

#[test]
fn kubectl_completes_service_names_through_the_plugin_script() {
    let Some(kubectl) = which("kubectl") else {
        skipped("kubectl_completes_service_names_through_the_plugin_script", "kubectl is not installed");
        return;
    };
    let bin = tempfile::tempdir().unwrap();
    std::fs::copy(BIN, bin.path().join("kubectl-lbdoctor")).unwrap();
    let script = bin.path().join("kubectl_complete-lbdoctor");
    std::fs::copy(format!("{ROOT}/completions/kubectl_complete-lbdoctor"), &script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let homelab = std::fs::canonicalize(HOMELAB).unwrap();
    let out = std::process::Command::new(kubectl)
        .env("PATH", path)
        .env("HOME", bin.path())
        .args(["__complete", "lbdoctor", "--from", homelab.to_str().unwrap(), "explain", "svc", "-n", "media", ""])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let names: Vec<&str> = stdout.lines().map(|l| l.split('\t').next().unwrap()).collect();
    assert_eq!(names, ["immich", "jellyfin", "navidrome", ":4"], "{}", String::from_utf8_lossy(&out.stderr));
}
