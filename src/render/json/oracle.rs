//! The layout as it was first written, a serde_json `Formatter` holding each bracket that may
//! still go on one line in a buffer of its own: kept as what the faster writer is compared
//! against on any value.

use std::io::{self, Write};

use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

// The same limits as the writer's: the rules are one, the two ways of following them are what
// the tests compare.
use super::layout::{INLINE_MAX, INLINE_SHORT, PRETTY_SHORT};

/// An open `[` or `{` already laid out over several lines.
struct Open {
    level: usize,
    /// No value inside it yet.
    fresh: bool,
}

/// An open `[` or `{` that may still go on one line: its one-line text so far (`{"a": 1, "b":
/// [1, 2]`, no closing bracket), the values inside it already in their one-line form.
struct Frame {
    text: Vec<u8>,
    level: usize,
    /// Values started at its own level.
    items: usize,
    /// Where its own `, `s are in `text`: laid out over several lines, each becomes a line break.
    commas: Vec<usize>,
    /// An object or array opened inside it.
    nested: bool,
}

impl Frame {
    /// An array of plain values, which may be long and still go on one line.
    fn plain_array(&self) -> bool {
        self.text[0] == b'[' && !self.nested
    }

    /// The length of its pretty form up to its closing bracket, the text already there counted:
    /// each `, ` becomes `,` and a line break, and the first value and the bracket start lines.
    fn pretty_len(&self) -> usize {
        if self.items == 0 {
            return self.text.len();
        }
        self.text.len() - self.commas.len() + self.items * (1 + indent_len(self.level + 1)) + 1 + indent_len(self.level)
    }

    /// With its closing bracket.
    fn one_line_len(&self) -> usize {
        self.text.len() + 1
    }

    fn limit(&self) -> usize {
        if self.plain_array() {
            INLINE_MAX
        } else {
            PRETTY_SHORT
        }
    }

    fn fits(&self) -> bool {
        if self.plain_array() {
            self.pretty_len() < INLINE_MAX
        } else {
            self.pretty_len() <= PRETTY_SHORT && self.one_line_len() <= INLINE_SHORT
        }
    }

    /// Its text laid out as serde_json's pretty printer would, at its level, up to where it ends;
    /// values inside it stay on their one line.
    fn pretty<W: ?Sized + Write>(&self, out: &mut W) -> io::Result<()> {
        out.write_all(&self.text[..1])?;
        // A value has begun (perhaps only its opening bracket, still in a frame of its own).
        if self.items == 0 {
            return Ok(());
        }
        line_break(out, self.level + 1)?;
        let mut from = 1;
        for &comma in &self.commas {
            out.write_all(&self.text[from..=comma])?;
            line_break(out, self.level + 1)?;
            from = comma + 2;
        }
        out.write_all(&self.text[from..])
    }
}

fn indent_len(level: usize) -> usize {
    2 * level
}

/// A line break and the indentation of `level`.
fn line_break<W: ?Sized + Write>(out: &mut W, level: usize) -> io::Result<()> {
    const SPACES: [u8; 64] = [b' '; 64];
    out.write_all(b"\n")?;
    let mut left = indent_len(level);
    while left > 0 {
        let run = left.min(SPACES.len());
        out.write_all(&SPACES[..run])?;
        left -= run;
    }
    Ok(())
}

/// Where text goes: the innermost frame still deciding, or the output when none is open.
enum Sink<'a, W: ?Sized> {
    Frame(&'a mut Vec<u8>),
    Out(&'a mut W),
}

impl<W: ?Sized + Write> Write for Sink<'_, W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        match self {
            Sink::Frame(text) => {
                text.extend_from_slice(data);
                Ok(())
            }
            Sink::Out(out) => out.write_all(data),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The layout, as serde_json's formatter: values whose layout is decided go straight to the
/// serializer's writer; the rest wait in frames.
struct Layout {
    /// The open brackets already laid out, outermost first; the document itself is always one.
    open: Vec<Open>,
    /// The open brackets inside those that may still go on one line, outermost first.
    frames: Vec<Frame>,
    /// Closed frames, their buffers kept: a report opens millions of brackets.
    spare: Vec<Frame>,
}

impl Layout {
    fn new() -> Self {
        Layout { open: Vec::new(), frames: Vec::new(), spare: Vec::new() }
    }

    /// The layout of one value `depth` brackets down in a document already laid out over several
    /// lines: what it writes is that value's text there, from its first byte to its last.
    fn nested(depth: usize) -> Self {
        let mut layout = Layout::new();
        layout.open = (0..depth).map(|level| Open { level, fresh: false }).collect();
        layout
    }

    fn sink<'a, W: ?Sized + Write>(&'a mut self, out: &'a mut W) -> Sink<'a, W> {
        match self.frames.last_mut() {
            Some(frame) => Sink::Frame(&mut frame.text),
            None => Sink::Out(out),
        }
    }

    /// A value begins here (an array's value or an object's key): count it, or start its line.
    fn item_starts<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        if let Some(frame) = self.frames.last_mut() {
            if first {
                frame.items = 1;
            } else {
                frame.items += 1;
                frame.commas.push(frame.text.len());
                frame.text.extend_from_slice(b", ");
            }
            return Ok(());
        }
        let Some(open) = self.open.last_mut() else { return Ok(()) };
        if first {
            if !open.fresh {
                return Ok(());
            }
            open.fresh = false;
        } else {
            out.write_all(b",")?;
        }
        line_break(out, open.level + 1)
    }

    fn opens<W: ?Sized + Write>(&mut self, out: &mut W, bracket: u8) -> io::Result<()> {
        let level = self.open.len() + self.frames.len();
        if level == 0 {
            self.open.push(Open { level, fresh: true });
            return out.write_all(&[bracket]);
        }
        if let Some(parent) = self.frames.last_mut() {
            parent.nested = true;
        }
        let (mut text, mut commas) =
            self.spare.pop().map_or_else(|| (Vec::with_capacity(256), Vec::new()), |f| (f.text, f.commas));
        text.clear();
        text.push(bracket);
        commas.clear();
        self.frames.push(Frame { text, level, items: 0, commas, nested: false });
        Ok(())
    }

    fn closes<W: ?Sized + Write>(&mut self, out: &mut W, bracket: u8) -> io::Result<()> {
        let Some(frame) = self.frames.pop() else {
            // A bracket already laid out over several lines.
            if let Some(open) = self.open.pop() {
                if !open.fresh {
                    line_break(out, open.level)?;
                }
            }
            return out.write_all(&[bracket]);
        };
        if !frame.fits() {
            // Too long for one line: so are the values around it.
            self.frames.push(frame);
            self.flush_frames(out)?;
            return self.closes(out, bracket);
        }
        let mut sink = self.sink(out);
        sink.write_all(&frame.text)?;
        sink.write_all(&[bracket])?;
        self.spare.push(frame);
        self.check_limit(out)
    }

    /// An open value grown past what may go on one line gives up, and its parents with it.
    fn check_limit<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        if self.frames.last().is_some_and(|f| f.pretty_len() > f.limit()) {
            self.flush_frames(out)?;
        }
        Ok(())
    }

    /// Lays the open values out over several lines, outermost first: none of them goes on one line.
    fn flush_frames<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        for frame in std::mem::take(&mut self.frames) {
            frame.pretty(out)?;
            self.open.push(Open { level: frame.level, fresh: frame.items == 0 });
            self.spare.push(frame);
        }
        Ok(())
    }
}

/// A scalar as the compact formatter writes it, into the innermost frame or the output.
macro_rules! scalars {
    ($($method:ident($($value:ident: $ty:ty)?)),* $(,)?) => {$(
        fn $method<W: ?Sized + Write>(&mut self, out: &mut W $(, $value: $ty)?) -> io::Result<()> {
            CompactFormatter.$method(&mut self.sink(out) $(, $value)?)
        }
    )*};
}

/// On a borrow, so that one layout's buffers serve many values.
impl Formatter for &mut Layout {
    scalars!(
        write_null(),
        write_bool(value: bool),
        write_i8(value: i8),
        write_i16(value: i16),
        write_i32(value: i32),
        write_i64(value: i64),
        write_i128(value: i128),
        write_u8(value: u8),
        write_u16(value: u16),
        write_u32(value: u32),
        write_u64(value: u64),
        write_u128(value: u128),
        write_f32(value: f32),
        write_f64(value: f64),
        write_number_str(value: &str),
        begin_string(),
        end_string(),
        write_string_fragment(value: &str),
        write_char_escape(value: CharEscape),
        write_raw_fragment(value: &str),
    );

    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.opens(out, b'[')
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.closes(out, b']')
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.item_starts(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.check_limit(out)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.opens(out, b'{')
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.closes(out, b'}')
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, out: &mut W, first: bool) -> io::Result<()> {
        self.item_starts(out, first)
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _out: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        match self.frames.last_mut() {
            Some(frame) => {
                frame.text.extend_from_slice(b": ");
                Ok(())
            }
            None => out.write_all(b": "),
        }
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.check_limit(out)
    }
}

/// `value` as a whole document, laid out.
pub fn write<T: serde::Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    // Decided text comes out a token at a time; the buffer hands `out` large runs.
    let mut buffered = io::BufWriter::with_capacity(1 << 16, out);
    let mut layout = Layout::new();
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut buffered, &mut layout))?;
    buffered.flush()
}

/// Values that sit side by side `depth` brackets down in a multi-line document, laid out one
/// after the other with the same buffers (see [`Layout::nested`]).
pub struct Nested(Layout);

impl Nested {
    pub fn new(depth: usize) -> Self {
        Nested(Layout::nested(depth))
    }

    /// Appends `value`'s text there, from its first byte to its last.
    pub fn append<T: serde::Serialize + ?Sized>(&mut self, out: &mut Vec<u8>, value: &T) -> io::Result<()> {
        value.serialize(&mut serde_json::Serializer::with_formatter(out, &mut self.0))?;
        Ok(())
    }
}
