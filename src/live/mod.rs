//! Reading a live cluster, read-only: one paginated LIST per kind, kinds in parallel, and the
//! objects decoded by the same code as snapshot files, so nothing downstream can tell the two apart.

mod api;
pub(crate) mod connect;
mod credentials;
pub(crate) mod kinds;
pub(crate) mod logs;
pub mod progress;
pub mod watch;

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use serde_json::Value;

use self::api::{Api, Listed, Target};
use self::kinds::*;
use self::progress::Progress;
use crate::snapshot::{from_texts, from_texts_early, LoadError, ObjectText, Snapshot, SnapshotInfo};

/// What the environment says about kubeconfig, read once by the binary.
#[derive(Debug, Clone, Default)]
pub struct KubeEnv {
    /// `$KUBECONFIG`, a path list.
    pub kubeconfig: Option<OsString>,
    pub home: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct LiveOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    /// `--request-timeout`; `None` waits as long as the server takes (kubectl's `0`).
    pub request_timeout: Option<Duration>,
    pub env: KubeEnv,
    /// Objects per page (`limit`); `None` lists in one response.
    pub page_size: Option<u32>,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Keep every object as JSON too, for `snapshot`.
    pub keep_objects: bool,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            kubeconfig: None,
            context: None,
            cluster: None,
            user: None,
            request_timeout: None,
            env: KubeEnv::default(),
            page_size: Some(500),
            concurrency: 8,
            keep_objects: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// A flag or kubeconfig that cannot work (exit 2).
    #[error("{0}")]
    Usage(String),
    /// No server to talk to, or it cannot be trusted (exit 3).
    #[error("{0}")]
    Unreachable(String),
    /// The server refused who we are (exit 3).
    #[error("{0}")]
    Unauthorized(String),
    /// The server answered something that is not Kubernetes JSON (exit 3).
    #[error("{0}")]
    Decode(String),
    /// An object the engines cannot read (exit 2, as for a file).
    #[error(transparent)]
    Load(#[from] LoadError),
}

pub struct Collected {
    pub snapshot: Snapshot,
    /// The SnapshotInfo object first, then every object as the server sent it; with `keep_objects`.
    pub objects: Vec<Value>,
    /// What `-n` defaults to: the context's namespace, or the Pod's in a cluster.
    pub default_namespace: String,
}

/// The runtime every live command runs its requests on.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, LiveError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| LiveError::Unreachable(format!("cannot start the network runtime: {e}")))
}

pub(crate) fn client(config: kube::Config, server: &str) -> Result<kube::Client, LiveError> {
    kube::Client::try_from(config)
        .map_err(|e| LiveError::Unreachable(format!("cannot set up a client for {server}: {e}")))
}

/// Reads everything the engines use. `captured_at` is the caller's clock reading (RFC 3339).
pub fn collect(opts: &LiveOptions, progress: Arc<dyn Progress>, captured_at: String) -> Result<Collected, LiveError> {
    runtime()?.block_on(async {
        let (mut api, default_namespace) = open(opts, progress).await?;
        api.early = true;
        let read = read_all(&api, captured_at, &default_namespace).await?;
        let objects = std::iter::once((read.info, None)).chain(read.lists.into_iter().flat_map(Listed::into_objects));
        let mut objects = once_each(objects, |(o, _)| o)?;
        let mut snapshot = from_texts_early(objects.iter_mut().map(|(o, early)| (&*o, early.take())))?;
        snapshot.live = true;
        let kept = if opts.keep_objects {
            objects.iter().map(|(o, _)| as_saved(o)).collect::<Result<_, _>>()?
        } else {
            Vec::new()
        };
        Ok(Collected { snapshot, objects: kept, default_namespace })
    })
}

/// The client for the kubeconfig's cluster, and the namespace `-n` defaults to.
async fn open(opts: &LiveOptions, progress: Arc<dyn Progress>) -> Result<(Api, String), LiveError> {
    let conn = connect::connect(opts).await?;
    let server = conn.config.cluster_url.to_string();
    let default_namespace = conn.config.default_namespace.clone();
    let client = client(conn.config, &server)?;
    let api = Api {
        client,
        gate: tokio::sync::Semaphore::new(opts.concurrency.max(1)),
        page_size: opts.page_size,
        timeout: opts.request_timeout,
        server: server.trim_end_matches('/').to_string(),
        context: conn.context.clone(),
        progress,
        early: false,
    };
    Ok((api, default_namespace))
}

/// Every list, and the SnapshotInfo object that records how they went.
struct Read {
    info: ObjectText,
    lists: Vec<Listed>,
}

async fn read_all(api: &Api, captured_at: String, namespace: &str) -> Result<Read, LiveError> {
    let server_version = api.server_version().await?;
    let (lists, not_installed) = gather(api).await?;
    let mut denied: Vec<crate::snapshot::Denied> = Vec::new();
    for d in lists.iter().filter_map(|l| l.denied.as_ref()) {
        // Eight Event lists refused are one missing permission.
        if !denied.iter().any(|k| k.summary() == d.summary()) {
            denied.push(d.clone());
        }
    }
    let mut info = SnapshotInfo {
        captured_at: Some(captured_at),
        tool_version: Some(env!("CARGO_PKG_VERSION").to_string()),
        server_version: Some(server_version).filter(|v| !v.is_empty()),
        context: api.context.clone(),
        namespace: Some(namespace.to_string()),
        not_installed,
        ..SnapshotInfo::default()
    };
    info.unreadable = denied.iter().map(|d| d.summary()).collect();
    info.denied = denied;
    info.leases_listed_in = lists
        .iter()
        .filter(|l| l.denied.is_none())
        .filter_map(|l| l.target.as_ref())
        .filter(|t| t.resource.name() == LEASES.name() && t.name.is_none() && t.label_selector.is_none())
        .filter(|t| t.field_selector.is_none())
        .filter_map(|t| t.namespace.clone())
        .collect();
    Ok(Read { info: info_object(&info), lists })
}

fn info_object(info: &SnapshotInfo) -> ObjectText {
    let object = serde_json::json!({
        "apiVersion": "lbdoctor/v1alpha1",
        "kind": "SnapshotInfo",
        "metadata": {"name": "snapshot"},
        "spec": info,
    });
    ObjectText {
        origin: "lbdoctor".into(),
        api_version: "lbdoctor/v1alpha1".into(),
        kind: "SnapshotInfo".into(),
        text: object.to_string(),
    }
}

/// The snapshot of what was read: the SnapshotInfo first, then the objects.
fn assemble<'a>(objects: impl Iterator<Item = &'a ObjectText>) -> Result<Snapshot, LiveError> {
    Ok(from_texts(once_each(objects, |o| o)?)?)
}

/// The objects with a Pod that two selectors returned (two label spellings) once.
fn once_each<T>(objects: impl Iterator<Item = T>, text: impl Fn(&T) -> &ObjectText) -> Result<Vec<T>, LiveError> {
    let mut pods_seen = HashSet::new();
    let mut kept = Vec::new();
    for object in objects {
        let o = text(&object);
        if o.kind == "Pod" && !pods_seen.insert(pod_key(o)?) {
            continue;
        }
        kept.push(object);
    }
    Ok(kept)
}

/// Every list at once where it can be; only the Pods, ConfigMaps and Leases of the LB
/// implementations wait, because their namespaces come from the workloads and custom resources.
async fn gather(api: &Api) -> Result<(Vec<Listed>, Vec<String>), LiveError> {
    let cluster = [NODES, SERVICES, ENDPOINT_SLICES, NAMESPACES].map(Target::all);
    let reasons = METALLB_EVENT_REASONS.iter().chain(crate::servicelb::EVENTS.iter());
    let events: Vec<Target> = reasons
        .map(|reason| Target {
            field_selector: Some(format!("involvedObject.kind=Service,reason={reason}")),
            ..Target::all(EVENTS)
        })
        .collect();
    let independent = futures::future::try_join_all(cluster.iter().chain(&events).map(|t| api.list(t)));
    let (mut lists, (lb_lists, not_installed)) = futures::future::try_join(independent, implementations(api)).await?;
    lists.extend(lb_lists);
    Ok((lists, not_installed))
}

fn pod_key(object: &ObjectText) -> Result<(String, String), LiveError> {
    #[derive(serde::Deserialize)]
    struct Head {
        metadata: Meta,
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        #[serde(default)]
        namespace: String,
        #[serde(default)]
        name: String,
    }
    let head: Head = serde_json::from_str(&object.text)
        .map_err(|e| LiveError::Decode(format!("{}: a Pod without metadata: {e}", object.origin)))?;
    Ok((head.metadata.namespace, head.metadata.name))
}

/// An object as `snapshot` writes it: managedFields dropped but for a Service's status writers,
/// exactly what the loader keeps of the decoded objects (`Service::status_writers`).
fn as_saved(object: &ObjectText) -> Result<Value, LiveError> {
    let mut value: Value = serde_json::from_str(&object.text)
        .map_err(|e| LiveError::Decode(format!("{}: not valid JSON: {e}", object.origin)))?;
    if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
        if let Some(Value::Array(entries)) = meta.remove("managedFields") {
            let kept: Vec<Value> = entries
                .into_iter()
                .filter(|e| {
                    object.kind == "Service"
                        && serde_json::from_value::<ManagedFieldsEntry>(e.clone())
                            .is_ok_and(|m| crate::snapshot::writes_status(&m))
                })
                .collect();
            if !kept.is_empty() {
                meta.insert("managedFields".into(), Value::Array(kept));
            }
        }
    }
    Ok(value)
}

/// The workloads and custom resources first; from them, where MetalLB and Cilium run (DESIGN §5,
/// by the same functions the engines use); then their Pods, ConfigMaps and Leases.
async fn implementations(api: &Api) -> Result<(Vec<Listed>, Vec<String>), LiveError> {
    let workloads = futures::future::try_join_all(
        [Target::all(DAEMON_SETS), Target::all(DEPLOYMENTS)].map(|t| async move { api.list(&t).await }),
    );
    let customs = async {
        let found = api.discover(&custom_groups()).await?;
        let not_installed: Vec<String> = if found.denied.is_empty() {
            CUSTOM
                .iter()
                .map(|c| c.name())
                .filter(|n| !found.served.contains_key(n) && !LEGACY.contains(&n.as_str()))
                .collect()
        } else {
            Vec::new()
        };
        let targets: Vec<Target> = found.served.values().cloned().map(Target::all).collect();
        let mut lists = futures::future::try_join_all(targets.iter().map(|t| api.list(t))).await?;
        lists.extend(found.denied.into_iter().map(|d| Listed { denied: Some(d), ..Listed::default() }));
        Ok::<_, LiveError>((lists, not_installed))
    };
    let (mut workloads, (mut lists, not_installed)) = futures::future::try_join(workloads, customs).await?;
    for listed in &mut workloads {
        listed.retain(is_lb_workload);
    }
    lists.extend(workloads);

    let partial = from_texts(lists.iter().flat_map(|l| &l.objects))?;
    let metallb = crate::metallb::install::discover(&partial, &Default::default());
    let cilium = crate::cilium::install::discover(&partial);
    let (mns, cns) = (metallb.namespace.as_str(), cilium.namespace.as_str());
    let mut second = vec![
        Target::labelled(PODS, mns, "component in (speaker,controller)"),
        Target::labelled(PODS, mns, "app.kubernetes.io/component in (speaker,controller)"),
        Target::labelled(PODS, cns, "k8s-app=cilium"),
        Target::labelled(PODS, cns, "app.kubernetes.io/name in (cilium-agent,cilium-operator)"),
        Target::labelled(PODS, cns, "io.cilium/app=operator"),
        Target::labelled(PODS, "kube-system", crate::servicelb::SVC_NAME),
        Target::named(CONFIG_MAPS, "kube-system", "kube-proxy"),
        Target::named(CONFIG_MAPS, mns, "metallb-excludel2"),
        // MetalLB before v0.13.0 was configured by this ConfigMap; later releases ignore it.
        Target::named(CONFIG_MAPS, mns, crate::metallb::detect::LEGACY_CONFIG_MAP),
        Target::named(CONFIG_MAPS, cns, crate::cilium::install::CONFIG_MAP),
    ];
    if cns != crate::cilium::install::DEFAULT_NAMESPACE {
        second.push(Target::named(
            CONFIG_MAPS,
            crate::cilium::install::DEFAULT_NAMESPACE,
            crate::cilium::install::CONFIG_MAP,
        ));
    }
    // Always, not only when Cilium shows in what was read so far: its agents may be the only sign.
    second.push(Target::in_namespace(LEASES, cns));
    lists.extend(futures::future::try_join_all(second.iter().map(|t| api.list(t))).await?);
    Ok((lists, not_installed))
}

/// Keeps the DaemonSets and Deployments some implementation recognises as its own (the same
/// discovery the engines run), so a snapshot holds no unrelated workloads.
fn is_lb_workload(object: &ObjectText) -> bool {
    // An object that does not decode is kept: loading it reports the error with its origin.
    let Ok(one) = from_texts([object]) else {
        return true;
    };
    crate::metallb::install::discover(&one, &Default::default()).installed
        || crate::cilium::install::discover(&one).installed
        || crate::kubevip::discover(&one).installed
        || crate::servicelb::discover(&one).installed
}
