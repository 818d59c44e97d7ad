//! An object's `apiVersion` and `kind` found without serde, in the common case.
//!
//! Decoding an object needs its kind first, and a List's items come with their keys sorted:
//! an EndpointSlice's `endpoints` (nine tenths of it) lie before its `kind`. Reading up to there
//! with serde (parsing every number and literal, building an error to stop) was a tenth of a
//! large snapshot's load. Here strings are stepped over a `memchr` jump at a time and nothing is
//! built. Anything out of the ordinary — an escape or a control character in either value, a
//! value that is not a string, an object without both keys — answers `None`, and the caller
//! asks serde, whose answer (and error) it always was.
//!
//! What this steps over is not checked to be valid JSON: the caller decodes the whole object
//! afterwards (or, for a kind it does not decode, checks the syntax), as serde would have.

use memchr::memchr2;

/// `(apiVersion, kind)`, when both are top-level keys with plain string values, as the last
/// occurrence of each before both were seen (serde's reading stops there too).
pub(crate) fn plain_api_version_and_kind(text: &str) -> Option<(String, String)> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let (mut api_version, mut kind): (Option<&str>, Option<&str>) = (None, None);
    loop {
        i = skip_ws(b, i);
        let key_end = plain_string_end(b, i)?;
        let key = &b[i + 1..key_end - 1];
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        i = skip_ws(b, i + 1);
        let slot = match key {
            b"apiVersion" => &mut api_version,
            b"kind" => &mut kind,
            _ => {
                i = super::list_scan::value_end(b, i)?;
                i = after_member(b, i)?;
                continue;
            }
        };
        let end = plain_string_end(b, i)?;
        let value = &text[i + 1..end - 1];
        if value.bytes().any(|c| c < 0x20) {
            return None;
        }
        *slot = Some(value);
        if let (Some(api_version), Some(kind)) = (api_version, kind) {
            return Some((api_version.to_string(), kind.to_string()));
        }
        i = after_member(b, end)?;
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| matches!(c, b' ' | b'\n' | b'\r' | b'\t')) {
        i += 1;
    }
    i
}

/// Past the `,` after a member; `None` at the object's end (a key was missing) or anything else.
fn after_member(b: &[u8], i: usize) -> Option<usize> {
    let i = skip_ws(b, i);
    (b.get(i) == Some(&b',')).then_some(i + 1)
}

/// The offset after a string starting at `i` that holds no escape.
fn plain_string_end(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let close = i + 1 + memchr2(b'"', b'\\', &b[i + 1..])?;
    (b[close] == b'"').then_some(close + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn serde_answer(text: &str) -> Option<(String, String)> {
        match crate::snapshot::file::sniff(text) {
            Ok((Some(a), Some(k))) => Some((a, k)),
            _ => None,
        }
    }

    #[test]
    fn reads_past_what_comes_before() {
        let text = r#"{"addressType": "IPv4", "apiVersion": "discovery.k8s.io/v1", "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": true}, "nodeName": "n\"}1", "targetRef": {"kind": "Pod"}}, -1.5e3, null], "kind": "EndpointSlice", "metadata": {}}"#;
        assert_eq!(
            plain_api_version_and_kind(text),
            Some(("discovery.k8s.io/v1".to_string(), "EndpointSlice".to_string()))
        );
        assert_eq!(plain_api_version_and_kind(text), serde_answer(text));
    }

    #[test]
    fn leaves_the_unusual_to_serde() {
        for text in [
            r#"{"apiVersion": "v1", "kind": "No\u0064e"}"#,
            r#"{"apiVersion": "v1", "k\u0069nd": "Node"}"#,
            r#"{"apiVersion": "v1", "kind": null}"#,
            r#"{"apiVersion": "v1", "kind": 3}"#,
            r#"{"apiVersion": "v1"}"#,
            "{\"apiVersion\": \"v1\", \"kind\": \"No\nde\"}",
            r#"["apiVersion", "kind"]"#,
            r#"{"apiVersion": "v1" "kind": "Node"}"#,
        ] {
            assert_eq!(plain_api_version_and_kind(text), None, "{text}");
        }
    }

    #[test]
    fn the_last_before_both_were_seen_counts() {
        // Nothing after both is read, by serde either: the text may even stop there.
        for text in [
            r#"{"apiVersion": "v0", "apiVersion": "v1", "kind": "Node", "kind": "Pod"}"#,
            r#"{"apiVersion": "v0", "apiVersion": "v1", "kind": "Node""#,
        ] {
            assert_eq!(plain_api_version_and_kind(text), Some(("v1".to_string(), "Node".to_string())));
            assert_eq!(plain_api_version_and_kind(text), serde_answer(text));
        }
    }

    fn json_value() -> impl Strategy<Value = serde_json::Value> {
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            (-1e9f64..1e9).prop_map(serde_json::Value::from),
            "[a-z\"\\\\{}\\[\\],: \u{1}é]{0,8}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
                prop::collection::btree_map("[a-zA-Z\"\\\\]{0,6}", inner, 0..4)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        /// Whenever it answers, serde answers the same, compact or indented.
        #[test]
        fn agrees_with_serde(
            members in prop::collection::vec(
                (prop_oneof![Just("apiVersion".to_string()), Just("kind".to_string()), "[a-z\"]{0,6}"], json_value()),
                0..8,
            ),
            pretty in any::<bool>(),
        ) {
            // Duplicate keys kept, in order: written by hand, not through a map.
            let write = |v: &serde_json::Value| if pretty { serde_json::to_string_pretty(v) } else { serde_json::to_string(v) }.unwrap();
            let body: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}:{}{}", write(&serde_json::Value::from(k.as_str())), if pretty { " " } else { "" }, write(v)))
                .collect();
            let sep = if pretty { ",\n  " } else { "," };
            let text = format!("{{{}}}", body.join(sep));
            if let Some(found) = plain_api_version_and_kind(&text) {
                prop_assert_eq!(Some(found), serde_answer(&text));
            }
        }
    }
}
