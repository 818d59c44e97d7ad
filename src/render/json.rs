//! Pretty JSON with arrays and objects of plain values on one line (`"ips": ["192.0.2.1",
//! "192.0.2.2"]`, `{"rank": 1, "node": "a", …}`): a name list or a small record then costs a
//! line, not a line per value, which keeps large reports small (docs/json.md). Anything holding
//! an object or array keeps serde_json's layout.

use std::io::{self, Write};

/// Longer arrays keep one element per line…
const INLINE_MAX: usize = 4096;
/// …and longer objects (counted with their indentation) one field per line.
const INLINE_OBJECT_MAX: usize = 512;

pub struct InlineArrays<W: Write> {
    out: W,
    /// What is ready for `out`, written in large pieces.
    ready: Vec<u8>,
    in_string: bool,
    escaped: bool,
    /// From an array's `[` or an object's `{` while no object or array has opened inside it.
    pending: Option<Vec<u8>>,
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
            pending: None,
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
            return self.push(b);
        }
        match b {
            b'[' | b'{' => {
                self.flush_pending()?;
                self.depth += 1;
                if self.depth == 1 {
                    return self.emit(&[b]);
                }
                self.pending = Some(vec![b]);
                Ok(())
            }
            b']' | b'}' => {
                self.depth = self.depth.saturating_sub(1);
                match self.pending.take() {
                    Some(mut buf) => {
                        buf.push(b);
                        self.emit(&collapse(&buf))
                    }
                    None => self.emit(&[b]),
                }
            }
            _ => self.push(b),
        }
    }

    fn emit(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.ready.extend_from_slice(bytes);
        Ok(())
    }

    /// Bytes none of which changes the state.
    fn run(&mut self, bytes: &[u8]) -> io::Result<()> {
        match &mut self.pending {
            Some(buf) if buf.len() + bytes.len() <= if buf[0] == b'{' { INLINE_OBJECT_MAX } else { INLINE_MAX } => {
                buf.extend_from_slice(bytes);
                Ok(())
            }
            Some(_) => {
                self.flush_pending()?;
                self.emit(bytes)
            }
            None => self.emit(bytes),
        }
    }

    fn push(&mut self, b: u8) -> io::Result<()> {
        match &mut self.pending {
            Some(buf) if buf.len() < if buf[0] == b'{' { INLINE_OBJECT_MAX } else { INLINE_MAX } => {
                buf.push(b);
                Ok(())
            }
            Some(_) => {
                self.flush_pending()?;
                self.emit(&[b])
            }
            None => self.emit(&[b]),
        }
    }

    fn flush_pending(&mut self) -> io::Result<()> {
        match self.pending.take() {
            Some(buf) => self.emit(&buf),
            None => Ok(()),
        }
    }
}

/// `[\n    "a",\n    "b"\n  ]` → `["a", "b"]`, `{\n  "a": 1\n}` → `{"a": 1}`.
fn collapse(buf: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(buf.len());
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
                    out.push(b' ');
                }
            }
        }
    }
    out
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
        self.flush_pending()?;
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
            "{\n  \"empty\": [],\n  \"ips\": [\"a\", \"b\"],\n  \"rows\": [\n    {\n      \"n\": [1, 2]\n    }\n  ],\n  \"s\": \"[x, {y}]\"\n}"
        );
        let flat = serde_json::json!({"ranks": [{"rank": 1, "node": "a"}, {"rank": 2, "node": "b"}], "o": {"p": {}}});
        assert_eq!(
            render(&flat),
            "{\n  \"o\": {\n    \"p\": {}\n  },\n  \"ranks\": [\n    {\"node\": \"a\", \"rank\": 1},\n    {\"node\": \"b\", \"rank\": 2}\n  ]\n}"
        );
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
