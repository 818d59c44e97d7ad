//! BGP communities as MetalLB parses, orders and prints them (spec §5.3, §9.2).

use std::cmp::Ordering;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Community {
    /// `A:B`, two 16-bit halves.
    Standard(u16, u16),
    /// `large:G:L1:L2`.
    Large(u32, u32, u32),
}

/// Why a string is not a community. `Format` is what MetalLB treats as a possibly
/// not-yet-existing Community alias (a transient error); `Value` rejects the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommunityError {
    Value(String),
    Format(String),
}

impl fmt::Display for CommunityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommunityError::Value(m) | CommunityError::Format(m) => f.write_str(m),
        }
    }
}

impl Community {
    pub fn parse(text: &str) -> Result<Community, CommunityError> {
        let fields: Vec<&str> = text.split(':').collect();
        let section = |s: &str, bits: u32| -> Result<u32, CommunityError> {
            parse_go_uint(s, bits).map_err(|why| {
                CommunityError::Value(format!(
                    "invalid community value: invalid section {s:?} of community {text:?}, err: {:?}",
                    format!("strconv.ParseUint: parsing {s:?}: {why}")
                ))
            })
        };
        match fields.as_slice() {
            [a, b] => Ok(Community::Standard(section(a, 16)? as u16, section(b, 16)? as u16)),
            [marker, g, l1, l2] => {
                if *marker != "large" {
                    return Err(CommunityError::Value(format!(
                        "invalid community value: invalid marker for large community, expected community to be of format large:<uint32>:<uint32>:<uint32> but got {text:?} instead"
                    )));
                }
                Ok(Community::Large(section(g, 32)?, section(l1, 32)?, section(l2, 32)?))
            }
            _ => Err(CommunityError::Format(format!("invalid community format: {text}"))),
        }
    }

    /// `ParseCommunity` up to v0.13.9 (B-4): only `A:B`; anything else, a large community
    /// included, is a format error (an alias that may not exist yet).
    pub fn parse_legacy(text: &str) -> Result<Community, CommunityError> {
        let fields: Vec<&str> = text.split(':').collect();
        let [a, b] = fields.as_slice() else {
            return Err(CommunityError::Format(format!("invalid community format: {text}")));
        };
        let half = |s: &str, which: &str| {
            parse_go_uint(s, 16).map(|v| v as u16).map_err(|why| {
                CommunityError::Value(format!(
                    "invalid community value: invalid {which} section of community {s:?}: strconv.ParseUint: parsing {s:?}: {why}"
                ))
            })
        };
        Ok(Community::Standard(half(a, "first")?, half(b, "second")?))
    }

    /// The parser of a release: large communities from v0.13.10.
    pub fn parse_under(text: &str, large: bool) -> Result<Community, CommunityError> {
        if large {
            Community::parse(text)
        } else {
            Community::parse_legacy(text)
        }
    }

    pub fn is_standard(&self) -> bool {
        matches!(self, Community::Standard(..))
    }

    /// MetalLB compares a standard community as the large one `(A<<16|B):0:0`.
    fn as_large(&self) -> (u32, u32, u32) {
        match *self {
            Community::Standard(a, b) => ((u32::from(a) << 16) | u32::from(b), 0, 0),
            Community::Large(g, l1, l2) => (g, l1, l2),
        }
    }
}

impl Ord for Community {
    fn cmp(&self, other: &Self) -> Ordering {
        // A standard community and its large twin compare equal in MetalLB; keep Ord total.
        self.as_large().cmp(&other.as_large()).then_with(|| self.is_standard().cmp(&other.is_standard()).reverse())
    }
}

impl PartialOrd for Community {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// As frr-k8s and lbdoctor's JSON write them: `65000:100`, `large:1:2:3`.
impl fmt::Display for Community {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Community::Standard(a, b) => write!(f, "{a}:{b}"),
            Community::Large(g, l1, l2) => write!(f, "large:{g}:{l1}:{l2}"),
        }
    }
}

/// Go's `strconv.ParseUint(s, 10, bits)`, with its error wording.
fn parse_go_uint(s: &str, bits: u32) -> Result<u32, &'static str> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("invalid syntax");
    }
    let max = if bits == 16 { u64::from(u16::MAX) } else { u64::from(u32::MAX) };
    match s.parse::<u64>() {
        Ok(v) if v <= max => Ok(v as u32),
        _ => Err("value out of range"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_both_kinds() {
        assert_eq!(Community::parse("65000:100"), Ok(Community::Standard(65000, 100)));
        assert_eq!(Community::parse("large:1:2:3"), Ok(Community::Large(1, 2, 3)));
        assert_eq!(Community::parse("large:1:2:3").unwrap().to_string(), "large:1:2:3");
        assert!(matches!(Community::parse("65536:1"), Err(CommunityError::Value(_))));
        assert!(matches!(Community::parse("big:1:2:3"), Err(CommunityError::Value(_))));
        assert!(matches!(Community::parse("my-alias"), Err(CommunityError::Format(_))));
        assert!(matches!(Community::parse("1:2:3"), Err(CommunityError::Format(_))));
        // B-4: before v0.13.10.
        assert_eq!(
            Community::parse_legacy("large:1:2:3"),
            Err(CommunityError::Format("invalid community format: large:1:2:3".into()))
        );
        assert_eq!(
            Community::parse_legacy("65536:1"),
            Err(CommunityError::Value(
                r#"invalid community value: invalid first section of community "65536": strconv.ParseUint: parsing "65536": value out of range"#.into()
            ))
        );
        assert_eq!(Community::parse_legacy("65000:100"), Ok(Community::Standard(65000, 100)));
    }

    #[test]
    fn standard_sorts_as_its_large_twin() {
        // 0:2 is 2:0:0 and 1:0 is 65536:0:0 when compared with large communities.
        let mut v = vec![Community::Standard(1, 0), Community::Large(3, 0, 0), Community::Standard(0, 2)];
        v.sort();
        assert_eq!(v, vec![Community::Standard(0, 2), Community::Large(3, 0, 0), Community::Standard(1, 0)]);
        // Equal as large values (1:0:0): the standard one first, so the order stays total.
        assert!(Community::Standard(0, 1) < Community::Large(1, 0, 0));
    }
}
