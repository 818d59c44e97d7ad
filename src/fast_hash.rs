//! Hash maps for one run's own keys (names, addresses, node sets): foldhash instead of std's
//! SipHash, which was 2–3% of a large cluster's `check` (issue 49). Still seeded per process,
//! like std's, and nothing may depend on their order: outputs sort what they show.

pub type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
pub type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
