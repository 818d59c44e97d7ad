//! Values that many of one run's answers repeat, each held once: the reports and elections of
//! 10,000 Services would otherwise carry 10,000 copies of the same node sets, clauses and name
//! lists (issue 49). Filled from the parallel evaluation, hence the lock.

use std::hash::Hash;
use std::sync::{Arc, Mutex};

use crate::fast_hash::{HashMap, HashSet};

pub struct Interned<T: ?Sized>(Mutex<HashSet<Arc<T>>>);

impl<T: ?Sized> Default for Interned<T> {
    fn default() -> Self {
        Interned(Mutex::default())
    }
}

impl<T: ?Sized + Eq + Hash> Interned<T> {
    /// The held value equal to `value`, held from now on if none was.
    pub fn hold<B: std::borrow::Borrow<T> + Into<Arc<T>>>(&self, value: B) -> Arc<T> {
        let mut held = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(same) = held.get(value.borrow()) {
            return same.clone();
        }
        let value: Arc<T> = value.into();
        held.insert(value.clone());
        value
    }
}

/// Values made from a key, each made once per distinct key: what many answers compute from
/// the same few inputs (the verdicts' clauses, from the node groups' counts and first names).
pub struct Memo<K, V: ?Sized>(Mutex<HashMap<K, Arc<V>>>);

impl<K, V: ?Sized> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(Mutex::default())
    }
}

impl<K: Eq + Hash, V: ?Sized> Memo<K, V> {
    /// The value made for `key`, made by `make` if none was. Made outside the lock: two
    /// threads meeting a new key both make it, and the first one's is kept.
    pub fn get_or_make(&self, key: K, make: impl FnOnce(&K) -> Arc<V>) -> Arc<V> {
        if let Some(made) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return made.clone();
        }
        let made = make(&key);
        self.0.lock().unwrap_or_else(|e| e.into_inner()).entry(key).or_insert(made).clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_values_share_one_allocation() {
        let texts: Interned<str> = Interned::default();
        let a = texts.hold(String::from("3 nodes lost the hash election"));
        let b = texts.hold(String::from("3 nodes lost the hash election"));
        let c = texts.hold(String::from("2 nodes lost the hash election"));
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!(&*c, "2 nodes lost the hash election");
    }

    #[test]
    fn a_memo_makes_each_key_once() {
        let memo: Memo<u32, str> = Memo::default();
        let mut made = 0;
        let a = memo.get_or_make(3, |k| {
            made += 1;
            format!("{k} nodes").into()
        });
        let b = memo.get_or_make(3, |_| unreachable!("made once"));
        let c = memo.get_or_make(4, |k| format!("{k} nodes").into());
        assert_eq!(made, 1);
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!((&*a, &*c), ("3 nodes", "4 nodes"));
    }
}
