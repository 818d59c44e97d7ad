//! `--watch`: after the lists, one WATCH per list resuming from its resourceVersion, re-listed on
//! 410 Gone, resumed after a closed or broken stream with backoff. The objects stay text, as the
//! lists gave them, so every evaluation decodes the cluster as it is now through the same loader
//! as a snapshot file: a watched cluster and a saved one cannot diverge.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::io::AsyncBufReadExt;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::mpsc;

use super::api::{chain, stamp, Api, HeadMeta, ObjectHead, Target};
use super::progress::{Progress, Silent};
use super::{assemble, is_lb_workload, open, read_all, LiveError, LiveOptions};
use crate::report::Trigger;
use crate::snapshot::{ObjectText, Snapshot};

/// The server ends each watch after this long (kube-rs uses the same); the watch then resumes.
const WATCH_SECONDS: u32 = 290;
/// How often a resource that may be listed but not watched is listed again.
const POLL: Duration = Duration::from_secs(30);
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A stream that lasted this long was healthy: the next failure starts the backoff again.
const HEALTHY: Duration = Duration::from_secs(30);

/// (target, namespace, name): a Pod two selectors return is kept once per selector, so that one
/// selector's DELETED (its labels changed) does not drop it from the other.
type Key = (usize, String, String);

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

enum Message {
    Event { target: usize, event: Event, namespace: String, name: String, object: ObjectText },
    Relisted { target: usize, objects: Vec<ObjectText> },
    Note(String),
    Fatal(LiveError),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
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
            let mut started = Vec::new();
            for listed in &read.lists {
                let (Some(target), None) = (&listed.target, &listed.denied) else { continue };
                let index = started.len();
                started.push(target.clone());
                tokio::spawn(follow(api.clone(), index, target.clone(), listed.resource_version.clone(), tx.clone()));
            }
            let context = api.context.clone();
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
        let mut snapshot = session.snapshot()?;
        snapshot.live = true;
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

fn relist_event(mut t: Trigger) -> Trigger {
    t.event = "relisted";
    t
}

fn merge(seen: &mut Trigger, next: Trigger) {
    seen.event = match (seen.event, next.event) {
        ("added", "deleted") | ("deleted", "added") => "modified",
        (_, "deleted") => "deleted",
        ("added", _) => "added",
        (_, e) => e,
    };
    for f in next.fields {
        if !seen.fields.contains(&f) {
            seen.fields.push(f);
        }
    }
    seen.fields.sort();
}

/// The trigger for `old` → `new` when anything the engines may read differs: timestamps that
/// change on every heartbeat (a Node condition's `lastHeartbeatTime`, a Lease's `renewTime`)
/// and bookkeeping (`resourceVersion`, `managedFields`) do not count.
fn trigger(key: &Key, old: Option<&ObjectText>, new: Option<&ObjectText>, kind: &str) -> Option<Trigger> {
    let (event, fields) = match (old, new) {
        (None, None) => return None,
        (None, Some(_)) => ("added", Vec::new()),
        (Some(_), None) => ("deleted", Vec::new()),
        (Some(o), Some(n)) => {
            if o.text == n.text {
                return None;
            }
            let fields = differing(&significant(&o.text, kind), &significant(&n.text, kind));
            if fields.is_empty() {
                return None;
            }
            ("modified", fields)
        }
    };
    Some(Trigger {
        kind: kind.to_string(),
        namespace: Some(key.1.clone()).filter(|n| !n.is_empty()),
        name: key.2.clone(),
        event,
        fields,
    })
}

fn significant(text: &str, kind: &str) -> Value {
    let mut v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        for noise in ["resourceVersion", "managedFields", "generation"] {
            meta.remove(noise);
        }
    }
    if let Some(conditions) = v.pointer_mut("/status/conditions").and_then(Value::as_array_mut) {
        for c in conditions.iter_mut().filter_map(Value::as_object_mut) {
            c.remove("lastHeartbeatTime");
        }
    }
    if kind == "Lease" {
        if let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("renewTime");
        }
    }
    v
}

/// The parts that differ: `labels` and `annotations` of the metadata, else the top-level field.
fn differing(old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
        return vec!["object".into()];
    };
    let keys: std::collections::BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for key in keys {
        if key == "metadata" {
            let (om, nm) = (&o[key], n.get(key).unwrap_or(&Value::Null));
            for part in ["labels", "annotations"] {
                if om.get(part) != nm.get(part) {
                    out.push(part.to_string());
                }
            }
            let rest = |m: &Value| {
                let mut m = m.clone();
                if let Some(m) = m.as_object_mut() {
                    m.remove("labels");
                    m.remove("annotations");
                }
                m
            };
            if rest(om) != rest(nm) {
                out.push("metadata".into());
            }
        } else if o.get(key) != n.get(key) {
            out.push(key.clone());
        }
    }
    out
}

fn head(text: &str) -> HeadMeta {
    serde_json::from_str::<ObjectHead>(text).map(|h| h.metadata).unwrap_or_default()
}

/// `PATH?watch=true&resourceVersion=…`: the list's selectors; a GET by name watches by field.
fn watch_uri(target: &Target, resource_version: Option<&str>) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    query.append_pair("watch", "true");
    query.append_pair("timeoutSeconds", &WATCH_SECONDS.to_string());
    match resource_version.filter(|rv| !rv.is_empty()) {
        Some(rv) => {
            query.append_pair("resourceVersion", rv);
            query.append_pair("allowWatchBookmarks", "true");
        }
        // No version (a GET by name found nothing): "0", from whatever the server holds, its
        // objects first. Unset asks for a consistent start, and "0" with bookmarks for a watch
        // list; a server without etcd's progress notifications (RequestWatchProgress) refuses both.
        None => {
            query.append_pair("resourceVersion", "0");
        }
    }
    if let Some(l) = &target.label_selector {
        query.append_pair("labelSelector", l);
    }
    let by_name = target.name.as_ref().map(|n| format!("metadata.name={n}"));
    let fields: Vec<&str> = target.field_selector.iter().chain(&by_name).map(String::as_str).collect();
    if !fields.is_empty() {
        query.append_pair("fieldSelector", &fields.join(","));
    }
    format!("{}?{}", target.resource.path(target.namespace.as_deref()), query.finish())
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type")]
    kind: &'a str,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize)]
struct Status {
    #[serde(default)]
    code: u16,
    #[serde(default)]
    message: String,
}

/// How one watch request ended.
enum Ended {
    /// The server closed it (its timeoutSeconds): resume at once.
    Closed,
    /// 410 Gone: the resourceVersion is too old; list again.
    Gone,
    Broken(String),
}

/// One target's watch, for as long as the session lives (the channel closes when it ends).
async fn follow(
    api: Arc<Api>,
    index: usize,
    target: Target,
    mut rv: Option<String>,
    tx: mpsc::UnboundedSender<Message>,
) {
    let label = target.label();
    let origin: Arc<str> = format!("WATCH {}", target.resource.path(target.namespace.as_deref())).into();
    let mut backoff = BACKOFF_FIRST;
    loop {
        let request = http::Request::get(watch_uri(&target, rv.as_deref()))
            .header(http::header::ACCEPT_ENCODING, "identity")
            .body(Vec::new())
            .expect("a path is a valid URI");
        let started = Instant::now();
        let ended = match api.client.request_stream(request).await {
            Ok(body) => {
                let mut lines = body.lines();
                loop {
                    let line = match lines.next().await {
                        None => break Ended::Closed,
                        Some(Err(e)) => break Ended::Broken(chain(&e)),
                        Some(Ok(line)) => line,
                    };
                    match event(&line, &target, &origin) {
                        Ok(Parsed::Object { event, head, object }) => {
                            if head.resource_version.is_some() {
                                rv = head.resource_version.clone();
                            }
                            let message = Message::Event {
                                target: index,
                                event,
                                namespace: head.namespace,
                                name: head.name,
                                object,
                            };
                            if tx.send(message).is_err() {
                                return;
                            }
                        }
                        Ok(Parsed::Bookmark(version)) => rv = version.or(rv),
                        Ok(Parsed::Error(status)) if status.code == 410 => break Ended::Gone,
                        Ok(Parsed::Error(status)) => {
                            break Ended::Broken(format!("error {}: {}", status.code, status.message))
                        }
                        Err(why) => break Ended::Broken(why),
                    }
                }
            }
            Err(kube::Error::Api(s)) if s.code == 410 => Ended::Gone,
            Err(kube::Error::Api(s)) if s.code == 401 => {
                let _ = tx.send(Message::Fatal(LiveError::Unauthorized(format!(
                    "the API server {} stopped accepting the credentials while watching {label} (401 Unauthorized): the token \
                     or certificate expired; log in again and restart the watch",
                    api.server
                ))));
                return;
            }
            Err(kube::Error::Api(s)) if s.code == 403 => {
                let note = format!(
                    "cannot watch {label} ({}); listing it again every {} s instead. Grant watch on it (docs/rbac.yaml) \
                     to see its changes as they happen",
                    s.message,
                    POLL.as_secs()
                );
                if tx.send(Message::Note(note)).is_err() {
                    return;
                }
                poll(&api, index, &target, &tx).await;
                return;
            }
            Err(e) => Ended::Broken(chain(&e)),
        };
        if started.elapsed() >= HEALTHY {
            backoff = BACKOFF_FIRST;
        }
        match ended {
            Ended::Closed if started.elapsed() >= HEALTHY => continue,
            Ended::Closed => {}
            Ended::Gone => {
                match relist(&api, index, &target, &tx, "410 Gone: the watch's resourceVersion was compacted").await {
                    Some(version) => {
                        rv = version;
                        continue;
                    }
                    None if tx.is_closed() => return,
                    None => {}
                }
            }
            Ended::Broken(why) => {
                let note = format!("watch of {label} broke ({why}); resuming in {} s", backoff.as_secs());
                if tx.send(Message::Note(note)).is_err() {
                    return;
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(BACKOFF_MAX);
    }
}

/// Lists the target again; its objects replace what the session holds. The new resourceVersion.
async fn relist(
    api: &Api,
    index: usize,
    target: &Target,
    tx: &mpsc::UnboundedSender<Message>,
    why: &str,
) -> Option<Option<String>> {
    match api.list(target).await {
        Ok(listed) if listed.denied.is_none() => {
            let note = format!("{}: listed again ({why})", target.label());
            if tx.send(Message::Note(note)).is_err()
                || tx.send(Message::Relisted { target: index, objects: listed.objects }).is_err()
            {
                return None;
            }
            Some(listed.resource_version)
        }
        Ok(listed) => {
            let d = listed.denied.expect("checked above");
            let _ = tx.send(Message::Note(format!("{}: cannot list it again: {}", target.label(), d.summary())));
            None
        }
        Err(e @ LiveError::Unauthorized(_)) => {
            let _ = tx.send(Message::Fatal(e));
            None
        }
        Err(e) => {
            let _ = tx.send(Message::Note(format!("{}: cannot list it again: {e}", target.label())));
            None
        }
    }
}

async fn poll(api: &Api, index: usize, target: &Target, tx: &mpsc::UnboundedSender<Message>) {
    loop {
        tokio::time::sleep(POLL).await;
        if tx.is_closed() {
            return;
        }
        if let Ok(listed) = api.list(target).await {
            if listed.denied.is_none() && tx.send(Message::Relisted { target: index, objects: listed.objects }).is_err()
            {
                return;
            }
        }
    }
}

enum Parsed {
    Object { event: Event, head: HeadMeta, object: ObjectText },
    Bookmark(Option<String>),
    Error(Status),
}

fn event(line: &str, target: &Target, origin: &Arc<str>) -> Result<Parsed, String> {
    let line: Line =
        serde_json::from_str(line).map_err(|e| format!("{origin}: a watch event is not valid JSON: {e}"))?;
    let event = match line.kind {
        "ADDED" => Event::Added,
        "MODIFIED" => Event::Modified,
        "DELETED" => Event::Deleted,
        "BOOKMARK" => return Ok(Parsed::Bookmark(head(line.object.get()).resource_version)),
        "ERROR" => {
            let status: Status = serde_json::from_str(line.object.get())
                .unwrap_or(Status { code: 0, message: line.object.get().to_string() });
            return Ok(Parsed::Error(status));
        }
        other => return Err(format!("{origin}: unknown watch event type {other:?}")),
    };
    let object = stamp(line.object.get(), &target.resource, origin.clone()).map_err(|e| e.to_string())?;
    Ok(Parsed::Object { event, head: head(&object.text), object })
}
