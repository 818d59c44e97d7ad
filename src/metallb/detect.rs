//! Which MetalLB release the speakers and the controller run (metallb-versions.md §9): their image
//! tags first, then the Helm chart's labels, then what the objects imply (CRDs served, annotations
//! the controller writes). Speakers and controller are decided separately: announcement follows
//! the speakers, allocation the controller.

use std::collections::BTreeMap;

use crate::k8s::labels::LabelMap;
use crate::snapshot::service::Meta;
use crate::snapshot::workload::{Container, DaemonSet, Deployment, PodSpec};

use super::release::{Release, Resolved};
use crate::snapshot::Snapshot;

/// The ConfigMap (key `config`) MetalLB read its configuration from before v0.13.0.
pub const LEGACY_CONFIG_MAP: &str = "config";

/// A legacy configuration: its address pools as `name (protocol)`; `None` when the ConfigMap is
/// not MetalLB's (no `address-pools` or `peers` in its `config` key).
pub fn legacy_pools(snap: &Snapshot, namespace: &str) -> Option<Vec<String>> {
    #[derive(serde::Deserialize)]
    struct Legacy {
        #[serde(default, rename = "address-pools")]
        address_pools: Option<Vec<LegacyPool>>,
        #[serde(default)]
        peers: Option<Vec<serde_json::Value>>,
    }
    #[derive(serde::Deserialize)]
    struct LegacyPool {
        #[serde(default)]
        name: String,
        #[serde(default)]
        protocol: String,
    }
    let cm = snap.config_maps.iter().find(|c| {
        c.metadata.name.as_deref() == Some(LEGACY_CONFIG_MAP) && c.metadata.namespace.as_deref() == Some(namespace)
    })?;
    let text = cm.data.as_ref()?.get("config")?;
    let legacy: Legacy = serde_saphyr::from_str(text).ok()?;
    if legacy.address_pools.is_none() && legacy.peers.is_none() {
        return None;
    }
    Some(legacy.address_pools.unwrap_or_default().into_iter().map(|p| format!("{} ({})", p.name, p.protocol)).collect())
}

/// The release one component's rules follow, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub release: Release,
    /// `speaker version v0.14.9`, `Helm chart metallb-0.14.9 (the image is pinned by digest)`.
    pub reason: String,
    /// The version text could not be placed exactly: the rules are the nearest ones.
    pub outside: Option<Outside>,
}

/// A version the model does not have; the rules used instead are `Choice::release`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outside {
    /// Before v0.13.0.
    TooOld(String),
    /// Not a tag of the model (`v0.14.10`), placed at its nearest release.
    Nearest(String),
    /// No version could be read (`latest-amd64`, a digest alone and no other signal).
    Unreadable(String),
}

/// What one source says about the version of a component.
#[derive(Debug, Clone)]
struct Signal {
    version: String,
    source: String,
}

/// Speaker Pods by the version their image names (`sha256:…` when pinned by digest only).
pub type Versions = BTreeMap<String, Vec<String>>;

/// The Helm chart's version labels: `app.kubernetes.io/version: v0.14.9`, else
/// `helm.sh/chart: metallb-0.14.9`.
fn helm_version(meta: &Meta) -> Option<String> {
    let labels = meta.labels.as_ref()?;
    if let Some(v) = labels.get("app.kubernetes.io/version").filter(|v| Release::resolve(v).is_some()) {
        return Some(v.to_string());
    }
    let chart = labels.get("helm.sh/chart")?;
    chart.strip_prefix("metallb-").map(str::to_string)
}

/// The image tag of a component's container; the digest when the image has no tag.
pub fn image_version(image: &str) -> Option<String> {
    if let Some(tag) = super::install::image_tag(image) {
        return Some(tag);
    }
    image.split_once('@').map(|(_, digest)| digest.to_string())
}

fn component_container<'a>(spec: &'a PodSpec, name: &str) -> Option<&'a Container> {
    spec.containers.iter().find(|c| c.name == name).or_else(|| {
        spec.containers.iter().find(|c| c.image.as_deref().is_some_and(|i| i.contains(&format!("metallb/{name}"))))
    })
}

/// The version the image of a Pod's (or Pod template's) `component` container names.
fn container_version(spec: Option<&PodSpec>, component: &str) -> Option<String> {
    component_container(spec?, component)?.image.as_deref().and_then(image_version)
}

fn is_digest(version: &str) -> bool {
    version.starts_with("sha256:")
}

/// The first signal that names a version, in order; a digest-only image falls through to the
/// next source and is said in the reason.
fn choose(component: &str, signals: &[Signal], bounds: &Bounds) -> Choice {
    let mut pinned: Option<&Signal> = None;
    for s in signals {
        if is_digest(&s.version) {
            pinned.get_or_insert(s);
            continue;
        }
        let pin_note = pinned.map(|p| format!(" ({} is pinned by digest)", p.source)).unwrap_or_default();
        let reason = format!("{}{pin_note}", s.source);
        return match Release::resolve(&s.version) {
            Some(Resolved::Exact(r)) => Choice { release: r, reason, outside: None },
            Some(Resolved::Nearest(r)) => {
                Choice { release: r, reason, outside: Some(Outside::Nearest(s.version.clone())) }
            }
            Some(Resolved::TooOld(r)) => {
                Choice { release: r, reason, outside: Some(Outside::TooOld(s.version.clone())) }
            }
            None => Choice {
                release: bounds.newest(),
                reason: format!("{reason}; {}", bounds.describe(component)),
                outside: Some(Outside::Unreadable(s.version.clone())),
            },
        };
    }
    let pin_note = pinned.map(|p| format!("{} is pinned by digest; ", p.source)).unwrap_or_default();
    Choice { release: bounds.newest(), reason: format!("{pin_note}{}", bounds.describe(component)), outside: None }
}

/// What the objects imply about the release when no image or label names it (§9 items 2, 4, 6).
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    /// Oldest and newest release consistent with the objects, with the evidence for each.
    lowest: Option<(Release, String)>,
    highest: Option<(Release, String)>,
}

impl Bounds {
    fn at_least(&mut self, r: Release, why: &str) {
        if self.lowest.as_ref().is_none_or(|(l, _)| r > *l) {
            self.lowest = Some((r, why.to_string()));
        }
    }

    fn before(&mut self, r: Release, why: &str) {
        if self.highest.as_ref().is_none_or(|(h, _)| r < *h) {
            self.highest = Some((r, why.to_string()));
        }
    }

    /// The newest release the objects allow: upgrades move forward, and the newest rules are
    /// what the manifests of a fresh install run.
    pub fn newest(&self) -> Release {
        let newest = self.highest.as_ref().map_or(Release::NEWEST, |(h, _)| *h);
        match &self.lowest {
            Some((l, _)) if *l > newest => *l,
            _ => newest,
        }
    }

    fn describe(&self, component: &str) -> String {
        let mut why: Vec<String> = Vec::new();
        if let Some((r, e)) = &self.lowest {
            why.push(format!("{e}: {r} or later"));
        }
        if let Some((r, e)) = &self.highest {
            why.push(format!("{e}: {r} or earlier"));
        }
        if why.is_empty() {
            format!("{component} version unknown: the newest release assumed")
        } else {
            format!("{component} version unknown; {}", why.join(", "))
        }
    }
}

/// The CRDs served and the annotations and Events the controller writes (§9 items 2, 4, 5).
pub fn bounds(snap: &Snapshot) -> Bounds {
    let mut b = Bounds::default();
    let served = |crd: &str| !snap.info.not_installed.iter().any(|n| n == crd);
    let denied = |crd: &str| snap.info.denied.iter().any(|d| d.resource == crd);
    let live_capture = !snap.info.not_installed.is_empty() || snap.info.captured_at.is_some();
    if !snap.metallb.service_l2_statuses.is_empty() {
        b.at_least(Release::Tag(14, 4), "ServiceL2Status objects");
    } else if live_capture && !served("servicel2statuses.metallb.io") && !denied("servicel2statuses.metallb.io") {
        b.before(Release::Tag(14, 3), "servicel2statuses.metallb.io not served");
    }
    if !snap.metallb.service_bgp_statuses.is_empty() {
        b.at_least(Release::Tag(15, 0), "ServiceBGPStatus objects");
    }
    let annotated =
        |key: &str| snap.services.iter().any(|s| s.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(key)));
    // Events only some releases write (§9 item 5).
    let event = |reason: &str| snap.events.iter().any(|e| e.reason.as_deref() == Some(reason));
    for (reason, from) in [
        ("announceFailed", Release::Tag(13, 6)),
        ("ClearAssignment", Release::Tag(13, 10)),
        ("deprecatedAnnotation", Release::Tag(14, 9)),
        ("AdditionalAssignFailed", Release::Tag(14, 9)),
    ] {
        if event(reason) {
            b.at_least(from, &format!("{reason} Events"));
        }
    }
    if event("svcCannotShareKey") {
        b.before(Release::Tag(13, 7), "svcCannotShareKey Events");
    }
    if annotated("metallb.io/ip-allocated-from-pool") {
        b.at_least(Release::Tag(14, 9), "annotation metallb.io/ip-allocated-from-pool");
    } else if annotated("metallb.universe.tf/ip-allocated-from-pool") {
        b.at_least(Release::Tag(13, 8), "annotation metallb.universe.tf/ip-allocated-from-pool");
        b.before(Release::Tag(14, 8), "no metallb.io/ip-allocated-from-pool annotation beside it");
    }
    b
}

/// The speakers' release, and every version their Pods run.
pub fn speakers(
    snap: &Snapshot,
    forced: Option<&str>,
    daemon_set: Option<&DaemonSet>,
    namespace: &str,
    bounds: &Bounds,
) -> (Choice, Versions) {
    let mut versions: Versions = BTreeMap::new();
    for pod in snap.pods.iter().filter(|p| {
        p.metadata.namespace.as_deref() == Some(namespace)
            && super::install::is_speaker_labelled(p.metadata.labels.as_ref())
    }) {
        if let Some(v) = container_version(pod.spec.as_ref(), "speaker") {
            versions.entry(v).or_default().push(pod.metadata.name.as_deref().unwrap_or_default().to_string());
        }
    }
    for pods in versions.values_mut() {
        pods.sort();
    }
    let mut signals = Vec::new();
    // Set in the snapshot by hand, it wins; when the speakers run that very version, they say it.
    let speakers_agree = versions.len() == 1 && forced.is_some_and(|f| versions.contains_key(f));
    if let Some(v) = forced.filter(|_| !speakers_agree) {
        // Said, not silently preferred: the Pods' own images may tell another story.
        let pods: Vec<&str> = versions.keys().map(String::as_str).collect();
        let against =
            if pods.is_empty() { String::new() } else { format!(" (the speaker Pods run {})", pods.join(", ")) };
        signals.push(Signal { version: v.to_string(), source: format!("SnapshotInfo metallb.version {v}{against}") });
    }
    // Most Pods first; the newer release on a tie (an upgrade moves forward).
    let mut by_count: Vec<(&String, usize)> = versions.iter().map(|(v, p)| (v, p.len())).collect();
    by_count.sort_by(|a, b| {
        b.1.cmp(&a.1).then_with(|| {
            let r = |v: &str| Release::resolve(v).map(|r| r.release());
            r(b.0).cmp(&r(a.0))
        })
    });
    let template = container_version(daemon_set.and_then(DaemonSet::pod_spec), "speaker");
    match by_count.as_slice() {
        [] => {}
        [(v, _)] => signals.push(Signal { version: v.to_string(), source: format!("speaker version {v}") }),
        [(v, n), ..] => signals.push(Signal {
            version: v.to_string(),
            source: format!(
                "speaker version {v} (run by {n} of {} speaker Pods)",
                versions.values().map(Vec::len).sum::<usize>()
            ),
        }),
    }
    if let Some(v) = template {
        signals.push(Signal { version: v.clone(), source: format!("speaker version {v}") });
    }
    let helm = daemon_set.and_then(|d| helm_version(&d.metadata));
    if let Some(v) = helm {
        signals.push(Signal {
            version: v.clone(),
            source: format!("Helm chart labels (version {v}) on the speaker DaemonSet"),
        });
    }
    (choose("speaker", &signals, bounds), versions)
}

/// The controller's release: its Deployment, else its Pods; then the speakers' choice.
pub fn controller(
    snap: &Snapshot,
    forced: Option<&str>,
    namespace: &str,
    speakers: &Choice,
    bounds: &Bounds,
) -> (Choice, Option<String>) {
    let is_controller = |in_namespace: Option<&str>, labels: Option<&LabelMap>, spec: Option<&PodSpec>| {
        let labelled = labels.is_some_and(|l| {
            l.get("component") == Some("controller") || l.get("app.kubernetes.io/component") == Some("controller")
        });
        let image = spec.is_some_and(|s| {
            s.containers.iter().any(|c| c.image.as_deref().is_some_and(|i| i.contains("metallb/controller")))
        });
        image || (labelled && in_namespace == Some(namespace))
    };
    let deployment = snap.deployments.iter().find(|d| {
        let in_namespace = d.metadata.namespace.as_deref();
        is_controller(in_namespace, d.metadata.labels.as_ref(), d.pod_spec())
            || is_controller(in_namespace, d.pod_labels(), None)
    });
    let template_image = container_version(deployment.and_then(Deployment::pod_spec), "controller");
    let pod_image = snap
        .pods
        .iter()
        .filter(|p| is_controller(p.metadata.namespace.as_deref(), p.metadata.labels.as_ref(), p.spec.as_ref()))
        .find_map(|p| container_version(p.spec.as_ref(), "controller"));
    let mut signals = Vec::new();
    let seen = pod_image.as_deref().or(template_image.as_deref());
    if let Some(v) = forced.filter(|f| seen != Some(*f)) {
        let against = seen.map(|s| format!(" (the controller runs {s})")).unwrap_or_default();
        signals.push(Signal { version: v.to_string(), source: format!("SnapshotInfo metallb.version {v}{against}") });
    }
    for v in pod_image.iter().chain(template_image.iter()) {
        signals.push(Signal { version: v.clone(), source: format!("controller version {v}") });
    }
    if let Some(v) = deployment.and_then(|d| helm_version(&d.metadata)) {
        signals.push(Signal {
            version: v.clone(),
            source: format!("Helm chart labels (version {v}) on the controller Deployment"),
        });
    }
    let version = signals.iter().map(|s| s.version.clone()).find(|v| !is_digest(v));
    if signals.iter().all(|s| is_digest(&s.version)) && forced.is_none() {
        // Nothing about the controller itself: it is deployed with the speakers, from one manifest.
        let pinned = if signals.is_empty() { "" } else { " (its image is pinned by digest)" };
        return (
            Choice {
                release: speakers.release,
                reason: format!("as the speakers{pinned}: {}", speakers.reason),
                outside: speakers.outside.clone(),
            },
            version,
        );
    }
    (choose("controller", &signals, bounds), version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn service(annotation: &str) -> crate::snapshot::Service {
        serde_json::from_value(serde_json::json!({"metadata": {"name": "web", "namespace": "default",
            "annotations": {annotation: "pool-a"}}}))
        .unwrap()
    }

    /// §9: without an image or label, the objects bound the release, and the newest allowed is used.
    #[test]
    fn the_objects_bound_the_release_when_nothing_names_it() {
        let mut snap = Snapshot::default();
        assert_eq!(bounds(&snap).newest(), Release::NEWEST);
        snap.services.push(service("metallb.universe.tf/ip-allocated-from-pool"));
        let b = bounds(&snap);
        assert_eq!(b.newest(), Release::Tag(14, 8));
        assert!(b.describe("speaker").contains("metallb.universe.tf/ip-allocated-from-pool: v0.13.8 or later"));
        let mut old = Snapshot::default();
        old.events.push(
            serde_json::from_value(serde_json::json!({"metadata": {"name": "e"}, "involvedObject": {},
            "reason": "svcCannotShareKey"}))
            .unwrap(),
        );
        assert_eq!(bounds(&old).newest(), Release::Tag(13, 7));
        let mut snap = Snapshot::default();
        snap.services.push(service("metallb.io/ip-allocated-from-pool"));
        assert_eq!(bounds(&snap).newest(), Release::NEWEST);
        snap.info.not_installed.push("servicel2statuses.metallb.io".into());
        // Contradicting signals: the lower bound wins, the newer release is what runs.
        assert_eq!(bounds(&snap).newest(), Release::Tag(14, 9));
    }

    #[test]
    fn a_digest_falls_through_to_the_next_source_and_says_so() {
        let bounds = Bounds::default();
        let signals = [
            Signal { version: "sha256:abc".into(), source: "speaker version sha256:abc".into() },
            Signal {
                version: "0.14.5".into(),
                source: "Helm chart labels (version 0.14.5) on the speaker DaemonSet".into(),
            },
        ];
        let c = choose("speaker", &signals, &bounds);
        assert_eq!(c.release, Release::Tag(14, 5));
        assert!(c.reason.contains("(speaker version sha256:abc is pinned by digest)"), "{}", c.reason);
        let c = choose("speaker", &signals[..1], &bounds);
        assert_eq!(c.release, Release::NEWEST);
        assert!(
            c.reason.starts_with("speaker version sha256:abc is pinned by digest; speaker version unknown"),
            "{}",
            c.reason
        );
    }
}
