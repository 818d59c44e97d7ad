//! A large YAML snapshot read on every core: the text is cut where YAML itself allows no
//! ambiguity, each piece is parsed alone, and the documents are put back in order. A YAML parser
//! reads a stream from start to end, one character at a time; a 30 MB cluster dump is mostly
//! thousands of objects that do not refer to each other.
//!
//! The cuts:
//! - before every document marker (`---` at the start of a line: YAML forbids such a line
//!   inside a document's content, so it always starts a new document);
//! - inside a `kind: List` document written as `kubectl get -o yaml` writes it (`items:` at the
//!   start of a line, each item a `- ` at the start of a line): before every item.
//!
//! Whatever a piece cannot parse alone (an alias to an anchor in another piece, a directive, a
//! line the cuts misread) makes the caller read the whole text as one stream instead, so the
//! answer, or the error, is always the whole stream's.

use rayon::prelude::*;
use serde_json::Value;

/// One parsed document: its root, the 1-based line and column of its root node, and, for a
/// `kind: List` cut before its items, the items (its root's `items` is then null).
pub(super) struct Document {
    pub body: Body,
    pub line: u64,
    pub column: u64,
    pub items: Option<Vec<Body>>,
}

/// A document or List item: JSON text where the block reader transcribed it, else the value
/// serde-saphyr read.
pub(super) enum Body {
    Json(String),
    Value(Value),
}

enum Piece<'a> {
    /// Whole documents (usually one), starting at `first_line`.
    Stream { text: &'a str, first_line: u64 },
    /// A `kind: List` document without its items, then the items, each a one-entry sequence.
    List { head: String, first_line: u64, items: Vec<&'a str> },
}

/// The documents of `text` in order, parsed piece by piece in parallel; `None` when the text
/// gives no useful cut or a piece does not parse alone (read it whole instead).
pub(super) fn documents(text: &str, options: impl Fn() -> serde_saphyr::Options + Sync) -> Option<Vec<Document>> {
    let pieces = cut(text)?;
    let parsed: Vec<Option<Vec<Document>>> = pieces.par_iter().map(|p| parse(p, &options)).collect();
    parsed.into_iter().collect::<Option<Vec<Vec<Document>>>>().map(|d| d.into_iter().flatten().collect())
}

fn parse(piece: &Piece, options: &(impl Fn() -> serde_saphyr::Options + Sync)) -> Option<Vec<Document>> {
    let stream = |text: &str, first_line: u64| -> Option<Vec<Document>> {
        let docs: Vec<serde_saphyr::Spanned<Value>> = serde_saphyr::from_multiple_with_options(text, options()).ok()?;
        Some(
            docs.into_iter()
                .map(|d| Document {
                    line: d.referenced.line() + first_line - 1,
                    column: d.referenced.column(),
                    body: Body::Value(d.value),
                    items: None,
                })
                .collect(),
        )
    };
    match piece {
        Piece::Stream { text, first_line } => match super::yaml_block::mapping_document(text) {
            Some((json, line)) => {
                Some(vec![Document { body: Body::Json(json), line: line + first_line - 1, column: 1, items: None }])
            }
            None => stream(text, *first_line),
        },
        Piece::List { head, first_line, items } => {
            let mut docs = stream(head, *first_line)?;
            let [doc] = docs.as_mut_slice() else { return None };
            // The head kept `items:` with nothing under it.
            let Body::Value(value) = &doc.body else { return None };
            if !matches!(value.get("items"), Some(Value::Null)) {
                return None;
            }
            let bodies = items
                .par_iter()
                .map(|item| {
                    if let Some(json) = super::yaml_block::sequence_entry(item) {
                        return Some(Body::Json(json));
                    }
                    let one: Vec<Value> = serde_saphyr::from_str_with_options(item, options()).ok()?;
                    <[Value; 1]>::try_from(one).ok().map(|[v]| Body::Value(v))
                })
                .collect::<Option<Vec<Body>>>()?;
            doc.items = Some(bodies);
            Some(docs)
        }
    }
}

/// The pieces, or `None` when there is only one (nothing to gain) or a directive applies to
/// what follows it. Offsets, not a list of lines: a 30 MB dump has over a million of them.
fn cut(text: &str) -> Option<Vec<Piece<'_>>> {
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b'%') || memchr::memmem::find(bytes, b"\n%").is_some() {
        return None;
    }
    let mut bounds = vec![0];
    bounds.extend(
        memchr::memmem::find_iter(bytes, b"\n---").map(|i| i + 1).filter(|&start| is_marker(line_at(text, start))),
    );
    let mut pieces = Vec::new();
    let (mut first_line, mut counted) = (1u64, 0);
    for (n, &from) in bounds.iter().enumerate() {
        let to = bounds.get(n + 1).copied().unwrap_or(text.len());
        first_line += memchr::memchr_iter(b'\n', &bytes[counted..from]).count() as u64;
        counted = from;
        let piece = &text[from..to];
        pieces.push(match list_items(piece) {
            Some((after_items, item_starts, region_end)) => {
                let mut head = String::with_capacity(after_items + piece.len() - region_end + 64);
                head.push_str(&piece[..after_items]);
                head.push_str(&piece[region_end..]);
                let items = item_starts
                    .iter()
                    .enumerate()
                    .map(|(i, &start)| &piece[start..item_starts.get(i + 1).copied().unwrap_or(region_end)])
                    .collect();
                Piece::List { head, first_line, items }
            }
            None => Piece::Stream { text: piece, first_line },
        });
    }
    let many = pieces.len() > 1 || pieces.iter().any(|p| matches!(p, Piece::List { items, .. } if items.len() > 1));
    many.then_some(pieces)
}

/// The line that starts at `start`, with its line break.
fn line_at(text: &str, start: usize) -> &str {
    let end = memchr::memchr(b'\n', &text.as_bytes()[start..]).map_or(text.len(), |i| start + i + 1);
    &text[start..end]
}

/// The lines of `text` from offset `from` on: (offset, the line with its line break).
fn lines_from(text: &str, from: usize) -> impl Iterator<Item = (usize, &str)> {
    let mut at = from;
    std::iter::from_fn(move || {
        (at < text.len()).then(|| {
            let line = line_at(text, at);
            let start = at;
            at += line.len();
            (start, line)
        })
    })
}

/// `---` alone or followed by a space or tab: a document marker.
fn is_marker(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    line == "---" || line.starts_with("--- ") || line.starts_with("---\t")
}

/// In one document: where the line after `items:` starts, where each item starts, and where
/// the line after the last item starts, when the document is a `kind: List` whose every line
/// at the start of a line is a plain key, a comment, a blank or an item. Anything else (a
/// quoted scalar continued at the margin, a flow collection) is left to the whole-stream reader.
fn list_items(doc: &str) -> Option<(usize, Vec<usize>, usize)> {
    fn bare(l: &str) -> &str {
        l.trim_end_matches(['\n', '\r'])
    }
    let at_margin = |l: &str| !l.starts_with([' ', '\t']) && !l.trim().is_empty() && !l.starts_with('#');
    fn key(l: &str) -> Option<(&str, &str)> {
        let (k, rest) = bare(l).split_once(':')?;
        let plain = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || "_-./".contains(c));
        (plain && (rest.is_empty() || rest.starts_with(' '))).then(|| (k, rest.trim()))
    }
    let is_item = |l: &str| {
        let l = bare(l);
        l == "-" || l.starts_with("- ")
    };
    let mut after_items = None;
    let mut list_kind = false;
    for (start, l) in lines_from(doc, 0) {
        if !at_margin(l) || is_marker(l) || is_item(l) {
            continue;
        }
        let (k, v) = key(l)?;
        match k {
            "items" if v.is_empty() => after_items = Some(start + l.len()),
            "kind" => list_kind = v == "List" || (v.ends_with("List") && v.chars().all(|c| c.is_ascii_alphanumeric())),
            _ => {}
        }
    }
    let after_items = after_items.filter(|_| list_kind)?;
    let mut item_starts = Vec::new();
    let mut region_end = doc.len();
    for (start, l) in lines_from(doc, after_items) {
        if is_item(l) {
            item_starts.push(start);
        } else if at_margin(l) {
            region_end = start;
            break;
        }
    }
    (!item_starts.is_empty()).then_some((after_items, item_starts, region_end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> serde_saphyr::Options {
        super::super::file::yaml_options()
    }

    fn whole(text: &str) -> Vec<(Value, u64, u64)> {
        let docs: Vec<serde_saphyr::Spanned<Value>> =
            serde_saphyr::from_multiple_with_options(text, options()).unwrap();
        docs.into_iter().map(|d| (d.value, d.referenced.line(), d.referenced.column())).collect()
    }

    fn pieces(text: &str) -> Option<Vec<(Value, u64, u64)>> {
        let value = |body: Body| match body {
            Body::Json(json) => serde_json::from_str(&json).unwrap(),
            Body::Value(v) => v,
        };
        documents(text, options).map(|d| {
            d.into_iter()
                .map(|d| {
                    let mut root = value(d.body);
                    if let Some(items) = d.items {
                        root["items"] = Value::Array(items.into_iter().map(value).collect());
                    }
                    (root, d.line, d.column)
                })
                .collect()
        })
    }

    /// Every YAML file the project keeps reads the same piece by piece as whole, with the same
    /// lines and columns; most of them are cut.
    #[test]
    fn every_yaml_file_reads_as_the_whole_stream() {
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from("testdata")];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(dir).unwrap() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "yaml" || x == "yml") {
                    files.push(path);
                }
            }
        }
        let mut cut = 0;
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            let Ok(docs) = serde_saphyr::from_multiple_with_options::<serde_saphyr::Spanned<Value>>(&text, options())
            else {
                assert!(pieces(&text).is_none(), "{}: the whole stream fails, so must its pieces", file.display());
                continue;
            };
            drop(docs);
            if let Some(p) = pieces(&text) {
                assert_eq!(p, whole(&text), "{}", file.display());
                cut += 1;
            }
        }
        assert!(cut > 40, "only {cut} of {} files were cut", files.len());
    }

    #[test]
    fn a_kubectl_list_is_cut_before_every_item_and_reads_as_whole() {
        let text = "# dump\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n  # a comment\n\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    annotations:\n      note: |\n        items:\n        - not an item\n-\n  apiVersion: v1\n  kind: Node\n  metadata: {name: c}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n";
        let Some(cut) = cut(text) else { panic!("not cut") };
        assert!(matches!(&cut[..], [Piece::List { items, .. }] if items.len() == 3));
        assert_eq!(pieces(text).unwrap(), whole(text));
    }

    /// What a piece cannot read alone sends the reader back to the whole stream.
    #[test]
    fn anchors_across_pieces_and_directives_are_read_whole() {
        let anchored = "a: &x {k: v}\n---\nb: *x\n";
        assert!(cut(anchored).is_some() && pieces(anchored).is_none());
        let across_items = "apiVersion: v1\nitems:\n- &n {kind: Node}\n- *n\nkind: List\n";
        assert!(pieces(across_items).is_none());
        assert!(cut("%YAML 1.2\n---\na: 1\n---\nb: 2\n").is_none());
        // A quoted scalar continued at the margin is not mistaken for a key.
        let quoted = "apiVersion: v1\nitems:\n- kind: Node\nnote: \"one\nitems:\"\nkind: List\n";
        assert!(cut(quoted).is_none_or(|p| !p.iter().any(|p| matches!(p, Piece::List { .. }))));
    }

    #[test]
    fn documents_keep_their_order_lines_and_empty_ones() {
        let text = "# header\n---\na: 1\n---\n---\n# only a comment\n--- {b: 2}\n...\nc: 3\n";
        assert_eq!(pieces(text).unwrap(), whole(text));
        assert!(cut("a: 1\n").is_none(), "one piece: nothing to gain");
    }
}
