//! Suppressions: `check --ignore CODE` and `.lbdoctor.yaml`, so a team can adopt `check` on a
//! cluster with known issues. A suppressed finding leaves `findings` (and the exit status) but
//! stays in the report under `suppressed`, with its reason.

use serde::Deserialize;

use crate::report::{Code, Finding, Report, Suppressed, Suppression};

/// One rule: a code, optionally narrowed to the findings that name an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub code: Code,
    /// `Kind namespace/name` as findings name objects; `*` matches any run of characters.
    pub object: Option<String>,
    pub suppression: Suppression,
}

#[derive(Debug, thiserror::Error)]
#[error("{origin}: {}", crate::plain::decode(message))]
pub struct ConfigError {
    pub origin: String,
    pub message: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ConfigFile {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default)]
    suppressions: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    code: String,
    object: Option<String>,
    reason: Option<String>,
}

/// `--ignore` codes: each must be a known code, so a typo does not silently suppress nothing.
pub fn from_ignore(codes: &[String]) -> Result<Vec<Rule>, ConfigError> {
    codes
        .iter()
        .filter(|c| !c.trim().is_empty())
        .map(|c| {
            Ok(Rule {
                code: known_code(c.trim()).map_err(|message| ConfigError { origin: "--ignore".into(), message })?,
                object: None,
                suppression: Suppression { reason: "--ignore on the command line".into(), source: "--ignore".into() },
            })
        })
        .collect()
}

/// Parses `.lbdoctor.yaml` (`name` is how errors refer to it).
pub fn from_config(name: &str, text: &str) -> Result<Vec<Rule>, ConfigError> {
    let err = |origin: String, message: String| ConfigError { origin, message };
    let file: ConfigFile =
        serde_saphyr::from_str_with_options(text, crate::snapshot::file::yaml_options()).map_err(|e| {
            let at =
                e.location().map(|l| format!("{name}:{}:{}", l.line(), l.column())).unwrap_or_else(|| name.to_string());
            err(at, crate::snapshot::file::yaml_message(&e))
        })?;
    if let Some(v) = file.api_version.as_deref().filter(|v| !crate::report::READ_API_VERSIONS.contains(v)) {
        return Err(err(
            name.into(),
            format!("apiVersion {v:?}: expected {}", crate::report::READ_API_VERSIONS.join(" or ")),
        ));
    }
    if let Some(k) = file.kind.as_deref().filter(|k| *k != "Config") {
        return Err(err(name.into(), format!("kind {k:?}: expected Config")));
    }
    file.suppressions
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            let origin = format!("{name} suppressions[{i}]");
            let code = known_code(entry.code.trim()).map_err(|m| err(origin.clone(), m))?;
            let reason = entry.reason.map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).ok_or_else(|| {
                err(origin.clone(), format!("{code}: a reason is required (who accepted it and why), e.g. reason: \"single-node lab\""))
            })?;
            let object = entry.object.map(|o| o.trim().to_string()).filter(|o| !o.is_empty());
            if let Some(o) = object.as_deref().filter(|o| !o.contains(' ')) {
                return Err(err(
                    origin,
                    format!("object {o:?}: expected `Kind namespace/name` as findings name objects, e.g. \"Service default/web\""),
                ));
            }
            Ok(Rule { code, object, suppression: Suppression { reason, source: origin } })
        })
        .collect()
}

fn known_code(code: &str) -> Result<Code, String> {
    code.parse::<Code>().map_err(|e| e.to_string())
}

impl Rule {
    fn matches(&self, f: &Finding) -> bool {
        f.code == self.code && self.object.as_deref().is_none_or(|o| f.objects.iter().any(|x| glob(o, &x.to_string())))
    }
}

/// Moves every finding a rule matches into `suppressed`; the first matching rule is recorded.
pub fn apply(report: &mut Report, rules: &[Rule]) {
    if rules.is_empty() {
        return;
    }
    split(&mut report.findings, &mut report.suppressed, rules);
    for s in &mut report.services {
        split(&mut s.findings, &mut s.suppressed, rules);
    }
}

fn split(findings: &mut Vec<Finding>, suppressed: &mut Vec<Suppressed>, rules: &[Rule]) {
    let mut kept = Vec::with_capacity(findings.len());
    for f in findings.drain(..) {
        match rules.iter().find(|r| r.matches(&f)) {
            Some(rule) => suppressed.push(Suppressed { finding: f, suppression: rule.suppression.clone() }),
            None => kept.push(f),
        }
    }
    *findings = kept;
}

/// `*` matches any run of characters (including `/`); everything else is literal.
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::ObjectRef;

    fn finding(code: Code, objects: &[(&'static str, &str, &str)]) -> Finding {
        Finding::new(code, "", "", objects.iter().map(|(kind, ns, name)| ObjectRef::new(kind, *ns, *name)).collect())
    }

    #[test]
    fn glob_matches_literally_except_star() {
        assert!(glob("Service media/*", "Service media/immich"));
        assert!(!glob("Service media/*", "Service home/immich"));
        assert!(glob("Service */web", "Service shop/web"));
        assert!(!glob("Service */web", "Service shop/web2"));
        assert!(glob("*", "anything"));
        assert!(glob("Service default/web", "Service default/web"));
        assert!(!glob("Service default/web", "Service default/web-2"));
        assert!(glob("a*b*c", "abc"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn config_needs_a_reason_and_a_known_code() {
        let e = from_config(".lbdoctor.yaml", "suppressions:\n- code: LBD106\n").unwrap_err();
        assert_eq!(e.origin, ".lbdoctor.yaml suppressions[0]");
        assert!(e.message.contains("reason is required"), "{}", e.message);
        let e = from_config("c.yaml", "suppressions:\n- code: LDB106\n  reason: typo\n").unwrap_err();
        assert!(e.message.contains("\"LDB106\" is not a finding code"), "{}", e.message);
        let e = from_config("c.yaml", "suppressions:\n- code: LBD106\n  objects: [x]\n  reason: r\n").unwrap_err();
        assert!(e.message.contains("objects"), "unknown fields are refused: {}", e.message);
        let e = from_config("c.yaml", "kind: Report\n").unwrap_err();
        assert!(e.message.contains("expected Config"));
        let e = from_config("c.yaml", "suppressions:\n- code: LBD106\n  object: web\n  reason: r\n").unwrap_err();
        assert!(e.message.contains("Kind namespace/name"), "{}", e.message);
    }

    #[test]
    fn rules_match_code_and_object() {
        let rules = from_config(
            "c.yaml",
            "apiVersion: lbdoctor/v1alpha1\nkind: Config\nsuppressions:\n\
             - code: lbd106\n  object: Service lab/*\n  reason: lab has one node\n",
        )
        .unwrap();
        assert_eq!(rules[0].code, Code::LBD106, "codes are case-insensitive and normalised");
        let lab_web = ("Service", "lab", "web");
        let prod_web = ("Service", "prod", "web");
        assert!(rules[0].matches(&finding(Code::LBD106, &[lab_web, ("L2Advertisement", "metallb-system", "l2")])));
        assert!(!rules[0].matches(&finding(Code::LBD106, &[prod_web])));
        assert!(!rules[0].matches(&finding(Code::LBD105, &[lab_web])));
        let ignore = from_ignore(&[Code::LBD105.to_string()]).unwrap();
        assert!(ignore[0].matches(&finding(Code::LBD105, &[prod_web])));
        assert!(from_ignore(&[format!("LBD{}", 999)]).is_err(), "an unknown code");
    }
}
