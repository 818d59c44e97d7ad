//! Pretty JSON with small values on one line: an array of plain values (`"ips": ["192.0.2.1",
//! "192.0.2.2"]`, up to a few KB), and an object or array, nested or not, whose one-line form
//! is short (`{"rank": 1, "node": "a", "hash": "…"}`). A name list or a small record then costs a
//! line, not a line per value, which keeps large reports small (docs/json.md). Everything else
//! is laid out as serde_json's pretty printer would. The document is the same for a JSON parser.
//!
//! The input is serde_json's compact output: laying it out costs one pass, where re-reading
//! pretty text cost a pass per nesting level (reports are tens of MB).

use std::io::{self, Write};

/// An array of plain values stays on one line up to this many bytes of its pretty form…
const INLINE_MAX: usize = 4096;
/// …anything else when its one-line form is at most this long (a rank, a node, an allocation).
const INLINE_SHORT: usize = 256;
/// What the pretty form of anything but a plain array may reach and still go on one line.
const PRETTY_SHORT: usize = INLINE_SHORT * 4;

/// An open `[` or `{` already laid out over several lines.
struct Open {
    level: usize,
    /// No value inside it yet.
    fresh: bool,
}

/// An open `[` or `{` that may still go on one line: its compact text so far, with the values
/// inside it already in their one-line form.
struct Frame {
    text: Vec<u8>,
    level: usize,
    /// Values started at its own level.
    items: usize,
    /// Its own `:`s (each gains a space).
    colons: usize,
    /// An object or array opened inside it.
    nested: bool,
}

impl Frame {
    /// An array of plain values, which may be long and still go on one line.
    fn plain_array(&self) -> bool {
        self.text[0] == b'[' && !self.nested
    }

    /// The length of its pretty form up to its closing bracket, the text already there counted.
    fn pretty_len(&self) -> usize {
        if self.items == 0 {
            return self.text.len();
        }
        self.text.len() + self.colons + self.items * (1 + indent_len(self.level + 1)) + 1 + indent_len(self.level)
    }

    fn one_line_len(&self) -> usize {
        self.text.len() + 1 + self.items.saturating_sub(1) + self.colons
    }

    fn limit(&self) -> usize {
        if self.plain_array() {
            INLINE_MAX
        } else {
            PRETTY_SHORT
        }
    }
}

fn indent_len(level: usize) -> usize {
    2 * level
}

pub struct InlineArrays<W: Write> {
    out: W,
    /// What is ready for `out`, written in large pieces.
    ready: Vec<u8>,
    in_string: bool,
    escaped: bool,
    /// The open brackets already laid out, outermost first; the document itself is always one.
    open: Vec<Open>,
    /// The open brackets inside those that may still go on one line, outermost first.
    frames: Vec<Frame>,
    /// Buffers of closed frames, reused: a report opens millions of brackets.
    spare: Vec<Vec<u8>>,
}

impl<W: Write> InlineArrays<W> {
    pub fn new(out: W) -> Self {
        Self::with_capacity(out, 1 << 16)
    }

    fn with_capacity(out: W, ready: usize) -> Self {
        InlineArrays {
            out,
            ready: Vec::with_capacity(ready),
            in_string: false,
            escaped: false,
            open: Vec::new(),
            frames: Vec::new(),
            spare: Vec::new(),
        }
    }

    /// A writer for one value `depth` brackets down in a document already laid out over several
    /// lines: what it writes is that value's text there, from its first byte to its last.
    fn nested(out: W, depth: usize) -> Self {
        // One Service's text is a few KB: the document's 64 KB buffer, allocated and freed for
        // each of 10,000 Services, cost page faults and the allocator's trips to the system.
        let mut w = InlineArrays::with_capacity(out, 4096);
        w.open = (0..depth).map(|level| Open { level, fresh: false }).collect();
        w
    }

    fn sink(&mut self) -> &mut Vec<u8> {
        match self.frames.last_mut() {
            Some(frame) => &mut frame.text,
            None => &mut self.ready,
        }
    }

    /// A value begins here: count it, or start its line.
    fn item_starts(&mut self) {
        if let Some(frame) = self.frames.last_mut() {
            if frame.items == 0 {
                frame.items = 1;
            }
        } else if let Some(open) = self.open.last_mut() {
            if open.fresh {
                open.fresh = false;
                let level = open.level + 1;
                newline(&mut self.ready, level);
            }
        }
    }

    /// Bytes outside strings, one at a time: compact JSON has few of them.
    fn structural(&mut self, b: u8) {
        match b {
            b'"' => {
                self.item_starts();
                self.in_string = true;
                self.sink().push(b);
            }
            b'[' | b'{' => {
                self.item_starts();
                let level = self.open.len() + self.frames.len();
                if level == 0 {
                    self.ready.push(b);
                    self.open.push(Open { level, fresh: true });
                    return;
                }
                if let Some(parent) = self.frames.last_mut() {
                    parent.nested = true;
                }
                let mut text = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(256));
                text.clear();
                text.push(b);
                self.frames.push(Frame { text, level, items: 0, colons: 0, nested: false });
            }
            b']' | b'}' => self.close(b),
            b',' => match self.frames.last_mut() {
                Some(frame) => {
                    frame.items += 1;
                    frame.text.push(b',');
                }
                None => {
                    let level = self.open.last().map_or(0, |o| o.level) + 1;
                    self.ready.push(b',');
                    newline(&mut self.ready, level);
                }
            },
            b':' => match self.frames.last_mut() {
                Some(frame) => {
                    frame.colons += 1;
                    frame.text.push(b':');
                }
                None => self.ready.extend_from_slice(b": "),
            },
            _ => {
                self.item_starts();
                self.sink().push(b);
            }
        }
    }

    fn close(&mut self, b: u8) {
        let Some(frame) = self.frames.pop() else {
            // A bracket already laid out over several lines.
            if let Some(open) = self.open.pop() {
                if !open.fresh {
                    newline(&mut self.ready, open.level);
                }
            }
            self.ready.push(b);
            return;
        };
        let fits = if frame.plain_array() {
            frame.pretty_len() < INLINE_MAX
        } else {
            frame.pretty_len() <= PRETTY_SHORT && frame.one_line_len() <= INLINE_SHORT
        };
        if fits {
            let sink = match self.frames.last_mut() {
                Some(parent) => &mut parent.text,
                None => &mut self.ready,
            };
            one_line(&frame.text, sink);
            sink.push(b);
            self.spare.push(frame.text);
            self.check_limit();
        } else {
            // Too long for one line: so are the values around it.
            self.frames.push(frame);
            self.flush_frames();
            self.close(b);
        }
    }

    /// An open value grown past what may go on one line gives up, and its parents with it.
    fn check_limit(&mut self) {
        if self.frames.last().is_some_and(|f| f.pretty_len() > f.limit()) {
            self.flush_frames();
        }
    }

    /// Lays the open values out over several lines, outermost first: none of them goes on one line.
    fn flush_frames(&mut self) {
        for frame in std::mem::take(&mut self.frames) {
            pretty(&frame, &mut self.ready);
            self.open.push(Open { level: frame.level, fresh: frame.items == 0 });
            self.spare.push(frame.text);
        }
    }
}

/// A frame's compact text (`{"a":1,"b":[1, 2]` — no closing bracket) on one line:
/// `{"a": 1, "b": [1, 2]`. Values inside it are on one line already.
fn one_line(text: &[u8], out: &mut Vec<u8>) {
    out.push(text[0]);
    copy_with_separators(&text[1..], out, |_, out| out.push(b' '));
}

/// A frame's compact text laid out as serde_json's pretty printer would, at its level, up to
/// where it ends; values inside it stay on their one line.
fn pretty(frame: &Frame, out: &mut Vec<u8>) {
    let level = frame.level;
    out.push(frame.text[0]);
    // A value has begun (perhaps only its opening bracket, still in a frame of its own).
    if frame.items == 0 {
        return;
    }
    newline(out, level + 1);
    copy_with_separators(&frame.text[1..], out, |b, out| match b {
        b',' => newline(out, level + 1),
        _ => out.push(b' '),
    });
}

/// Copies a frame's text after its opening bracket, calling `after` behind each of the frame's
/// own `,` and `:` (not those inside strings or inner values).
fn copy_with_separators(text: &[u8], out: &mut Vec<u8>, mut after: impl FnMut(u8, &mut Vec<u8>)) {
    let mut rest = text;
    let mut depth = 0usize;
    let mut in_string = false;
    while let Some(i) = rest.iter().position(|&b| matches!(b, b'"' | b'\\' | b',' | b':' | b'[' | b']' | b'{' | b'}')) {
        let b = rest[i];
        out.extend_from_slice(&rest[..=i]);
        rest = &rest[i + 1..];
        if in_string {
            match b {
                // The escaped byte, whatever it is, belongs to the string.
                b'\\' => {
                    if let Some((&next, left)) = rest.split_first() {
                        out.push(next);
                        rest = left;
                    }
                }
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth -= 1,
            b',' | b':' if depth == 0 => after(b, out),
            _ => {}
        }
    }
    out.extend_from_slice(rest);
}

fn newline(out: &mut Vec<u8>, level: usize) {
    out.push(b'\n');
    out.resize(out.len() + indent_len(level), b' ');
}

impl<W: Write> Write for InlineArrays<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut rest = data;
        while !rest.is_empty() {
            if self.escaped {
                self.escaped = false;
                self.sink().push(rest[0]);
                rest = &rest[1..];
            } else if self.in_string {
                // String contents are copied whole; only a quote or a backslash changes the state.
                let run = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
                let (taken, left) = rest.split_at((run + 1).min(rest.len()));
                self.sink().extend_from_slice(taken);
                if run < rest.len() {
                    match rest[run] {
                        b'"' => self.in_string = false,
                        _ => self.escaped = true,
                    }
                }
                rest = left;
                if !self.in_string {
                    self.check_limit();
                }
            } else {
                self.structural(rest[0]);
                rest = &rest[1..];
                if !self.in_string {
                    self.check_limit();
                }
            }
        }
        if self.ready.len() >= 1 << 16 {
            self.out.write_all(&self.ready)?;
            self.ready.clear();
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_frames();
        self.out.write_all(&self.ready)?;
        self.ready.clear();
        self.out.flush()
    }
}

/// `value`'s text `depth` brackets down in a multi-line document (see [`InlineArrays::nested`]).
pub fn laid_out<T: serde::Serialize>(value: &T, depth: usize) -> io::Result<Vec<u8>> {
    let mut text = Vec::new();
    let mut w = io::BufWriter::with_capacity(4096, InlineArrays::nested(&mut text, depth));
    serde_json::to_writer(&mut w, value)?;
    w.flush()?;
    drop(w);
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(value: &serde_json::Value) -> String {
        let mut w = InlineArrays::new(Vec::new());
        serde_json::to_writer(&mut w, value).unwrap();
        w.flush().unwrap();
        String::from_utf8(w.out).unwrap()
    }

    #[test]
    fn plain_arrays_go_on_one_line_objects_keep_their_layout() {
        let v = serde_json::json!({"ips": ["a", "b"], "empty": [], "rows": [{"n": [1, 2]}], "s": "[x, {y}]"});
        assert_eq!(
            render(&v),
            "{\n  \"empty\": [],\n  \"ips\": [\"a\", \"b\"],\n  \"rows\": [{\"n\": [1, 2]}],\n  \"s\": \"[x, {y}]\"\n}"
        );
        let flat = serde_json::json!({"ranks": [{"rank": 1, "node": "a"}, {"rank": 2, "node": "b"}], "o": {"p": {}}});
        assert_eq!(
            render(&flat),
            "{\n  \"o\": {\"p\": {}},\n  \"ranks\": [{\"node\": \"a\", \"rank\": 1}, {\"node\": \"b\", \"rank\": 2}]\n}"
        );
        // Records whose one line would be long keep one record a line.
        let hash = "0".repeat(64);
        let long = serde_json::json!({"ranks": [{"rank": 1, "hash": hash}, {"rank": 2, "hash": hash}, {"rank": 3, "hash": hash}]});
        let text = render(&long);
        assert_eq!(text.lines().count(), 7, "{text}");
        assert!(text.contains(&format!("\n    {{\"hash\": \"{hash}\", \"rank\": 1}},\n")), "{text}");
    }

    #[test]
    fn the_output_is_the_same_document() {
        let v = serde_json::json!({"a": [["x", "y\"]"], [], [1.5, null, true]], "b": ["q\\\\", ",\n"], "c": {"d": []}});
        let text = render(&v);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
        assert!(text.contains("[\"x\", \"y\\\"]\"]"), "{text}");
    }

    #[test]
    fn escapes_inside_strings_do_not_change_the_layout() {
        let v = serde_json::json!({"m": [{"a": "x\n\"]}, y", "b": "\\"}, {"c": "q\t{"}]});
        let text = render(&v);
        assert_eq!(text, "{\n  \"m\": [{\"a\": \"x\\n\\\"]}, y\", \"b\": \"\\\\\"}, {\"c\": \"q\\t{\"}]\n}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), v);
    }

    #[test]
    fn a_list_of_long_records_opens_a_line_per_record() {
        let long = "x".repeat(300);
        let v = serde_json::json!({"rows": [{"a": long}, {"b": 1}]});
        assert_eq!(
            render(&v),
            format!("{{\n  \"rows\": [\n    {{\n      \"a\": \"{long}\"\n    }},\n    {{\"b\": 1}}\n  ]\n}}")
        );
    }

    #[test]
    fn a_flat_document_keeps_its_lines() {
        assert_eq!(render(&serde_json::json!({"a": 1})), "{\n  \"a\": 1\n}");
        assert_eq!(render(&serde_json::json!(["a"])), "[\n  \"a\"\n]");
    }

    #[test]
    fn long_arrays_keep_one_value_per_line() {
        let names: Vec<String> = (0..1000).map(|i| format!("node-{i:04}")).collect();
        let text = render(&serde_json::json!({ "nodes": names }));
        assert!(text.lines().count() > 1000);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap()["nodes"][999], "node-0999");
    }
}
