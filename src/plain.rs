//! Library error texts in the user's words: a person at 3 a.m. should read what went wrong and
//! what to do, not `(os error 2)` or `expected i32`.

/// An I/O error about a path, in words: what is wrong with it, without the OS error number.
pub(crate) fn io(e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    match e.kind() {
        NotFound => "no such file or directory".into(),
        PermissionDenied => "permission denied (read it as a user who may, or copy it somewhere readable)".into(),
        IsADirectory => "a directory, where a file is needed".into(),
        NotADirectory => "a part of the path is a file, not a directory".into(),
        InvalidData => "not UTF-8 text".into(),
        _ => without_os_error(&e.to_string()),
    }
}

/// `Connection refused (os error 111)` → `Connection refused`.
pub(crate) fn without_os_error(text: &str) -> String {
    match text.find(" (os error ") {
        Some(i) => {
            let rest = &text[i + 1..];
            let end = rest.find(')').map_or(text.len(), |j| i + 1 + j + 1);
            format!("{}{}", &text[..i], &text[end..])
        }
        None => text.to_string(),
    }
}

/// A failed connection to an API server, from the error chain of the HTTP client, in words.
pub(crate) fn connect(chain: &str) -> String {
    let lower = chain.to_lowercase();
    let known = [
        ("connection refused", "the connection was refused: nothing listens at that address and port (is the API server running, is it the right port?)"),
        ("failed to lookup address", "the server's host name does not resolve (DNS)"),
        ("dns error", "the server's host name does not resolve (DNS)"),
        ("no route to host", "no route to the server's address (a VPN or firewall?)"),
        ("network is unreachable", "the server's network is unreachable from here (a VPN or firewall?)"),
        ("connection reset", "the server closed the connection (a proxy, or not an API server?)"),
        ("timed out", "the connection timed out (a firewall dropping packets, or the wrong address?)"),
        ("certificate", "TLS failed"),
    ];
    if let Some((_, words)) = known.iter().find(|(needle, _)| lower.contains(needle)) {
        return (*words).to_string();
    }
    // Unknown: the innermost cause, without the client's layer names.
    let inner = chain.rsplit(": ").next().unwrap_or(chain);
    without_os_error(inner)
}

/// A decoding message of serde (JSON or YAML) with Rust type names put in words.
pub(crate) fn decode(message: &str) -> String {
    let mut text = message.to_string();
    for (rust, words) in [
        ("i8", "a whole number"),
        ("i16", "a whole number"),
        ("i32", "a whole number"),
        ("i64", "a whole number"),
        ("u8", "a whole number, 0 or more"),
        ("u16", "a whole number from 0 to 65535"),
        ("u32", "a whole number, 0 or more"),
        ("u64", "a whole number, 0 or more"),
        ("f64", "a number"),
        ("bool", "true or false"),
        ("a boolean", "true or false"),
        ("a sequence", "a list"),
        ("sequence", "a list"),
        ("a map", "a mapping (key: value)"),
        ("map", "a mapping (key: value)"),
        ("string scalar", "a string"),
        ("mapping start", "a mapping (key: value)"),
        ("sequence start", "a list"),
    ] {
        for form in [format!("expected {rust}"), format!("invalid {rust}")] {
            if let Some(at) = text.find(&form) {
                let end = at + form.len();
                // Only a whole word: "expected map" but not "expected mapping".
                if text[end..].chars().next().is_none_or(|c| !c.is_alphanumeric()) {
                    let verb = if form.starts_with("invalid") { "not" } else { "expected" };
                    let replacement = if verb == "not" { format!("not {words}") } else { format!("expected {words}") };
                    text.replace_range(at..end, &replacement);
                }
            }
        }
    }
    if text.contains("simple key expected ':'") || text.contains("could not find expected ':'") {
        return "a line that is not `key: value` (a missing `:` after a key, or a wrongly indented line)".into();
    }
    for (yaml, words) in [
        ("reference to unknown value", "an alias (*name) to an anchor (&name) that is not defined before it"),
        ("did not find expected <document start>", "text after the end of a document (a stray line, or `---` missing)"),
        (
            "tabs disallowed within this context (block indentation)",
            "a tab in the indentation: YAML indents with spaces",
        ),
        (
            "mapping values are not allowed in this context",
            "a `key: value` where none may be (a missing quote, or `:` inside an unquoted value)",
        ),
    ] {
        if text.contains(yaml) {
            return words.to_string();
        }
    }
    text.replace("invalid type: ", "wrong type: ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_words_become_plain_ones() {
        assert_eq!(without_os_error("Connection refused (os error 111)"), "Connection refused");
        assert_eq!(
            decode("invalid type: string \"abc\", expected i32"),
            "wrong type: string \"abc\", expected a whole number"
        );
        assert_eq!(decode("invalid i32"), "not a whole number");
        assert_eq!(
            decode("invalid type: integer `3`, expected a sequence"),
            "wrong type: integer `3`, expected a list"
        );
        assert!(decode("simple key expected ':'").contains("missing `:`"));
        assert_eq!(decode("expected mapping start"), "expected a mapping (key: value)");
        assert!(decode("reference to unknown value").contains("anchor"));
        assert!(connect("ServiceError: client error (Connect): tcp connect error: Connection refused (os error 111)")
            .starts_with("the connection was refused"));
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        assert_eq!(io(&e), "no such file or directory");
    }
}
