//! Kubernetes label selectors with `metav1.LabelSelectorAsSelector` semantics.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

mod text;

pub use super::labels::{LabelLookup, LabelMap};

pub type Labels = BTreeMap<String, String>;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Op {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    /// Only from the string form (`key>3`): the label's value parses as an integer above/below.
    Gt,
    Lt,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement {
    key: String,
    op: Op,
    values: Vec<String>,
}

/// A compiled selector. An empty selector matches everything.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selector {
    requirements: Vec<Requirement>,
}

impl Selector {
    /// Compiles like Kubernetes' `LabelSelectorAsSelector`; the error text is Kubernetes' own.
    pub fn compile(sel: &LabelSelector) -> Result<Selector, String> {
        let mut requirements = Vec::new();
        for (k, v) in sel.match_labels.iter().flatten() {
            validate_key(k)?;
            validate_value(v)?;
            requirements.push(Requirement { key: k.clone(), op: Op::In, values: vec![v.clone()] });
        }
        for expr in sel.match_expressions.iter().flatten() {
            let op = match expr.operator.as_str() {
                "In" => Op::In,
                "NotIn" => Op::NotIn,
                "Exists" => Op::Exists,
                "DoesNotExist" => Op::DoesNotExist,
                other => return Err(format!("{other:?} is not a valid label selector operator")),
            };
            validate_key(&expr.key)?;
            let values = expr.values.clone().unwrap_or_default();
            match op {
                Op::In | Op::NotIn if values.is_empty() => {
                    return Err(
                        "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty"
                            .to_string(),
                    )
                }
                Op::Exists | Op::DoesNotExist if !values.is_empty() => {
                    return Err(format!(
                        "values: Invalid value: {}: values set must be empty for exists and does not exist",
                        go_string_slice(&values)
                    ))
                }
                _ => {}
            }
            for v in &values {
                validate_value(v)?;
            }
            let mut values = values;
            values.sort();
            values.dedup();
            requirements.push(Requirement { key: expr.key.clone(), op, values });
        }
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Selector { requirements })
    }

    pub fn matches(&self, labels: &(impl LabelLookup + ?Sized)) -> bool {
        self.requirements.iter().all(|r| {
            let value = labels.label(&r.key);
            match r.op {
                Op::In => value.is_some_and(|v| r.values.iter().any(|x| x == v)),
                Op::NotIn => value.is_none_or(|v| !r.values.iter().any(|x| x == v)),
                Op::Exists => value.is_some(),
                Op::DoesNotExist => value.is_none(),
                Op::Gt | Op::Lt => {
                    let (Some(have), Some(bound)) =
                        (value.and_then(|v| v.parse::<i64>().ok()), r.values[0].parse::<i64>().ok())
                    else {
                        return false;
                    };
                    if r.op == Op::Gt {
                        have > bound
                    } else {
                        have < bound
                    }
                }
            }
        })
    }

    /// Kubernetes' `labels.Selector.String()` form, e.g. `app=web,tier in (a,b)`.
    pub fn to_kube_string(&self) -> String {
        let parts: Vec<String> = self
            .requirements
            .iter()
            .map(|r| match r.op {
                Op::In if r.values.len() == 1 => format!("{}={}", r.key, r.values[0]),
                Op::In => format!("{} in ({})", r.key, r.values.join(",")),
                Op::NotIn => format!("{} notin ({})", r.key, r.values.join(",")),
                Op::Exists => r.key.clone(),
                Op::DoesNotExist => format!("!{}", r.key),
                Op::Gt => format!("{}>{}", r.key, r.values[0]),
                Op::Lt => format!("{}<{}", r.key, r.values[0]),
            })
            .collect();
        parts.join(",")
    }
}

fn validate_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric());
    let prefix_ok = prefix.is_none_or(|p| {
        !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|part| {
                !part.is_empty()
                    && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !part.starts_with('-')
                    && !part.ends_with('-')
            })
    });
    if name_ok && prefix_ok {
        Ok(())
    } else {
        Err(format!("key: Invalid value: {key:?}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"))
    }
}

fn validate_value(value: &str) -> Result<(), String> {
    let ok = value.is_empty()
        || (value.len() <= 63
            && value.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()));
    if ok {
        Ok(())
    } else {
        Err(format!("values[0]: Invalid value: {value:?}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"))
    }
}

fn go_string_slice(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    format!("[]string{{{}}}", quoted.join(", "))
}

/// Go's `%v` of a `metav1.LabelSelector` value, as MetalLB prints it in errors: `{map[k:v] [{key In [a b]}]}`.
pub fn go_selector_v(sel: &LabelSelector) -> String {
    let labels: Vec<String> = sel.match_labels.iter().flatten().map(|(k, v)| format!("{k}:{v}")).collect();
    let exprs: Vec<String> = sel
        .match_expressions
        .iter()
        .flatten()
        .map(|r| format!("{{{} {} [{}]}}", r.key, r.operator, r.values.clone().unwrap_or_default().join(" ")))
        .collect();
    format!("{{map[{}] [{}]}}", labels.join(" "), exprs.join(" "))
}

/// Go's `%q` of a `metav1.LabelSelector` value: every string quoted.
pub fn go_selector_q(sel: &LabelSelector) -> String {
    let labels: Vec<String> = sel.match_labels.iter().flatten().map(|(k, v)| format!("{k:?}:{v:?}")).collect();
    let exprs: Vec<String> = sel.match_expressions.iter().flatten().map(go_requirement_q).collect();
    format!("{{map[{}] [{}]}}", labels.join(" "), exprs.join(" "))
}

/// Go's `%q` of a `metav1.LabelSelectorRequirement` value.
pub fn go_requirement_q(r: &LabelSelectorRequirement) -> String {
    let values: Vec<String> = r.values.iter().flatten().map(|v| format!("{v:?}")).collect();
    format!("{{{:?} {:?} [{}]}}", r.key, r.operator, values.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn sel(yaml: &str) -> Selector {
        let ls: LabelSelector = serde_json::from_str(yaml).unwrap();
        Selector::compile(&ls).unwrap()
    }

    #[test]
    fn empty_selector_matches_everything() {
        assert!(sel("{}").matches(&labels(&[])));
    }

    #[test]
    fn match_labels_and_expressions_are_anded() {
        let s = sel(
            r#"{"matchLabels":{"role":"worker"},"matchExpressions":[{"key":"zone","operator":"In","values":["a","b"]}]}"#,
        );
        assert!(s.matches(&labels(&[("role", "worker"), ("zone", "a")])));
        assert!(!s.matches(&labels(&[("role", "worker"), ("zone", "c")])));
        assert!(!s.matches(&labels(&[("zone", "a")])));
    }

    #[test]
    fn notin_and_doesnotexist_match_missing_keys() {
        let s = sel(
            r#"{"matchExpressions":[{"key":"zone","operator":"NotIn","values":["a"]},{"key":"x","operator":"DoesNotExist"}]}"#,
        );
        assert!(s.matches(&labels(&[])));
        assert!(!s.matches(&labels(&[("zone", "a")])));
        assert!(!s.matches(&labels(&[("x", "")])));
    }

    #[test]
    fn empty_value_label_matches_exists_and_empty_match_label() {
        let key = "node.kubernetes.io/exclude-from-external-load-balancers";
        let l = labels(&[(key, "")]);
        assert!(sel(&format!(r#"{{"matchExpressions":[{{"key":"{key}","operator":"Exists"}}]}}"#)).matches(&l));
        assert!(sel(&format!(r#"{{"matchLabels":{{"{key}":""}}}}"#)).matches(&l));
    }

    #[test]
    fn invalid_selectors_are_errors() {
        for bad in [
            r#"{"matchExpressions":[{"key":"a","operator":"Equals","values":["x"]}]}"#,
            r#"{"matchExpressions":[{"key":"a","operator":"In","values":[]}]}"#,
            r#"{"matchExpressions":[{"key":"a","operator":"Exists","values":["x"]}]}"#,
            r#"{"matchLabels":{"bad key":"x"}}"#,
        ] {
            let ls: LabelSelector = serde_json::from_str(bad).unwrap();
            assert!(Selector::compile(&ls).is_err(), "{bad}");
        }
    }

    #[test]
    fn kube_string_is_sorted_by_key() {
        assert_eq!(sel(r#"{"matchLabels":{"b":"2","a":"1"}}"#).to_kube_string(), "a=1,b=2");
    }
}
