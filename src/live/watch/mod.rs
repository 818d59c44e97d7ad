//! `--watch`: after the lists, one WATCH per list resuming from its resourceVersion, re-listed on
//! 410 Gone, resumed after a closed or broken stream with backoff. The objects stay text, as the
//! lists gave them, so every evaluation decodes the cluster as it is now through the same loader
//! as a snapshot file: a watched cluster and a saved one cannot diverge.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

mod stream;
mod triggers;

use super::api::{Api, HeadMeta, ObjectHead, Target};
use super::progress::{Progress, Silent};
use super::{assemble, is_lb_workload, open, read_all, LiveError, LiveOptions};
use crate::report::Trigger;
use crate::snapshot::{ObjectText, Snapshot};
use stream::follow;
use triggers::{merge, relist_event, trigger};

/// (target, namespace, name): a Pod two selectors return is kept once per selector, so that one
/// selector's DELETED (its labels changed) does not drop it from the other.
pub(super) type Key = (usize, String, String);

/// The client every watch uses, replaced when the credentials are settled again after a 401.
pub(super) struct Shared {
    /// (generation, client): the generation tells a watch whether another one renewed already.
    current: std::sync::RwLock<(u64, Arc<Api>)>,
    renewing: tokio::sync::Mutex<()>,
    opts: LiveOptions,
}

impl Shared {
    pub(super) fn api(&self) -> (u64, Arc<Api>) {
        let current = self.current.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        (current.0, current.1.clone())
    }

    /// Connects again as at the start, with the credentials settled anew, unless another watch
    /// did so since `seen`. True when this call renewed them.
    pub(super) async fn renew(&self, seen: u64) -> Result<bool, LiveError> {
        let _one_at_a_time = self.renewing.lock().await;
        if self.api().0 != seen {
            return Ok(false);
        }
        super::credentials::forget();
        let (api, _) = open(&self.opts, Arc::new(Silent)).await?;
        *self.current.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = (seen + 1, Arc::new(api));
        Ok(true)
    }
}

pub struct Session {
    runtime: tokio::runtime::Runtime,
    rx: mpsc::UnboundedReceiver<Message>,
    targets: Vec<Target>,
    store: BTreeMap<Key, ObjectText>,
    info: ObjectText,
    pub default_namespace: String,
    pub context: Option<String>,
    /// Watch events received so far.
    pub events: u64,
}

/// Why [`Session::wait`] returned.
pub enum Wake {
    /// Objects the engines read changed; the quiet window has passed.
    Changed { triggers: Vec<Trigger>, notes: Vec<String> },
    /// Reconnects and re-lists, to say on stderr; nothing changed.
    Notes(Vec<String>),
    /// The stop flag was raised or the deadline passed.
    End,
}

pub(super) enum Message {
    Event { target: usize, event: Event, namespace: String, name: String, object: ObjectText },
    Relisted { target: usize, objects: Vec<ObjectText> },
    Note(String),
    Fatal(LiveError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Event {
    Added,
    Modified,
    Deleted,
}

impl Session {
    /// Lists everything, as `collect`, and starts a watch per list. Returns the first snapshot.
    pub fn start(
        opts: &LiveOptions,
        progress: Arc<dyn Progress>,
        captured_at: String,
    ) -> Result<(Session, Snapshot), LiveError> {
        let runtime = super::runtime()?;
        let (tx, rx) = mpsc::unbounded_channel();
        let (info, lists, default_namespace, context) = runtime.block_on(async {
            let (api, default_namespace) = open(opts, progress).await?;
            let read = read_all(&api, captured_at, &default_namespace).await?;
            // Re-lists from the watches draw no progress bars: those are gone by then.
            let api = Arc::new(Api { progress: Arc::new(Silent), ..api });
            let context = api.context.clone();
            let shared = Arc::new(Shared {
                current: std::sync::RwLock::new((0, api)),
                renewing: tokio::sync::Mutex::new(()),
                opts: opts.clone(),
            });
            let mut started = Vec::new();
            for listed in &read.lists {
                let (Some(target), None) = (&listed.target, &listed.denied) else { continue };
                let index = started.len();
                started.push(target.clone());
                tokio::spawn(follow(
                    shared.clone(),
                    index,
                    target.clone(),
                    listed.resource_version.clone(),
                    tx.clone(),
                ));
            }
            Ok::<_, LiveError>((read.info, (read.lists, started), default_namespace, context))
        })?;
        let (lists, targets) = lists;
        let mut store = BTreeMap::new();
        // Only the lists that got a watch are stored: the same order as `targets`.
        for (index, listed) in lists.into_iter().filter(|l| l.target.is_some() && l.denied.is_none()).enumerate() {
            for object in listed.objects {
                let head = head(&object.text);
                store.insert((index, head.namespace, head.name), object);
            }
        }
        let session = Session { runtime, rx, targets, store, info, default_namespace, context, events: 0 };
        let snapshot = session.snapshot()?;
        Ok((session, snapshot))
    }

    /// The kinds watched, as `kubectl get` names them, each once.
    pub fn watching(&self) -> Vec<String> {
        let mut names: Vec<String> = self.targets.iter().map(|t| t.resource.name()).collect();
        names.sort();
        names.dedup();
        names
    }

    /// The cluster as the watches last reported it.
    pub fn snapshot(&self) -> Result<Snapshot, LiveError> {
        let mut snapshot = assemble(std::iter::once(&self.info).chain(self.store.values()))?;
        snapshot.live = true;
        Ok(snapshot)
    }

    /// Waits for a change to an object the engines read, then for `quiet` without another one
    /// (at most `longest` in all), so that a rollout of a hundred Pods is one evaluation.
    pub fn wait(
        &mut self,
        quiet: Duration,
        longest: Duration,
        deadline: Option<Instant>,
        stop: &AtomicBool,
    ) -> Result<Wake, LiveError> {
        let tick = Duration::from_millis(100);
        let mut triggers: BTreeMap<(String, Option<String>, String), Trigger> = BTreeMap::new();
        let mut notes = Vec::new();
        let mut first: Option<Instant> = None;
        let mut last = Instant::now();
        loop {
            let now = Instant::now();
            let ended = stop.load(Ordering::Relaxed) || deadline.is_some_and(|d| now >= d);
            if let Some(first) = first {
                if ended || now.duration_since(last) >= quiet || now.duration_since(first) >= longest {
                    return Ok(Wake::Changed { triggers: triggers.into_values().collect(), notes });
                }
            } else if ended {
                return Ok(Wake::End);
            } else if !notes.is_empty() {
                return Ok(Wake::Notes(notes));
            }
            let message = self.runtime.block_on(async { tokio::time::timeout(tick, self.rx.recv()).await });
            let message = match message {
                Err(_) => continue,
                Ok(None) => return Ok(Wake::End),
                Ok(Some(m)) => m,
            };
            let changed = match message {
                Message::Fatal(e) => return Err(e),
                Message::Note(n) => {
                    notes.push(n);
                    Vec::new()
                }
                Message::Event { target, event, namespace, name, object } => {
                    self.events += 1;
                    self.apply(target, event, namespace, name, object).into_iter().collect()
                }
                Message::Relisted { target, objects } => self.relisted(target, objects),
            };
            for t in changed {
                let key = (t.kind.clone(), t.namespace.clone(), t.name.clone());
                match triggers.get_mut(&key) {
                    Some(seen) => merge(seen, t),
                    None => {
                        triggers.insert(key, t);
                    }
                }
                first.get_or_insert(Instant::now());
                last = Instant::now();
            }
        }
    }

    /// Applies one watch event; the trigger when it changes what the engines read.
    fn apply(
        &mut self,
        target: usize,
        event: Event,
        namespace: String,
        name: String,
        object: ObjectText,
    ) -> Option<Trigger> {
        let key = (target, namespace, name);
        // A DaemonSet or Deployment no implementation recognises is not kept (as in a snapshot).
        let keep = event != Event::Deleted
            && (!matches!(object.kind.as_str(), "DaemonSet" | "Deployment") || is_lb_workload(&object));
        let kind = object.kind.clone();
        let old = if keep { self.store.insert(key.clone(), object) } else { self.store.remove(&key) };
        let new = if keep { self.store.get(&key) } else { None };
        trigger(&key, old.as_ref(), new, &kind)
    }

    /// A re-list replaces what one target holds; every object that differs is a trigger.
    fn relisted(&mut self, target: usize, objects: Vec<ObjectText>) -> Vec<Trigger> {
        let mut fresh: BTreeMap<Key, ObjectText> = BTreeMap::new();
        for object in objects {
            if matches!(object.kind.as_str(), "DaemonSet" | "Deployment") && !is_lb_workload(&object) {
                continue;
            }
            let head = head(&object.text);
            fresh.insert((target, head.namespace, head.name), object);
        }
        let old_keys: Vec<Key> = self
            .store
            .range((target, String::new(), String::new())..)
            .take_while(|(k, _)| k.0 == target)
            .map(|(k, _)| k.clone())
            .collect();
        let mut out = Vec::new();
        for key in old_keys {
            if !fresh.contains_key(&key) {
                let old = self.store.remove(&key);
                let kind = old.as_ref().map(|o| o.kind.clone()).unwrap_or_default();
                out.extend(trigger(&key, old.as_ref(), None, &kind).map(relist_event));
            }
        }
        for (key, object) in fresh {
            let kind = object.kind.clone();
            let old = self.store.insert(key.clone(), object);
            out.extend(trigger(&key, old.as_ref(), self.store.get(&key), &kind).map(relist_event));
        }
        out
    }
}

pub(super) fn head(text: &str) -> HeadMeta {
    serde_json::from_str::<ObjectHead>(text).map(|h| h.metadata).unwrap_or_default()
}
