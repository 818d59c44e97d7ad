//! Where line breaks go. Text is written once, in its one-line form, into the one buffer the
//! document is written to; an open bracket that may still go on one line is only an offset into
//! it. A bracket that turns out too long has the text since it opened rewritten once, its own
//! `, `s (and those of the brackets open inside it) becoming line breaks. The formatter this
//! replaced (`oracle.rs`, kept for the tests) held each such bracket's text in a buffer of its
//! own, copied into its parent's when it closed: every byte of a nested record was copied once
//! per level.

/// An array of plain values stays on one line up to this many bytes of its pretty form…
pub(super) const INLINE_MAX: usize = 4096;
/// …anything else when its one-line form is at most this long (a rank, a node, an allocation).
pub(super) const INLINE_SHORT: usize = 256;
/// What the pretty form of anything but a plain array may reach and still go on one line.
pub(super) const PRETTY_SHORT: usize = INLINE_SHORT * 4;

/// An open `[` or `{` already laid out over several lines.
struct Open {
    level: usize,
    /// No value inside it yet.
    fresh: bool,
}

/// An open `[` or `{` that may still go on one line: its one-line text so far (`{"a": 1, "b":
/// [1, 2]`, no closing bracket) runs from `start` to the buffer's end.
struct Frame {
    start: usize,
    level: usize,
    /// Values started at its own level.
    items: usize,
    /// Where its own `, `s are in the buffer: laid out over several lines, each becomes a line break.
    commas: Vec<usize>,
    /// An object or array opened inside it.
    nested: bool,
}

impl Frame {
    /// An array of plain values, which may be long and still go on one line.
    fn plain_array(&self, buf: &[u8]) -> bool {
        buf[self.start] == b'[' && !self.nested
    }

    /// The length of its pretty form up to its closing bracket, the text already there counted:
    /// each `, ` becomes `,` and a line break, and the first value and the bracket start lines.
    fn pretty_len(&self, end: usize) -> usize {
        let len = end - self.start;
        if self.items == 0 {
            return len;
        }
        len - self.commas.len() + self.items * (1 + indent_len(self.level + 1)) + 1 + indent_len(self.level)
    }

    fn limit(&self, buf: &[u8]) -> usize {
        if self.plain_array(buf) {
            INLINE_MAX
        } else {
            PRETTY_SHORT
        }
    }

    fn fits(&self, buf: &[u8]) -> bool {
        let end = buf.len();
        if self.plain_array(buf) {
            self.pretty_len(end) < INLINE_MAX
        } else {
            // Its one-line form, with the closing bracket, at most INLINE_SHORT.
            self.pretty_len(end) <= PRETTY_SHORT && end - self.start < INLINE_SHORT
        }
    }
}

fn indent_len(level: usize) -> usize {
    2 * level
}

/// A line break and the indentation of `level`.
fn line_break(buf: &mut Vec<u8>, level: usize) {
    const SPACES: [u8; 64] = [b' '; 64];
    buf.push(b'\n');
    let mut left = indent_len(level);
    while left > 0 {
        let run = left.min(SPACES.len());
        buf.extend_from_slice(&SPACES[..run]);
        left -= run;
    }
}

/// The brackets open at the end of a buffer.
pub(super) struct Layout {
    /// The open brackets already laid out, outermost first; the document itself is always one.
    open: Vec<Open>,
    /// The open brackets inside those that may still go on one line, outermost first.
    frames: Vec<Frame>,
    /// Closed frames' comma lists, kept: a report opens millions of brackets.
    spare: Vec<Vec<usize>>,
    /// Where open frames are rewritten over several lines.
    scratch: Vec<u8>,
}

impl Layout {
    pub(super) fn new() -> Self {
        Layout { open: Vec::new(), frames: Vec::new(), spare: Vec::new(), scratch: Vec::new() }
    }

    /// The layout of one value `depth` brackets down in a document already laid out over several
    /// lines: what it writes is that value's text there, from its first byte to its last.
    pub(super) fn nested(depth: usize) -> Self {
        let mut layout = Layout::new();
        layout.open = (0..depth).map(|level| Open { level, fresh: false }).collect();
        layout
    }

    /// No offset into the buffer is held: what it holds may be written out and cleared.
    pub(super) fn settled(&self) -> bool {
        self.frames.is_empty()
    }

    /// A value begins here (an array's value or an object's key): count it, or start its line.
    pub(super) fn item_starts(&mut self, buf: &mut Vec<u8>, first: bool) {
        if let Some(frame) = self.frames.last_mut() {
            if first {
                frame.items = 1;
            } else {
                frame.items += 1;
                frame.commas.push(buf.len());
                buf.extend_from_slice(b", ");
            }
            return;
        }
        let Some(open) = self.open.last_mut() else { return };
        if first {
            if !open.fresh {
                return;
            }
            open.fresh = false;
        } else {
            buf.push(b',');
        }
        line_break(buf, open.level + 1);
    }

    pub(super) fn opens(&mut self, buf: &mut Vec<u8>, bracket: u8) {
        let level = self.open.len() + self.frames.len();
        if level == 0 {
            self.open.push(Open { level, fresh: true });
            buf.push(bracket);
            return;
        }
        if let Some(parent) = self.frames.last_mut() {
            parent.nested = true;
        }
        let mut commas = self.spare.pop().unwrap_or_default();
        commas.clear();
        self.frames.push(Frame { start: buf.len(), level, items: 0, commas, nested: false });
        buf.push(bracket);
    }

    pub(super) fn closes(&mut self, buf: &mut Vec<u8>, bracket: u8) {
        let Some(frame) = self.frames.last() else {
            // A bracket already laid out over several lines.
            if let Some(open) = self.open.pop() {
                if !open.fresh {
                    line_break(buf, open.level);
                }
            }
            buf.push(bracket);
            return;
        };
        if !frame.fits(buf) {
            // Too long for one line: so are the values around it.
            self.flush_frames(buf);
            return self.closes(buf, bracket);
        }
        let frame = self.frames.pop().expect("a frame was just looked at");
        buf.push(bracket);
        self.spare.push(frame.commas);
        self.check_limit(buf);
    }

    /// An open value grown past what may go on one line gives up, and its parents with it.
    pub(super) fn check_limit(&mut self, buf: &mut Vec<u8>) {
        if self.frames.last().is_some_and(|f| f.pretty_len(buf.len()) > f.limit(buf)) {
            self.flush_frames(buf);
        }
    }

    /// Lays the open values out over several lines, outermost first: none of them goes on one
    /// line. Each frame's text runs to where the next one (open inside its last value) starts.
    fn flush_frames(&mut self, buf: &mut Vec<u8>) {
        let Some(outermost) = self.frames.first() else { return };
        let start = outermost.start;
        let mut pretty = std::mem::take(&mut self.scratch);
        pretty.clear();
        let mut from = start;
        for frame in &self.frames {
            pretty.extend_from_slice(&buf[from..=frame.start]);
            from = frame.start + 1;
            // A value has begun (perhaps only its opening bracket, still in a frame of its own).
            if frame.items == 0 {
                continue;
            }
            line_break(&mut pretty, frame.level + 1);
            for &comma in &frame.commas {
                pretty.extend_from_slice(&buf[from..=comma]);
                line_break(&mut pretty, frame.level + 1);
                from = comma + 2;
            }
        }
        pretty.extend_from_slice(&buf[from..]);
        buf.truncate(start);
        buf.extend_from_slice(&pretty);
        self.scratch = pretty;
        for frame in self.frames.drain(..) {
            self.open.push(Open { level: frame.level, fresh: frame.items == 0 });
            self.spare.push(frame.commas);
        }
    }
}
