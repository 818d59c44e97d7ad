//! A compact string map for labels, annotations and selectors of the objects a cluster has by
//! the ten thousand. Kubernetes' own type is a `BTreeMap`, whose first node alone takes about
//! 540 bytes however few entries it holds; objects carry two or three such maps. This one is a
//! sorted slice: one allocation of the pairs, looked up by binary search. Keys and values are
//! `CompactString`s: most (`app`, `svc-00042`, `zone-b`) fit in its 24 bytes and take no
//! allocation of their own.

use std::collections::BTreeMap;

use compact_str::CompactString;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelMap(Box<[(CompactString, CompactString)]>);

impl LabelMap {
    /// The empty map, for objects without any.
    pub fn empty() -> &'static LabelMap {
        static EMPTY: std::sync::LazyLock<LabelMap> = std::sync::LazyLock::new(LabelMap::default);
        &EMPTY
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok().map(|i| self.0[i].1.as_str())
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// In key order, as a `BTreeMap` iterates.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn to_btree(&self) -> BTreeMap<String, String> {
        self.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    /// Sorted by key; of pairs with the same key, the last one stays (as `BTreeMap::insert`).
    fn from_pairs(mut pairs: Vec<(CompactString, CompactString)>) -> LabelMap {
        pairs.sort_by(|a, b| a.0.cmp(&b.0));
        // Stable: within a key, input order. Reversed, the last comes first and dedup keeps it.
        pairs.reverse();
        pairs.dedup_by(|a, b| a.0 == b.0);
        pairs.reverse();
        LabelMap(pairs.into_boxed_slice())
    }
}

impl From<BTreeMap<String, String>> for LabelMap {
    fn from(map: BTreeMap<String, String>) -> Self {
        // A BTreeMap yields its keys sorted and unique: the order binary search needs.
        LabelMap(map.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl FromIterator<(String, String)> for LabelMap {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(iter: I) -> Self {
        LabelMap::from_pairs(iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

/// As a JSON object into a `BTreeMap`: string values only, the last of duplicate keys wins.
impl<'de> serde::Deserialize<'de> for LabelMap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = LabelMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<LabelMap, A::Error> {
                let mut pairs: Vec<(CompactString, CompactString)> = Vec::with_capacity(map.size_hint().unwrap_or(0));
                while let Some(pair) = map.next_entry()? {
                    pairs.push(pair);
                }
                Ok(LabelMap::from_pairs(pairs))
            }
        }
        deserializer.deserialize_map(Visit)
    }
}

impl<'a> IntoIterator for &'a LabelMap {
    type Item = (&'a str, &'a str);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (CompactString, CompactString)>,
        fn(&'a (CompactString, CompactString)) -> Self::Item,
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// What a label selector reads from a set of labels, whichever map holds them.
pub trait LabelLookup {
    fn label(&self, key: &str) -> Option<&str>;
}

impl<T: LabelLookup + ?Sized> LabelLookup for &T {
    fn label(&self, key: &str) -> Option<&str> {
        (**self).label(key)
    }
}

impl LabelLookup for LabelMap {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

impl LabelLookup for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn behaves_as_the_btree_map(pairs in prop::collection::vec(("[a-d]{0,3}", "[x-z]{0,2}"), 0..12), probe in "[a-d]{0,3}") {
            let btree: BTreeMap<String, String> = pairs.iter().cloned().collect();
            let map: LabelMap = btree.clone().into();
            prop_assert_eq!(map.get(&probe), btree.get(&probe).map(String::as_str));
            prop_assert_eq!(map.contains_key(&probe), btree.contains_key(&probe));
            prop_assert_eq!(map.iter().collect::<Vec<_>>(), btree.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect::<Vec<_>>());
            prop_assert_eq!(map.to_btree(), btree);
            let collected: LabelMap = pairs.iter().cloned().collect();
            prop_assert_eq!(&collected, &map);
            // Duplicate keys in JSON: the last wins, as in a BTreeMap.
            let json = format!("{{{}}}", pairs.iter().map(|(k, v)| format!("{k:?}:{v:?}")).collect::<Vec<_>>().join(","));
            let decoded: LabelMap = serde_json::from_str(&json).unwrap();
            let reference: BTreeMap<String, String> = serde_json::from_str(&json).unwrap();
            prop_assert_eq!(decoded, LabelMap::from(reference));
        }
    }
}
