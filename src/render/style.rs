//! The pieces every table shares: colours, table construction, marks, finding rows. A leaf:
//! the renderers use it, it uses none of them.

use std::io::Write;

use comfy_table::{presets, Cell, Color, ContentArrangement, Table};
use owo_colors::OwoColorize;

use crate::report::{Finding, Severity};

#[derive(Debug, Clone, Copy)]
pub struct Paint {
    pub color: bool,
    /// The width tables and lines must fit; `None` = unlimited (`-o wide`, a pipe).
    pub width: Option<usize>,
}

impl Paint {
    pub(crate) fn bold(self, s: &str) -> String {
        if self.color {
            s.bold().to_string()
        } else {
            s.to_string()
        }
    }
    pub(crate) fn severity(self, sev: Severity) -> String {
        let s = sev.as_str();
        if !self.color {
            return s.to_string();
        }
        match sev {
            Severity::Error => s.red().bold().to_string(),
            Severity::Warning => s.yellow().to_string(),
            Severity::Info => s.cyan().to_string(),
        }
    }
    pub(crate) fn good(self, s: &str) -> String {
        if self.color {
            s.green().to_string()
        } else {
            s.to_string()
        }
    }
    pub(crate) fn bad(self, s: &str) -> String {
        if self.color {
            s.red().to_string()
        } else {
            s.to_string()
        }
    }
}

pub(crate) fn new_table(paint: Paint, header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING).set_content_arrangement(ContentArrangement::Disabled);
    if paint.color {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    t.set_header(header.iter().map(Cell::new));
    for col in t.column_iter_mut() {
        col.set_padding((0, 3));
    }
    t
}

pub(crate) fn print_table(out: &mut dyn Write, t: &Table) -> std::io::Result<()> {
    for line in t.lines() {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

pub(crate) fn mark(ok: bool) -> Cell {
    if ok {
        Cell::new("✓").fg(Color::Green)
    } else {
        Cell::new("✗").fg(Color::Red)
    }
}

/// A row of the SEVERITY CODE OBJECT MESSAGE table (`code` as it should read).
pub(crate) fn finding_row(f: &Finding, code: String) -> Vec<Cell> {
    let sev = match f.severity {
        Severity::Error => Cell::new("error").fg(Color::Red),
        Severity::Warning => Cell::new("warning").fg(Color::Yellow),
        Severity::Info => Cell::new("info").fg(Color::Cyan),
    };
    vec![
        sev,
        Cell::new(code),
        Cell::new(f.objects.first().map(ToString::to_string).unwrap_or_default()),
        Cell::new(&f.message),
    ]
}

pub(crate) fn findings(out: &mut dyn Write, list: &[Finding], paint: Paint) -> std::io::Result<()> {
    if list.is_empty() {
        return writeln!(out);
    }
    writeln!(out)?;
    for f in list {
        writeln!(out, "{} {}: {}", paint.severity(f.severity), paint.bold(f.code.as_str()), f.message)?;
        writeln!(out, "    hint: {}", f.hint)?;
    }
    writeln!(out)
}

/// `text` cut to `max` characters, ending in `…` when cut.
pub(crate) fn fit(text: &str, max: Option<usize>) -> String {
    match max {
        Some(max) if text.chars().count() > max => {
            let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
            out.push('…');
            out
        }
        _ => text.to_string(),
    }
}

/// Names joined with ", " up to `shown`, then `… (+N)`.
pub(crate) fn name_list<S: AsRef<str>>(names: &[S], total: usize, shown: usize) -> String {
    let mut text = names.iter().take(shown).map(AsRef::as_ref).collect::<Vec<_>>().join(", ");
    if total > shown.min(names.len()) {
        text.push_str(&format!(", … (+{})", total - shown.min(names.len())));
    }
    text
}
