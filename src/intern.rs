//! Values that many of one run's answers repeat, each held once: the reports and elections of
//! 10,000 Services would otherwise carry 10,000 copies of the same node sets, clauses and name
//! lists (issue 49). Filled from the parallel evaluation, hence the lock.

use std::collections::HashSet;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

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
}
