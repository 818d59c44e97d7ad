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

/// One parsed document: its root value and the 1-based line and column of its root node.
pub(super) struct Document {
    pub value: Value,
    pub line: u64,
    pub column: u64,
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
                    value: d.value,
                })
                .collect(),
        )
    };
    match piece {
        Piece::Stream { text, first_line } => match super::yaml_block::mapping_document(text) {
            Some((value, line)) => Some(vec![Document { value, line: line + first_line - 1, column: 1 }]),
            None => stream(text, *first_line),
        },
        Piece::List { head, first_line, items } => {
            let mut docs = stream(head, *first_line)?;
            let [doc] = docs.as_mut_slice() else { return None };
            let values = items
                .par_iter()
                .map(|item| {
                    if let Some(value) = super::yaml_block::sequence_entry(item) {
                        return Some(value);
                    }
                    let one: Vec<Value> = serde_saphyr::from_str_with_options(item, options()).ok()?;
                    <[Value; 1]>::try_from(one).ok().map(|[v]| v)
                })
                .collect::<Option<Vec<Value>>>()?;
            // The head kept `items:` with nothing under it.
            match doc.value.get_mut("items") {
                Some(slot @ Value::Null) => *slot = Value::Array(values),
                _ => return None,
            }
            Some(docs)
        }
    }
}

/// The pieces, or `None` when there is only one (nothing to gain) or a directive applies to
/// what follows it.
fn cut(text: &str) -> Option<Vec<Piece<'_>>> {
    // (byte offset, line) of every line start.
    let starts: Vec<(usize, u64)> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .filter(|&i| i < text.len())
        .zip(1u64..)
        .collect();
    let line_at = |k: usize| &text[starts[k].0..starts.get(k + 1).map_or(text.len(), |s| s.0)];
    if starts.iter().enumerate().any(|(k, _)| line_at(k).starts_with('%')) {
        return None;
    }
    let mut bounds: Vec<usize> = (0..starts.len()).filter(|&k| k == 0 || is_marker(line_at(k))).collect();
    bounds.dedup();
    let mut pieces = Vec::new();
    for (i, &k) in bounds.iter().enumerate() {
        let end = bounds.get(i + 1).copied().unwrap_or(starts.len());
        let (from, to) = (starts[k].0, starts.get(end).map_or(text.len(), |s| s.0));
        let lines: Vec<&str> = (k..end).map(line_at).collect();
        pieces.push(match list_items(&lines) {
            Some((items_line, item_starts, region_end)) => {
                let offset = |j: usize| starts[k + j].0;
                let mut head = String::with_capacity(offset(items_line + 1) - from + 64);
                head.push_str(&text[from..offset(items_line + 1)]);
                let rest = if region_end < lines.len() { offset(region_end) } else { to };
                head.push_str(&text[rest..to]);
                let items = item_starts
                    .iter()
                    .enumerate()
                    .map(|(n, &j)| {
                        let next = item_starts.get(n + 1).copied().unwrap_or(region_end);
                        let stop = if next < lines.len() { offset(next) } else { to };
                        &text[offset(j)..stop]
                    })
                    .collect();
                Piece::List { head, first_line: starts[k].1, items }
            }
            None => Piece::Stream { text: &text[from..to], first_line: starts[k].1 },
        });
    }
    let many = pieces.len() > 1 || pieces.iter().any(|p| matches!(p, Piece::List { items, .. } if items.len() > 1));
    many.then_some(pieces)
}

/// `---` alone or followed by a space or tab: a document marker.
fn is_marker(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    line == "---" || line.starts_with("--- ") || line.starts_with("---\t")
}

/// In one document's lines: the line of `items:`, the first line of each item, and the line
/// after the last, when the document is a `kind: List` whose every line at the start of a line
/// is a plain key, a comment, a blank or an item. Anything else (a quoted scalar continued at
/// the margin, a flow collection) is left to the whole-stream reader.
fn list_items(lines: &[&str]) -> Option<(usize, Vec<usize>, usize)> {
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
    let mut items_line = None;
    let mut list_kind = false;
    for (j, l) in lines.iter().enumerate() {
        if !at_margin(l) || is_marker(l) || is_item(l) {
            continue;
        }
        let (k, v) = key(l)?;
        match k {
            "items" if v.is_empty() => items_line = Some(j),
            "kind" => list_kind = v == "List" || (v.ends_with("List") && v.chars().all(|c| c.is_ascii_alphanumeric())),
            _ => {}
        }
    }
    let items_line = items_line.filter(|_| list_kind)?;
    let mut item_starts = Vec::new();
    let mut region_end = lines.len();
    for (j, l) in lines.iter().enumerate().skip(items_line + 1) {
        if is_item(l) {
            item_starts.push(j);
        } else if at_margin(l) {
            region_end = j;
            break;
        }
    }
    (!item_starts.is_empty()).then_some((items_line, item_starts, region_end))
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
        documents(text, options).map(|d| d.into_iter().map(|d| (d.value, d.line, d.column)).collect())
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
