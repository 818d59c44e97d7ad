//! Where MetalLB runs and how its speakers are configured, from what the snapshot shows
//! (DESIGN §5 conventions), with command-line overrides on top.

use crate::k8s::labels::LabelMap;
use crate::snapshot::workload::{Container, Pod, PodSpec};

use super::detect::{self, Outside, Versions};
pub use super::release::{Release, Rules};
use crate::snapshot::{BgpType, Memberlist, Snapshot};

pub const DEFAULT_NAMESPACE: &str = "metallb-system";

/// The switches a user can force from the command line.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub ignore_exclude_lb: Option<bool>,
    pub lb_class: Option<String>,
    pub memberlist: Option<Memberlist>,
    pub bgp_type: Option<BgpType>,
    /// `--metallb-version`: the speakers' and the controller's rules.
    pub version: Option<Release>,
}

#[derive(Debug, Clone)]
pub struct SpeakerPod {
    pub pod: String,
    pub node: Option<String>,
    pub live: bool,
}

/// Everything the engines need to know about the MetalLB installation.
#[derive(Debug, Clone)]
pub struct Setup {
    pub installed: bool,
    pub namespace: String,
    pub namespace_source: String,
    /// `None`: no speaker Pods in the snapshot, so a speaker is assumed on every Node.
    pub speaker_pods: Option<Vec<SpeakerPod>>,
    pub memberlist: Memberlist,
    pub memberlist_source: String,
    pub ignore_exclude_lb: bool,
    pub lb_class: String,
    /// METALLB_BGP_TYPE: which validation the speakers run, and whether FRRConfigurations are written.
    pub bgp_type: BgpType,
    pub version: Option<String>,
    /// The speakers' release: layer-2 and BGP announcement follow it.
    pub release: Release,
    pub release_reason: String,
    /// The speakers' version could not be placed exactly; `release` is the nearest.
    pub release_outside: Option<Outside>,
    /// Every version the speaker Pods run (more than one during an upgrade), with the Pods.
    pub speaker_versions: Versions,
    /// The controller's release: allocation follows it.
    pub controller_release: Release,
    pub controller_release_reason: String,
    pub controller_version: Option<String>,
    pub controller_outside: Option<Outside>,
    pub assumptions: Vec<String>,
}

impl Setup {
    /// The speakers' rules.
    pub fn rules(&self) -> Rules {
        self.release.rules()
    }
}

pub fn is_speaker_labelled(labels: Option<&LabelMap>) -> bool {
    labels.is_some_and(|l| {
        l.get("component") == Some("speaker") || l.get("app.kubernetes.io/component") == Some("speaker")
    })
}

fn is_metallb_labelled(labels: Option<&LabelMap>) -> bool {
    labels.is_some_and(|l| l.get("app") == Some("metallb") || l.get("app.kubernetes.io/name") == Some("metallb"))
}

fn runs_metallb_image(spec: Option<&PodSpec>) -> bool {
    spec.is_some_and(|s| s.containers.iter().any(|c| c.image.as_deref().is_some_and(|i| i.contains("metallb/"))))
}

pub fn pod_is_live(pod: &Pod) -> bool {
    let Some(status) = &pod.status else {
        return false;
    };
    status.phase.as_deref() == Some("Running")
        && status.conditions.iter().flatten().any(|c| c.type_ == "Ready" && c.status == "True")
}

pub fn discover(snap: &Snapshot, overrides: &Overrides) -> Setup {
    let info = &snap.info.metallb;
    let mut assumptions = Vec::new();
    let speaker_ds = snap.daemon_sets.iter().find(|ds| {
        let tmpl = ds.spec.as_ref().and_then(|s| s.template.metadata.as_ref()).and_then(|m| m.labels.as_ref());
        (is_speaker_labelled(tmpl)
            && (is_metallb_labelled(tmpl)
                || runs_metallb_image(ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()))))
            || ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()).is_some_and(|s| {
                s.containers.iter().any(|c| c.image.as_deref().is_some_and(|i| i.contains("metallb/speaker")))
            })
    });
    let metallb_namespaces = snap.metallb.namespaces();

    let (namespace, namespace_source) = if let Some(ns) = &info.namespace {
        (ns.clone(), "SnapshotInfo".to_string())
    } else if let Some(ds) = speaker_ds.and_then(|d| d.metadata.namespace.as_deref().map(str::to_string)) {
        (ds, "speaker DaemonSet".to_string())
    } else if let Some(ns) = snap
        .pods
        .iter()
        .find(|p| {
            is_speaker_labelled(p.metadata.labels.as_ref())
                && (is_metallb_labelled(p.metadata.labels.as_ref()) || runs_metallb_image(p.spec.as_ref()))
        })
        .and_then(|p| p.metadata.namespace.as_deref().map(str::to_string))
    {
        (ns, "speaker Pods".to_string())
    } else if metallb_namespaces.iter().any(|n| n == DEFAULT_NAMESPACE) {
        (DEFAULT_NAMESPACE.to_string(), "metallb.io objects".to_string())
    } else if metallb_namespaces.len() == 1 {
        (metallb_namespaces[0].clone(), "metallb.io objects".to_string())
    } else {
        (DEFAULT_NAMESPACE.to_string(), "default".to_string())
    };

    let speaker_pods: Vec<SpeakerPod> = snap
        .pods
        .iter()
        .filter(|p| {
            p.metadata.namespace.as_deref() == Some(namespace.as_str())
                && is_speaker_labelled(p.metadata.labels.as_ref())
        })
        .map(|p| SpeakerPod {
            pod: p.metadata.name.as_deref().unwrap_or_default().to_string(),
            node: p.spec.as_ref().and_then(|s| s.node_name.clone()),
            live: pod_is_live(p),
        })
        .collect();

    let installed = !snap.metallb.is_empty()
        || speaker_ds.is_some()
        || snap
            .pods
            .iter()
            .any(|p| is_metallb_labelled(p.metadata.labels.as_ref()) || runs_metallb_image(p.spec.as_ref()))
        || snap.daemon_sets.iter().any(|d| is_metallb_labelled(d.metadata.labels.as_ref()))
        || snap.deployments.iter().any(|d| {
            is_metallb_labelled(d.metadata.labels.as_ref())
                || runs_metallb_image(d.spec.as_ref().and_then(|s| s.template.spec.as_ref()))
        });

    // The speaker's own container tells its flags; the DaemonSet template first, else any speaker Pod.
    let container: Option<&Container> = speaker_ds
        .and_then(|d| d.spec.as_ref())
        .and_then(|s| s.template.spec.as_ref())
        .or_else(|| {
            snap.pods
                .iter()
                .find(|p| {
                    p.metadata.namespace.as_deref() == Some(namespace.as_str())
                        && is_speaker_labelled(p.metadata.labels.as_ref())
                })
                .and_then(|p| p.spec.as_ref())
        })
        .and_then(|spec| spec.containers.iter().find(|c| c.name == "speaker").or(spec.containers.first()));
    let flags = container.map(SpeakerFlags::from_container);

    let speakers_observed = !speaker_pods.is_empty();
    let (memberlist, memberlist_source) = if !speakers_observed {
        // DESIGN §5: without speaker Pods a speaker is assumed on every Node, memberlist disabled.
        (Memberlist::Disabled, "assumed: no speaker Pods in the snapshot".to_string())
    } else if let Some(m) = overrides.memberlist {
        (m, "--memberlist".to_string())
    } else if let Some(m) = info.memberlist {
        (m, "SnapshotInfo".to_string())
    } else if let Some(enabled) = flags.as_ref().and_then(|f| f.ml_enabled).filter(|_| speakers_observed) {
        if enabled {
            (Memberlist::Enabled, "speaker --ml-bindaddr/--ml-labels".to_string())
        } else {
            (
                Memberlist::Disabled,
                "speaker container: --ml-bindaddr or --ml-labels empty or unset (METALLB_ML_BIND_ADDR, METALLB_ML_LABELS)"
                    .to_string(),
            )
        }
    } else if speakers_observed {
        assumptions.push(
            "the speakers' memberlist settings are not visible in the snapshot: assumed enabled, as MetalLB's manifests set them"
                .to_string(),
        );
        (Memberlist::Enabled, "assumed (speaker Pods present, settings not visible)".to_string())
    } else {
        (Memberlist::Disabled, "assumed: no speaker Pods in the snapshot".to_string())
    };
    if installed && snap.metallb.is_empty() {
        assumptions.push(
            "the snapshot holds no metallb.io objects: MetalLB is read as having no IPAddressPool and no advertisement; \
             if it has some, add them to the snapshot"
                .to_string(),
        );
    }
    if !speakers_observed && installed {
        assumptions.push(
            "no speaker Pods in the snapshot: treated as memberlist disabled with a speaker on every Node".to_string(),
        );
    }

    let bgp_type =
        overrides.bgp_type.or(info.bgp_type).or(flags.as_ref().and_then(|f| f.bgp_type)).unwrap_or(BgpType::Native);
    let ignore_exclude_lb = overrides
        .ignore_exclude_lb
        .or(info.ignore_exclude_lb)
        .or(flags.as_ref().map(|f| f.ignore_exclude_lb))
        .unwrap_or(false);
    let lb_class = overrides
        .lb_class
        .clone()
        .or(info.lb_class.clone())
        .or(flags.as_ref().and_then(|f| f.lb_class.clone()))
        .unwrap_or_default();
    let version = info.version.clone().or(container.and_then(|c| image_tag(c.image.as_deref()?)));

    let preferred_ad = snap
        .metallb
        .l2_advertisements
        .iter()
        .find(|a| a.namespace() == namespace && !a.spec.preferred_node_selectors.is_empty());
    let bounds = detect::bounds(snap);
    let (speakers, speaker_versions) = detect::speakers(snap, info.version.as_deref(), speaker_ds, &namespace, &bounds);
    let (controller, controller_version) =
        detect::controller(snap, info.version.as_deref(), &namespace, &speakers, &bounds);
    let forced = |r: Release| detect::Choice { release: r, reason: format!("--metallb-version {r}"), outside: None };
    let (speakers, controller) = match (overrides.version, preferred_ad) {
        (Some(r), _) => (forced(r), forced(r)),
        // Only newer MetalLB's CRDs keep the field: the cluster runs newer rules than its tag says.
        (None, Some(ad)) if speakers.release < Release::Main => {
            let newer = detect::Choice {
                release: Release::Main,
                reason: format!("L2Advertisement {} uses preferredNodeSelectors", ad.name()),
                outside: None,
            };
            (newer.clone(), if controller.release == Release::Main { controller } else { newer })
        }
        _ => (speakers, controller),
    };

    // S-3: up to v0.13.12 a speaker told not to use EndpointSlices reads core v1 Endpoints,
    // which no snapshot holds; EndpointSlices say the same for a healthy cluster.
    if flags.as_ref().is_some_and(|f| f.disable_epslices) && speakers.release <= Release::Tag(13, 12) {
        assumptions.push(
            "the speakers run with --disable-epslices and read core v1 Endpoints (MetalLB v0.13.x), which the snapshot \
             does not hold: serving endpoints are judged from EndpointSlices (ready addresses serve, not-ready ones do not)"
                .to_string(),
        );
    }

    Setup {
        installed,
        namespace,
        namespace_source,
        speaker_pods: speakers_observed.then_some(speaker_pods),
        memberlist,
        memberlist_source,
        ignore_exclude_lb,
        lb_class,
        bgp_type,
        version,
        release: speakers.release,
        release_reason: speakers.reason,
        release_outside: speakers.outside,
        speaker_versions,
        controller_release: controller.release,
        controller_release_reason: controller.reason,
        controller_version,
        controller_outside: controller.outside,
        assumptions,
    }
}

/// The speaker flags that change the election (spec §2), from args and the env they default to.
#[derive(Debug, Default)]
struct SpeakerFlags {
    /// `None` when the container shows neither memberlist setting and its environment is not
    /// visible (no METALLB_NODE_NAME, or an `envFrom` that may hold them).
    ml_enabled: Option<bool>,
    ignore_exclude_lb: bool,
    lb_class: Option<String>,
    bgp_type: Option<BgpType>,
    /// `--disable-epslices` (v0.13.x): the speaker reads core v1 Endpoints instead (S-3).
    disable_epslices: bool,
}

impl SpeakerFlags {
    fn from_container(c: &Container) -> SpeakerFlags {
        // An env var filled from a field reference (status.podIP) is non-empty at run time.
        let env = |name: &str| -> Option<String> {
            c.env.iter().flatten().find(|e| e.name == name).map(|e| match (&e.value, &e.value_from) {
                (Some(v), _) => v.clone(),
                (None, Some(_)) => "<from field>".to_string(),
                (None, None) => String::new(),
            })
        };
        let args: Vec<&str> = c.command.iter().flatten().chain(c.args.iter().flatten()).map(String::as_str).collect();
        let arg = |name: &str| -> Option<String> {
            let long = format!("--{name}");
            let short = format!("-{name}");
            for (i, a) in args.iter().enumerate() {
                for prefix in [&long, &short] {
                    if let Some(v) = a.strip_prefix(prefix.as_str()) {
                        if let Some(v) = v.strip_prefix('=') {
                            return Some(v.to_string());
                        }
                        if v.is_empty() {
                            return Some(args.get(i + 1).map(|s| s.to_string()).unwrap_or_default());
                        }
                    }
                }
            }
            None
        };
        let bool_arg = |name: &str| -> Option<bool> {
            let long = format!("--{name}");
            args.iter().find_map(|a| {
                let a = a.strip_prefix('-').unwrap_or(a);
                let rest = format!("-{a}");
                let rest = rest.strip_prefix(long.as_str())?;
                match rest {
                    "" => Some(true),
                    v => v.strip_prefix('=').map(|v| v == "true" || v == "1"),
                }
            })
        };
        let bind = arg("ml-bindaddr").or_else(|| env("METALLB_ML_BIND_ADDR"));
        let labels = arg("ml-labels").or_else(|| env("METALLB_ML_LABELS"));
        // Each flag defaults to its env var, and an unset one to "" (spec §2): a container whose
        // environment is visible, which the required METALLB_NODE_NAME/--node-name shows, and
        // that has no envFrom filling in more, runs with memberlist off when either is missing.
        let env_visible = c.env_from.as_ref().is_none_or(|f| f.is_empty())
            && (env("METALLB_NODE_NAME").is_some() || arg("node-name").is_some());
        let ml_enabled = match (bind, labels) {
            (None, None) if !env_visible => None,
            (b, l) => Some(!b.unwrap_or_default().is_empty() && !l.unwrap_or_default().is_empty()),
        };
        SpeakerFlags {
            ml_enabled,
            ignore_exclude_lb: bool_arg("ignore-exclude-lb").unwrap_or(false),
            disable_epslices: bool_arg("disable-epslices").unwrap_or(false),
            lb_class: arg("lb-class"),
            bgp_type: env("METALLB_BGP_TYPE").and_then(|v| match v.as_str() {
                "native" | "" => Some(BgpType::Native),
                "frr" => Some(BgpType::Frr),
                "frr-k8s" => Some(BgpType::FrrK8s),
                _ => None,
            }),
        }
    }
}

pub fn image_tag(image: &str) -> Option<String> {
    let without_digest = image.split('@').next()?;
    let last = without_digest.rsplit('/').next()?;
    last.split_once(':').map(|(_, tag)| tag.to_string())
}

/// The numbers of an image tag's version, `v1.20.2-rc.1` → `[1, 20, 2]`; `main`, `latest`
/// and other words give none.
pub fn version_numbers(tag: &str) -> Vec<u64> {
    let core = tag.trim_start_matches('v').split(['-', '+']).next().unwrap_or("");
    core.split('.').filter_map(|p| p.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(image_tag("quay.io/metallb/speaker:v0.16.1").as_deref(), Some("v0.16.1"));
        assert_eq!(image_tag("registry:5000/metallb/speaker").as_deref(), None);
    }

    fn speaker(env: &[(&str, &str)], args: &[&str], env_from: bool) -> Container {
        use crate::snapshot::workload::EnvVar;
        Container {
            name: "speaker".into(),
            env: Some(
                env.iter()
                    .map(|(k, v)| EnvVar { name: k.to_string(), value: Some(v.to_string()), ..Default::default() })
                    .collect(),
            ),
            args: Some(args.iter().map(|a| a.to_string()).collect()),
            env_from: env_from.then(|| vec![serde::de::IgnoredAny]),
            ..Default::default()
        }
    }

    /// Spec §2: memberlist is on only when both flags are non-empty, and an unset flag is "".
    #[test]
    fn memberlist_is_read_from_a_visible_environment_and_assumed_only_without_one() {
        let ml = |c: &Container| SpeakerFlags::from_container(c).ml_enabled;
        let node = ("METALLB_NODE_NAME", "node-a");
        let labels = ("METALLB_ML_LABELS", "app=metallb,component=speaker");
        let bind = ("METALLB_ML_BIND_ADDR", "192.0.2.1");
        assert_eq!(ml(&speaker(&[node, bind, labels], &[], false)), Some(true));
        // The node name shows the environment; no bind address: memberlist off, not assumed on.
        assert_eq!(ml(&speaker(&[node, labels], &[], false)), Some(false));
        assert_eq!(ml(&speaker(&[node], &[], false)), Some(false));
        assert_eq!(ml(&speaker(&[], &["--node-name=node-a"], false)), Some(false));
        // Not visible: no node name, or an envFrom that may set them.
        assert_eq!(ml(&speaker(&[], &[], false)), None);
        assert_eq!(ml(&speaker(&[node], &[], true)), None);
        assert!(SpeakerFlags::from_container(&speaker(&[node], &["--disable-epslices"], false)).disable_epslices);
        assert!(!SpeakerFlags::from_container(&speaker(&[node], &[], false)).disable_epslices);
        // A flag given on the command line wins over its variable.
        assert_eq!(ml(&speaker(&[node, bind, labels], &["--ml-bindaddr="], false)), Some(false));
    }
}
