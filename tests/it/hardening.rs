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
        assert!(
            stderr.contains(&format!("namespace \"nosuchns\" does not exist in {HOMELAB}")) && stderr.contains("media"),
            "{stderr}"
        );
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

/// The loader's errors in the user's words: where (file:line:col, 1-based) and what, never a
/// library's hint about its own options.
#[test]
fn input_errors_are_in_plain_words_with_a_position() {
    let d = dir();
    let deep = format!("a:\n{}", (1..200).map(|i| format!("{}- \n", "  ".repeat(i))).collect::<String>());
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "dup.yaml",
            b"apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  name: b\n".to_vec(),
            "dup.yaml:5:3: duplicate mapping key `name`",
        ),
        (
            "inf.yaml",
            b"apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: d}\nspec:\n  ports:\n  - port: 1e400\n"
                .to_vec(),
            "inf.yaml:6:11: value `1e400` is not a finite number",
        ),
        ("deep.yaml", deep.into_bytes(), "nested more than 128 levels deep"),
        (
            "bad.yaml",
            b"apiVersion: v1\nkind: Node\nmetadata:\n  name: \xff\xfe\n".to_vec(),
            "bad.yaml:4:9: not UTF-8 text (byte 0xFF)",
        ),
        ("int.yaml", b"apiVersion: v1\nkind: Node\nmetadata:\n  name: 5\n".to_vec(), "Node: wrong type: integer `5`"),
        (
            "eof.json",
            b"{\"apiVersion\":\"v1\",\"kind\":\"Node\",\n".to_vec(),
            "eof.json:2:1: the text ends inside a value",
        ),
        // A wrong type deep in the second document is placed at the field, not at the object.
        (
            "field.yaml",
            b"apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n    a: [1]\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: y}\n".to_vec(),
            "field.yaml:10:8: Node a: expected a string",
        ),
    ];
    for (name, text, expected) in cases {
        let path = d.path().join(name);
        std::fs::write(&path, text).unwrap();
        let (_, stderr, code) = run(&["check", "--from", path.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains(expected), "{name}: {stderr}");
        for library in ["Options", "from_str_multiple", "Option<String>", "budget", "policy", "Depth {"] {
            assert!(!stderr.contains(library), "{name}: {stderr}");
        }
    }
    // The suppressions file goes through the same words.
    let two = d.path().join("two.yaml");
    std::fs::write(
        &two,
        "apiVersion: lbdoctor/v1beta1\nkind: Suppressions\n---\napiVersion: lbdoctor/v1beta1\nkind: Suppressions\n",
    )
    .unwrap();
    let (_, stderr, code) = run(&["check", "--demo", "trap", "--config", two.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("only single YAML document expected") && !stderr.contains("from_str_multiple"), "{stderr}");
    let null = d.path().join("null.yaml");
    std::fs::write(&null, "apiVersion: lbdoctor/v1beta1\nkind: Suppressions\nsuppressions:\n- code: ~\n").unwrap();
    let (_, stderr, code) = run(&["check", "--demo", "trap", "--config", null.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(stderr.contains("null.yaml:4:9: null is not allowed here"), "{stderr}");
}

/// A small deterministic mutation fuzzer over the loader and the engines (the shared fuzzer in
/// `../shared/tools/fuzz_inputs.py` goes further through the binary): every testdata snapshot,
/// mutated a few thousand times in ways that broke parsers before — truncation, dropped and
/// repeated lines, YAML tags, anchors, huge numbers, nulls — must load or be refused, never
/// panic; what loads must diagnose without a panic.
#[test]
fn mutated_snapshots_never_panic() {
    use lbdoctor::diagnose::{self, Options, Scope};
    use std::sync::Arc;
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "-",
        "\"",
        "'",
        "\n",
        " ",
        "#",
        "&a ",
        "*a",
        "<<: *a\n",
        "!!binary ",
        "!!str ",
        "1e400",
        "-1",
        "99999999999999999999",
        "~",
        "null",
        "true",
        "\t",
        "\u{feff}",
        "---\n",
        "kind: List\n",
        "items: {}\n",
        "metadata: {}\n",
        "name: ''\n",
        "0x10",
        ".inf",
        "::",
    ];
    let mut files: Vec<std::path::PathBuf> = ["testdata/scenarios", "testdata/clusters", "testdata/bad"]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "json")))
        .collect();
    files.sort();
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let mut loaded = 0;
    let rounds = 2500;
    for round in 0..rounds {
        let path = &files[round % files.len()];
        let mut text = std::fs::read_to_string(path).unwrap();
        for _ in 0..1 + next(3) {
            let boundary = |t: &str, i: usize| (0..=i.min(t.len())).rev().find(|&j| t.is_char_boundary(j)).unwrap();
            let at = boundary(&text, next(text.len() + 1));
            match next(5) {
                0 => text.truncate(at),
                1 => {
                    let end = boundary(&text, at + next(40));
                    text.replace_range(at..end, "");
                }
                2 => text.insert_str(at, TOKENS[next(TOKENS.len())]),
                3 => {
                    let lines: Vec<&str> = text.lines().collect();
                    let line = lines.get(next(lines.len())).map_or(String::new(), |l| l.to_string());
                    text.insert_str(at, &format!("{line}\n"));
                }
                _ => {
                    let end = boundary(&text, at + 1);
                    text.replace_range(at..end, TOKENS[next(TOKENS.len())]);
                }
            }
        }
        let name: Arc<str> = format!("{}#{round}", path.display()).into();
        let input = [(name, text.clone())];
        let outcome = std::panic::catch_unwind(|| {
            let Ok(snap) = lbdoctor::snapshot::load_texts(&input) else { return false };
            let opts = Options { scope: Scope::All, detail: true, map: false, overrides: Default::default() };
            let _ = diagnose::diagnose(&snap, &opts);
            true
        });
        match outcome {
            Ok(ok) => loaded += usize::from(ok),
            Err(_) => panic!("round {round}: a mutation of {} panicked; input:\n{text}", path.display()),
        }
    }
    // Enough of the mutations still load for the engines to be exercised, not only the parsers.
    assert!(loaded > rounds / 10, "only {loaded} of {rounds} mutations loaded");
}

#[test]
fn ignore_completes_finding_codes_after_the_last_comma() {
    let (out, _, _) = run(&["__complete", "check", "--ignore", ""]);
    assert!(out.lines().any(|l| l.starts_with("LBD101\t")), "{out}");
    let (out, _, _) = run(&["__complete", "check", "--ignore", "LBD101,"]);
    assert!(out.lines().any(|l| l.starts_with("LBD101,LBD102\t")), "{out}");
}

/// Connection errors name the fix once, in the user's words.
#[test]
fn kubeconfig_and_connection_errors_say_it_once() {
    let (_, stderr, code) = run(&["--kubeconfig", "nope", "check"]);
    assert_eq!(code, 2);
    assert_eq!(stderr.matches("nope").count(), 1, "{stderr}");
    assert!(!stderr.contains("'\""), "{stderr}");
    let (_, stderr, code) = run(&["check"]);
    assert_eq!(code, 3);
    assert!(!stderr.contains("incluster environment variable") && stderr.contains("--from FILE"), "{stderr}");
    // A server nobody answers on: `snapshot` cannot read --from, so it is not suggested.
    let d = dir();
    let kubeconfig = d.path().join("config");
    std::fs::write(&kubeconfig, "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\nusers:\n- name: u\n  user: {token: abc}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n").unwrap();
    let (_, stderr, code) = run(&["--kubeconfig", kubeconfig.to_str().unwrap(), "snapshot"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("cannot read the Kubernetes API server") && !stderr.contains("--from"), "{stderr}");
}

/// Each subcommand's help lists the global flags it reads, not all twenty.
#[test]
fn help_lists_only_the_flags_a_subcommand_reads() {
    let help = |sub: &str| run(&[sub, "--help"]).0;
    let flags = |text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| {
                l.trim_start().strip_prefix("--").or_else(|| l.trim_start().get(4..).and_then(|r| r.strip_prefix("--")))
            })
            .map(|f| f.split([' ', '<', '[']).next().unwrap_or("").to_string())
            .collect()
    };
    let version = flags(&help("version"));
    for absent in ["from", "kubeconfig", "fail-on", "bgp-type", "no-headers", "namespace"] {
        assert!(!version.iter().any(|f| f == absent), "version lists --{absent}: {version:?}");
    }
    let snapshot_help = help("snapshot");
    let snapshot = flags(&snapshot_help);
    for absent in ["from", "fail-on", "bgp-type", "namespace"] {
        assert!(!snapshot.iter().any(|f| f == absent), "snapshot lists --{absent}: {snapshot:?}");
    }
    assert!(snapshot.iter().any(|f| f == "kubeconfig"), "{snapshot:?}");
    assert!(snapshot_help.contains("[possible values: json, yaml]"), "{snapshot_help}");
    let check = flags(&help("check"));
    for present in ["from", "kubeconfig", "fail-on", "bgp-type", "namespace"] {
        assert!(check.iter().any(|f| f == present), "check lacks --{present}: {check:?}");
    }
    // Hidden is not refused: the flag still parses and the verb says why it does not apply.
    let (_, stderr, code) = run(&["snapshot", "--from", HOMELAB]);
    assert_eq!(code, 2);
    assert!(stderr.contains("files given with --from are a snapshot already"), "{stderr}");
}

/// A snapshot whose SnapshotInfo records an expired list by hand, without a message: the advice
/// comes from the reason, not from the message (an empty one used to panic, exit 101).
#[test]
fn an_expired_list_recorded_without_a_message_is_explained_not_a_panic() {
    let d = dir();
    let file = d.path().join("expired.yaml");
    std::fs::write(
        &file,
        "apiVersion: lbdoctor/v1alpha1\nkind: SnapshotInfo\nmetadata: {name: snapshot}\nspec:\n  unreadable: [\"services: list expired (410 Gone) (list)\"]\n  denied:\n  - {resource: services, verb: list, reason: \"list expired (410 Gone)\"}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
    )
    .unwrap();
    let (_, stderr, code) = run(&["check", "--from", file.to_str().unwrap()]);
    assert_eq!(code, 3, "{stderr}");
    assert!(stderr.contains("services: list expired (410 Gone)"), "{stderr}");
    assert!(stderr.contains("retry with a larger --chunk-size, or --chunk-size 0"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Errors say what was wrong and where in plain words: no OS error numbers, Rust type names or
/// HTTP-client layers, and standard input is `<stdin>` everywhere.
#[test]
fn errors_carry_no_library_words() {
    let d = dir();
    let int = d.path().join("int.yaml");
    std::fs::write(&int, "apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec:\n  ports:\n  - port: abc\n")
        .unwrap();
    let colon = d.path().join("colon.yaml");
    std::fs::write(&colon, "apiVersion: v1\nkind: Node\nmetadata\n  name: a\n").unwrap();
    let kubeconfig = d.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: abc}\n",
    )
    .unwrap();
    let missing = d.path().join("missing.yaml");
    let missing = missing.to_str().unwrap();
    let cases: Vec<(Vec<&str>, Option<&str>, &str)> = vec![
        (vec!["simulate", "--demo", "--apply", missing], None, "--apply {missing}: no such file or directory"),
        (vec!["check", "--from", missing], None, "{missing}: no such file or directory"),
        (vec!["check", "--from", int.to_str().unwrap()], None, "int.yaml:6:11: Service a: not a whole number"),
        (vec!["check", "--from", colon.to_str().unwrap()], None, "colon.yaml:3:1: a line that is not `key: value`"),
        (vec!["check", "--from", "-"], Some("x: ["), "<stdin>:1:4"),
        (vec!["check", "--from", "-"], Some(""), "<stdin>: no Kubernetes objects"),
        (vec!["check", "--demo", "--config", "-"], None, "--config -: suppressions are read from a file"),
        (vec!["check", "--demo", "--config", missing], None, "{missing}: no such file or directory"),
        (vec!["history", "--demo", "--logs", missing], None, "--logs {missing}: no such directory"),
        (vec!["check", "--kubeconfig", kubeconfig.to_str().unwrap()], None, "the connection was refused"),
    ];
    for (args, stdin, expected) in cases {
        let expected = expected.replace("{missing}", missing);
        let mut cmd = crate::util::lbdoctor();
        cmd.args(&args).write_stdin(stdin.unwrap_or(""));
        let (_, stderr, code) = crate::util::output(&mut cmd);
        assert!(code == 2 || code == 3, "{args:?}: {code} {stderr}");
        assert!(stderr.contains(&expected), "{args:?}: {stderr}");
        for library in ["os error", "i32", "i64", "simple key", "ServiceError", "client error", "(Connect)", "\"-\""] {
            assert!(!stderr.contains(library), "{args:?}: {library:?} in {stderr}");
        }
    }
}
