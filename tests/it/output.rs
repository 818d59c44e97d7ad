//! Output for terminals and scripts: tables that fit `COLUMNS` or the terminal, `-o wide` in
//! full, `TERM=dumb`, `-o name` and `--no-headers`.

use crate::util::{json, lbdoctor, output, run};

/// Display columns of a line: characters, escape codes left out.
fn columns(line: &str) -> usize {
    let mut n = 0;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: up to the final byte.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
        } else {
            n += 1;
        }
    }
    n
}

fn widest(text: &str) -> usize {
    text.lines().map(columns).max().unwrap_or(0)
}

/// `check --demo trap` with `COLUMNS` set (the tests' stdout is a pipe, so only `COLUMNS` sets a width).
fn check_in(columns: &str, extra: &[&str]) -> String {
    let (stdout, stderr, _) = output(lbdoctor().env("COLUMNS", columns).args(["check", "--demo", "trap"]).args(extra));
    assert!(stderr.is_empty(), "{stderr}");
    stdout
}

#[test]
fn columns_80_fits_every_line_cutting_or_wrapping_cells() {
    for colour in ["--color=never", "--color=always"] {
        let text = check_in("80", &[colour]);
        assert!(widest(&text) <= 80, "{colour}: a line over 80 columns:\n{text}");
        let wrapped = text.lines().any(|l| l.starts_with("   "));
        assert!(text.contains('…') || wrapped, "{text}");
        // Every Service and every finding is still there, one row each.
        assert_eq!(text.lines().filter(|l| l.contains("dark") && !l.contains("(10 dark)")).count(), 10, "{text}");
        assert!(text.contains("10 services (10 dark): 20 errors, 3 warnings, 0 info; 4 causes"), "{text}");
    }
}

#[test]
fn columns_100_fits_too() {
    let text = check_in("100", &[]);
    assert!(widest(&text) <= 100, "{text}");
}

#[test]
fn a_pipe_without_columns_keeps_the_full_width() {
    let (text, _, _) = run(&["check", "--demo", "trap"]);
    assert!(widest(&text) > 200, "the table should keep its full width in a pipe:\n{text}");
    assert!(!text.lines().any(|l| l.ends_with('…')), "no line is cut:\n{text}");
    // COLUMNS that is not a positive number is ignored.
    assert_eq!(check_in("0", &[]), text);
    assert_eq!(check_in("many", &[]), text);
}

#[test]
fn wide_keeps_full_cells_whatever_columns_says() {
    let (full, _, _) = run(&["check", "--demo", "trap", "-o", "wide"]);
    assert_eq!(check_in("80", &["-o", "wide"]), full);
    assert!(widest(&full) > 80);
}

#[test]
fn term_dumb_has_no_colour_under_auto() {
    let cmd = |color: &str| {
        output(lbdoctor().env("TERM", "dumb").env("COLUMNS", "80").args(["check", "--demo", "trap", color])).0
    };
    assert!(!cmd("--color=auto").contains('\u{1b}'));
    // The flag still wins.
    assert!(cmd("--color=always").contains("\u{1b}["));
}

#[test]
fn name_lists_the_services_of_the_json_in_order() {
    let (report, _) = json(&["check", "--demo", "trap", "-o", "json"]);
    let expected: Vec<String> = report["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("service/{}", s["name"].as_str().unwrap()))
        .collect();
    assert_eq!(expected.len(), 10);
    let (names, _, code) = run(&["check", "--demo", "trap", "-o", "name"]);
    assert_eq!(names.lines().collect::<Vec<_>>(), expected);
    // check's exit status is the same as with any format: the trap fails.
    assert_eq!(code, 1);
    // explain svc -A lists the same Services; one Service is one line.
    let (names, _, _) = run(&["explain", "svc", "-A", "--demo", "trap", "-o", "name"]);
    assert_eq!(names.lines().collect::<Vec<_>>(), expected);
    let (one, _, _) = run(&["explain", "svc", "jellyfin", "-n", "media", "--demo", "trap", "-o", "name"]);
    assert_eq!(one, "service/jellyfin\n");
}

#[test]
fn name_lists_pools_for_explain_pools() {
    let (pools, _) = json(&["explain", "pools", "--demo", "-o", "json"]);
    let expected: Vec<String> = pools["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("ipaddresspool.metallb.io/{}", p["name"].as_str().unwrap()))
        .collect();
    assert!(!expected.is_empty());
    let (names, _, code) = run(&["explain", "pools", "--demo", "-o", "name"]);
    assert_eq!(code, 0);
    assert_eq!(names.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn name_is_refused_where_it_lists_nothing() {
    for args in [
        &["history", "--all", "--demo", "-o", "name"][..],
        &["simulate", "--down", "worker-a", "--demo", "-o", "name"],
        &["version", "-o", "name"],
        &["snapshot", "--demo", "-o", "name"],
    ] {
        let (stdout, stderr, code) = run(args);
        assert_eq!(code, 2, "{args:?}: {stdout}{stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.contains("-o name") || stderr.contains("not name"), "{args:?}: {stderr}");
    }
}

#[test]
fn no_headers_drops_the_header_rows() {
    let (with, _, _) = run(&["check", "--demo", "trap"]);
    let (without, _, _) = run(&["check", "--demo", "trap", "--no-headers"]);
    assert!(with.lines().any(|l| l.starts_with("NAMESPACE")));
    // The Service rows alone, as `kubectl get --no-headers`: no header, no causes, no summary.
    let rows: Vec<&str> =
        with.lines().skip_while(|l| !l.starts_with("NAMESPACE")).skip(1).take_while(|l| !l.is_empty()).collect();
    // The columns may narrow without their headers; the cells are the same.
    let cells = |text: &[&str]| -> Vec<String> {
        text.iter().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect()
    };
    assert_eq!(cells(&without.lines().collect::<Vec<_>>()), cells(&rows), "{without}");
    // In a width too.
    // In a width too, and a row stays one line, whole, for grep: nothing wraps or is cut.
    let narrow = check_in("80", &["--no-headers"]);
    assert!(!narrow.lines().any(|l| l.starts_with("NAMESPACE")) && !narrow.contains('…'), "{narrow}");
    assert_eq!(cells(&narrow.lines().collect::<Vec<_>>()), cells(&rows), "{narrow}");
}
