//! `-o html`: one self-contained page to look at and forward (a ticket, an issue tracker).
//!
//! Written with maud: every value interpolated into its markup is escaped unless wrapped in
//! `PreEscaped`, which only the page's own style and script are, so a name, label, log line or
//! Event text from the cluster can only ever be text. The page loads nothing: its style and
//! script are inline and allowed by their hashes in a Content Security Policy that forbids every
//! other source, connections included.

mod check;
mod history;
mod map;
mod service;

use std::io::Write;

use base64::Engine;
use maud::{html, Markup, PreEscaped, DOCTYPE};
use sha2::{Digest, Sha256};

pub use check::check;
pub use history::history;
pub use service::service;

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");

/// The policy: nothing but the page's own style and script, by hash; no connection, frame, form
/// target, font or image (the one data: image is the empty icon that stops a favicon request).
fn content_security_policy() -> String {
    let hash = |text: &str| base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()));
    format!(
        "default-src 'none'; style-src 'sha256-{}'; script-src 'sha256-{}'; img-src data:; base-uri 'none'; form-action 'none'",
        hash(STYLE),
        hash(SCRIPT)
    )
}

/// The page around `body`, written to `out`.
fn page(out: &mut dyn Write, title: &str, body: Markup) -> std::io::Result<()> {
    let markup = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta http-equiv="Content-Security-Policy" content=(content_security_policy());
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="generator" content=(concat!("kubectl-lbdoctor ", env!("CARGO_PKG_VERSION")));
                link rel="icon" href="data:,";
                title { (title) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                (body)
                footer { "Written by kubectl-lbdoctor " (env!("CARGO_PKG_VERSION")) ". This page loads nothing from the network." }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    };
    out.write_all(markup.into_string().as_bytes())?;
    out.write_all(b"\n")
}

/// A heading with an anchor of its own.
fn section_heading(id: &str, text: &str) -> Markup {
    html! { h2 id=(id) { (text) } }
}

/// `n thing` / `n things`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
