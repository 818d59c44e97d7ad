//! A serde `Serializer` that writes the layout's text straight into one buffer: what serde_json's
//! serializer wrote through a `Formatter` call per token, each finding where its text went.
//! Scalars are written as serde_json writes them (floats and odd map keys by serde_json itself);
//! the tests compare the two on any value.

use serde::ser::{self, Serialize};
use serde_json::Error;

use super::escape;
use super::layout::Layout;

type Result<T = ()> = std::result::Result<T, Error>;

/// Text laid out into `buf`; with `out`, handed on whenever no open bracket holds an offset
/// into it and a buffer's worth has gathered.
pub(super) struct Writer<'a> {
    pub buf: &'a mut Vec<u8>,
    pub layout: &'a mut Layout,
    pub out: Option<&'a mut dyn std::io::Write>,
}

/// What `out` is handed at a time.
const HAND_ON: usize = 1 << 16;

impl Writer<'_> {
    fn value_ends(&mut self) -> Result {
        self.layout.check_limit(self.buf);
        if self.buf.len() >= HAND_ON && self.layout.settled() {
            self.hand_on()?;
        }
        Ok(())
    }

    /// Writes out what the buffer holds.
    pub(super) fn hand_on(&mut self) -> Result {
        if let Some(out) = self.out.as_mut() {
            out.write_all(self.buf).map_err(Error::io)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn plain(&mut self, text: &[u8]) -> Result {
        self.buf.extend_from_slice(text);
        Ok(())
    }

    /// As serde_json writes it, which no other scalar needs.
    fn via_serde_json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        serde_json::to_writer(&mut *self.buf, value)
    }

    fn key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        if key.serialize(KeyText(self)).is_ok() {
            return Ok(());
        }
        // Not text: serde_json's own rules (numbers quoted, most else an error), read off a map
        // of that one key.
        struct OneKey<'k, K: ?Sized>(&'k K);
        impl<K: Serialize + ?Sized> Serialize for OneKey<'_, K> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry(self.0, &())?;
                map.end()
            }
        }
        let text = serde_json::to_vec(&OneKey(key))?;
        let key_text = text
            .strip_prefix(b"{")
            .and_then(|t| t.strip_suffix(b":null}"))
            .ok_or_else(|| ser::Error::custom("a map key serde_json wrote in an unexpected form"))?;
        self.plain(key_text)
    }
}

/// A bracket's values as they are written.
pub(super) struct Compound<'w, 'a> {
    writer: &'w mut Writer<'a>,
    first: bool,
    closing: u8,
    /// Inside a variant's `{"name": …}`, which closes after it.
    in_variant: bool,
}

impl Compound<'_, '_> {
    /// An array's value or an object's key begins.
    fn starts(&mut self) {
        self.writer.layout.item_starts(self.writer.buf, std::mem::take(&mut self.first));
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.starts();
        self.writer.value(value)
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        self.starts();
        self.writer.key_text(key);
        self.writer.value(value)
    }

    fn close(self) -> Result {
        let Compound { writer, closing, in_variant, .. } = self;
        writer.layout.closes(writer.buf, closing);
        if in_variant {
            writer.variant_closes()?;
        }
        Ok(())
    }
}

impl<'w, 'a> Writer<'a> {
    fn compound(&'w mut self, opening: u8, closing: u8, in_variant: bool) -> Compound<'w, 'a> {
        self.layout.opens(self.buf, opening);
        Compound { writer: self, first: true, closing, in_variant }
    }

    /// `value`, and the layout told that it ended.
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        value.serialize(&mut *self)?;
        self.value_ends()
    }

    /// `"key": ` of an object's member, its value next.
    fn key_text(&mut self, key: &str) {
        escape::push_str(self.buf, key);
        self.buf.extend_from_slice(b": ");
    }

    /// `{"variant": ` of an enum's variant with a value.
    fn variant_opens(&mut self, variant: &str) {
        self.layout.opens(self.buf, b'{');
        self.layout.item_starts(self.buf, true);
        self.key_text(variant);
    }

    /// The `}` after a variant's value.
    fn variant_closes(&mut self) -> Result {
        self.value_ends()?;
        self.layout.closes(self.buf, b'}');
        Ok(())
    }
}

/// Integers as serde_json writes them (with `itoa`, as it does).
macro_rules! integers {
    ($($method:ident($ty:ty)),* $(,)?) => {$(
        fn $method(self, v: $ty) -> Result {
            self.plain(itoa::Buffer::new().format(v).as_bytes())
        }
    )*};
}

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'w, 'a>;
    type SerializeTuple = Compound<'w, 'a>;
    type SerializeTupleStruct = Compound<'w, 'a>;
    type SerializeTupleVariant = Compound<'w, 'a>;
    type SerializeMap = Compound<'w, 'a>;
    type SerializeStruct = Compound<'w, 'a>;
    type SerializeStructVariant = Compound<'w, 'a>;

    fn serialize_bool(self, v: bool) -> Result {
        self.plain(if v { b"true" } else { b"false" })
    }
    integers!(
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
    );
    fn serialize_f32(self, v: f32) -> Result {
        self.via_serde_json(&v)
    }
    fn serialize_f64(self, v: f64) -> Result {
        self.via_serde_json(&v)
    }
    fn serialize_char(self, v: char) -> Result {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result {
        escape::push_str(self.buf, v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for byte in v {
            seq.serialize_element(byte)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result {
        self.plain(b"null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result {
        self.plain(b"null")
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result {
        self.plain(b"null")
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.variant_opens(variant);
        value.serialize(&mut *self)?;
        self.variant_closes()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'w, 'a>> {
        Ok(self.compound(b'[', b']', false))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Compound<'w, 'a>> {
        Ok(self.compound(b'[', b']', false))
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'w, 'a>> {
        Ok(self.compound(b'[', b']', false))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>> {
        self.variant_opens(variant);
        Ok(self.compound(b'[', b']', true))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'w, 'a>> {
        Ok(self.compound(b'{', b'}', false))
    }
    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Compound<'w, 'a>> {
        // serde_json's RawValue is a struct of this name, written as the JSON it holds.
        if name == "$serde_json::private::RawValue" {
            return Err(ser::Error::custom("a raw JSON value cannot be laid out"));
        }
        Ok(self.compound(b'{', b'}', false))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'w, 'a>> {
        self.variant_opens(variant);
        Ok(self.compound(b'{', b'}', true))
    }

    fn collect_str<T: std::fmt::Display + ?Sized>(self, value: &T) -> Result {
        // Escaped as it is formatted, with no String in between.
        struct Escaping<'b>(&'b mut Vec<u8>);
        impl std::fmt::Write for Escaping<'_> {
            fn write_str(&mut self, s: &str) -> std::fmt::Result {
                escape::push_contents(self.0, s);
                Ok(())
            }
        }
        self.buf.push(b'"');
        std::fmt::write(&mut Escaping(self.buf), format_args!("{value}")).map_err(ser::Error::custom)?;
        self.buf.push(b'"');
        Ok(())
    }
}

/// The bracket's kinds whose values come one after the other, and those whose values have keys
/// serde names.
macro_rules! compounds {
    ($($kind:ident::$method:ident),* ; $($keyed:ident),*) => {
        $(impl ser::$kind for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                self.item(value)
            }
            fn end(self) -> Result {
                self.close()
            }
        })*
        $(impl ser::$keyed for Compound<'_, '_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
                self.field(key, value)
            }
            fn end(self) -> Result {
                self.close()
            }
        })*
    };
}

compounds!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field;
    SerializeStruct,
    SerializeStructVariant
);

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.starts();
        self.writer.key(key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.writer.buf.extend_from_slice(b": ");
        self.writer.value(value)
    }
    fn end(self) -> Result {
        self.close()
    }
}

/// A map key that is text, written as a JSON string; anything else refused, for serde_json
/// to write.
struct KeyText<'w, 'a>(&'w mut Writer<'a>);

/// Refused: not text.
fn not_text<T>() -> Result<T> {
    Err(ser::Error::custom("not text"))
}

/// Scalars a map key refuses.
macro_rules! refused {
    ($($method:ident($ty:ty)),* $(,)?) => {$(
        fn $method(self, _v: $ty) -> Result {
            not_text()
        }
    )*};
}

impl ser::Serializer for KeyText<'_, '_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result {
        escape::push_str(self.0.buf, v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_unit_variant(self, _name: &'static str, _index: u32, variant: &'static str) -> Result {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _name: &'static str, value: &T) -> Result {
        value.serialize(self)
    }
    refused!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str),
    );
    fn serialize_none(self) -> Result {
        not_text()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result {
        not_text()
    }
    fn serialize_unit(self) -> Result {
        not_text()
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result {
        not_text()
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        not_text()
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        not_text()
    }
    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeTupleStruct> {
        not_text()
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        not_text()
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        not_text()
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        not_text()
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        not_text()
    }
}
