//! Pretty JSON with small values on one line: an array of plain values (`"ips": ["192.0.2.1",
//! "192.0.2.2"]`, up to a few KB), and an object or array, nested or not, whose one-line form
//! is short (`{"rank": 1, "node": "a", "hash": "…"}`). A name list or a small record then costs a
//! line, not a line per value, which keeps large reports small (docs/json.md). Everything else
//! is laid out as serde_json's pretty printer would. The document is the same for a JSON parser.
//!
//! A serde `Serializer` of its own (`ser.rs`) writes each token once, in its one-line form, into
//! one buffer; the layout (`layout.rs`) is told where values, keys and separators begin, so it
//! never scans text, and rewrites a bracket's text over several lines only once it is too long
//! for one. Re-reading serde_json's compact output byte by byte for its brackets and separators
//! was half the cost of a large `-o json`; re-reading pretty text cost a pass per nesting level
//! (reports are tens of MB); a serde_json `Formatter` with a buffer per bracket (`oracle.rs`,
//! which the tests compare this with) copied nested text once per level.

use std::io::{self, Write};

mod escape;
mod layout;
#[cfg(test)]
mod oracle;
mod ser;

use layout::Layout;

/// `value` as a whole document, laid out.
pub fn write<T: serde::Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut buf = Vec::with_capacity(1 << 16);
    let mut layout = Layout::new();
    let mut writer = ser::Writer { buf: &mut buf, layout: &mut layout, out: Some(out) };
    value.serialize(&mut writer)?;
    writer.hand_on()?;
    Ok(())
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
        value.serialize(&mut ser::Writer { buf: out, layout: &mut self.0, out: None })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(value: &serde_json::Value) -> String {
        let mut text = Vec::new();
        write(&mut text, value).unwrap();
        String::from_utf8(text).unwrap()
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

    /// Any JSON value: short and long strings (with escapes), numbers, nesting, so that every
    /// path of the layout is taken, one line or several.
    fn any_value() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        use serde_json::Value;
        let text =
            prop_oneof!["[a-z]{0,12}", "(\\PC|[\"\\\\\\x00-\\x1f]){0,20}", (1usize..400).prop_map(|n| "x".repeat(n)),];
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            text.clone().prop_map(Value::String),
        ];
        leaf.prop_recursive(5, 200, 12, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..12).prop_map(Value::Array),
                prop::collection::vec(("[a-z\"]{1,8}", inner), 0..12)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]
        /// The writer gives the formatter's text, byte for byte, whole or nested.
        #[test]
        fn the_same_text_as_the_formatter(value in any_value(), depth in 0usize..4) {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            write(&mut fast, &value).unwrap();
            oracle::write(&mut slow, &value).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
            let (mut fast, mut slow) = (b"x".to_vec(), b"x".to_vec());
            let mut nested = Nested::new(depth);
            let mut nested_slow = oracle::Nested::new(depth);
            for _ in 0..2 {
                nested.append(&mut fast, &value).unwrap();
                nested_slow.append(&mut slow, &value).unwrap();
            }
            proptest::prop_assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
        }
    }

    #[test]
    fn enums_options_keys_and_odd_scalars_as_serde_json_writes_them() {
        use std::collections::BTreeMap;
        #[derive(serde::Serialize)]
        enum E {
            Unit,
            New(u8),
            Tuple(i32, String),
            Struct { a: Option<f32>, b: char },
        }
        #[derive(serde::Serialize)]
        struct S<'a> {
            #[serde(flatten)]
            inner: BTreeMap<&'a str, u8>,
            e: Vec<E>,
            by_number: BTreeMap<i64, bool>,
            by_bool: BTreeMap<bool, ()>,
            bytes: serde_bytes_like::Bytes<'a>,
            unit: (),
            big: (i128, u128, f64, f64),
        }
        mod serde_bytes_like {
            pub struct Bytes<'a>(pub &'a [u8]);
            impl serde::Serialize for Bytes<'_> {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    s.serialize_bytes(self.0)
                }
            }
        }
        let value = S {
            inner: [("k\"1", 1), ("k2", 2)].into_iter().collect(),
            e: vec![E::Unit, E::New(7), E::Tuple(-3, "t\n".into()), E::Struct { a: Some(1.5), b: '\u{1}' }],
            by_number: [(-5, true), (12, false)].into_iter().collect(),
            by_bool: [(true, ())].into_iter().collect(),
            bytes: serde_bytes_like::Bytes(&[0, 255, 16]),
            unit: (),
            big: (i128::MIN, u128::MAX, f64::NAN, 1e300),
        };
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        write(&mut fast, &value).unwrap();
        oracle::write(&mut slow, &value).unwrap();
        assert_eq!(String::from_utf8(fast).unwrap(), String::from_utf8(slow).unwrap());
        // A key serde_json refuses is refused here as well.
        let refused: BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
        assert!(write(&mut Vec::new(), &refused).is_err());
        assert!(oracle::write(&mut Vec::new(), &refused).is_err());
    }

    #[test]
    fn a_long_document_is_handed_on_in_pieces_and_whole() {
        let names: Vec<String> = (0..20_000).map(|i| format!("node-{i:05}")).collect();
        let value = serde_json::json!({ "a": [{"nodes": names}], "b": "end" });
        struct Counting(Vec<u8>, usize);
        impl Write for Counting {
            fn write(&mut self, data: &[u8]) -> io::Result<usize> {
                self.1 += 1;
                self.0.extend_from_slice(data);
                Ok(data.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut out = Counting(Vec::new(), 0);
        write(&mut out, &value).unwrap();
        let mut slow = Vec::new();
        oracle::write(&mut slow, &value).unwrap();
        assert!(out.1 > 2, "{} writes", out.1);
        assert_eq!(out.0, slow);
    }
}
