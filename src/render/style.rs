//! The pieces every table shares: colours, table construction, marks, finding rows. A leaf:
//! the renderers use it, it uses none of them.

use std::io::Write;

use comfy_table::{presets, Cell, Color, Column, ColumnConstraint, ContentArrangement, Table, Width};
use owo_colors::OwoColorize;

use crate::report::{Finding, Severity};

/// How tables and text are drawn: colour, the width tables must fit, and whether tables print
/// their header row. Decided once from the flags and the environment (`app/resolve.rs`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Paint {
    pub color: bool,
    /// The width every table fits in (long cells are cut with `…`, free-text columns wrap);
    /// `None` draws every cell in full (`-o wide`, a pipe without `COLUMNS`).
    pub width: Option<usize>,
    /// `--no-headers`: tables print their rows only.
    pub no_headers: bool,
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

/// Columns with these headers hold free text: with a width they wrap inside the table instead of
/// being cut (`set_wrapping` marks any other column).
const FREE_TEXT: &[&str] = &["MESSAGE", "VERDICT", "WHY", "DETAIL", "HELD BY", "FINDINGS", "ADDRESSES"];

/// Spaces between two columns.
const GAP: usize = 3;
/// Between columns of a table laid out to a width it would not fit otherwise.
const FITTED_GAP: usize = 2;

/// A kubectl-style table: no borders, three spaces between columns, the header unless
/// `--no-headers`, and `paint.width` as the width `print_table` fits it in. The columns named in
/// [`FREE_TEXT`] wrap; every other long cell is cut with `…`.
pub(crate) fn new_table(paint: Paint, header: &[&str]) -> Table {
    let mut t = Table::new();
    // No tty lookups: the width is ours (`paint.width`), and colour is `paint.color` alone.
    t.load_preset(presets::NOTHING).set_content_arrangement(ContentArrangement::Disabled).force_no_tty();
    if paint.color {
        t.enforce_styling();
    }
    if let Some(width) = paint.width {
        t.set_width(u16::try_from(width).unwrap_or(u16::MAX));
    }
    // Without headers the header row is there but empty, so that the columns exist (padding,
    // wrapping) before any row; `print_table` leaves it out.
    if paint.no_headers {
        t.set_header(header.iter().map(|_| Cell::new("")));
    } else {
        t.set_header(header.iter().map(Cell::new));
    }
    for col in t.column_iter_mut() {
        col.set_padding((0, GAP as u16));
    }
    for (i, name) in header.iter().enumerate() {
        if FREE_TEXT.contains(name) {
            set_wrapping(&mut t, i);
        }
    }
    t
}

/// Marks column `index` (0-based) as free text: when the table is wider than its width, this
/// column's cells wrap onto more lines instead of being cut with `…`. A wrapping column is one
/// whose constraint is "at most the table's width" (`UpperBoundary(Percentage(100))`), which
/// changes nothing for a table that fits.
pub(crate) fn set_wrapping(t: &mut Table, index: usize) {
    if let Some(col) = t.column_mut(index) {
        col.set_constraint(ColumnConstraint::UpperBoundary(Width::Percentage(100)));
    }
}

fn wraps(col: &Column) -> bool {
    matches!(col.constraint(), Some(ColumnConstraint::UpperBoundary(Width::Percentage(100))))
}

/// Prints a table from `new_table`: as comfy-table lays it out when it fits its width (or has
/// none), else fitted to the width ([`print_fitted`]). Without headers (scripts, `| grep`) a
/// row stays one line, whole, whatever the width.
pub(crate) fn print_table(out: &mut dyn Write, t: &Table) -> std::io::Result<()> {
    let headless = t.header().is_some_and(|h| h.cell_iter().all(|c| c.content().is_empty()));
    if let Some(width) = t.width().map(usize::from).filter(|_| !headless) {
        let natural = natural_widths(t);
        if natural.iter().sum::<usize>() + GAP * natural.len().saturating_sub(1) > width {
            return print_fitted(out, t, width, &natural);
        }
    }
    if let Some(lines) = plain_lines(t) {
        return lines.iter().skip(usize::from(headless)).try_for_each(|line| writeln!(out, "{line}"));
    }
    for line in t.lines().skip(usize::from(headless)) {
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// [`print_table`] of a [`new_table`] holding `rows`, for tables of thousands of rows: where no
/// cell needs comfy-table (uncoloured, single-line ASCII, a table that fits its width) the lines
/// are written straight from the cells, the bytes `print_table` writes (a property test compares
/// them), without first building comfy-table's cells: 16 MB for a 10,000-Service `check`.
pub(crate) fn print_rows(
    out: &mut dyn Write,
    paint: Paint,
    header: &[&str],
    rows: Vec<Vec<String>>,
) -> std::io::Result<()> {
    let head: Vec<&str> = header.iter().map(|h| if paint.no_headers { "" } else { *h }).collect();
    let columns = head.len();
    let plain_cell = |c: &str| c.is_ascii() && !c.contains('\n');
    let plain = !paint.color
        && head.iter().all(|h| plain_cell(h))
        && rows.iter().all(|r| r.len() <= columns && r.iter().all(|c| plain_cell(c)));
    let through_comfy = |out: &mut dyn Write, rows: Vec<Vec<String>>| {
        let mut t = new_table(paint, header);
        for row in rows {
            t.add_row(row);
        }
        print_table(out, &t)
    };
    if !plain {
        return through_comfy(out, rows);
    }
    let headless = head.iter().all(|h| h.is_empty());
    let every_row = || std::iter::once(head.clone()).chain(rows.iter().map(|r| r.iter().map(String::as_str).collect()));
    // As print_table: the natural widths decide whether it fits; comfy-table gives an empty
    // column one character when it lays one out.
    let mut natural = vec![0; columns];
    for row in every_row() {
        for (i, cell) in row.iter().enumerate() {
            natural[i] = natural[i].max(cell.len());
        }
    }
    let width = paint.width.map(|w| w.min(usize::from(u16::MAX))).filter(|_| !headless);
    if width.is_some_and(|w| natural.iter().sum::<usize>() + GAP * columns.saturating_sub(1) > w) {
        return through_comfy(out, rows);
    }
    let widths: Vec<usize> = natural.iter().map(|&w| w.max(1)).collect();
    let mut line = String::with_capacity(widths.iter().sum::<usize>() + GAP * columns);
    for row in every_row().skip(usize::from(headless)) {
        line.clear();
        for (i, width) in widths.iter().enumerate() {
            let cell = row.get(i).copied().unwrap_or("");
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', width - cell.len() + GAP));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// comfy-table's lines for a table that needs no fitting, written directly: its per-cell
/// formatting was a tenth of a 10,000-Service `check`. Only uncoloured tables of single-line ASCII
/// cells, where the two agree byte for byte (a property test compares them); `None` for any other.
fn plain_lines(t: &Table) -> Option<Vec<String>> {
    // Columns `new_table` made: no left padding, GAP on the right (a row longer than the header
    // adds columns with comfy-table's default padding).
    if t.should_style() || t.column_iter().any(|c| c.padding_width() != GAP as u16 || c.is_hidden()) {
        return None;
    }
    let rows: Vec<Vec<String>> = printed_rows(t).map(|row| row.cell_iter().map(Cell::content).collect()).collect();
    let columns = t.column_iter().count();
    // comfy-table gives an empty column one character.
    let mut widths = vec![1; columns];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            if i >= columns || !cell.is_ascii() || cell.contains('\n') {
                return None;
            }
            widths[i] = widths[i].max(cell.len());
        }
    }
    let lines = rows
        .iter()
        .map(|row| {
            let mut line = String::with_capacity(widths.iter().sum::<usize>() + GAP * columns);
            for (i, width) in widths.iter().enumerate() {
                let cell = row.get(i).map_or("", String::as_str);
                line.push_str(cell);
                line.extend(std::iter::repeat_n(' ', width - cell.len() + GAP));
            }
            line.truncate(line.trim_end().len());
            line
        })
        .collect();
    Some(lines)
}

/// The rows a fitted table prints: the header, then the body.
fn printed_rows(t: &Table) -> impl Iterator<Item = &comfy_table::Row> {
    t.header().into_iter().chain(t.row_iter())
}

fn cell_width(cell: &Cell) -> usize {
    cell.content().split('\n').map(display_width).max().unwrap_or(0)
}

/// Each column's widest cell, in display columns.
fn natural_widths(t: &Table) -> Vec<usize> {
    let mut widths = vec![0; t.column_iter().count()];
    for row in printed_rows(t) {
        for (i, cell) in row.cell_iter().enumerate() {
            if i >= widths.len() {
                widths.push(0);
            }
            widths[i] = widths[i].max(cell_width(cell));
        }
    }
    widths
}

/// Narrowest a wrapping column gets before a column is dropped.
const WRAP_FLOOR: usize = 24;

/// Headers of columns that give way, in this order, when a table does not fit its width: the
/// marks and hashes that the free text beside them (VERDICT, EXCLUDED-BY) says again, as kubectl
/// keeps its `-o wide` columns for wide screens. No other column is ever cut or dropped.
const DROP_ORDER: &[&str] =
    &["HASH", "SCORE", "ROLES", "ENDPOINTS", "SELECTED", "NETWORK", "EXCLUDE-LB", "LOCAL-EP", "SPEAKER"];

/// Widths for the `shown` columns within `limit`, or `None`: only wrapping columns give way,
/// the widest first, never below `floor`, their header or their longest word (`least`).
fn plan(
    natural: &[usize],
    wrapping: &[bool],
    least: &[usize],
    shown: &[usize],
    floor: usize,
    limit: usize,
) -> Option<Vec<usize>> {
    let gaps = FITTED_GAP * shown.len().saturating_sub(1);
    let mut widths: Vec<usize> = shown.iter().map(|&i| natural[i]).collect();
    let lower = |k: usize| {
        let i = shown[k];
        if wrapping[i] {
            natural[i].min(floor.max(least[i]))
        } else {
            natural[i]
        }
    };
    while widths.iter().sum::<usize>() + gaps > limit {
        let k = (0..widths.len()).filter(|&k| widths[k] > lower(k)).max_by_key(|&k| (widths[k], k))?;
        widths[k] -= 1;
    }
    Some(widths)
}

/// The columns to show and their widths: all of them with the free text wrapped; else without
/// the columns of [`DROP_ORDER`], one at a time; else the free text down to its longest word.
/// `None`: only one record per block fits ([`print_stacked`]).
fn layout(
    natural: &[usize],
    wrapping: &[bool],
    least: &[usize],
    names: &[String],
    limit: usize,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut shown: Vec<usize> = (0..natural.len()).collect();
    if let Some(w) = plan(natural, wrapping, least, &shown, WRAP_FLOOR, limit) {
        return Some((shown, w));
    }
    for name in DROP_ORDER {
        let Some(i) = names.iter().position(|n| n == name) else { continue };
        shown.retain(|&k| k != i);
        if let Some(w) = plan(natural, wrapping, least, &shown, WRAP_FLOOR, limit) {
            return Some((shown, w));
        }
    }
    plan(natural, wrapping, least, &shown, 1, limit).map(|w| (shown, w))
}

/// A table with its header row, wider than `limit` at its `natural` widths, laid out by [`layout`].
fn print_fitted(out: &mut dyn Write, t: &Table, limit: usize, natural: &[usize]) -> std::io::Result<()> {
    let wrapping: Vec<bool> = (0..natural.len()).map(|i| t.column(i).is_some_and(wraps)).collect();
    let names: Vec<String> = match t.header() {
        Some(h) => h.cell_iter().map(|c| c.content()).collect(),
        None => Vec::new(),
    };
    let least: Vec<usize> = (0..natural.len())
        .map(|i| {
            let header = names.get(i).map_or(0, |n| display_width(n));
            let longest = t
                .column_cells_iter(i)
                .flatten()
                .flat_map(|c| {
                    c.content()
                        .split(['\n', ' '])
                        .flat_map(|w| w.split_inclusive(','))
                        .map(display_width)
                        .collect::<Vec<_>>()
                })
                .max()
                .unwrap_or(0);
            header.max(longest)
        })
        .collect();
    let Some((shown, widths)) = layout(natural, &wrapping, &least, &names, limit) else {
        return print_stacked(out, t, &names, limit);
    };
    let styled = t.should_style();
    let is_header = |row: &comfy_table::Row| t.header().is_some_and(|h| std::ptr::eq(h, row));
    let empty = Cell::new("");
    for row in printed_rows(t) {
        let cells: Vec<(Vec<String>, (String, String))> = shown
            .iter()
            .zip(&widths)
            .map(|(&i, &width)| {
                let cell = row.cell_iter().nth(i).unwrap_or(&empty);
                let content = cell.content();
                let lines: Vec<String> = if wrapping[i] && !is_header(row) {
                    content.split('\n').flat_map(|l| wrap_cell(l, width)).collect()
                } else {
                    content.split('\n').map(str::to_string).collect()
                };
                (lines, if styled { cell_style(cell) } else { Default::default() })
            })
            .collect();
        let height = cells.iter().map(|(lines, _)| lines.len()).max().unwrap_or(0);
        for k in 0..height {
            let mut line = String::new();
            for (n, (lines, (prefix, suffix))) in cells.iter().enumerate() {
                let text = lines.get(k).map(String::as_str).unwrap_or("");
                if !text.is_empty() {
                    line.push_str(prefix);
                    line.push_str(text);
                    line.push_str(suffix);
                }
                if n + 1 < cells.len() {
                    line.push_str(&" ".repeat(widths[n].saturating_sub(display_width(text)) + FITTED_GAP));
                }
            }
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    Ok(())
}

/// A cell's line in lines of at most `width`, broken between words or after a comma inside one
/// (`LBD101,LBD102`), never inside a word.
fn wrap_cell(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        for (k, piece) in word.split_inclusive(',').enumerate() {
            let line = lines.last_mut().expect("one line at least");
            let sep = if k == 0 && !line.is_empty() { " " } else { "" };
            if !line.is_empty() && display_width(line) + sep.len() + display_width(piece) > width {
                lines.push(piece.to_string());
            } else {
                line.push_str(sep);
                line.push_str(piece);
            }
        }
    }
    lines
}

/// One record per block, `HEADER  value` a line, blocks apart: what a table becomes when its
/// identifiers side by side are wider than the terminal. Values wrap under themselves.
fn print_stacked(out: &mut dyn Write, t: &Table, names: &[String], limit: usize) -> std::io::Result<()> {
    let key = names.iter().map(|n| display_width(n)).max().unwrap_or(0);
    let styled = t.should_style();
    for (r, row) in t.row_iter().enumerate() {
        if r > 0 {
            writeln!(out)?;
        }
        for (i, cell) in row.cell_iter().enumerate() {
            let (prefix, suffix) = if styled { cell_style(cell) } else { Default::default() };
            let name = names.get(i).map(String::as_str).unwrap_or("");
            for (k, part) in cell.content().split('\n').enumerate() {
                let head = if k == 0 { name } else { "" };
                let text = format!("{head:key$}  {part}");
                for line in hang_words(&text, Some(limit), key + 2) {
                    let (lead, value) = line.split_at(line.len().min(key + 2));
                    if value.is_empty() {
                        writeln!(out, "{}", lead.trim_end())?;
                    } else if display_width(&line) > limit {
                        // A word wider than the room beside the key: on its own line, whole.
                        if !lead.trim().is_empty() {
                            writeln!(out, "{}", lead.trim_end())?;
                        }
                        writeln!(out, "{prefix}{value}{suffix}")?;
                    } else {
                        writeln!(out, "{lead}{prefix}{value}{suffix}")?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// The escape codes comfy-table puts around a cell's text (its colour), found by drawing the
/// cell alone; none for a plain cell.
fn cell_style(cell: &Cell) -> (String, String) {
    let content = cell.content();
    if *cell == Cell::new(&content) {
        return Default::default();
    }
    let Some((k, text)) = content.split('\n').enumerate().find(|(_, l)| !l.is_empty()) else {
        return Default::default();
    };
    let mut probe = Table::new();
    probe.load_preset(presets::NOTHING).force_no_tty().enforce_styling().style_text_only();
    probe.add_row(vec![cell.clone()]);
    for col in probe.column_iter_mut() {
        col.set_padding((0, 0));
    }
    let Some(line) = probe.lines().nth(k) else { return Default::default() };
    match line.find(text) {
        Some(at) => (line[..at].to_string(), line[at + text.len()..].replace(' ', "")),
        None => Default::default(),
    }
}

/// A piece of text as the terminal sees it: an escape sequence (no width) or a character.
enum Token {
    Escape,
    Char,
}

fn tokens(s: &str) -> impl Iterator<Item = Token> + '_ {
    let mut rest = s;
    std::iter::from_fn(move || {
        let c = rest.chars().next()?;
        let len = if c == '\x1b' {
            let mut chars = rest.char_indices().skip(1);
            match chars.next() {
                // CSI: parameters, then a final byte in @..=~.
                Some((_, '[')) => {
                    chars.find(|(_, c)| ('@'..='~').contains(c)).map(|(i, c)| i + c.len_utf8()).unwrap_or(rest.len())
                }
                Some((i, c)) => i + c.len_utf8(),
                None => 1,
            }
        } else {
            c.len_utf8()
        };
        let (_, tail) = rest.split_at(len);
        rest = tail;
        Some(if c == '\x1b' { Token::Escape } else { Token::Char })
    })
}

/// Display columns: characters, not bytes (✓, →, …), with escape codes counting for nothing.
pub(crate) fn display_width(s: &str) -> usize {
    tokens(s).filter(|t| matches!(t, Token::Char)).count()
}

/// ✓ or ✗, green or red.
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
        let line = format!("{} {}: {}", f.severity.as_str(), f.code.as_str(), f.message);
        for (i, text) in hang_words(&line, paint.width, 4).iter().enumerate() {
            let text = if i == 0 {
                text.replacen(f.severity.as_str(), &paint.severity(f.severity), 1).replacen(
                    f.code.as_str(),
                    &paint.bold(f.code.as_str()),
                    1,
                )
            } else {
                text.clone()
            };
            writeln!(out, "{text}")?;
        }
        wrapped(out, &format!("    hint: {}", f.hint), paint, 10, false)?;
    }
    writeln!(out)
}

/// A prose line wrapped between words to `paint.width` (none: as is), continuation lines
/// indented by `indent`; bold with `bold`.
pub(crate) fn wrapped(out: &mut dyn Write, text: &str, paint: Paint, indent: usize, bold: bool) -> std::io::Result<()> {
    let style = |s: &str| if bold { paint.bold(s) } else { s.to_string() };
    for line in hang_words(text, paint.width, indent) {
        writeln!(out, "{}", style(line.trim_end()))?;
    }
    Ok(())
}

/// `text` in lines of at most `width` columns, broken only between words: the first line as it
/// starts, the others after `indent` spaces (a hanging indent). A word longer than a line is
/// never cut (an IP, a node, a command must stay whole): it stands on a line of its own. No
/// width: one line per line of the text.
pub(crate) fn hang_words(text: &str, width: Option<usize>, indent: usize) -> Vec<String> {
    // A text with lines of its own (MetalLB joins its errors with a newline): each later line
    // hangs under the first one's text, never at the margin.
    if let Some((first, rest)) = text.split_once('\n') {
        let mut lines = hang_words(first, width, indent);
        for part in rest.split('\n') {
            lines.extend(hang_words(&format!("{}{part}", " ".repeat(indent)), width, indent));
        }
        return lines;
    }
    let Some(width) = width.filter(|w| display_width(text) > *w) else { return vec![text.to_string()] };
    // The text's own leading spaces stay on its first line.
    let lead = text.len() - text.trim_start_matches(' ').len();
    let mut lines = Vec::new();
    let mut line = text[..lead].to_string();
    let mut empty = true;
    // Runs of spaces inside a line (column padding) are kept with the word after them, and
    // dropped where a line breaks.
    let mut words: Vec<String> = Vec::new();
    let mut pad = 0;
    for piece in text[lead..].split(' ') {
        if piece.is_empty() {
            pad += 1;
        } else {
            words.push(format!("{}{piece}", " ".repeat(pad)));
            pad = 0;
        }
    }
    let words = keep_quoted_together(words, width.saturating_sub(indent));
    for word in &words {
        if !empty && display_width(&line) + 1 + display_width(word) > width {
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(if empty { word.trim_start() } else { word });
        empty = false;
    }
    lines.push(line);
    lines
}

/// A `quoted command` that fits on a line of its own moves there whole rather than breaking
/// between its words: it is copied as one piece.
fn keep_quoted_together(words: Vec<String>, room: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut span: Vec<String> = Vec::new();
    for word in words {
        let ticks = word.matches('`').count();
        if span.is_empty() && ticks % 2 == 0 {
            out.push(word);
            continue;
        }
        span.push(word);
        let open = span.iter().map(|w| w.matches('`').count()).sum::<usize>() % 2 == 1;
        if !open {
            let joined = span.join(" ");
            if display_width(joined.trim_start()) <= room {
                out.push(joined);
                span.clear();
            } else {
                out.append(&mut span);
            }
        }
    }
    out.append(&mut span);
    out
}

/// Names joined with ", " up to `shown`, then `… (+N)`.
pub(crate) fn name_list<S: AsRef<str>>(names: &[S], total: usize, shown: usize) -> String {
    let mut text = names.iter().take(shown).map(AsRef::as_ref).collect::<Vec<_>>().join(", ");
    if total > shown.min(names.len()) {
        text.push_str(&format!(", … (+{})", total - shown.min(names.len())));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn plain_lines_are_comfy_tables_own(
            header in prop::collection::vec(prop_oneof!["[A-Z-]{0,8}", Just("FINDINGS".to_string())], 1..6),
            rows in prop::collection::vec(prop::collection::vec("[a-z0-9 ,<>()/.-]{0,12}", 0..7), 0..8),
            no_headers: bool,
            // Wide enough for any of these tables: print_table takes this path only when it fits.
            width in prop::option::of(120usize..300),
        ) {
            let paint = Paint { color: false, width, no_headers };
            let head: Vec<&str> = header.iter().map(String::as_str).collect();
            let mut t = new_table(paint, &head);
            // The tables lbdoctor builds: rows no longer than the header.
            for row in &rows {
                t.add_row(row.iter().take(head.len()).map(Cell::new));
            }
            let comfy: Vec<String> = t.lines().map(|l| l.trim_end().to_string()).collect();
            prop_assert_eq!(plain_lines(&t), Some(comfy));
        }

        #[test]
        fn print_rows_prints_what_print_table_prints(
            header in prop::collection::vec(prop_oneof!["[A-Z-]{0,8}", Just("FINDINGS".to_string())], 1..6),
            rows in prop::collection::vec(prop::collection::vec("[a-zé0-9 ,<>()/.\n-]{0,14}", 0..7), 0..8),
            no_headers: bool,
            // Narrow ones too: those are fitted by comfy-table's path.
            width in prop::option::of(10usize..200),
        ) {
            let paint = Paint { color: false, width, no_headers };
            let head: Vec<&str> = header.iter().map(String::as_str).collect();
            let rows: Vec<Vec<String>> = rows.into_iter().map(|r| r.into_iter().take(head.len()).collect()).collect();
            let mut t = new_table(paint, &head);
            for row in &rows {
                t.add_row(row.iter().map(Cell::new));
            }
            let (mut theirs, mut ours) = (Vec::new(), Vec::new());
            print_table(&mut theirs, &t).unwrap();
            print_rows(&mut ours, paint, &head, rows).unwrap();
            prop_assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
        }
    }

    const GREEN_CHECK: &str = "\u{1b}[32m✓\u{1b}[39m";

    #[test]
    fn hanging_lines_break_between_words_and_never_inside_one() {
        let text = "error    LBD102   L2Advertisement metallb-system/workers: selects cp-1, cp-2";
        let lines = hang_words(text, Some(40), 9);
        assert_eq!(
            lines,
            ["error    LBD102   L2Advertisement", "         metallb-system/workers: selects", "         cp-1, cp-2"]
        );
        assert_eq!(hang_words(text, None, 9), [text]);
        let long = hang_words(
            "fix: kubectl label node -l node.kubernetes.io/exclude-from-external-load-balancers",
            Some(30),
            5,
        );
        assert!(long.contains(&"     node.kubernetes.io/exclude-from-external-load-balancers".to_string()), "{long:?}");
    }

    #[test]
    fn lines_of_a_joined_message_hang_under_its_text() {
        let text = "error    LBD201   BGPPeer p: invalid hold time\nparsing peer p";
        for width in [None, Some(80)] {
            assert_eq!(
                hang_words(text, width, 9),
                ["error    LBD201   BGPPeer p: invalid hold time", "         parsing peer p"],
                "{width:?}"
            );
        }
    }

    #[test]
    fn a_quoted_command_moves_to_its_own_line_whole_when_it_fits_there() {
        let text = "check the agent: `kubectl exec ds/cilium -- cilium-dbg status` then retry";
        assert_eq!(
            hang_words(text, Some(48), 2),
            ["check the agent:", "  `kubectl exec ds/cilium -- cilium-dbg status`", "  then retry"]
        );
        // Too long for any line: it breaks between words like prose, and nothing is lost.
        let narrow = hang_words(text, Some(30), 2);
        assert_eq!(
            narrow.join(" ").split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert!(narrow.iter().all(|l| display_width(l) <= 30), "{narrow:?}");
    }

    #[test]
    fn display_width_counts_characters_not_bytes_or_escape_codes() {
        assert_eq!(display_width(""), 0);
        assert_eq!(display_width("✓ ✗ → …"), 7);
        assert_eq!(display_width(GREEN_CHECK), 1);
        assert_eq!(display_width("\u{1b}[1mbold\u{1b}[0m and plain"), 14);
    }

    #[test]
    fn layouts_wrap_free_text_then_drop_marks_then_stack() {
        let names: Vec<String> = ["NODE", "HASH", "VERDICT"].iter().map(|s| s.to_string()).collect();
        let (natural, wrapping, least) = ([10, 12, 60], [false, false, true], [10, 12, 9]);
        // Fits once the verdict wraps.
        assert_eq!(layout(&natural, &wrapping, &least, &names, 60), Some((vec![0, 1, 2], vec![10, 12, 34])));
        // Narrower: the hash goes before the verdict drops below its floor.
        assert_eq!(layout(&natural, &wrapping, &least, &names, 40), Some((vec![0, 2], vec![10, 28])));
        // Narrower still: the verdict down to its longest word; then no layout (stacked).
        assert_eq!(layout(&natural, &wrapping, &least, &names, 21), Some((vec![0, 2], vec![10, 9])));
        assert_eq!(layout(&natural, &wrapping, &least, &names, 20), None);
    }

    fn printed(t: &Table) -> String {
        let mut out = Vec::new();
        print_table(&mut out, t).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn sample(paint: Paint) -> Table {
        let mut t = new_table(paint, &["NAME", "STATE", "MESSAGE"]);
        t.add_row(vec![
            Cell::new("a-rather-long-service-name-in-a-namespace"),
            mark(true),
            Cell::new("the elected node runs no live speaker, so nobody answers ARP for the IP"),
        ]);
        t.add_row(vec![Cell::new("web"), mark(false), Cell::new("ok")]);
        t
    }

    #[test]
    fn a_table_without_width_is_drawn_in_full_and_one_with_fits() {
        let full = printed(&sample(Paint::default()));
        assert!(full.lines().any(|l| display_width(l) > 100), "{full}");
        for width in [40, 60, 80] {
            for color in [false, true] {
                let text = printed(&sample(Paint { color, width: Some(width), no_headers: false }));
                for line in text.lines() {
                    // Only a word wider than the terminal may be wider: it is never cut.
                    assert!(display_width(line) <= width || !line.contains(' '), "{width}: {line:?}\n{text}");
                }
                // The message wraps (every word of it is there); where the name cannot stand
                // beside it, each row becomes a block. Nothing is ever cut.
                assert!(text.lines().count() > full.lines().count(), "{text}");
                assert!(!text.contains('…'), "{text}");
                assert!(text.contains("a-rather-long-service-name-in-a-namespace"), "{text}");
                for word in ["elected", "nobody", "answers", "IP"] {
                    assert!(text.contains(word), "{word}: {text}");
                }
                assert_eq!(text.contains("\u{1b}["), color, "{text}");
            }
        }
        // Wide enough: exactly what comfy-table draws.
        assert_eq!(printed(&sample(Paint { width: Some(500), ..Paint::default() })), full);
    }

    #[test]
    fn no_headers_drops_the_header_row_only() {
        let with = printed(&sample(Paint::default()));
        let without = printed(&sample(Paint { no_headers: true, ..Paint::default() }));
        assert!(with.starts_with("NAME"));
        assert_eq!(without.lines().count(), 2, "{without}");
        assert!(without.starts_with("a-rather-long"));
        let narrow = printed(&sample(Paint { no_headers: true, width: Some(50), ..Paint::default() }));
        assert!(!narrow.contains("NAME") && narrow.starts_with("a-rather"), "{narrow}");
    }

    #[test]
    fn set_wrapping_marks_any_column() {
        let mut t = new_table(Paint { width: Some(30), ..Paint::default() }, &["A", "NOTES"]);
        t.add_row(vec!["x", "one two three four five six seven eight nine ten"]);
        // A column that may not wrap is stacked rather than cut.
        assert!(!printed(&t).contains('…'));
        assert!(printed(&t).starts_with("A      x\n"), "{}", printed(&t));
        set_wrapping(&mut t, 1);
        let text = printed(&t);
        assert!(!text.contains('…') && text.lines().count() > 2, "{text}");
        assert!(text.contains("ten"));
    }
}
