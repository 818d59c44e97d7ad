//! Printers: one report, several formats. Nothing here decides anything.

mod cilium;
mod table;
pub mod wire;

use std::io::Write;

use crate::report::{PoolsReport, Report};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Wide,
    Json,
    Yaml,
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

pub fn render(out: &mut dyn Write, report: &Report, format: Format, view: View, color: bool) -> std::io::Result<()> {
    match format {
        Format::Json | Format::Yaml => document(out, report, format),
        Format::Table | Format::Wide => {
            let paint = table::Paint { color };
            let wide = format == Format::Wide;
            match view {
                View::Service => table::service(out, report, wide, paint),
                View::Services => table::services(out, report, wide, paint, false),
                View::Check => table::services(out, report, wide, paint, true),
            }
        }
    }
}

/// `explain pools` / `explain pool NAME`.
pub fn render_pools(
    out: &mut dyn Write,
    report: &PoolsReport,
    format: Format,
    single: bool,
    color: bool,
) -> std::io::Result<()> {
    match format {
        Format::Json | Format::Yaml => document(out, report, format),
        Format::Table | Format::Wide => {
            table::pools(out, report, single, format == Format::Wide, table::Paint { color })
        }
    }
}

/// JSON or YAML: the same document.
pub fn document<T: serde::Serialize>(out: &mut dyn Write, value: &T, format: Format) -> std::io::Result<()> {
    if format == Format::Yaml {
        let text = serde_saphyr::to_string(value).map_err(std::io::Error::other)?;
        return out.write_all(text.as_bytes());
    }
    serde_json::to_writer_pretty(&mut *out, value)?;
    writeln!(out)
}
