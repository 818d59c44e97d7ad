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
use crate::snapshot::{Denied, ObjectText, LIST_EXPIRED, LIST_EXPIRED_ADVICE};

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
    pub denied: Option<Denied>,
}

pub struct Api {
    pub client: kube::Client,
    pub gate: Semaphore,
    pub page_size: Option<u32>,
    pub timeout: Option<Duration>,
    pub server: String,
    pub context: Option<String>,
    pub progress: Arc<dyn Progress>,
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
        if let Some(name) = &target.name {
            let req = http::Request::get(format!("{path}/{name}")).body(Vec::new()).expect("a path is a valid URI");
            match self.text(req).await {
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
        loop {
            let req = http::Request::get(list_uri(&path, target, self.page_size, token.as_deref()))
                .body(Vec::new())
                .map_err(|e| LiveError::Usage(format!("{label}: cannot build the request: {e}")))?;
            match self.text(req).await {
                Ok(text) => {
                    let page: Page = serde_json::from_str(&text).map_err(|e| decode_error(&origin, e))?;
                    pages += 1;
                    for item in page.items.into_iter().flatten() {
                        out.objects.push(stamp(item.get(), &target.resource, origin.clone())?);
                    }
                    self.progress.page(&label, out.objects.len(), pages, page.metadata.remaining_item_count);
                    out.resource_version = page.metadata.resource_version;
                    token = page.metadata.continue_token.filter(|t| !t.is_empty());
                    if token.is_none() {
                        break;
                    }
                }
                // The continue token expired while we paged: start again from the first page.
                Err(Failure::Status(410, ..)) if token.is_some() && restarts < RESTARTS => {
                    restarts += 1;
                    token = None;
                    out.objects.clear();
                    pages = 0;
                }
                Err(Failure::Status(410, ..)) if token.is_some() => {
                    out.objects.clear();
                    out.denied = Some(expired(target, self.page_size));
                    break;
                }
                Err(Failure::Status(code, reason, message)) => {
                    out.objects.clear();
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
