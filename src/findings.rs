//! The catalogue of finding codes, built from `docs/findings/` (build.rs): the codes `--ignore`
//! and `.lbdoctor.yaml` accept, and the rules `check -o sarif` describes.

pub struct Rule {
    pub code: &'static str,
    /// The severity the index gives; a few codes vary per finding (the page says when).
    pub severity: &'static str,
    pub title: &'static str,
    /// The index's one-line meaning (markdown).
    pub meaning: &'static str,
    /// The whole page, markdown.
    pub page: &'static str,
}

pub static CATALOGUE: &[Rule] = include!(concat!(env!("OUT_DIR"), "/findings.rs"));

pub fn rule(code: &str) -> Option<&'static Rule> {
    CATALOGUE.iter().find(|r| r.code.eq_ignore_ascii_case(code))
}
