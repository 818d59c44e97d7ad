//! `explain finding [CODE]`: the finding pages compiled into the binary (docs/findings/), so an
//! installed plugin, which has no repository beside it, can still show what a code means.
//!
//! The pages are markdown; at a terminal they are printed as written except that paragraphs and
//! list items are wrapped to the width between words (an identifier, a command or an IP is never
//! cut, `style::hang_words`). Code blocks and tables keep their lines, as `man` keeps its examples.

use std::io::Write;

use crate::findings::{Rule, CATALOGUE};

use super::style::hang_words;
use super::Paint;

/// Every code, a line each: CODE, SEVERITY, and the index's one-line meaning (wrapped under it).
pub(crate) fn list(out: &mut dyn Write, paint: Paint) -> std::io::Result<()> {
    if !paint.no_headers {
        writeln!(out, "{}", paint.bold("CODE     SEVERITY   MEANING"))?;
    }
    for rule in CATALOGUE {
        let head = format!("{:<8} {:<10} ", rule.code.as_str(), rule.code.severity().as_str());
        let meaning = plain(rule.meaning);
        // Narrow terminals: the meaning under the code, across the whole width.
        if paint.width.is_some_and(|w| w < 60) {
            writeln!(out, "{}", head.trim_end())?;
            print(out, &format!("  {meaning}"), paint, 2)?;
        } else {
            print(out, &format!("{head}{meaning}"), paint, head.len())?;
        }
    }
    writeln!(out)?;
    print(out, "One page: kubectl lbdoctor explain finding CODE", paint, 0)
}

/// `text` wrapped between words to the width, the lines after the first under `indent`.
fn print(out: &mut dyn Write, text: &str, paint: Paint, indent: usize) -> std::io::Result<()> {
    for line in hang_words(text, paint.width, indent) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// One page, paragraphs and list items wrapped to the width.
pub(crate) fn page(out: &mut dyn Write, rule: &Rule, paint: Paint) -> std::io::Result<()> {
    let mut in_code = false;
    let mut paragraph: Vec<&str> = Vec::new();
    // A paragraph or list item in progress: its first-line prefix and the indent of the rest.
    let mut item: Option<(String, usize)> = None;
    let flush = |out: &mut dyn Write, paragraph: &mut Vec<&str>, item: &mut Option<(String, usize)>| {
        if paragraph.is_empty() {
            return Ok(());
        }
        let (prefix, indent) = item.take().unwrap_or_default();
        let text = format!("{prefix}{}", paragraph.join(" "));
        paragraph.clear();
        print(out, &text, paint, indent)
    };
    for line in rule.page.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(out, &mut paragraph, &mut item)?;
            in_code = !in_code;
            writeln!(out, "{line}")?;
            continue;
        }
        if in_code || trimmed.starts_with('|') || trimmed.starts_with('#') || trimmed.is_empty() {
            flush(out, &mut paragraph, &mut item)?;
            if trimmed.starts_with('#') && !in_code {
                let indent = trimmed.find(' ').map_or(0, |i| i + 1);
                for part in hang_words(line, paint.width, indent) {
                    writeln!(out, "{}", paint.bold(&part))?;
                }
            } else {
                writeln!(out, "{line}")?;
            }
            continue;
        }
        let marker = ["- ", "* "].iter().find(|m| trimmed.starts_with(**m)).map(|m| m.len()).or_else(|| {
            let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
            (digits > 0 && trimmed[digits..].starts_with(". ")).then_some(digits + 2)
        });
        if let Some(len) = marker {
            flush(out, &mut paragraph, &mut item)?;
            let lead = line.len() - trimmed.len();
            item = Some((line[..lead + len].to_string(), lead + len));
            paragraph.push(trimmed[len..].trim());
        } else {
            paragraph.push(trimmed);
        }
    }
    flush(out, &mut paragraph, &mut item)
}

/// The index's markdown meaning without its emphasis marks.
fn plain(text: &str) -> String {
    text.replace("**", "")
}
