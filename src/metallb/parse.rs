//! The helpers every CR parser of MetalLB's `internal/config` shares (one Go package there):
//! selector compilation and the duplicate checks that reject a whole configuration.

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::k8s::selector::{go_requirement_q, go_selector_q, go_selector_v, Labels, Selector};
use crate::metallb::release::Rules;

/// A parse error with its context, as the release words it: `errors.Join` from v0.14.6 (the
/// error, then the context on a line of its own), pkg/errors `Wrapf` before (the context, a
/// colon, the error). Some contexts were reworded with the switch, hence two texts.
pub(crate) fn with_context(rules: Rules, error: &str, joined: &str, wrapped: &str) -> String {
    if rules.selector_errors_joined {
        format!("{error}\n{joined}")
    } else {
        format!("{wrapped}: {error}")
    }
}

/// `parseSelectors`: compiled, then sorted by their string form.
pub(crate) fn compile_service_selectors(selectors: &[LabelSelector]) -> Result<Vec<Selector>, String> {
    let mut out = Vec::new();
    for sel in selectors {
        out.push(Selector::compile(sel).map_err(|e| format!("invalid service selector {}: {e}", go_selector_v(sel)))?);
    }
    out.sort_by_key(|s| s.to_kube_string());
    Ok(out)
}

/// Names matched by any selector; an empty selector list selects every name.
pub(crate) fn select_names(
    objects: &[(&str, &Labels)],
    selectors: &[LabelSelector],
) -> Result<BTreeSet<String>, String> {
    if selectors.is_empty() {
        return Ok(objects.iter().map(|(n, _)| n.to_string()).collect());
    }
    let compiled = compile_all(selectors)?;
    Ok(objects
        .iter()
        .filter(|(_, labels)| compiled.iter().any(|s| s.matches(labels)))
        .map(|(n, _)| n.to_string())
        .collect())
}

fn compile_all(selectors: &[LabelSelector]) -> Result<Vec<Selector>, String> {
    selectors
        .iter()
        .map(|s| Selector::compile(s).map_err(|e| format!("{e}\ninvalid label selector {}", go_selector_v(s))))
        .collect()
}

pub(crate) fn validate_duplicates(values: &[String], what: &str) -> Result<(), String> {
    for (i, v) in values.iter().enumerate() {
        if values[i + 1..].contains(v) {
            return Err(format!("duplicate definition of {what} {v:?}"));
        }
    }
    Ok(())
}

/// `validateLabelSelectorDuplicate`: values sorted first, then whole selectors and expressions compared.
pub(crate) fn validate_selector_duplicates(selectors: &[LabelSelector], what: &str) -> Result<(), String> {
    let mut sorted: Vec<LabelSelector> = selectors.to_vec();
    for sel in &mut sorted {
        for expr in sel.match_expressions.iter_mut().flatten() {
            if let Some(values) = expr.values.as_mut() {
                values.sort();
            }
        }
    }
    for (i, sel) in sorted.iter().enumerate() {
        let exprs = sel.match_expressions.clone().unwrap_or_default();
        for (j, expr) in exprs.iter().enumerate() {
            validate_duplicates(
                expr.values.as_deref().unwrap_or_default(),
                "match expression value in label selector",
            )?;
            if exprs[j + 1..].contains(expr) {
                return Err(format!("duplicate definition of match expressions {:?}", go_requirement_q(expr)));
            }
        }
        if sorted[i + 1..].iter().any(|other| go_selector_q(other) == go_selector_q(sel)) {
            return Err(format!("duplicate definition of {what} {:?}", go_selector_q(sel)));
        }
    }
    Ok(())
}
