//! JSON strings as serde_json writes them: `"`, `\` and the control characters escaped (the
//! short forms where JSON has one, else `\u00xx` in lower case), everything else as it is.
//! Report text almost never needs an escape; eight bytes are checked at a time instead of one
//! (serde_json's loop was a tenth of a large `-o json`'s rendering).

const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// Whether any of the eight bytes is zero.
const fn any_zero(word: u64) -> bool {
    word.wrapping_sub(ONES) & !word & HIGHS != 0
}

/// Whether any of the eight bytes needs an escape: below 0x20 (exact as a whole, as borrows
/// only start at such a byte), a quote or a backslash.
const fn any_escape(word: u64) -> bool {
    word.wrapping_sub(ONES * 0x20) & !word & HIGHS != 0
        || any_zero(word ^ (ONES * b'"' as u64))
        || any_zero(word ^ (ONES * b'\\' as u64))
}

/// The escape of one byte, or `None` when it stands for itself.
fn escape(byte: u8) -> Option<&'static [u8]> {
    const CONTROL: [&[u8]; 32] = [
        b"\\u0000", b"\\u0001", b"\\u0002", b"\\u0003", b"\\u0004", b"\\u0005", b"\\u0006", b"\\u0007", b"\\b", b"\\t",
        b"\\n", b"\\u000b", b"\\f", b"\\r", b"\\u000e", b"\\u000f", b"\\u0010", b"\\u0011", b"\\u0012", b"\\u0013",
        b"\\u0014", b"\\u0015", b"\\u0016", b"\\u0017", b"\\u0018", b"\\u0019", b"\\u001a", b"\\u001b", b"\\u001c",
        b"\\u001d", b"\\u001e", b"\\u001f",
    ];
    match byte {
        0..0x20 => Some(CONTROL[usize::from(byte)]),
        b'"' => Some(b"\\\""),
        b'\\' => Some(b"\\\\"),
        _ => None,
    }
}

/// Whether any byte of `bytes` needs an escape.
#[inline]
fn needs_escape(bytes: &[u8]) -> bool {
    let word = |eight: &[u8]| u64::from_le_bytes(eight.try_into().expect("eight bytes"));
    if bytes.len() < 8 {
        // Copying a short text into a padded word costs a call to memcpy and a stall of the
        // load that reads back the bytes just stored: half the time of the whole check.
        return bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\');
    }
    let mut words = bytes.chunks_exact(8);
    if words.by_ref().any(|eight| any_escape(word(eight))) {
        return true;
    }
    // The last eight bytes, overlapping the words already checked.
    !words.remainder().is_empty() && any_escape(word(&bytes[bytes.len() - 8..]))
}

/// `text` escaped, without quotes.
#[inline]
pub(super) fn push_contents(buf: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    if needs_escape(bytes) {
        push_escaped(buf, bytes);
    } else {
        buf.extend_from_slice(bytes);
    }
}

/// The rare text with something to escape, a byte at a time.
#[cold]
fn push_escaped(buf: &mut Vec<u8>, bytes: &[u8]) {
    let mut run = 0;
    for (i, &byte) in bytes.iter().enumerate() {
        if let Some(escaped) = escape(byte) {
            buf.extend_from_slice(&bytes[run..i]);
            buf.extend_from_slice(escaped);
            run = i + 1;
        }
    }
    buf.extend_from_slice(&bytes[run..]);
}

/// `text` as a JSON string.
#[inline]
pub(super) fn push_str(buf: &mut Vec<u8>, text: &str) {
    buf.reserve(text.len() + 2);
    buf.push(b'"');
    push_contents(buf, text);
    buf.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn escaped(text: &str) -> String {
        let mut buf = Vec::new();
        push_str(&mut buf, text);
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn every_byte_as_serde_json_writes_it() {
        for c in (0u32..0x300).filter_map(char::from_u32) {
            // Alone, in the first word, in the bytes after the last whole word, in a full word.
            let texts = [
                c.to_string(),
                format!("abcdefg{c}xyz"),
                format!("abcdefghijklmn{c}"),
                format!("{c}{c}{c}{c}{c}{c}{c}{c}{c}"),
            ];
            for text in texts {
                assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap(), "{c:?}");
            }
        }
    }

    proptest! {
        #[test]
        fn any_text_as_serde_json_writes_it(text in "(\\PC|[\"\\\\\\x00-\\x1f\\x7f]){0,40}") {
            prop_assert_eq!(escaped(&text), serde_json::to_string(&text).unwrap());
        }
    }
}
