//! Pretty JSON with small values on one line: an array of plain values (`"ips": ["192.0.2.1",
//! "192.0.2.2"]`, up to a few KB), and an object or array, nested or not, whose one-line form
//! is short (`{"rank": 1, "node": "a", "hash": "…"}`). A name list or a small record then costs a
//! line, not a line per value, which keeps large reports small (docs/json.md). Everything else
//! keeps serde_json's layout. The document is the same for a JSON parser.

use std::io::{self, Write};

/// An array of plain values stays on one line up to this many bytes (as serde_json wrote it)…
const INLINE_MAX: usize = 4096;
/// …anything else when its one-line form is at most this long (a rank, a node, an allocation).
const INLINE_SHORT: usize = 256;

/// An open `[` or `{` that may still go on one line: its text so far, its inner values already
/// on one line.
struct Frame {
    text: Vec<u8>,
    /// An object or array opened inside it.
    nested: bool,
}

impl Frame {
    /// An array of plain values, which may be long and still go on one line.
    fn plain_array(&self) -> bool {
        self.text[0] == b'[' && !self.nested
    }

    fn limit(&self) -> usize {
        if self.plain_array() {
            INLINE_MAX
        } else {
            // Pretty text is at most a few times longer than its one-line form.
            INLINE_SHORT * 4
        }
    }
}

pub struct InlineArrays<W: Write> {
    out: W,
    /// What is ready for `out`, written in large pieces.
    ready: Vec<u8>,
    in_string: bool,
    escaped: bool,
    /// The open brackets that may still go on one line, outermost first.
    frames: Vec<Frame>,
    /// Buffers of closed frames, reused: a report opens millions of brackets.
    spare: Vec<Vec<u8>>,
    /// Where a frame's one-line form is written, reused.
    line: Vec<u8>,
    /// Brackets open outside strings: the document itself is never put on one line.
    depth: usize,
}

impl<W: Write> InlineArrays<W> {
    pub fn new(out: W) -> Self {
        InlineArrays {
            out,
            ready: Vec::with_capacity(1 << 16),
            in_string: false,
            escaped: false,
            frames: Vec::new(),
            spare: Vec::new(),
            line: Vec::new(),
            depth: 0,
        }
    }

    fn byte(&mut self, b: u8) -> io::Result<()> {
        let in_string = self.in_string;
        if in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
            }
        } else if b == b'"' {
            self.in_string = true;
        }
        if in_string || b == b'"' {
            return self.run(&[b]);
        }
        match b {
            b'[' | b'{' => {
                self.depth += 1;
                if self.depth == 1 {
                    return self.emit(&[b]);
                }
                if let Some(parent) = self.frames.last_mut() {
                    parent.nested = true;
                }
                let mut text = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(256));
                text.clear();
                text.push(b);
                self.frames.push(Frame { text, nested: false });
                Ok(())
            }
            b']' | b'}' => {
                self.depth = self.depth.saturating_sub(1);
                let Some(mut frame) = self.frames.pop() else { return self.emit(&[b]) };
                frame.text.push(b);
                let mut line = std::mem::take(&mut self.line);
                collapse_into(&frame.text, &mut line);
                let fits =
                    if frame.plain_array() { frame.text.len() <= INLINE_MAX } else { line.len() <= INLINE_SHORT };
                let result = if fits {
                    match self.frames.last_mut() {
                        Some(parent) => parent.text.extend_from_slice(&line),
                        None => self.ready.extend_from_slice(&line),
                    }
                    self.check_limit()
                } else {
                    // Too long for one line: so are the values around it.
                    self.flush_frames().and_then(|()| self.emit(&frame.text))
                };
                self.line = line;
                self.spare.push(frame.text);
                result
            }
            _ => self.run(&[b]),
        }
    }

    fn emit(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.ready.extend_from_slice(bytes);
        Ok(())
    }

    /// Bytes none of which opens or closes anything.
    fn run(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self.frames.last_mut() {
            Some(frame) => {
                frame.text.extend_from_slice(bytes);
                self.check_limit()
            }
            None => self.emit(bytes),
        }
    }

    /// An open value grown past what may go on one line gives up, and its parents with it.
    fn check_limit(&mut self) -> io::Result<()> {
        match self.frames.last() {
            Some(f) if f.text.len() > f.limit() => self.flush_frames(),
            _ => Ok(()),
        }
    }

    /// Writes the open values as they are, outermost first: none of them goes on one line.
    fn flush_frames(&mut self) -> io::Result<()> {
        for frame in self.frames.drain(..) {
            self.ready.extend_from_slice(&frame.text);
            self.spare.push(frame.text);
        }
        Ok(())
    }
}

/// `[\n    "a",\n    "b"\n  ]` → `["a", "b"]`, `{\n  "a": 1\n}` → `{"a": 1}`, into `out`.
fn collapse_into(buf: &[u8], out: &mut Vec<u8>) {
    out.clear();
    let (mut in_string, mut escaped, mut skipping) = (false, false, false);
    for &b in buf {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'\n' => skipping = true,
            b' ' if skipping => {}
            _ => {
                skipping = false;
                if b == b'"' {
                    in_string = true;
                }
                out.push(b);
                if b == b',' {
                    // One space after a comma, whether a newline or (already on one line) a
                    // space followed it.
                    out.push(b' ');
                    skipping = true;
                }
            }
        }
    }
}

/// Bytes that change the state outside a string, and inside one.
fn special(b: u8, in_string: bool) -> bool {
    if in_string {
        b == b'"' || b == b'\\'
    } else {
        matches!(b, b'"' | b'[' | b']' | b'{' | b'}')
    }
}

impl<W: Write> Write for InlineArrays<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut rest = data;
        while !rest.is_empty() {
            // Plain runs are copied whole; only the bytes that change the state go one by one.
            let run = if self.escaped {
                0
            } else {
                rest.iter().position(|&b| special(b, self.in_string)).unwrap_or(rest.len())
            };
            if run > 0 {
                self.run(&rest[..run])?;
                rest = &rest[run..];
                continue;
            }
            self.byte(rest[0])?;
            rest = &rest[1..];
        }
        if self.ready.len() >= 1 << 16 {
            self.out.write_all(&self.ready)?;
            self.ready.clear();
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.flush_frames()?;
        self.out.write_all(&self.ready)?;
        self.ready.clear();
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(value: &serde_json::Value) -> String {
        let mut w = InlineArrays::new(Vec::new());
        serde_json::to_writer_pretty(&mut w, value).unwrap();
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
