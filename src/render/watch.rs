//! `--watch`: a line per change (text), or a JSON object per line (`-o json`), or YAML documents.

use std::io::Write;

use serde_json::Value;

use super::{Format, Paint};
use crate::report::{ChangeKind, WatchChange, WatchStart, WatchSummary};

/// The width of `2026-12-04T01:42:53Z `: continuation lines start under the change.
const TIME_INDENT: usize = 21;

/// One document per line for `-o json`, `---`-separated documents for `-o yaml`, else `text`,
/// each of its lines wrapped to the terminal (a pipe keeps one line per change, for grep).
fn emit<T: serde::Serialize>(
    out: &mut dyn Write,
    value: &T,
    format: Format,
    text: &str,
    paint: Paint,
) -> std::io::Result<()> {
    match format {
        Format::Json => {
            serde_json::to_writer(&mut *out, value)?;
            writeln!(out)?;
        }
        Format::Yaml => {
            writeln!(out, "---")?;
            super::document(out, value, format)?;
        }
        _ => {
            for (i, line) in text.lines().enumerate() {
                let indent = if i == 0 { TIME_INDENT } else { 6 };
                for part in hang(line, paint.width, indent) {
                    writeln!(out, "{part}")?;
                }
            }
        }
    }
    // Someone is watching: every line at once, not when the buffer fills.
    out.flush()
}

pub fn start(
    out: &mut dyn Write,
    s: &WatchStart,
    format: Format,
    timeout: Option<&str>,
    paint: Paint,
) -> std::io::Result<()> {
    let counts: Vec<String> = s.summary.by_status.iter().map(|(word, n)| format!("{n} {word}")).collect();
    let context = s.context.as_deref().map(|c| format!(" (context {c})")).unwrap_or_default();
    let until = match timeout {
        Some(t) => format!("Ctrl-C or --timeout {t} ends it"),
        None => "Ctrl-C ends it".to_string(),
    };
    let text = format!(
        "{} watching {}{context}: {} Service{}{}; {} cause{}. One line per change; {until}.",
        s.time,
        s.scope,
        s.summary.services,
        if s.summary.services == 1 { "" } else { "s" },
        if counts.is_empty() { String::new() } else { format!(" ({})", counts.join(", ")) },
        s.summary.causes,
        if s.summary.causes == 1 { "" } else { "s" },
    );
    emit(out, s, format, &text, paint)
}

pub fn change(out: &mut dyn Write, c: &WatchChange, format: Format, paint: Paint) -> std::io::Result<()> {
    emit(out, c, format, &change_line(c), paint)
}

/// `TIME SERVICE IP: what changed (why) ← the watch event that led to it`.
pub fn change_line(c: &WatchChange) -> String {
    let service = c.service.as_deref().unwrap_or("");
    let ip = c.ip.as_deref().map(|ip| format!(" {ip}")).unwrap_or_default();
    let reason = c.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
    let body = match c.change {
        ChangeKind::Announcer => format!("{service}{ip}: {}", c.detail),
        ChangeKind::Status => format!("{service}: {} → {}{reason}", word(&c.before), word(&c.after)),
        ChangeKind::Allocation => {
            format!("{service} allocation: {} → {}{reason}", allocation(&c.before), allocation(&c.after))
        }
        ChangeKind::Ips => format!("{service} IPs: {} → {}", ips(&c.before), ips(&c.after)),
        ChangeKind::Observed => format!(
            "{service}{ip} recorded announcer: {} → {} ({})",
            word(&c.before),
            word(&c.after),
            if c.drift { "drift: the replay says otherwise" } else { "agrees with the replay" }
        ),
        ChangeKind::Service if c.before.is_null() => format!("{service}{ip}: new, {}{reason}", word(&c.after)),
        ChangeKind::Service => format!("{service}: deleted"),
        ChangeKind::Cause => {
            let object = c.object.as_ref().map(ToString::to_string).unwrap_or_default();
            let code = c.reason.as_deref().unwrap_or("");
            if c.after.is_null() {
                format!("cause cleared: {code} {object}")
            } else {
                let n = c.services.unwrap_or(0);
                format!(
                    "cause: {code} {object} ({n} Service{}): {}; {}",
                    if n == 1 { "" } else { "s" },
                    word(&c.after),
                    c.detail
                )
            }
        }
    };
    let drift = if c.drift && c.change != ChangeKind::Observed {
        format!(" [recorded: {}]", c.observed.as_deref().unwrap_or("?"))
    } else {
        String::new()
    };
    let trigger = match c.triggers.first() {
        Some(t) if c.triggers_total > 1 => format!(" ← {} (+{} more)", t.describe(), c.triggers_total - 1),
        Some(t) => format!(" ← {}", t.describe()),
        None => String::new(),
    };
    format!("{} {body}{drift}{trigger}", c.time)
}

pub fn summary(out: &mut dyn Write, s: &WatchSummary, format: Format, exit: u8, paint: Paint) -> std::io::Result<()> {
    let mut text = format!(
        "{} watch ended ({}): {} evaluation{} of {} watch event{}, {} change{}",
        s.time,
        s.ended_by,
        s.evaluations,
        plural(s.evaluations),
        s.events,
        plural(s.events),
        s.changes,
        plural(s.changes)
    );
    if !s.services.is_empty() {
        text.push_str("\nchanges per Service:");
        for svc in s.services.iter().take(SHOWN) {
            let kinds: Vec<String> = svc.by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
            text.push_str(&format!("\n  {:<40} {:>4}  {}", svc.service, svc.changes, kinds.join(", ")));
        }
        more(&mut text, s.services.len());
    }
    if !s.flapping.is_empty() {
        text.push_str(&format!("\nflapping IPs (announcer changed {}+ times):", WatchSummary::FLAPPING));
        for f in s.flapping.iter().take(SHOWN) {
            let path: Vec<&str> = f.announcers.iter().map(|a| a.as_deref().unwrap_or("nobody")).collect();
            text.push_str(&format!(
                "\n  {:<18} {:>4} moves  {}  ({})",
                f.ip,
                f.moves,
                path.join(" → "),
                f.services.join(", ")
            ));
        }
        more(&mut text, s.flapping.len());
    }
    let counts: Vec<String> = s.summary.by_status.iter().map(|(word, n)| format!("{n} {word}")).collect();
    text.push_str(&format!(
        "\nlast state: {} Service{} ({}); exit {exit}",
        s.summary.services,
        if s.summary.services == 1 { "" } else { "s" },
        if counts.is_empty() { "none".to_string() } else { counts.join(", ") }
    ));
    emit(out, s, format, &text, paint)
}

/// `text` as one line, or with a width, broken between words: the first line as wide as the
/// width, the next ones indented by `indent` (a hanging indent, as `kubectl describe` wraps). A
/// word wider than a line is broken inside it.
fn hang(text: &str, width: Option<usize>, indent: usize) -> Vec<String> {
    let Some(width) = width.filter(|w| *w > indent + 20) else {
        return vec![text.to_string()];
    };
    if text.chars().count() <= width {
        return vec![text.to_string()];
    }
    let mut lines = Vec::new();
    let mut line = String::new();
    for (i, word) in text.split(' ').enumerate() {
        let wanted = line.chars().count() + usize::from(i > 0) + word.chars().count();
        if i > 0 && wanted > width && !line.trim().is_empty() {
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
        } else if i > 0 {
            line.push(' ');
        }
        line.push_str(word);
    }
    lines.push(line);
    let mut out = Vec::new();
    for line in lines {
        let mut chars: Vec<char> = line.trim_end().chars().collect();
        while chars.len() > width {
            let rest = chars.split_off(width);
            out.push(chars.into_iter().collect());
            chars = std::iter::repeat_n(' ', indent).chain(rest).collect();
        }
        out.push(chars.into_iter().collect());
    }
    out
}

/// The summary's lists in the table: the first ones (the most changes first); JSON has all.
const SHOWN: usize = 20;

fn more(text: &mut String, total: usize) {
    if total > SHOWN {
        text.push_str(&format!("\n  … (+{} more; -o json lists every one)", total - SHOWN));
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn word(v: &Value) -> String {
    match v {
        Value::Null => "nobody".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => ips(&Value::Array(items.clone())),
        other => other.to_string(),
    }
}

fn ips(v: &Value) -> String {
    match v.as_array() {
        Some(a) if a.is_empty() => "none".into(),
        Some(a) => a
            .iter()
            .map(|x| x.as_str().map(str::to_string).unwrap_or_else(|| x.to_string()))
            .collect::<Vec<_>>()
            .join(", "),
        None => word(v),
    }
}

fn allocation(v: &Value) -> String {
    if v.is_null() {
        return "unknown".into();
    }
    let status = v["status"].as_str().unwrap_or("?");
    match v["ips"].as_array() {
        Some(a) if !a.is_empty() => format!("{status} {}", ips(&v["ips"])),
        _ => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{ServiceChanges, API_VERSION};

    #[test]
    fn the_summary_table_lists_the_first_services_and_counts_the_rest() {
        let services = (0..25)
            .map(|i| ServiceChanges { service: format!("ns/svc-{i:02}"), changes: 1, by_kind: [("status", 1)].into() })
            .collect();
        let s = WatchSummary {
            api_version: API_VERSION,
            kind: "WatchSummary",
            time: "T1".into(),
            started: "T0".into(),
            ended_by: "timeout",
            evaluations: 1,
            events: 1,
            changes: 25,
            services,
            flapping: Vec::new(),
            summary: Default::default(),
        };
        let mut out = Vec::new();
        summary(&mut out, &s, Format::Table, 0, Paint { color: false, width: None, no_headers: false }).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("ns/svc-19") && !text.contains("ns/svc-20"), "{text}");
        assert!(text.contains("… (+5 more; -o json lists every one)"), "{text}");
    }

    #[test]
    fn a_hanging_indent_keeps_the_first_line_full_and_the_padding_of_short_lines() {
        assert_eq!(hang("  a    b", Some(40), 4), ["  a    b"]);
        assert_eq!(hang("T one two three four", None, 2), ["T one two three four"]);
        let lines = hang(
            "2026-12-04T01:42:53Z default/grafana 198.51.100.10: worker-b → worker-a (worker-b: excludeLabel)",
            Some(60),
            21,
        );
        assert_eq!(lines[0], "2026-12-04T01:42:53Z default/grafana 198.51.100.10: worker-b");
        assert_eq!(lines[1], format!("{:21}→ worker-a (worker-b: excludeLabel)", ""));
        let long = hang(&format!("x {}", "y".repeat(70)), Some(30), 4);
        assert!(long.iter().all(|l| l.chars().count() <= 30), "{long:?}");
        assert_eq!(long.concat().replace(' ', ""), format!("x{}", "y".repeat(70)));
    }
}
