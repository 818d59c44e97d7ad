//! The requests themselves: paginated LISTs, GETs by name and discovery, all GET, bounded in
//! flight, with each failure sorted into "fatal" (the server cannot be used at all) or "this
//! resource could not be read" (recorded, the rest goes on).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::Semaphore;

use super::kinds::{Resource, CUSTOM};
use super::progress::Progress;
use super::LiveError;
use crate::snapshot::{Denied, Early, ObjectText, LIST_EXPIRED, LIST_EXPIRED_ADVICE};

/// A LIST (or a GET by name) of one resource.
#[derive(Debug, Clone)]
pub struct Target {
    pub resource: Resource,
    pub namespace: Option<String>,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// GET this one object instead of listing.
    pub name: Option<String>,
}

impl Target {
    pub fn all(resource: Resource) -> Target {
        Target { resource, namespace: None, label_selector: None, field_selector: None, name: None }
    }

    pub fn in_namespace(resource: Resource, namespace: &str) -> Target {
        Target { namespace: Some(namespace.to_string()), ..Target::all(resource) }
    }

    pub fn labelled(resource: Resource, namespace: &str, selector: &str) -> Target {
        Target { label_selector: Some(selector.to_string()), ..Target::in_namespace(resource, namespace) }
    }

    pub fn named(resource: Resource, namespace: &str, name: &str) -> Target {
        Target { name: Some(name.to_string()), ..Target::in_namespace(resource, namespace) }
    }

    /// What the progress display and errors call it: `pods -n metallb-system -l component=speaker`.
    pub fn label(&self) -> String {
        let mut s = self.resource.name();
        if let Some(name) = &self.name {
            s.push('/');
            s.push_str(name);
        }
        match &self.namespace {
            Some(ns) => s.push_str(&format!(" -n {ns}")),
            None if self.name.is_none() => s.push_str(" -A"),
            None => {}
        }
        if let Some(l) = &self.label_selector {
            s.push_str(&format!(" -l {l}"));
        }
        if let Some(f) = &self.field_selector {
            s.push_str(&format!(" --field-selector {f}"));
        }
        s
    }
}

/// What one target gave: its objects (each with apiVersion and kind), or why it could not be read.
#[derive(Default)]
pub struct Listed {
    /// `None` for a resource discovery could not look at.
    pub target: Option<Target>,
    /// The list's resourceVersion (a GET's: the object's), where a watch resumes.
    pub resource_version: Option<String>,
    pub objects: Vec<ObjectText>,
    /// Empty, or what was decoded of each of `objects` as its page arrived.
    pub early: Vec<Early>,
    pub denied: Option<Denied>,
}

impl Listed {
    /// Keeps the objects `keep` accepts, with what was decoded of them.
    pub fn retain(&mut self, keep: impl Fn(&ObjectText) -> bool) {
        if self.early.is_empty() {
            self.objects.retain(keep);
            return;
        }
        let both = std::mem::take(&mut self.objects).into_iter().zip(std::mem::take(&mut self.early));
        (self.objects, self.early) = both.filter(|(o, _)| keep(o)).unzip();
    }

    /// Its objects, each with what was decoded of it early, if anything.
    pub fn into_objects(self) -> impl Iterator<Item = (ObjectText, Option<Early>)> {
        let early = self.early.into_iter().map(Some).chain(std::iter::repeat_with(|| None));
        self.objects.into_iter().zip(early)
    }
}

pub struct Api {
    pub client: kube::Client,
    pub gate: Semaphore,
    pub page_size: Option<u32>,
    pub timeout: Option<Duration>,
    pub server: String,
    pub context: Option<String>,
    pub progress: Arc<dyn Progress>,
    /// Decode each page's objects as it arrives (`Listed::early`): for a collection, whose
    /// snapshot is built from them at the end; a watch's lists are decoded as they change.
    pub early: bool,
}

/// A response that is not the object asked for.
enum Failure {
    Status(u16, String, String),
    Fatal(LiveError),
}

/// How many times a list restarts after its continue token expired (410 Gone) before giving up.
const RESTARTS: usize = 3;

impl Api {
    async fn text(&self, req: http::Request<Vec<u8>>) -> Result<String, Failure> {
        let _permit = self.gate.acquire().await.expect("the semaphore is never closed");
        self.send(req).await
    }

    /// A request sent now: [`Api::text`], but for a caller that holds a permit already.
    async fn send(&self, req: http::Request<Vec<u8>>) -> Result<String, Failure> {
        let call = self.client.request_text(req);
        let result = match self.timeout {
            Some(t) => match tokio::time::timeout(t, call).await {
                Ok(r) => r,
                Err(_) => {
                    return Err(Failure::Fatal(
                        self.unreachable(&format!("no answer within {t:?} (--request-timeout)")),
                    ))
                }
            },
            None => call.await,
        };
        result.map_err(|e| match e {
            kube::Error::Api(status) if status.code == 401 => Failure::Fatal(LiveError::Unauthorized(format!(
                "the API server {} rejected the credentials of {} (401 Unauthorized{}). Log in again or refresh the \
                 token (your exec plugin, `gcloud`/`aws`/`az` login or client certificate), then check with \
                 `kubectl{} get nodes`.",
                self.server,
                self.context
                    .as_deref()
                    .map(|c| format!("context {c}"))
                    .unwrap_or_else(|| "this Pod's service account".into()),
                if status.message.is_empty() { String::new() } else { format!(": {}", status.message) },
                self.context.as_deref().map(|c| format!(" --context {c}")).unwrap_or_default(),
            ))),
            kube::Error::Api(status) => Failure::Status(status.code, status.reason.clone(), status.message.clone()),
            other => {
                let why = chain(&other);
                Failure::Fatal(match why.find("invalid peer certificate") {
                    Some(at) => self.untrusted(&why[at..]),
                    None => self.unreachable(&crate::plain::connect(&why)),
                })
            }
        })
    }

    /// TLS failed on the server's certificate: the server is up, the kubeconfig's trust is wrong.
    fn untrusted(&self, why: &str) -> LiveError {
        let context = self.context.as_deref().map(|c| format!(" (context {c})")).unwrap_or_default();
        let host = self.server.trim_start_matches("https://").trim_start_matches("http://");
        let host = if host.contains(':') { host.to_string() } else { format!("{host}:443") };
        // UnknownIssuer: another CA; BadSignature: a CA of the same name but another key.
        let what = if why.contains("UnknownIssuer") || why.contains("BadSignature") {
            "its TLS certificate is not signed by the certificate authority the kubeconfig trusts for this \
             cluster (certificate-authority or certificate-authority-data)"
                .to_string()
        } else {
            "its TLS certificate is not valid for this connection".to_string()
        };
        LiveError::Unreachable(format!(
            "cannot trust the Kubernetes API server {}{context}: {what}: {why}. Compare the issuer the server \
             presents, `openssl s_client -connect {host} -showcerts </dev/null | openssl x509 -noout -issuer`, \
             with the kubeconfig's CA, `kubectl config view --raw --minify -o \
             jsonpath='{{.clusters[0].cluster.certificate-authority-data}}' | base64 -d | openssl x509 -noout \
             -subject`; if the cluster's CA was rotated, fetch the new kubeconfig.",
            self.server
        ))
    }

    fn unreachable(&self, why: &str) -> LiveError {
        let check = self.context.as_deref().map(|c| format!(" --context {c}")).unwrap_or_default();
        LiveError::Unreachable(format!(
            "cannot read the Kubernetes API server {}{}: {why}. Check that the cluster is up and that `kubectl{check} \
             get nodes` works from here, or read a snapshot with --from FILE.",
            self.server,
            self.context.as_deref().map(|c| format!(" (context {c})")).unwrap_or_default(),
        ))
    }

    /// `/version`: the first request, so a dead server or bad TLS fails fast with one message.
    pub async fn server_version(&self) -> Result<String, LiveError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Info {
            git_version: String,
        }
        let req = http::Request::get("/version").body(Vec::new()).expect("a static request is valid");
        match self.text(req).await {
            Ok(text) => Ok(serde_json::from_str::<Info>(&text).map(|i| i.git_version).unwrap_or_default()),
            Err(Failure::Fatal(e)) => Err(e),
            // Every API server serves /version, to anyone who may use it.
            Err(Failure::Status(404, ..)) => Err(self.unreachable(
                "it answers 404 Not Found for /version, so it is not a Kubernetes API server (check the server URL and any proxy in between)",
            )),
            // Some servers restrict /version; the lists will tell whether access works.
            Err(Failure::Status(..)) => Ok(String::new()),
        }
    }

    /// Every page of a LIST (or the one object of a GET). Only an unusable server is an error.
    pub async fn list(&self, target: &Target) -> Result<Listed, LiveError> {
        let label = target.label();
        self.progress.start(&label);
        let path = target.resource.path(target.namespace.as_deref());
        let origin: Arc<str> = format!("GET {path}").into();
        let mut out = Listed { target: Some(target.clone()), ..Listed::default() };
        // One permit for the whole list, which has one request in flight at a time: a long
        // list's next page does not queue again behind the short lists started meanwhile.
        let _permit = self.gate.acquire().await.expect("the semaphore is never closed");
        if let Some(name) = &target.name {
            let req = http::Request::get(format!("{path}/{name}")).body(Vec::new()).expect("a path is a valid URI");
            match self.send(req).await {
                Ok(text) => {
                    let origin: Arc<str> = format!("GET {path}/{name}").into();
                    let head: ObjectHead = serde_json::from_str(&text).map_err(|e| decode_error(&origin, e))?;
                    out.resource_version = head.metadata.resource_version;
                    let raw: &RawValue = serde_json::from_str(&text).map_err(|e| decode_error(&origin, e))?;
                    out.objects.push(stamp(raw.get(), &target.resource, origin)?);
                }
                Err(Failure::Status(404, ..)) => {}
                Err(Failure::Status(code, reason, message)) => {
                    out.denied = Some(denied(target, "get", code, reason, message))
                }
                Err(Failure::Fatal(e)) => return Err(e),
            }
            self.progress.finish(&label, out.objects.len(), 1, out.denied.as_ref().map(|d| d.reason.as_str()));
            return Ok(out);
        }
        let (mut pages, mut restarts) = (0usize, 0usize);
        let mut token: Option<String> = None;
        let request = |token: Option<&str>| {
            http::Request::get(list_uri(&path, target, self.page_size, token))
                .body(Vec::new())
                .map_err(|e| LiveError::Usage(format!("{label}: cannot build the request: {e}")))
        };
        let mut answer = self.send(request(None)?).await;
        loop {
            match answer {
                Ok(text) => {
                    // The next page is asked for while this one is read, when its continue token
                    // comes before the items (where API servers write it): the pages of a long
                    // list then follow each other at the network's pace, not the reader's.
                    let ahead = page_head(&text).and_then(|m| m.continue_token).filter(|t| !t.is_empty());
                    let reading = self.read_page(text, &target.resource, &origin);
                    let (page, next) = match &ahead {
                        Some(t) => {
                            let (page, next) = futures::join!(reading, self.send(request(Some(t))?));
                            (page?, Some(next))
                        }
                        None => (reading.await?, None),
                    };
                    pages += 1;
                    out.objects.extend(page.objects);
                    out.early.extend(page.early);
                    self.progress.page(&label, out.objects.len(), pages, page.meta.remaining_item_count);
                    out.resource_version = page.meta.resource_version;
                    token = page.meta.continue_token.filter(|t| !t.is_empty());
                    let Some(t) = &token else { break };
                    answer = match next {
                        Some(next) if ahead.as_ref() == Some(t) => next,
                        _ => self.send(request(Some(t))?).await,
                    };
                }
                // The continue token expired while we paged: start again from the first page.
                Err(Failure::Status(410, ..)) if token.is_some() && restarts < RESTARTS => {
                    restarts += 1;
                    token = None;
                    out.objects.clear();
                    out.early.clear();
                    pages = 0;
                    answer = self.send(request(None)?).await;
                }
                Err(Failure::Status(410, ..)) if token.is_some() => {
                    out.objects.clear();
                    out.early.clear();
                    out.denied = Some(expired(target, self.page_size));
                    break;
                }
                Err(Failure::Status(code, reason, message)) => {
                    out.objects.clear();
                    out.early.clear();
                    // 404 on a custom resource: its CRD went away since discovery. A built-in
                    // kind is always served, so a 404 there is a failure, not an empty list.
                    if code != 404 || target.resource.is_builtin() {
                        out.denied = Some(denied(target, "list", code, reason, message));
                    }
                    break;
                }
                Err(Failure::Fatal(e)) => return Err(e),
            }
        }
        self.progress.finish(&label, out.objects.len(), pages, out.denied.as_ref().map(|d| d.reason.as_str()));
        Ok(out)
    }

    /// A page read on the CPU pool, away from the runtime's threads that carry the requests:
    /// its items found and stamped and, when `early`, decoded.
    async fn read_page(&self, text: String, resource: &Resource, origin: &Arc<str>) -> Result<ReadPage, LiveError> {
        let (resource, from, early) = (resource.clone(), origin.clone(), self.early);
        let (done, read) = tokio::sync::oneshot::channel();
        rayon::spawn(move || {
            let _ = done.send(read_page(&text, &resource, &from, early));
        });
        read.await.map_err(|_| LiveError::Decode(format!("{origin}: the page's reader stopped")))?
    }

    /// Which custom resources the server serves, at which version (the first one it lists per
    /// group, i.e. the preferred one where a resource has several). Absent groups: not installed.
    pub async fn discover(&self, groups: &[&'static str]) -> Result<Discovered, LiveError> {
        #[derive(Deserialize)]
        struct GroupList {
            #[serde(default)]
            groups: Vec<Group>,
        }
        #[derive(Deserialize)]
        struct Group {
            name: String,
            #[serde(default)]
            versions: Vec<GroupVersion>,
        }
        #[derive(Deserialize)]
        struct GroupVersion {
            version: String,
        }
        #[derive(Deserialize)]
        struct ResourceList {
            #[serde(default)]
            resources: Vec<ApiResource>,
        }
        #[derive(Deserialize)]
        struct ApiResource {
            name: String,
        }
        self.progress.start("discovery");
        let mut found = Discovered::default();
        let req = http::Request::get("/apis").body(Vec::new()).expect("a static request is valid");
        let list: GroupList = match self.text(req).await {
            Ok(text) => serde_json::from_str(&text).map_err(|e| decode_error(&"GET /apis".into(), e))?,
            Err(Failure::Fatal(e)) => return Err(e),
            Err(Failure::Status(code, reason, message)) => {
                // Without discovery every custom resource is unknown, not absent.
                for c in CUSTOM {
                    found.denied.push(Denied {
                        resource: c.name(),
                        verb: "list".into(),
                        namespace: String::new(),
                        name: String::new(),
                        reason: reason_text(code, &reason),
                        message: format!("API discovery (GET /apis) failed: {message}"),
                    });
                }
                return Ok(found);
            }
        };
        let wanted: Vec<(&str, String)> = list
            .groups
            .iter()
            .filter(|g| groups.contains(&g.name.as_str()))
            .flat_map(|g| g.versions.iter().map(move |v| (g.name.as_str(), v.version.clone())))
            .collect();
        let lists = futures::future::join_all(wanted.iter().map(|(group, version)| async move {
            let req =
                http::Request::get(format!("/apis/{group}/{version}")).body(Vec::new()).expect("a path is a valid URI");
            (group, version, self.text(req).await)
        }))
        .await;
        for (group, version, result) in lists {
            let resources: ResourceList = match result {
                Ok(text) => serde_json::from_str(&text)
                    .map_err(|e| decode_error(&format!("GET /apis/{group}/{version}").into(), e))?,
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Status(..)) => continue,
            };
            for r in resources.resources.iter().filter(|r| !r.name.contains('/')) {
                if let Some(c) = CUSTOM.iter().find(|c| c.group == *group && c.plural == r.name) {
                    found.served.entry(c.name()).or_insert_with(|| c.at(version));
                }
            }
        }
        self.progress.finish("discovery", found.served.len(), 1 + wanted.len(), None);
        Ok(found)
    }
}

#[derive(Debug, Default)]
pub struct Discovered {
    /// `ipaddresspools.metallb.io` → the resource at the version to list it at.
    pub served: BTreeMap<String, Resource>,
    pub denied: Vec<Denied>,
}

/// One page of a list, read.
struct ReadPage {
    meta: PageMeta,
    objects: Vec<ObjectText>,
    /// Empty, or one for each of `objects`.
    early: Vec<Early>,
}

fn read_page(text: &str, resource: &Resource, origin: &Arc<str>, early: bool) -> Result<ReadPage, LiveError> {
    let page: Page = serde_json::from_str(text).map_err(|e| decode_error(origin, e))?;
    let objects = page
        .items
        .into_iter()
        .flatten()
        .map(|item| stamp(item.get(), resource, origin.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let early = if early { crate::snapshot::decode_early(&objects) } else { Vec::new() };
    Ok(ReadPage { meta: page.metadata, objects, early })
}

/// A page's metadata, when it comes before the items: read without going past it. `None`
/// otherwise (the whole page tells, once read).
fn page_head(text: &str) -> Option<PageMeta> {
    struct Head<'a>(&'a mut Option<PageMeta>);
    impl<'de> serde::de::Visitor<'de> for Head<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a List")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                match key.as_ref() {
                    "metadata" => {
                        *self.0 = Some(map.next_value()?);
                        return Ok(());
                    }
                    "items" => return Ok(()),
                    _ => {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
            }
            Ok(())
        }
    }
    let mut found = None;
    // Stopping early leaves the object unfinished: the deserializer's complaint about that is
    // expected, and what was found stands.
    let _ = serde::Deserializer::deserialize_map(&mut serde_json::Deserializer::from_str(text), Head(&mut found));
    found
}

/// Items stay unparsed text here; the snapshot loader decodes them, in parallel.
#[derive(Deserialize)]
struct Page<'a> {
    #[serde(default)]
    metadata: PageMeta,
    #[serde(default, borrow)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PageMeta {
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
    #[serde(default)]
    remaining_item_count: Option<i64>,
    #[serde(default)]
    resource_version: Option<String>,
}

/// An object's resourceVersion, the one field of it a watch needs.
#[derive(Deserialize, Default)]
pub(super) struct ObjectHead {
    #[serde(default)]
    pub metadata: HeadMeta,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(super) struct HeadMeta {
    #[serde(default)]
    pub namespace: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub resource_version: Option<String>,
}

/// List items of built-in kinds carry neither apiVersion nor kind (custom resources' do); the
/// snapshot needs both on every object.
pub(super) fn stamp(item: &str, resource: &Resource, origin: Arc<str>) -> Result<ObjectText, LiveError> {
    let (api_version, kind) = crate::snapshot::file::sniff(item).map_err(|e| decode_error(&origin, e))?;
    let mut head = String::new();
    if api_version.is_none() {
        head.push_str(&format!("\"apiVersion\":{},", serde_json::Value::String(resource.api_version())));
    }
    if kind.is_none() {
        head.push_str(&format!("\"kind\":{},", serde_json::Value::String(resource.kind.into())));
    }
    let body = item
        .trim_start()
        .strip_prefix('{')
        .ok_or_else(|| LiveError::Decode(format!("{origin}: a list item is not a JSON object")))?;
    let text = if head.is_empty() {
        item.to_string()
    } else if body.trim_start().starts_with('}') {
        format!("{{{}}}", head.trim_end_matches(','))
    } else {
        format!("{{{head}{body}")
    };
    Ok(ObjectText {
        origin,
        api_version: api_version.unwrap_or_else(|| resource.api_version()),
        kind: kind.unwrap_or_else(|| resource.kind.to_string()),
        text,
    })
}

/// `PATH?labelSelector=…&limit=…&continue=…`: only the parameters that are set, encoded.
pub(super) fn list_uri(path: &str, target: &Target, limit: Option<u32>, token: Option<&str>) -> String {
    let mut query = form_urlencoded::Serializer::new(String::new());
    if let Some(l) = &target.label_selector {
        query.append_pair("labelSelector", l);
    }
    if let Some(f) = &target.field_selector {
        query.append_pair("fieldSelector", f);
    }
    if let Some(n) = limit {
        query.append_pair("limit", &n.to_string());
    }
    if let Some(t) = token {
        query.append_pair("continue", t);
    }
    let query = query.finish();
    if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{query}")
    }
}

/// A paged list whose continue token kept expiring (410 Gone): the server compacted its history
/// faster than the pages came.
fn expired(target: &Target, page_size: Option<u32>) -> Denied {
    let pages = page_size.map(|n| format!(" of {n} objects")).unwrap_or_default();
    let message = format!(
        "the list expired {} times while paging{pages} (410 Gone: the server compacted the state it was \
         paging through); {LIST_EXPIRED_ADVICE}",
        RESTARTS + 1
    );
    Denied { reason: LIST_EXPIRED.into(), ..denied(target, "list", 410, String::new(), message) }
}

fn decode_error(origin: &Arc<str>, e: serde_json::Error) -> LiveError {
    LiveError::Decode(format!("{origin}: the API server's answer is not valid JSON: {e}"))
}

/// By status code: a non-Kubernetes answer has no reason kube can parse.
fn reason_text(code: u16, _reason: &str) -> String {
    match code {
        403 => "forbidden".into(),
        404 => "not found (404)".into(),
        410 => "gone (410)".into(),
        429 => "too many requests (429)".into(),
        500..=599 => format!("server error ({code})"),
        _ => format!("error {code}"),
    }
}

fn denied(target: &Target, verb: &str, code: u16, reason: String, message: String) -> Denied {
    Denied {
        resource: target.resource.name(),
        verb: verb.into(),
        namespace: target.namespace.clone().unwrap_or_default(),
        name: target.name.clone().unwrap_or_default(),
        reason: reason_text(code, &reason),
        message,
    }
}

/// An error and its causes on one line: kube's top-level messages alone ("ServiceError") say little.
pub(super) fn chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = s.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(text: &str) -> Option<Option<String>> {
        page_head(text).map(|m| m.continue_token)
    }

    #[test]
    fn the_continue_token_is_read_ahead_of_the_items() {
        let page = r#"{"kind":"ServiceList","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc","remainingItemCount":3},"items":[{"metadata":{"name":"a"}}]}"#;
        let head = page_head(page).expect("metadata before the items");
        assert_eq!(head.continue_token.as_deref(), Some("abc"));
        assert_eq!((head.remaining_item_count, head.resource_version.as_deref()), (Some(3), Some("7")));
        // The last page, and a page cut short after its metadata: the full read decides.
        assert_eq!(token(r#"{"kind":"ServiceList","metadata":{"resourceVersion":"7"},"items":[]}"#), Some(None));
        assert_eq!(token(r#"{"metadata":{"continue":"x"},"items":[{"#), Some(Some("x".into())));
    }

    #[test]
    fn without_metadata_before_the_items_nothing_is_read_ahead() {
        assert_eq!(token(r#"{"apiVersion":"v1","items":[],"kind":"ServiceList","metadata":{"continue":"abc"}}"#), None);
        assert_eq!(token(r#"{"kind":"ServiceList","metadata":null,"items":[]}"#), None);
        assert_eq!(token(r#"{"kind":"ServiceList","metadata":{"continue":7},"items":[]}"#), None);
        assert_eq!(token("[]"), None);
        assert_eq!(token("not JSON"), None);
    }
}
