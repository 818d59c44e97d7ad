//! The label and field selectors the fake server understands, and its continue tokens.

use serde_json::Value;

/// `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a`, `!a`, joined by commas.
pub struct Labels(Vec<Requirement>);

enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    Absent(String),
}

/// Splits on commas outside parentheses.
fn terms(text: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect()
}

fn set(text: &str) -> Vec<String> {
    text.trim().trim_start_matches('(').trim_end_matches(')').split(',').map(|v| v.trim().to_string()).collect()
}

impl Labels {
    pub fn parse(text: &str) -> Labels {
        let reqs = terms(text)
            .into_iter()
            .map(|t| {
                if let Some((k, v)) = t.split_once(" notin ") {
                    Requirement::NotIn(k.trim().into(), set(v))
                } else if let Some((k, v)) = t.split_once(" in ") {
                    Requirement::In(k.trim().into(), set(v))
                } else if let Some((k, v)) = t.split_once("!=") {
                    Requirement::NotEquals(k.trim().into(), v.trim().into())
                } else if let Some((k, v)) = t.split_once("==").or_else(|| t.split_once('=')) {
                    Requirement::Equals(k.trim().into(), v.trim().into())
                } else if let Some(k) = t.strip_prefix('!') {
                    Requirement::Absent(k.trim().into())
                } else {
                    Requirement::Exists(t)
                }
            })
            .collect();
        Labels(reqs)
    }

    pub fn matches(&self, labels: &Value) -> bool {
        let get = |k: &str| labels.get(k).and_then(Value::as_str);
        self.0.iter().all(|r| match r {
            Requirement::Equals(k, v) => get(k) == Some(v),
            Requirement::NotEquals(k, v) => get(k) != Some(v),
            Requirement::In(k, vs) => get(k).is_some_and(|x| vs.iter().any(|v| v == x)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|x| !vs.iter().any(|v| v == x)),
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::Absent(k) => get(k).is_none(),
        })
    }
}

/// `path=value` and `path!=value` on dotted JSON paths, joined by commas.
pub struct Fields(Vec<(Vec<String>, String, bool)>);

impl Fields {
    pub fn parse(text: &str) -> Fields {
        Fields(
            terms(text)
                .into_iter()
                .map(|t| match t.split_once("!=") {
                    Some((p, v)) => (p.split('.').map(String::from).collect(), v.to_string(), false),
                    None => {
                        let (p, v) = t.split_once("==").or_else(|| t.split_once('=')).unwrap_or((&t, ""));
                        (p.split('.').map(String::from).collect(), v.to_string(), true)
                    }
                })
                .collect(),
        )
    }

    pub fn matches(&self, object: &Value) -> bool {
        self.0.iter().all(|(path, value, equal)| {
            let found = path.iter().try_fold(object, |v, p| v.get(p)).and_then(Value::as_str).unwrap_or("");
            (found == value) == *equal
        })
    }
}

/// Opaque to the client: which resource and where the next page starts.
pub fn make_token(plural: &str, offset: usize) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{plural}/{offset}"))
}

pub fn open_token(token: &str) -> Option<(String, usize)> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(token).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let (plural, offset) = text.split_once('/')?;
    Some((plural.to_string(), offset.parse().ok()?))
}
