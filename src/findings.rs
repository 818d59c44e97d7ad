//! The catalogue of finding codes, built from `docs/findings/` (build.rs): the rules `check -o
//! sarif` describes, one per [`Code`] in the index's order. The codes themselves (with their
//! severity and title) are `report::Code`.

use crate::report::Code;

pub struct Rule {
    pub code: Code,
    /// The index's one-line meaning (markdown).
    pub meaning: &'static str,
    /// The whole page, markdown.
    pub page: &'static str,
}

pub static CATALOGUE: &[Rule] = include!(concat!(env!("OUT_DIR"), "/findings.rs"));
