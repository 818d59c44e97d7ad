//! The block YAML that `kubectl get -o yaml` and most dumps write (indented mappings and
//! sequences, plain and quoted one-line scalars, `|` text), transcribed straight into JSON text,
//! which the loader then decodes as it decodes a JSON file. A general YAML parser spends most of
//! a large snapshot's load time on what this subset never has (flow collections, anchors, tags,
//! folded or multi-line plain scalars, comments after values), and a tree of values built from
//! it costs an allocation per node, then a second pass to decode the types from it; whatever
//! falls outside the subset, or whose type a YAML schema could read otherwise (a float, `yes`,
//! `0777`), makes these functions answer `None` and the caller hand the piece to serde-saphyr.
//! No crate reads this subset alone; the tests hold every answer to serde-saphyr's.

use serde_json::Value;
use std::borrow::Cow;

/// One document whose root is a block mapping at the margin, after blank, comment or `---`
/// lines, as JSON text (its keys in the document's order); `None` outside the subset. With the
/// root's 1-based line.
pub(super) fn mapping_document(text: &str) -> Option<(String, u64)> {
    let mut p = Parser::new(text);
    let mut marker = false;
    while let Some(&(indent, content)) = p.lines.get(p.at) {
        if content.is_empty() || content.starts_with('#') {
            p.at += 1;
        } else if indent == 0 && !marker && content == "---" {
            marker = true;
            p.at += 1;
        } else {
            break;
        }
    }
    let line = p.at as u64 + 1;
    let (0, _) = *p.lines.get(p.at)? else { return None };
    p.mapping(0)?;
    p.skip_blank();
    (p.at == p.lines.len()).then_some((p.out, line))
}

/// The single entry of a one-entry block sequence at the margin (`- …`), as a List's item is
/// cut, as JSON text.
pub(super) fn sequence_entry(text: &str) -> Option<String> {
    let mut p = Parser::new(text);
    p.skip_blank();
    let entries = p.sequence(0)?;
    p.skip_blank();
    if p.at != p.lines.len() || entries != 1 {
        return None;
    }
    // Without the brackets around the one entry.
    p.out.pop();
    p.out.remove(0);
    Some(p.out)
}

struct Parser<'a> {
    /// (indentation, the rest of the line without its line break).
    lines: Vec<(usize, &'a str)>,
    /// The lines as written, for the text of `|` scalars.
    raw: Vec<&'a str>,
    at: usize,
    /// The JSON written so far.
    out: String,
    /// The keys of the mappings being read, innermost last: a key met twice is not in the subset.
    keys: Vec<&'a str>,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        let raw: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
        let lines = raw
            .iter()
            .map(|l| {
                let content = l.trim_start_matches(' ');
                (l.len() - content.len(), content)
            })
            .collect();
        // JSON is about as long as the YAML it comes from.
        Parser { lines, raw, at: 0, out: String::with_capacity(text.len() + 64), keys: Vec::new() }
    }

    fn skip_blank(&mut self) {
        while self.lines.get(self.at).is_some_and(|(_, c)| c.is_empty() || c.starts_with('#')) {
            self.at += 1;
        }
    }

    /// The next line that carries content, without moving.
    fn peek(&mut self) -> Option<(usize, &'a str)> {
        self.skip_blank();
        self.lines.get(self.at).copied()
    }

    fn mapping(&mut self, indent: usize) -> Option<()> {
        let own = self.keys.len();
        self.out.push('{');
        while let Some((at, content)) = self.peek() {
            if at < indent || (at == indent && is_entry(content)) {
                break;
            }
            if at > indent || content.starts_with('\t') {
                return None;
            }
            let (key, rest) = split_key(content)?;
            if self.keys[own..].contains(&key) {
                return None;
            }
            self.keys.push(key);
            if self.keys.len() > own + 1 {
                self.out.push(',');
            }
            push_str(&mut self.out, key);
            self.out.push(':');
            self.at += 1;
            self.value_after(indent, rest, true)?;
        }
        self.keys.truncate(own);
        self.out.push('}');
        Some(())
    }

    /// Writes the sequence; answers how many entries it has.
    fn sequence(&mut self, indent: usize) -> Option<usize> {
        let mut entries = 0;
        self.out.push('[');
        while let Some((at, content)) = self.peek() {
            if at != indent || !is_entry(content) {
                if at > indent {
                    return None;
                }
                break;
            }
            let rest = content.strip_prefix('-')?.strip_prefix(' ').unwrap_or("");
            let rest_at = indent + 2;
            let trimmed = rest.trim_start_matches(' ');
            if trimmed.starts_with('-') && (trimmed == "-" || trimmed.starts_with("- ")) {
                return None;
            }
            if entries > 0 {
                self.out.push(',');
            }
            entries += 1;
            if !trimmed.is_empty() && !trimmed.starts_with(['"', '\'']) && split_key(trimmed).is_some() {
                // A mapping whose first key sits on the entry's line.
                if trimmed.len() != rest.len() {
                    return None;
                }
                self.lines[self.at] = (rest_at, trimmed);
                self.mapping(rest_at)?;
            } else {
                self.at += 1;
                self.value_after(indent, trimmed, false)?;
            }
        }
        self.out.push(']');
        Some(entries)
    }

    /// The value after `key:` (or `- `) on a line of `indent`: `rest` of that line, else the
    /// lines below. A sequence may sit at the key's own indentation (kubectl writes them so).
    fn value_after(&mut self, indent: usize, rest: &'a str, key: bool) -> Option<()> {
        if rest.is_empty() {
            return match self.peek() {
                Some((at, content)) if at > indent && is_entry(content) => self.sequence(at).map(drop),
                Some((at, content)) if at == indent && key && is_entry(content) => self.sequence(at).map(drop),
                Some((at, _)) if at > indent => self.mapping(at),
                _ => {
                    self.out.push_str("null");
                    Some(())
                }
            };
        }
        if rest == "|" || rest == "|-" {
            let text = self.literal(indent, rest == "|")?;
            push_str(&mut self.out, &text);
            return Some(());
        }
        let value = scalar(rest)?;
        // A plain scalar continued on the next line, or anything else indented under it.
        if matches!(self.peek(), Some((at, _)) if at > indent) {
            return None;
        }
        match value {
            Scalar::Text(s) => push_str(&mut self.out, &s),
            Scalar::Json(token) => self.out.push_str(token),
            Scalar::Int(n) => {
                use std::fmt::Write as _;
                let _ = write!(self.out, "{n}");
            }
            Scalar::Typed(v) => self.out.push_str(&serde_json::to_string(&v).ok()?),
        }
        Some(())
    }

    /// A literal block scalar under a line of `indent`; `clip` keeps one final line break.
    fn literal(&mut self, indent: usize, clip: bool) -> Option<String> {
        let mut body: Vec<&str> = Vec::new();
        let mut block = None;
        while let Some(&(at, content)) = self.lines.get(self.at) {
            if content.is_empty() {
                // Spaces on an empty line could be content: not in the subset.
                if !self.raw[self.at].is_empty() {
                    return None;
                }
                body.push("");
            } else {
                let own = *block.get_or_insert(at);
                if at <= indent || at < own {
                    break;
                }
                if content.starts_with('\t') {
                    return None;
                }
                // Indented beyond the block's own indentation, a line keeps the extra spaces.
                body.push(&self.raw[self.at][own..]);
            }
            self.at += 1;
        }
        if block.is_none_or(|own| own <= indent) {
            return None;
        }
        // Trailing empty lines belong to no one under clip and strip.
        while body.last() == Some(&"") {
            body.pop();
        }
        let mut text = body.join("\n");
        if clip && !text.is_empty() {
            text.push('\n');
        }
        Some(text)
    }
}

/// Where `first` is directly followed by `second` (`": "`, `" #"`), without a substring search.
fn find_pair(s: &str, first: u8, second: u8) -> Option<usize> {
    let b = s.as_bytes();
    memchr::memchr_iter(first, b).find(|&i| b.get(i + 1) == Some(&second))
}

fn is_entry(content: &str) -> bool {
    content == "-" || content.starts_with("- ")
}

/// `key: rest` or `key:` with a plain key; `None` for anything else (quoted or complex keys).
fn split_key(content: &str) -> Option<(&str, &str)> {
    let (key, rest) = match find_pair(content, b':', b' ') {
        Some(i) => (&content[..i], content[i + 2..].trim_start_matches(' ')),
        None => (content.strip_suffix(':')?, ""),
    };
    let plain = !key.is_empty()
        && !key.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@`".contains(c))
        && !key.contains(['#', ':', '\t'])
        && !key.ends_with(' ');
    (plain && find_pair(rest, b' ', b'#').is_none()).then(|| (key, rest.trim_end_matches(' ')))
}

/// A scalar read from one line.
enum Scalar<'a> {
    Text(Cow<'a, str>),
    /// `null`, `true`, `false`, `[]`, `{}`: the same in JSON.
    Json(&'static str),
    Int(i64),
    /// As serde-saphyr types it.
    Typed(Value),
}

/// `s` as a JSON string.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut from = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[from..i]);
        if escaped.is_empty() {
            use std::fmt::Write as _;
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escaped);
        }
        from = i + 1;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// A one-line scalar as YAML's core schema types it, when nothing about it is in doubt.
fn scalar(s: &str) -> Option<Scalar<'_>> {
    match s.as_bytes().first()? {
        b'"' => return double_quoted(s).map(Scalar::Text),
        b'\'' => return single_quoted(s).map(Scalar::Text),
        _ => {}
    }
    if s == "[]" || s == "{}" {
        return Some(Scalar::Json(if s == "[]" { "[]" } else { "{}" }));
    }
    if s.starts_with(|c: char| "?:,[]{}#&*!|>%@`".contains(c)) {
        return None;
    }
    if find_pair(s, b':', b' ').is_some() || s.ends_with(':') || find_pair(s, b' ', b'#').is_some() || s.contains('\t')
    {
        return None;
    }
    match s {
        "null" | "~" => return Some(Scalar::Json("null")),
        "true" => return Some(Scalar::Json("true")),
        "false" => return Some(Scalar::Json("false")),
        _ => {}
    }
    if let Some(n) = int(s) {
        return Some(Scalar::Int(n));
    }
    const KEYWORDS: &[&str] = &["null", "true", "false", "yes", "no", "on", "off", "y", "n", "inf", "infinity", "nan"];
    let word = s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '_');
    if word && !KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(s)) {
        return Some(Scalar::Text(Cow::Borrowed(s)));
    }
    // No spelling of a number has a `/`, or a `-` anywhere but first or after an exponent's
    // `e`: uids, dates and CIDRs are strings.
    let bytes = s.as_bytes();
    let interior_dash = (1..bytes.len()).any(|i| bytes[i] == b'-' && !matches!(bytes[i - 1], b'e' | b'E'));
    if bytes[0].is_ascii_digit() && (s.contains('/') || interior_dash) {
        return Some(Scalar::Text(Cow::Borrowed(s)));
    }
    // Nor has any spelling of a number two dots among digits alone: IPv4 addresses, versions.
    let dots = bytes.iter().filter(|&&b| b == b'.').count();
    if bytes[0].is_ascii_digit() && dots >= 2 && bytes.iter().all(|b| b.is_ascii_digit() || *b == b'.') {
        return Some(Scalar::Text(Cow::Borrowed(s)));
    }
    // Whatever could be a number, a boolean or a null in some spelling (1.5, 0x1F, 1_000, True,
    // or a uid that merely starts with a digit) is typed by serde-saphyr itself: a plain
    // scalar's type depends on its text alone.
    // Alone, `- x` would read as a sequence and `---` as a document marker; after a key they
    // are neither.
    if s == "-" || s.starts_with("- ") || s.starts_with("---") || s.starts_with("...") {
        return None;
    }
    let typed: Value = serde_saphyr::from_str_with_options(s, super::file::yaml_options()).ok()?;
    (!typed.is_array() && !typed.is_object()).then_some(Scalar::Typed(typed))
}

/// A decimal integer without leading zeros that fits an i64.
fn int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && digits.len() <= 18;
    canonical.then(|| s.parse().ok()).flatten().filter(|n: &i64| !(s.starts_with('-') && *n == 0))
}

/// A single-quoted scalar on one line (`''` is a quote).
fn single_quoted(s: &str) -> Option<Cow<'_, str>> {
    let inner = s.strip_prefix('\'')?.strip_suffix('\'')?;
    if !inner.contains('\'') {
        return Some(Cow::Borrowed(inner));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\'' && chars.next()? != '\'' {
            return None;
        }
        out.push(c);
    }
    Some(Cow::Owned(out))
}

/// A double-quoted scalar on one line, with the escapes JSON has.
fn double_quoted(s: &str) -> Option<Cow<'_, str>> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains(['"', '\\']) {
        return Some(Cow::Borrowed(inner));
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return None,
            '\\' => out.push(match chars.next()? {
                '"' => '"',
                '\\' => '\\',
                '/' => '/',
                'n' => '\n',
                't' => '\t',
                'r' => '\r',
                'b' => '\u{8}',
                'f' => '\u{c}',
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    let code = u32::from_str_radix(&hex, 16).ok().filter(|_| hex.len() == 4)?;
                    char::from_u32(code)?
                }
                _ => return None,
            }),
            _ => out.push(c),
        }
    }
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn saphyr(text: &str) -> Option<Value> {
        serde_saphyr::from_str_with_options(text, super::super::file::yaml_options()).ok()
    }

    /// Whatever the subset reads, serde-saphyr reads the same.
    fn agrees(text: &str) -> bool {
        match mapping_document(text) {
            Some((json, _)) => {
                let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
                assert_eq!(Some(&v), saphyr(text).as_ref(), "{text}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn kubectl_output_is_in_the_subset() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    note: |\n      line one\n\n        indented\n      last\n    strip: |-\n      x\n  labels:\n    app: web\n    empty: \"\"\n  name: web-0\n  namespace: default\nspec:\n  containers:\n  - image: quay.io/metallb/speaker:v0.16.1\n    name: speaker\n    ports:\n    - containerPort: 7472\n      name: monitoring\n  nodeName: node-a\n  tolerations: []\nstatus:\n  conditions:\n  - status: \"True\"\n    type: Ready\n  podIP: 10.244.0.7\n  hostIP: '192.0.2.1'\n  count: -3\n  ok: true\n  none: null\n  flag:\n";
        assert!(agrees(text));
    }

    /// What JSON must escape comes back as written: quotes, backslashes, line breaks, control
    /// characters, in every kind of scalar and in keys.
    #[test]
    fn text_json_escapes_reads_back_as_serde_saphyr_reads_it() {
        let text = "a: \"say \\\"hi\\\" \\\\ \\t \\u0001 \\u00e9 \\/\"\nb: 'it''s \"q\" \\ back'\nc: plain\\slash\"quote\nd\\e: |\n  two\n  \"lines\" \\\nf: \"\\r\\n\"\n";
        assert!(agrees(text), "{text}");
        let (json, _) = mapping_document(text).unwrap();
        assert!(json.contains("\\u0001"), "{json}");
    }

    #[test]
    fn scalars_a_schema_could_read_otherwise_are_typed_as_serde_saphyr_types_them() {
        for s in [
            "1.5",
            "0777",
            "0x1F",
            "1_000",
            "1e3",
            "yes",
            "On",
            "True",
            ".inf",
            "1:20",
            "+1",
            "2026-12-06",
            "-0",
            "NULL",
            "- 0V",
            "-",
            "---",
            "--- x",
            "... x",
            "-x",
        ] {
            agrees(&format!("k: {s}\n"));
        }
        // A uid or an address that starts with a digit is still read here.
        for s in [
            "78e51061-7311-48a3-82ce-6f447ed4d57b",
            "10.0.0.1",
            "192.0.2.255",
            "10.244.0.0/16",
            "1.2.3",
            "1.2.",
            "1..2",
            "2026-12-06",
            "1e-3",
        ] {
            assert!(agrees(&format!("k: {s}\n")), "{s}");
        }
        for text in [
            "a: &x 1\n",
            "a: !!str 1\n",
            "a: [1, 2]\n",
            "a: >\n  folded\n",
            "a: b\n  continued\n",
            "a: 1 # c\n",
            "? a\n: b\n",
            "a: 1\na: 2\n",
        ] {
            assert!(mapping_document(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn a_list_item_reads_as_the_full_parser_reads_it() {
        let item = "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n    labels:\n      zone: a\n  status:\n    addresses:\n    - address: 192.0.2.1\n      type: InternalIP\n";
        let whole: Vec<Value> = serde_saphyr::from_str_with_options(item, super::super::file::yaml_options()).unwrap();
        let entry: Value = serde_json::from_str(&sequence_entry(item).unwrap()).unwrap();
        assert_eq!(Some(&entry), whole.first());
    }

    fn scalar_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z][a-z0-9.-]{0,12}",
            "-?[0-9]{1,20}",
            "[0-9]{1,3}(\\.[0-9]{1,3}){0,4}",
            "[A-Za-z0-9 _:./#'\"-]{0,10}",
            Just("null".to_string()),
            Just("true".to_string()),
        ]
    }

    fn tree() -> impl Strategy<Value = Value> {
        let leaf = scalar_text().prop_map(Value::String);
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z][a-zA-Z0-9./-]{0,8}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Documents written by serde-saphyr's own emitter: where the subset answers, it
        /// answers as serde-saphyr reads them back.
        #[test]
        fn the_subset_never_disagrees_with_serde_saphyr(root in prop::collection::btree_map("[a-z][a-zA-Z0-9]{0,6}", tree(), 1..5)) {
            let doc = Value::Object(root.into_iter().collect());
            let text = serde_saphyr::to_string(&doc).unwrap();
            agrees(&text);
            let plain: String = text.lines().map(|l| format!("{l}\n")).collect();
            agrees(&plain);
        }

        #[test]
        fn plain_scalars_type_as_serde_saphyr_types_them(s in scalar_text()) {
            let text = format!("k: {s}\n");
            agrees(&text);
        }
    }
}
