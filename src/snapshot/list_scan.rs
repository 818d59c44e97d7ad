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
        // Inside a container, a block without a backslash is read whole: byte by byte, the
        // indentation and the short strings between brackets cost the scanner thread, which
        // the decoders wait for, a third of an indented snapshot's load.
        if p.depth > 0 && !p.escaped {
            if let Some(block) = buf.get(i..i + BLOCK).and_then(|b| Classes::of(b.try_into().ok()?)) {
                if let Some(at) = block.skip(&mut p) {
                    return Scan::Done(i + at + 1);
                }
                i += BLOCK;
                continue;
            }
        }
        // The value's first byte alone (a bracket makes it a container, read in blocks from
        // then on), a string value to its end, a block with a backslash, or the last bytes.
        let to = match (p.depth, p.in_string) {
            (0, false) => i + 1,
            (0, true) => buf.len(),
            _ => (i + BLOCK).min(buf.len()),
        };
        if let Some(end) = step_bytes(buf, &mut p, i, to) {
            return Scan::Done(end);
        }
        i = to;
    }
    p.pos = buf.len();
    Scan::More(p)
}

/// [`skip_value`] over `buf[from..to]` one byte at a time (strings a run at a time): the end of
/// the value when it is there.
fn step_bytes(buf: &[u8], p: &mut Partial, from: usize, to: usize) -> Option<usize> {
    let mut i = from;
    while i < to {
        let b = buf[i];
        if p.in_string {
            if p.escaped {
                p.escaped = false;
            } else if b == b'\\' {
                p.escaped = true;
            } else if b == b'"' {
                p.in_string = false;
                if p.depth == 0 {
                    return Some(i + 1);
                }
            }
            // The rest of a string holds no quote or backslash to look at.
            if p.in_string && !p.escaped {
                match memchr::memchr2(b'"', b'\\', &buf[i + 1..to]) {
                    Some(n) => i += n + 1,
                    None => i = to,
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
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The bytes [`Classes`] reads at once.
const BLOCK: usize = 64;

/// Where a block's quotes and brackets are, a bit per byte (bit `n` for byte `n`).
struct Classes {
    quotes: u64,
    opens: u64,
    closes: u64,
}

impl Classes {
    /// `None` when the block holds a backslash: an escaped quote is left to [`step_bytes`]
    /// (Kubernetes objects rarely escape anything).
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn of(block: &[u8; BLOCK]) -> Option<Classes> {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        let (mut quotes, mut backslashes, mut opens, mut closes) = (0u64, 0u64, 0u64, 0u64);
        for k in 0..BLOCK / 16 {
            // SAFETY: SSE2 is part of every x86_64 CPU; the 16 bytes read lie within `block`.
            let (q, b, o, c) = unsafe {
                let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast::<__m128i>());
                // `{` and `[` differ only in the bit 0x20, as `}` and `]` do.
                let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
                let mask =
                    |x: __m128i, c: u8| _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8))) as u16 as u64;
                (mask(v, b'"'), mask(v, b'\\'), mask(folded, b'{'), mask(folded, b'}'))
            };
            quotes |= q << (16 * k);
            backslashes |= b << (16 * k);
            opens |= o << (16 * k);
            closes |= c << (16 * k);
        }
        (backslashes == 0).then_some(Classes { quotes, opens, closes })
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn of(_: &[u8; BLOCK]) -> Option<Classes> {
        None
    }

    /// Reads the block on from `p` (inside a container, not after a backslash): where the value
    /// ends in it, if it does; otherwise `p` as after its last byte.
    fn skip(&self, p: &mut Partial) -> Option<usize> {
        // Bit n: byte n lies in a string, its opening quote included, its closing one not.
        let mut inside = prefix_xor(self.quotes);
        if p.in_string {
            inside = !inside;
        }
        p.in_string = inside >> (BLOCK - 1) & 1 == 1;
        let (opens, closes) = (self.opens & !inside, self.closes & !inside);
        let closing = closes.count_ones();
        // Fewer closing brackets than open ones: the value goes on past the block.
        if closing < p.depth {
            p.depth = p.depth + opens.count_ones() - closing;
            return None;
        }
        let mut brackets = opens | closes;
        while brackets != 0 {
            let at = brackets.trailing_zeros();
            brackets &= brackets - 1;
            if opens >> at & 1 == 1 {
                p.depth += 1;
            } else {
                p.depth -= 1;
                if p.depth == 0 {
                    return Some(at as usize);
                }
            }
        }
        None
    }
}

/// Bit n: the parity of the bits 0 to n of `x`.
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
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

    /// Where a value ends, read byte by byte: what [`skip_value`] was before it read blocks.
    fn skip_bytewise(buf: &[u8], mut p: Partial) -> Scan {
        let from = p.pos;
        match step_bytes(buf, &mut p, from, buf.len()) {
            Some(end) => Scan::Done(end),
            None => {
                p.pos = buf.len();
                Scan::More(p)
            }
        }
    }

    /// The end found in `text`, read whole or given in two pieces split at `cut`.
    fn end_of(text: &[u8], cut: usize, skip: fn(&[u8], Partial) -> Scan) -> Option<usize> {
        let cut = cut.min(text.len()).max(1);
        match skip(&text[..cut], Partial::default()) {
            Scan::Done(end) => Some(end),
            Scan::More(p) => match skip(text, p) {
                Scan::Done(end) => Some(end),
                Scan::More(_) => None,
            },
        }
    }

    #[test]
    fn blocks_read_whole_find_the_ends_bytes_do() {
        let deep = format!("{{{}\"x\\\"}}\": [{}]}}", " ".repeat(70), "{\"a\": [1, \"]\"]}, ".repeat(9) + "{}");
        let list = format!("[{}]", "\"{\", ".repeat(40) + "1");
        let escaped = format!("{{\"a\": \"{}\\\\\", \"b\": {{}}}} tail", "q".repeat(100));
        // The last block closes exactly the brackets still open.
        let closing = format!("{{\"a\": [1, 2{}]}}, 3", " ".repeat(100));
        for (text, end) in [
            (deep.as_str(), deep.len()),
            (&list, list.len()),
            (&escaped, escaped.len() - 5),
            (&closing, closing.len() - 3),
        ] {
            let bytes = text.as_bytes();
            for cut in [1, 2, 63, 64, 65, 100, bytes.len()] {
                assert_eq!(end_of(bytes, cut, skip_bytewise), Some(end), "{text}");
                assert_eq!(end_of(bytes, cut, skip_value), Some(end), "{text}, cut at {cut}");
            }
        }
    }

    proptest! {
        /// Any bytes, cut anywhere: reading blocks whole ends a value where reading byte by byte does.
        #[test]
        fn blocks_agree_with_bytes(
            first in prop::sample::select(vec![b'{', b'[', b'"']),
            body in prop::collection::vec(prop::sample::select(b"{}[]\" aaa\n".to_vec()), 0..700),
            // Few, so that most blocks are read whole.
            backslashes in prop::collection::vec(0usize..700, 0..3),
            cut in 1usize..800,
        ) {
            let mut text = vec![first];
            text.extend(body);
            for at in backslashes {
                text.insert(at.min(text.len() - 1) + 1, b'\\');
            }
            prop_assert_eq!(end_of(&text, cut, skip_value), end_of(&text, cut, skip_bytewise));
        }

        /// Brackets nested `depth` deep, each pair around a run of spaces and a string.
        #[test]
        fn blocks_agree_with_bytes_on_nested_brackets(
            runs in prop::collection::vec((0usize..90, any::<bool>(), any::<bool>()), 1..8),
            cut in 1usize..1500,
        ) {
            let (mut open, mut close) = (Vec::new(), Vec::new());
            for (spaces, square, quoted) in runs {
                open.push(if square { b'[' } else { b'{' });
                open.extend(std::iter::repeat_n(b' ', spaces));
                if quoted {
                    open.extend_from_slice(b"\"]}\"");
                }
                close.push(if square { b']' } else { b'}' });
                close.extend(std::iter::repeat_n(b' ', spaces / 2));
            }
            close.reverse();
            let text = [open, close, b", 1".to_vec()].concat();
            let end = text.len() - ", 1".len();
            prop_assert_eq!(end_of(&text, cut, skip_bytewise), Some(end));
            prop_assert_eq!(end_of(&text, cut, skip_value), Some(end));
        }

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
