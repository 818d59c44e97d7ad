//! What the fuzzer found (issue: hardening): inputs that panicked or were silently accepted.

use crate::util::{run, HOMELAB};

/// Durations past what Go can hold (2^63 - 1 ns) are refused when parsed, naming the flag; they
/// used to panic in the float-to-duration conversions (exit 134).
#[test]
fn huge_durations_are_usage_errors_naming_the_flag() {
    let huge = "99999999999999999999h";
    let cases: [(&[&str], &str); 4] = [
        (&["history", "--from", HOMELAB, "--since", huge], "--since"),
        (&["history", "--from", HOMELAB, "--since", "5124095576030432h"], "--since"),
        (&["announce", "192.0.2.10", "--interface", "lo", "--duration", huge, "--dry-run"], "--duration"),
        (&["arping", "192.0.2.10", "--interface", "lo", "--timeout", "5124095576030432h"], "--timeout"),
    ];
    for (args, flag) in cases {
        let (_, stderr, code) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(flag) && stderr.contains("292 years"), "{args:?}: {stderr}");
    }
    // The longest duration Go holds still parses.
    let (_, stderr, code) = run(&["history", "--from", HOMELAB, "--since", "2562047h"]);
    assert_ne!(code, 2, "{stderr}");
}

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn mkfifo(path: &std::path::Path) {
    assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// An object the engines would show with an empty name is refused, naming where it is.
#[test]
fn an_object_without_a_name_is_refused_with_its_position() {
    let d = dir();
    let file = d.path().join("noname.yaml");
    std::fs::write(&file, "apiVersion: v1\nkind: Node\nmetadata:\n  labels: {a: b}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  namespace: default\nspec:\n  type: LoadBalancer\n").unwrap();
    let (_, stderr, code) = run(&["check", "--from", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("noname.yaml:1:1") && stderr.contains("Node has no metadata.name"), "{stderr}");
}

/// A YAML List whose items are a mapping is refused as its JSON form is, not read as empty.
#[test]
fn a_list_whose_items_are_a_mapping_is_refused() {
    let d = dir();
    let file = d.path().join("list.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: List\nitems:\n  a:\n    apiVersion: v1\n    kind: Node\n    metadata: {name: n}\n",
    )
    .unwrap();
    let (_, stderr, code) = run(&["check", "--from", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("list.yaml:1:1") && stderr.contains("items must be a sequence"), "{stderr}");
}

/// `self -> .` is followed once, not until the path is too long (which ended in a false
/// "defined twice"); a FIFO inside a directory is skipped rather than blocking the walk.
#[test]
fn a_directory_walk_reads_each_directory_once_and_only_regular_files() {
    let d = dir();
    std::fs::copy(HOMELAB, d.path().join("a.yaml")).unwrap();
    std::os::unix::fs::symlink(".", d.path().join("self")).unwrap();
    mkfifo(&d.path().join("b.yaml"));
    let (stdout, stderr, code) = run(&["check", "--from", d.path().to_str().unwrap()]);
    assert!(code == 0 || code == 1, "{stderr}");
    let (direct, _, _) = run(&["check", "--from", HOMELAB]);
    assert_eq!(stdout, direct);
}

/// A FIFO named directly is still read: `--from <(kubectl get …)`.
#[test]
fn a_fifo_named_directly_is_read() {
    let d = dir();
    let fifo = d.path().join("snap.yaml");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, std::fs::read(HOMELAB).unwrap()).unwrap())
    };
    let (stdout, stderr, code) = run(&["check", "--from", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    assert!(code == 0 || code == 1, "{stderr}");
    assert_eq!(stdout, run(&["check", "--from", HOMELAB]).0);
}

#[test]
fn logs_that_are_not_a_directory_of_files_say_what_they_are() {
    let (_, stderr, code) = run(&["history", "--from", HOMELAB, "--logs", "/nonexistent/logs"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no such directory"), "{stderr}");
    let d = dir();
    mkfifo(&d.path().join("speaker-a.log"));
    let (_, stderr, code) = run(&["history", "--from", HOMELAB, "--logs", d.path().to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no regular files") && stderr.contains("speaker-a.log"), "{stderr}");
    let (_, stderr, code) =
        run(&["history", "--from", HOMELAB, "--logs", d.path().join("speaker-a.log").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not a directory (a FIFO"), "{stderr}");
}

/// A mistyped namespace must not pass a CI gate as "no Services found".
#[test]
fn a_namespace_that_does_not_exist_is_a_usage_error() {
    for args in [
        &["check", "--from", HOMELAB, "-n", "nosuchns"][..],
        &["explain", "svc", "--from", HOMELAB, "-n", "nosuchns"],
        &["explain", "svc", "jellyfin", "--from", HOMELAB, "-n", "nosuchns"],
    ] {
        let (_, stderr, code) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("namespace \"nosuchns\" does not exist") && stderr.contains("media"), "{stderr}");
    }
    let (_, stderr, code) = run(&["check", "--from", HOMELAB, "-n", "media"]);
    assert_ne!(code, 2, "{stderr}");
}

/// kubectl's TYPE/NAME form.
#[test]
fn explain_takes_type_slash_name() {
    let slash = run(&["explain", "svc/jellyfin", "-n", "media", "--from", HOMELAB]);
    let spaced = run(&["explain", "svc", "jellyfin", "-n", "media", "--from", HOMELAB]);
    assert_eq!(slash, spaced);
    assert!(slash.2 == 0 || slash.2 == 1, "{}", slash.1);
    let (_, stderr, code) = run(&["explain", "svc/jellyfin", "other", "--from", HOMELAB]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not both"), "{stderr}");
}
