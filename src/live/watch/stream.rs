//! One WATCH stream per list, for as long as the session lives: resumed from the last version
//! seen, re-listed on 410 Gone, listed every 30 s where watch is refused.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::io::AsyncBufReadExt;
use futures::StreamExt;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::mpsc;

use super::{head, Event, Message, Shared};
use crate::live::api::{chain, stamp, Api, HeadMeta, Target};
use crate::live::LiveError;
use crate::snapshot::ObjectText;

/// The server ends each watch after this long (kube-rs uses the same); the watch then resumes.
const WATCH_SECONDS: u32 = 290;
/// How often a resource that may be listed but not watched is listed again.
const POLL: Duration = Duration::from_secs(30);
const BACKOFF_FIRST: Duration = Duration::from_secs(1);
const BACKOFF_MAX: Duration = Duration::from_secs(30);
/// A stream that lasted this long was healthy: the next failure starts the backoff again. A
/// proxy's idle timeout may close a quiet watch after 30 or 60 s; that is a resume, not a failure.
const HEALTHY: Duration = Duration::from_secs(5);

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
    /// 401: the credentials expired; settle them again and retry.
    Refused,
    Broken(String),
}

/// One target's watch, for as long as the session lives (the channel closes when it ends).
pub(super) async fn follow(
    shared: Arc<Shared>,
    index: usize,
    target: Target,
    mut rv: Option<String>,
    tx: mpsc::UnboundedSender<Message>,
) {
    let label = target.label();
    let origin: Arc<str> = format!("WATCH {}", target.resource.path(target.namespace.as_deref())).into();
    let mut backoff = BACKOFF_FIRST;
    // Set after new credentials: a 401 with them too is final.
    let mut renewed = false;
    loop {
        let (generation, api) = shared.api();
        let request = http::Request::get(watch_uri(&target, rv.as_deref()))
            .header(http::header::ACCEPT_ENCODING, "identity")
            .body(Vec::new())
            .expect("a path is a valid URI");
        let started = Instant::now();
        let ended = match api.client.request_stream(request).await {
            Ok(body) => {
                renewed = false;
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
            Err(kube::Error::Api(s)) if s.code == 401 => Ended::Refused,
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
                poll(&shared, index, &target, &tx).await;
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
                    Relist::Done(version) => {
                        rv = version;
                        continue;
                    }
                    Relist::Refused => {
                        if renew(&shared, generation, &mut renewed, &label, &tx).await {
                            continue;
                        }
                        return;
                    }
                    Relist::Failed if tx.is_closed() => return,
                    Relist::Failed => {}
                }
            }
            Ended::Refused => {
                if renew(&shared, generation, &mut renewed, &label, &tx).await {
                    continue;
                }
                return;
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

enum Relist {
    /// The new resourceVersion.
    Done(Option<String>),
    /// 401: the credentials expired.
    Refused,
    Failed,
}

/// Lists the target again; its objects replace what the session holds.
async fn relist(api: &Api, index: usize, target: &Target, tx: &mpsc::UnboundedSender<Message>, why: &str) -> Relist {
    match api.list(target).await {
        Ok(listed) if listed.denied.is_none() => {
            let note = format!("{}: listed again ({why})", target.label());
            if tx.send(Message::Note(note)).is_err()
                || tx.send(Message::Relisted { target: index, objects: listed.objects }).is_err()
            {
                return Relist::Failed;
            }
            Relist::Done(listed.resource_version)
        }
        Ok(listed) => {
            let d = listed.denied.expect("checked above");
            let _ = tx.send(Message::Note(format!("{}: cannot list it again: {}", target.label(), d.summary())));
            Relist::Failed
        }
        Err(LiveError::Unauthorized(_)) => Relist::Refused,
        Err(e) => {
            let _ = tx.send(Message::Note(format!("{}: cannot list it again: {e}", target.label())));
            Relist::Failed
        }
    }
}

/// After a 401: the credentials settled again (kubeconfig re-read, an exec plugin run again, a
/// token file re-read), once for all the watches. False when that failed or the new ones are
/// refused too: the session then ends with exit 3.
async fn renew(
    shared: &Shared,
    generation: u64,
    renewed: &mut bool,
    label: &str,
    tx: &mpsc::UnboundedSender<Message>,
) -> bool {
    let server = shared.api().1.server.clone();
    if *renewed {
        let _ = tx.send(Message::Fatal(LiveError::Unauthorized(format!(
            "the API server {server} refused the credentials while watching {label} (401 Unauthorized), and \
             refused them again after they were read anew from the kubeconfig; log in again and restart the watch"
        ))));
        return false;
    }
    match shared.renew(generation).await {
        Ok(true) => {
            let note = format!(
                "the API server {server} refused the credentials (401 Unauthorized, expired?): read them anew from the \
                 kubeconfig (an exec plugin runs again); resuming"
            );
            let _ = tx.send(Message::Note(note));
        }
        Ok(false) => {}
        Err(e) => {
            let _ = tx.send(Message::Fatal(e));
            return false;
        }
    }
    *renewed = true;
    true
}

async fn poll(shared: &Shared, index: usize, target: &Target, tx: &mpsc::UnboundedSender<Message>) {
    let mut renewed = false;
    loop {
        tokio::time::sleep(POLL).await;
        if tx.is_closed() {
            return;
        }
        let (generation, api) = shared.api();
        match relist(&api, index, target, tx, "it may not be watched").await {
            Relist::Refused => {
                if !renew(shared, generation, &mut renewed, &target.label(), tx).await {
                    return;
                }
            }
            Relist::Done(_) => renewed = false,
            Relist::Failed => {}
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
