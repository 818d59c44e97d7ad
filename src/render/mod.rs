//! Printers: one report, several formats. Nothing here decides anything.

mod cilium;
mod finding;
mod history;
mod html;
mod json;
mod junit;
mod ordered;
mod sarif;
mod simulate;
mod style;
mod table;
pub(crate) mod watch;
pub(crate) mod wire;

use std::io::Write;

use crate::report::{PoolsReport, Report};
pub use style::Paint;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Wide,
    Json,
    Yaml,
    /// Names only, one per line (`check`, `explain`): `service/NAME`, `ipaddresspool.metallb.io/NAME`, as kubectl prints them.
    Name,
    /// JUnit XML (`check` only): a testcase per finding code × object.
    Junit,
    /// SARIF 2.1.0 (`check` only): code-scanning results with a rule per finding code.
    Sarif,
    /// One self-contained HTML page (`check`, `explain`, `history`).
    Html,
}

impl Format {
    /// Whether `command` writes this format: JUnit and SARIF only for `check`, names for what
    /// lists Services or pools (`check`, `explain`), `snapshot` only documents. The one rule both
    /// the commands and shell completion follow.
    pub fn written_by(self, command: &str) -> Result<Self, String> {
        let name = clap::ValueEnum::to_possible_value(&self).map(|v| v.get_name().to_string()).unwrap_or_default();
        let writes = if command == "explain" { "table, wide, name, json or yaml" } else { "table, wide, json or yaml" };
        match (command, self) {
            ("check", _) | ("snapshot", Format::Json | Format::Yaml) | ("explain", Format::Name) => Ok(self),
            ("snapshot", _) => Err(format!("snapshot writes -o json or -o yaml, not {name}")),
            ("explain" | "history", Format::Html) => Ok(self),
            (_, Format::Html) => {
                Err(format!("-o html is a page for check, explain and history; {command} writes -o {writes}"))
            }
            (_, Format::Junit | Format::Sarif) => {
                Err(format!("-o {name}: JUnit and SARIF are for `check`; {command} writes -o {writes}"))
            }
            (_, Format::Name) => {
                Err(format!("-o name lists Services or pools, for `check` and `explain`; {command} writes -o {writes}"))
            }
            _ => Ok(self),
        }
    }
}

/// What the CI formats need beyond the report.
pub struct CiOptions {
    /// Findings at or above it fail (JUnit failures); `None` with `--fail-on never`.
    pub threshold: Option<crate::report::Severity>,
    /// Where the objects findings name were read (file snapshots), for SARIF's physical location.
    pub origins: std::collections::HashMap<String, crate::report::ObjectOrigin>,
    /// `check --all`: the table lists the healthy Services too on a large cluster.
    pub list_all: bool,
}

/// Which table layout the command wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// `explain svc NAME`: every node of one Service.
    Service,
    /// `explain svc -A`: a line per Service.
    Services,
    /// `check`: a line per Service, then every finding.
    Check,
}

pub fn render(out: &mut dyn Write, report: &Report, format: Format, view: View, paint: Paint) -> std::io::Result<()> {
    match format {
        Format::Json => report_json(out, report),
        Format::Yaml | Format::Junit | Format::Sarif => document(out, report, format),
        Format::Html => match (view, report.services.as_slice()) {
            (View::Service, [svc]) => html::service(out, report, svc),
            _ => html::check(out, report),
        },
        Format::Name => {
            // kubectl's own `-o name`: RESOURCE/NAME, the namespace left out (`kubectl get`
            // refuses a second slash), so `| xargs kubectl get -n NS` works.
            for svc in &report.services {
                writeln!(out, "service/{}", svc.name)?;
            }
            Ok(())
        }
        Format::Table | Format::Wide => {
            let wide = format == Format::Wide;
            within(out, paint, |out| match view {
                View::Service => table::service(out, report, wide, paint),
                View::Services => table::services(out, report, wide, paint, None),
                View::Check => table::services(out, report, wide, paint, Some(true)),
            })
        }
    }
}

/// Text drawn by `draw`, then every line still wider than the width (a summary, a header line
/// the renderer did not wrap itself) wrapped between words under its own indent plus two.
/// Tables are already fitted; a single word wider than the terminal stays whole.
fn within(
    out: &mut dyn Write,
    paint: Paint,
    draw: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // --no-headers is for scripts: every row stays one line.
    let Some(width) = paint.width.filter(|_| !paint.no_headers) else { return draw(out) };
    let mut text: Vec<u8> = Vec::new();
    draw(&mut text)?;
    for line in String::from_utf8_lossy(&text).split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if style::display_width(body) <= width {
            out.write_all(line.as_bytes())?;
            continue;
        }
        let lead = body.len() - body.trim_start_matches(' ').len();
        let wrapped = style::hang_words(body, Some(width), (lead + 2).min(width / 2));
        out.write_all(wrapped.join("\n").as_bytes())?;
        out.write_all(end.as_bytes())?;
    }
    Ok(())
}

/// `check -o junit|sarif`; other formats as `render`.
pub fn render_check(
    out: &mut dyn Write,
    report: &Report,
    format: Format,
    paint: Paint,
    ci: &CiOptions,
) -> std::io::Result<()> {
    match format {
        Format::Junit => junit::render(out, report, ci),
        Format::Sarif => sarif::render(out, report, ci),
        Format::Html => html::check(out, report),
        Format::Table | Format::Wide => {
            within(out, paint, |out| table::services(out, report, format == Format::Wide, paint, Some(ci.list_all)))
        }
        _ => render(out, report, format, View::Check, paint),
    }
}

/// `history`.
pub fn render_history(
    out: &mut dyn Write,
    h: &crate::report::History,
    format: Format,
    paint: Paint,
) -> std::io::Result<()> {
    match format {
        Format::Table | Format::Wide => within(out, paint, |out| history::history(out, h, paint)),
        Format::Html => html::history(out, h),
        _ => document(out, h, format),
    }
}

/// `simulate`.
pub fn render_simulation(
    out: &mut dyn Write,
    sim: &crate::report::Simulation,
    format: Format,
    paint: Paint,
) -> std::io::Result<()> {
    match format {
        Format::Table | Format::Wide => {
            within(out, paint, |out| simulate::simulation(out, sim, format == Format::Wide, paint))
        }
        _ => document(out, sim, format),
    }
}

/// `explain pools` / `explain pool NAME`.
pub fn render_pools(
    out: &mut dyn Write,
    report: &PoolsReport,
    format: Format,
    single: bool,
    paint: Paint,
) -> std::io::Result<()> {
    match format {
        Format::Json | Format::Yaml | Format::Junit | Format::Sarif => document(out, report, format),
        Format::Html => Err(std::io::Error::new(
            std::io::ErrorKind::Unsupported,
            "-o html draws Services; explain pools writes -o table, wide, name, json or yaml",
        )),
        Format::Name => {
            for pool in &report.pools {
                writeln!(out, "ipaddresspool.metallb.io/{}", pool.name)?;
            }
            Ok(())
        }
        Format::Table | Format::Wide => {
            within(out, paint, |out| table::pools(out, report, single, format == Format::Wide, paint))
        }
    }
}

/// JSON or YAML: the same document.
pub fn document<T: serde::Serialize>(out: &mut dyn Write, value: &T, format: Format) -> std::io::Result<()> {
    if format == Format::Yaml {
        let text = serde_saphyr::to_string(value).map_err(std::io::Error::other)?;
        return out.write_all(text.as_bytes());
    }
    json::write(&mut *out, value)?;
    writeln!(out)
}

/// A Report as `-o json`, its Services laid out in parallel a chunk at a time and written in
/// order as the chunks are done (`ordered::write_ordered`): the layout of a
/// value inside a multi-line array depends on that value alone, so each Service's text is the
/// one the whole document's single pass gives it (a test compares the two on every scenario).
/// Rendering 10,000 Services one after the other was a fifth of a large `check -o json`.
fn report_json(out: &mut dyn Write, report: &Report) -> std::io::Result<()> {
    use rayon::prelude::*;
    /// The document's `{`, then `"services": [`: a Service is an object at this depth.
    const DEPTH: usize = 2;
    /// Services laid out one after the other into one buffer: a buffer each cost an allocation
    /// and, rounded up, half again the text's size.
    const CHUNK: usize = 16;
    /// The Services whose layout decides whether the array may go on one line.
    const BATCH: usize = 8 * CHUNK;
    /// Chunks laid out ahead of the one written: as many as a batch held.
    const AHEAD: usize = 4;
    /// A chunk's text, each Service behind its separator, and whether any Service took more
    /// than one line.
    type Chunk = (Vec<u8>, bool);
    // One chunk from its first Service on.
    let lay_out = |from: usize| -> std::io::Result<Chunk> {
        let chunk = &report.services[from..report.services.len().min(from + CHUNK)];
        let mut layout = json::Nested::new(DEPTH);
        let mut text = Vec::with_capacity(chunk.len() * 2560);
        let mut multi_line = false;
        for (j, service) in chunk.iter().enumerate() {
            text.extend_from_slice(if from + j == 0 { b"\n    " } else { b",\n    " });
            let starts = text.len();
            layout.append(&mut text, service)?;
            multi_line |= memchr::memchr(b'\n', &text[starts..]).is_some();
        }
        Ok((text, multi_line))
    };
    // The document around the Services (a bad day's causes and findings take milliseconds)
    // beside the first Services.
    let (first, text) = rayon::join(
        || {
            (0..report.services.len().min(BATCH))
                .into_par_iter()
                .step_by(CHUNK)
                .map(lay_out)
                .collect::<std::io::Result<Vec<Chunk>>>()
        },
        || {
            let mut text = Vec::new();
            document(&mut text, &Frame::of(report), Format::Json).map(|()| text)
        },
    );
    let first = first?;
    // One Service, or only short ones: the array may go on one line; the single pass decides.
    if report.services.len() < 2 || !first.iter().any(|(_, multi_line)| *multi_line) {
        return document(out, report, Format::Json);
    }
    let text = text?;
    // Strings hold no raw newline: this is the document's own `services` key.
    const EMPTY: &[u8] = b"\n  \"services\": []";
    let at = text
        .windows(EMPTY.len())
        .position(|w| w == EMPTY)
        .ok_or_else(|| std::io::Error::other("the report's JSON has no top-level services key"))?;
    out.write_all(&text[..at + EMPTY.len() - 1])?;
    for (part, _) in &first {
        out.write_all(part)?;
    }
    // The rest a chunk at a time, each core taking the next as soon as it is free, each written
    // in order as soon as the ones before it are.
    let chunks = report.services.len().div_ceil(CHUNK);
    let first_chunks = first.len();
    drop(first);
    ordered::write_ordered(
        chunks - first_chunks,
        AHEAD,
        |i| lay_out((first_chunks + i) * CHUNK),
        |(part, _)| out.write_all(&part),
    )?;
    out.write_all(b"\n  ]")?;
    out.write_all(&text[at + EMPTY.len()..])
}

/// The Report without its Services, borrowed (a copy of a bad day's causes and findings was
/// 5 MB): the document `report_json` writes the Services into. Serialized as `Report` is, field
/// for field; a test compares the two.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Frame<'r> {
    api_version: &'static str,
    kind: &'static str,
    source: &'r crate::report::Source,
    summary: &'r crate::report::Summary,
    causes: &'r [crate::report::Cause],
    nodes: &'r [crate::report::NodeFacts],
    node_sets: &'r [crate::report::NodeSet],
    services: [(); 0],
    findings: &'r [crate::report::Finding],
    suppressed: &'r [crate::report::Suppressed],
    #[serde(skip_serializing_if = "Option::is_none")]
    spof: Option<&'r Vec<crate::report::SpofNode>>,
}

impl<'r> Frame<'r> {
    fn of(report: &'r Report) -> Frame<'r> {
        // Every field named, so that a new one cannot be left out of the JSON.
        let Report {
            api_version,
            kind,
            source,
            summary,
            causes,
            nodes,
            node_sets,
            services: _,
            findings,
            suppressed,
            spof,
        } = report;
        Frame {
            api_version,
            kind,
            source,
            summary,
            causes,
            nodes,
            node_sets,
            services: [],
            findings,
            suppressed,
            spof: spof.as_ref(),
        }
    }
}

/// `explain finding [CODE]`: one page, or every code with its meaning.
pub fn render_findings(
    out: &mut dyn Write,
    code: Option<crate::report::Code>,
    format: Format,
    paint: Paint,
) -> std::io::Result<()> {
    let rules: Vec<&crate::findings::Rule> =
        crate::findings::CATALOGUE.iter().filter(|r| code.is_none_or(|c| r.code == c)).collect();
    match format {
        Format::Table | Format::Wide => match rules.as_slice() {
            [one] if code.is_some() => finding::page(out, one, paint),
            _ => finding::list(out, paint),
        },
        Format::Name => {
            for r in rules {
                writeln!(out, "{}", r.code)?;
            }
            Ok(())
        }
        _ => {
            #[derive(serde::Serialize)]
            struct Page<'a> {
                code: crate::report::Code,
                severity: crate::report::Severity,
                title: &'static str,
                meaning: &'a str,
                page: &'a str,
            }
            let pages: Vec<Page> = rules
                .iter()
                .map(|r| Page {
                    code: r.code,
                    severity: r.code.severity(),
                    title: r.code.title(),
                    meaning: r.meaning,
                    page: r.page,
                })
                .collect();
            document(out, &pages, format)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::{self, Options, Scope};

    /// Every scenario and demo cluster, in the brief form `check` writes and the detailed one of
    /// `explain`: the parallel layout is the single pass's, byte for byte.
    #[test]
    fn services_laid_out_in_parallel_are_the_single_pass() {
        let mut parallel_paths = 0;
        for file in &crate::snapshot::scenario_files() {
            let snap = crate::snapshot::load_paths(std::slice::from_ref(file), &mut std::io::empty()).unwrap();
            for detail in [false, true] {
                let opts = Options { scope: Scope::All, detail, map: false, overrides: Default::default() };
                let Ok(mut report) = diagnose::diagnose(&snap, &opts) else { continue };
                diagnose::conclude(&mut report);
                // Without and with `spof`: the borrowed frame writes it where the Report does.
                for spof in [None, Some(Vec::new())] {
                    report.spof = spof;
                    let (mut single, mut parallel) = (Vec::new(), Vec::new());
                    document(&mut single, &report, Format::Json).unwrap();
                    report_json(&mut parallel, &report).unwrap();
                    assert_eq!(String::from_utf8(parallel).unwrap(), String::from_utf8(single).unwrap(), "{file}");
                }
                let mut layout = json::Nested::new(2);
                let multi_line = report.services.iter().any(|s| {
                    let mut text = Vec::new();
                    layout.append(&mut text, s).unwrap();
                    text.contains(&b'\n')
                });
                parallel_paths += usize::from(report.services.len() >= 2 && multi_line);
            }
        }
        assert!(parallel_paths > 20, "only {parallel_paths} reports took the parallel path");
    }

    /// homelab's report with its Services repeated to 1,100: more than one parallel batch holds.
    fn many_services() -> Report {
        let snap =
            crate::snapshot::load_paths(&["testdata/clusters/homelab.yaml".into()], &mut std::io::empty()).unwrap();
        let opts = Options { scope: Scope::All, detail: false, map: false, overrides: Default::default() };
        let mut report = diagnose::diagnose(&snap, &opts).unwrap();
        report.services = report.services.iter().cycle().take(1100).cloned().collect();
        report
    }

    /// More Services than one parallel batch holds: the batches join as one array.
    #[test]
    fn batches_of_services_join_as_one_array() {
        let report = many_services();
        let (mut single, mut parallel) = (Vec::new(), Vec::new());
        document(&mut single, &report, Format::Json).unwrap();
        report_json(&mut parallel, &report).unwrap();
        assert_eq!(String::from_utf8(parallel).unwrap(), String::from_utf8(single).unwrap());
    }

    /// Output that fails after `left` bytes, as a full disk does.
    struct FillsUp {
        left: usize,
    }

    impl Write for FillsUp {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.left == 0 {
                return Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "full"));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A write failing while later chunks are laid out ends the layout too, and is the error.
    #[test]
    fn a_failing_write_stops_the_layout() {
        let report = many_services();
        let mut whole = Vec::new();
        report_json(&mut whole, &report).unwrap();
        // In the first batch, in a later chunk, and at the end.
        for left in [10_000, whole.len() / 2, whole.len() - 2] {
            let err = report_json(&mut FillsUp { left }, &report).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::StorageFull, "after {left} bytes");
        }
    }
}
