//! Finds the items of a JSON `kind: List` file as its bytes arrive, so that a large snapshot is
//! decoded a few megabytes at a time and its text is never whole in memory (issue 49: the
//! 27.5 MB text was a third of the load's peak).
//!
//! Only the shape `kubectl get -o json` writes is followed: one object whose `items` is an array
//! of objects. Anything else — a second `items`, an item that is not an object, a key with an
//! escape, trailing text — is [`Unsure`]: the caller then reads the file whole, as every other
//! file is read, and reports what it finds there. Whether an item is valid JSON is not checked
//! here: decoding it checks, and a failure there sends the caller to the whole-file path too, so
//! every error message stays the one it always was.

use std::ops::Range;

/// The scanner cannot follow this text; read the file whole.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Unsure;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// Before the opening `{`.
    Start,
    /// After `{` or a `,`: a key, or `}` when `first`.
    Key { first: bool },
    /// After a key's colon: its value.
    Value,
    /// After a member's value: `,` or `}`.
    AfterMember,
    /// Inside `items`: an item, or `]` when `first`.
    Item { first: bool },
    /// After an item: `,` or `]`.
    AfterItem,
    /// After the closing `}`: whitespace only.
    End,
}

/// A value begun but not finished in the bytes given so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Partial {
    /// Offset of the value's first byte.
    start: usize,
    /// Offset of the next byte to read.
    pos: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
}

enum Scan {
    /// The value ends before this offset.
    Done(usize),
    More(Partial),
}

pub(crate) struct ListScanner {
    at: At,
    /// The key whose value comes next.
    key: Vec<u8>,
    partial: Option<Partial>,
    /// The next byte to read.
    pos: usize,
    /// The top-level `kind`, when it is a string.
    kind: Option<String>,
    seen_items: bool,
}

impl ListScanner {
    pub fn new() -> ListScanner {
        ListScanner { at: At::Start, key: Vec::new(), partial: None, pos: 0, kind: None, seen_items: false }
    }

    /// The offset before which the scanner needs no byte any more: the caller may drop those
    /// (then [`ListScanner::shift`] by as many).
    pub fn keep_from(&self) -> usize {
        self.partial.map_or(self.pos, |p| p.start)
    }

    /// The buffer lost its first `n` bytes.
    pub fn shift(&mut self, n: usize) {
        self.pos -= n;
        if let Some(p) = &mut self.partial {
            p.start -= n;
            p.pos -= n;
        }
    }

    /// The top-level `kind`, once the text has ended where an object may end.
    pub fn finish(self) -> Result<Option<String>, Unsure> {
        if self.at == At::End && self.seen_items {
            Ok(self.kind)
        } else {
            Err(Unsure)
        }
    }

    /// Reads `buf` on from where the last call stopped, adding each item it completes to
    /// `items`; `eof`: no byte will follow.
    pub fn scan(&mut self, buf: &[u8], eof: bool, items: &mut Vec<Range<usize>>) -> Result<(), Unsure> {
        loop {
            if let Some(p) = self.partial.take() {
                match skip_value(buf, p) {
                    Scan::Done(end) => {
                        self.pos = end;
                        self.value_done(buf, p.start..end, items)?;
                        continue;
                    }
                    Scan::More(_) if eof => return Err(Unsure),
                    Scan::More(p) => {
                        self.partial = Some(p);
                        return Ok(());
                    }
                }
            }
            let Some(i) = buf[self.pos..].iter().position(|b| !b.is_ascii_whitespace()) else {
                self.pos = buf.len();
                return if eof && self.at != At::End { Err(Unsure) } else { Ok(()) };
            };
            self.pos += i;
            let b = buf[self.pos];
            match (self.at, b) {
                (At::Start, b'{') => self.step(At::Key { first: true }),
                (At::Key { first: true } | At::AfterMember, b'}') => self.step(At::End),
                (At::Key { .. }, b'"') => {
                    // The key and its colon are read whole, or left for when more bytes came.
                    let Some(close) = buf[self.pos + 1..].iter().position(|&c| c == b'"' || c == b'\\') else {
                        return if eof { Err(Unsure) } else { Ok(()) };
                    };
                    let end = self.pos + 1 + close;
                    if buf[end] == b'\\' {
                        return Err(Unsure);
                    }
                    let Some(colon) = buf[end + 1..].iter().position(|c| !c.is_ascii_whitespace()) else {
                        return if eof { Err(Unsure) } else { Ok(()) };
                    };
                    if buf[end + 1 + colon] != b':' {
                        return Err(Unsure);
                    }
                    self.key.clear();
                    self.key.extend_from_slice(&buf[self.pos + 1..end]);
                    self.pos = end + 2 + colon;
                    self.at = At::Value;
                }
                (At::Value, b'[') if self.key == b"items" => {
                    if std::mem::replace(&mut self.seen_items, true) {
                        return Err(Unsure);
                    }
                    self.step(At::Item { first: true });
                }
                (At::Value, _) if self.key == b"items" => return Err(Unsure),
                (At::Value, _) | (At::Item { .. }, b'{') => {
                    self.partial = Some(Partial { start: self.pos, pos: self.pos, ..Partial::default() });
                }
                (At::AfterMember, b',') => self.step(At::Key { first: false }),
                (At::Item { first: true } | At::AfterItem, b']') => self.step(At::AfterMember),
                (At::AfterItem, b',') => self.step(At::Item { first: false }),
                _ => return Err(Unsure),
            }
        }
    }

    fn step(&mut self, to: At) {
        self.at = to;
        self.pos += 1;
    }

    fn value_done(&mut self, buf: &[u8], range: Range<usize>, items: &mut Vec<Range<usize>>) -> Result<(), Unsure> {
        match self.at {
            At::Item { .. } => {
                items.push(range);
                self.at = At::AfterItem;
            }
            At::Value => {
                if self.key == b"kind" {
                    self.kind = serde_json::from_slice::<Option<String>>(&buf[range]).map_err(|_| Unsure)?;
                }
                self.at = At::AfterMember;
            }
            _ => return Err(Unsure),
        }
        Ok(())
    }
}

/// The offset after the value that starts at `start` in a text that is all there; `None` when
/// the text ends before the value does.
pub(super) fn value_end(buf: &[u8], start: usize) -> Option<usize> {
    if start >= buf.len() {
        return None;
    }
    match skip_value(buf, Partial { start, pos: start, ..Partial::default() }) {
        Scan::Done(end) => Some(end),
        Scan::More(_) => None,
    }
}

/// Reads on through a value: an object or array to its matching bracket, a string to its
/// closing quote, a number or literal to the byte that ends it.
fn skip_value(buf: &[u8], mut p: Partial) -> Scan {
    let first = buf[p.start];
    if !matches!(first, b'{' | b'[' | b'"') {
        return match buf[p.pos..].iter().position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace()) {
            Some(i) => Scan::Done(p.pos + i),
            None => {
                p.pos = buf.len();
                Scan::More(p)
            }
        };
    }
    let mut i = p.pos;
    while i < buf.len() {
        let b = buf[i];
        if p.in_string {
            if p.escaped {
                p.escaped = false;
            } else if b == b'\\' {
                p.escaped = true;
            } else if b == b'"' {
                p.in_string = false;
                if p.depth == 0 {
                    return Scan::Done(i + 1);
                }
            }
            // The rest of a string holds no quote or backslash to look at.
            if p.in_string && !p.escaped {
                match memchr::memchr2(b'"', b'\\', &buf[i + 1..]) {
                    Some(n) => i += n + 1,
                    None => i = buf.len(),
                }
                continue;
            }
        } else {
            match b {
                b'"' => p.in_string = true,
                b'{' | b'[' => p.depth += 1,
                b'}' | b']' => {
                    p.depth -= 1;
                    if p.depth == 0 {
                        return Scan::Done(i + 1);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    p.pos = buf.len();
    Scan::More(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The items found when the text arrives in pieces of `chunk` bytes, and the kind.
    fn scan_in_pieces(text: &str, chunk: usize) -> Result<(Vec<String>, Option<String>), Unsure> {
        let bytes = text.as_bytes();
        let (mut buf, mut items, mut out) = (Vec::new(), Vec::new(), Vec::new());
        let mut scanner = ListScanner::new();
        let mut fed = 0;
        loop {
            let end = (fed + chunk).min(bytes.len());
            buf.extend_from_slice(&bytes[fed..end]);
            fed = end;
            scanner.scan(&buf, fed == bytes.len(), &mut items)?;
            for r in items.drain(..) {
                out.push(String::from_utf8(buf[r].to_vec()).unwrap());
            }
            let keep = scanner.keep_from();
            buf.drain(..keep);
            scanner.shift(keep);
            if fed == bytes.len() {
                return Ok((out, scanner.finish()?));
            }
        }
    }

    #[test]
    fn finds_the_items_of_a_kubectl_list() {
        let text = "\u{20}{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {\"a\": \"x}\\\"{\", \"b\": [1, {\"c\": null}]},\n    {}\n  ],\n  \"kind\": \"List\",\n  \"metadata\": {\"resourceVersion\": \"\"}\n}\n";
        for chunk in [1, 2, 3, 7, 1000] {
            let (items, kind) = scan_in_pieces(text, chunk).unwrap();
            assert_eq!(items, [r#"{"a": "x}\"{", "b": [1, {"c": null}]}"#, "{}"], "pieces of {chunk}");
            assert_eq!(kind.as_deref(), Some("List"));
        }
    }

    #[test]
    fn leaves_other_shapes_to_the_whole_file_reader() {
        for text in [
            r#"{"items": [1]}"#,
            r#"{"items": [{}], "items": []}"#,
            r#"{"items": {}}"#,
            r#"{"items": [{}]} x"#,
            r#"{"it\"ems": [{}]}"#,
            r#"{"items": [{}],}"#,
            r#"{"items": [{},]}"#,
            r#"{"items": [{}]"#,
            r#"{"kind": "List"}"#,
            r#"[{}]"#,
        ] {
            assert_eq!(scan_in_pieces(text, 3).map(|_| ()), Err(Unsure), "{text}");
        }
        // A kind that is not a string is the decoder's to refuse.
        assert!(scan_in_pieces(r#"{"kind": 3, "items": []}"#, 3).is_err());
    }

    proptest! {
        /// Whatever the pieces, the items are those serde_json finds in the whole text.
        #[test]
        fn agrees_with_serde_json(
            values in prop::collection::vec(prop::collection::btree_map("[a-z\"\\\\{}\\[\\] ]{0,6}", "[a-z\"\\\\{}\\[\\] ]{0,6}", 0..4), 0..6),
            pad in "[ \n\t]{0,3}",
            chunk in 1usize..40,
        ) {
            let items: Vec<String> = values.iter().map(|m| serde_json::to_string(m).unwrap()).collect();
            let text = format!("{{{pad}\"kind\":{pad}\"List\",\"items\"{pad}:[{pad}{}{pad}],{pad}\"metadata\":{{\"x\":[1,2]}}}}{pad}", items.join(&format!(",{pad}")));
            #[derive(serde::Deserialize)]
            struct Whole<'a> {
                #[serde(borrow)]
                items: Vec<&'a serde_json::value::RawValue>,
            }
            let whole: Whole = serde_json::from_str(&text).unwrap();
            let expected: Vec<&str> = whole.items.iter().map(|r| r.get()).collect();
            let (found, kind) = scan_in_pieces(&text, chunk).unwrap();
            prop_assert_eq!(found, expected);
            prop_assert_eq!(kind.as_deref(), Some("List"));
        }
    }
}
