//! A MetalLB release as reports name it (`v0.14.9`, `main`). Which rules each release has is
//! `metallb::release`; this is only the name, so reports stay plain data.

use std::fmt;

use serde::{Serialize, Serializer};

/// A tagged MetalLB release from v0.13.0 to v0.16.1, or the `main` branch (newer behaviour:
/// preferredNodeSelectors, the shared-IP refusal). Ordered by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Release {
    /// `v0.MINOR.PATCH`, one of [`Release::TAGS`].
    Tag(u8, u8),
    Main,
}

impl fmt::Display for Release {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Release::Tag(minor, patch) => write!(f, "v0.{minor}.{patch}"),
            Release::Main => f.write_str("main"),
        }
    }
}

impl Serialize for Release {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Every release by name, for `--metallb-version` and its completions.
pub(crate) const NAMES: [(Release, &str); 30] = [
    (Release::Tag(13, 0), "v0.13.0"),
    (Release::Tag(13, 1), "v0.13.1"),
    (Release::Tag(13, 2), "v0.13.2"),
    (Release::Tag(13, 3), "v0.13.3"),
    (Release::Tag(13, 4), "v0.13.4"),
    (Release::Tag(13, 5), "v0.13.5"),
    (Release::Tag(13, 6), "v0.13.6"),
    (Release::Tag(13, 7), "v0.13.7"),
    (Release::Tag(13, 8), "v0.13.8"),
    (Release::Tag(13, 9), "v0.13.9"),
    (Release::Tag(13, 10), "v0.13.10"),
    (Release::Tag(13, 11), "v0.13.11"),
    (Release::Tag(13, 12), "v0.13.12"),
    (Release::Tag(14, 0), "v0.14.0"),
    (Release::Tag(14, 1), "v0.14.1"),
    (Release::Tag(14, 2), "v0.14.2"),
    (Release::Tag(14, 3), "v0.14.3"),
    (Release::Tag(14, 4), "v0.14.4"),
    (Release::Tag(14, 5), "v0.14.5"),
    (Release::Tag(14, 6), "v0.14.6"),
    (Release::Tag(14, 7), "v0.14.7"),
    (Release::Tag(14, 8), "v0.14.8"),
    (Release::Tag(14, 9), "v0.14.9"),
    (Release::Tag(15, 0), "v0.15.0"),
    (Release::Tag(15, 1), "v0.15.1"),
    (Release::Tag(15, 2), "v0.15.2"),
    (Release::Tag(15, 3), "v0.15.3"),
    (Release::Tag(16, 0), "v0.16.0"),
    (Release::Tag(16, 1), "v0.16.1"),
    (Release::Main, "main"),
];

pub(crate) const ALL: [Release; 30] = {
    let mut out = [Release::Main; 30];
    let mut i = 0;
    while i < 30 {
        out[i] = NAMES[i].0;
        i += 1;
    }
    out
};

impl clap::ValueEnum for Release {
    fn value_variants<'a>() -> &'a [Self] {
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        NAMES.iter().find(|(r, _)| r == self).map(|(_, name)| clap::builder::PossibleValue::new(*name))
    }
}
