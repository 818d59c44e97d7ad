//! Findings about which MetalLB release is replayed (metallb-versions.md §1, §9, L-10): speakers
//! running several releases at once, and versions the model does not have.

use super::world::World;
use crate::metallb::detect::Outside;
use crate::metallb::fields::Reader;
use crate::metallb::release::{Release, ReleaseRetry, Rules};
use crate::report::{Code, Finding, ObjectRef};

/// Names shown in a message before "… (+N)".
const SHOWN: usize = 3;

/// The first [`SHOWN`] names, then how many more: `a, b, c, … (+4)`.
fn first_names(names: &[String]) -> String {
    let mut text = names.iter().take(SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(", … (+{})", names.len() - SHOWN));
    }
    text
}

pub(super) fn findings(world: &World) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(mixed_speakers(world));
    out.extend(legacy_config(world));
    out.extend(refused_pools(world));
    out.extend(legacy_address_pools(world));
    out.extend(unread_fields(world));
    let setup = &world.setup;
    out.extend(outside_model(world, "speaker", setup.release, setup.release_outside.as_ref()));
    // The controller's version shows only when it was read apart from the speakers'.
    if !setup.controller_release_reason.starts_with("as the speakers") {
        out.extend(outside_model(world, "controller", setup.controller_release, setup.controller_outside.as_ref()));
    }
    out
}

/// LBD216: during an upgrade each speaker elects by its own release; across v0.14.0 they cannot
/// even see each other (the memberlist key grew from AES-128 to AES-256, L-10).
fn mixed_speakers(world: &World) -> Option<Finding> {
    let versions = &world.setup.speaker_versions;
    if versions.len() < 2 {
        return None;
    }
    let ns = &world.setup.namespace;
    let listed: Vec<String> = versions.iter().map(|(v, pods)| format!("{v} ({})", first_names(pods))).collect();
    let releases: Vec<Option<Release>> = versions.keys().map(|v| Release::resolve(v).map(|r| r.release())).collect();
    let aes = |r: &Option<Release>| r.map(|r| r.rules().aes256_memberlist);
    let split = releases.iter().any(|r| aes(r) == Some(true)) && releases.iter().any(|r| aes(r) == Some(false));
    let consequence = if split {
        "speakers before v0.14.0 and from v0.14.0 on cannot join one memberlist (AES-128 and AES-256 keys): \
         each side elects among its own speakers, so two nodes may answer for one IP until the rollout completes"
    } else {
        "each speaker elects by its own release's rules, so nodes may disagree on who announces until the rollout completes"
    };
    let mut objects: Vec<ObjectRef> = Vec::new();
    for pods in versions.values() {
        objects.extend(pods.iter().take(SHOWN).map(|p| ObjectRef::new("Pod", ns.as_str(), p.as_str())));
    }
    Some(Finding::new(
        Code::LBD216,
        format!(
            "speaker Pods run {} MetalLB versions: {}; {consequence}; this report uses {} rules ({})",
            versions.len(),
            listed.join(", "),
            world.setup.release,
            world.setup.release_reason
        ),
        format!(
            "finish the rollout (kubectl -n {ns} rollout status daemonset/speaker), or replay another release with --metallb-version"
        ),
        objects,
    ))
}

/// LBD217: a version the model does not have; says which rules were used instead.
fn outside_model(world: &World, component: &str, used: Release, outside: Option<&Outside>) -> Option<Finding> {
    let (message, differs) = match outside? {
        Outside::TooOld(v) => (
            format!("{component} version {v} is older than v0.13.0, the first release lbdoctor models: {used} rules are used"),
            "releases before v0.13.0 read their configuration from the `config` ConfigMap, not from IPAddressPools and \
             advertisements, and miss every later fix",
        ),
        Outside::Nearest(v) => (
            format!("{component} version {v} is not a release lbdoctor models: {used} rules are used, the nearest release"),
            "a later patch may change decisions lbdoctor does not know of",
        ),
        Outside::Unreadable(v) => (
            format!("{component} image tag {v:?} names no MetalLB version: {used} rules are used"),
            "if the cluster runs another release, answers may differ",
        ),
    };
    Some(Finding::new(
        Code::LBD217,
        format!("{message}; {differs}"),
        format!("pass --metallb-version with the release the {component} runs (v0.13.0 … v0.16.1 or main)"),
        vec![ObjectRef::cluster("Namespace", world.setup.namespace.as_str())],
    ))
}

/// LBD218: the ConfigMap MetalLB read before v0.13.0. On a release that reads it, lbdoctor cannot
/// replay it; on v0.13.0 and later it is ignored, and its pools are gone unless converted.
fn legacy_config(world: &World) -> Option<Finding> {
    let ns = world.setup.namespace.as_str();
    let pools = crate::metallb::detect::legacy_pools(world.snap, ns)?;
    let listed =
        if pools.is_empty() { "no address pools".to_string() } else { format!("address pools {}", pools.join(", ")) };
    let object = ObjectRef::new("ConfigMap", ns, crate::metallb::detect::LEGACY_CONFIG_MAP);
    let too_old = matches!(world.setup.release_outside, Some(Outside::TooOld(_)));
    let crd_pools = world.snap.metallb.ip_address_pools.iter().filter(|p| p.namespace() == ns).count();
    let (message, hint) = if too_old {
        (
            format!(
                "MetalLB {} reads its configuration from ConfigMap {ns}/config ({listed}); lbdoctor replays v0.13.0 and later, which read IPAddressPool and advertisement objects instead, so these pools are not replayed",
                world.setup.version.as_deref().unwrap_or("before v0.13.0")
            ),
            "upgrade MetalLB: convert the ConfigMap to IPAddressPool and L2Advertisement/BGPAdvertisement objects with MetalLB's configmaptocrs tool (quay.io/metallb/configmaptocrs)".to_string(),
        )
    } else if crd_pools == 0 {
        (
            format!(
                "ConfigMap {ns}/config holds a legacy MetalLB configuration ({listed}) and no IPAddressPool exists: MetalLB {} ignores the ConfigMap (since v0.13.0), so it has no pool to allocate from",
                world.setup.release
            ),
            "convert the ConfigMap with MetalLB's configmaptocrs tool (quay.io/metallb/configmaptocrs), apply the objects, then delete the ConfigMap".to_string(),
        )
    } else {
        (
            format!(
                "ConfigMap {ns}/config holds a legacy MetalLB configuration ({listed}) that MetalLB {} ignores (since v0.13.0): only the IPAddressPool objects count",
                world.setup.release
            ),
            format!("check that the IPAddressPools cover what the ConfigMap held, then delete it: kubectl -n {ns} delete configmap config"),
        )
    };
    Some(Finding::new(Code::LBD218, message, hint, vec![object]))
}

/// LBD219: a v0.13.x controller refuses the pools while a Service holds an IP outside them (C-12,
/// C-13); it goes on allocating from its previous pools, which the snapshot does not hold.
fn refused_pools(world: &World) -> Option<Finding> {
    let line = world.refused_pools()?;
    let ns = world.setup.namespace.as_str();
    Some(Finding::new(
        Code::LBD219,
        format!(
            "MetalLB {}'s controller refuses the pool configuration ({line}): it keeps allocating from its previous pools, deleted or shrunk ones included, so the allocations of this report are unknown",
            world.setup.controller_release
        ),
        format!(
            "give that Service an address inside a pool (or delete it), or restore the pool; v0.14.0 and later take the configuration and re-assign such Services. kubectl -n {ns} logs deploy/controller | grep 'not compatible with assigned IPs'"
        ),
        vec![ObjectRef::cluster("Namespace", ns)],
    ))
}

/// LBD209: legacy AddressPool objects, read as pools by v0.13.x and ignored from v0.14.0 (C-27).
fn legacy_address_pools(world: &World) -> Option<Finding> {
    let count: usize = world
        .snap
        .ignored_kinds
        .iter()
        .filter(|(kind, _)| kind.starts_with("AddressPool (metallb.io/"))
        .map(|(_, n)| *n)
        .sum();
    if count == 0 {
        return None;
    }
    let ns = world.setup.namespace.as_str();
    let release = world.setup.controller_release;
    let objects = if count == 1 {
        "1 legacy AddressPool object".to_string()
    } else {
        format!("{count} legacy AddressPool objects")
    };
    let crd_pools = world.snap.metallb.ip_address_pools.iter().filter(|p| p.namespace() == ns).count();
    let message = if !release.rules().pools_may_orphan {
        format!(
            "MetalLB {release} reads {objects} as pools (a layer2 one with an implicit advertisement on every node and interface); lbdoctor does not replay them, so allocations and announcements from their addresses are not shown"
        )
    } else if crd_pools == 0 {
        format!(
            "the snapshot has {objects} and no IPAddressPool: MetalLB {release} ignores AddressPools (since v0.14.0), so it has no pool to allocate from"
        )
    } else {
        format!(
            "the snapshot has {objects}, which MetalLB {release} ignores (since v0.14.0): only IPAddressPools count"
        )
    };
    Some(Finding::new(
        Code::LBD209,
        message,
        format!(
            "replace each AddressPool with an IPAddressPool (same addresses and autoAssign) plus an L2Advertisement or BGPAdvertisement naming it, then delete it: kubectl -n {ns} get addresspools.metallb.io -o yaml"
        ),
        vec![ObjectRef::cluster("Namespace", ns)],
    ))
}

/// LBD224: fields the speakers' or controller's release does not read (metallb-versions.md §7).
fn unread_fields(world: &World) -> Vec<Finding> {
    let setup = &world.setup;
    let ns = setup.namespace.as_str();
    let fields =
        crate::metallb::fields::unread_fields(&world.snap.metallb, ns, setup.rules(), setup.controller_release.rules());
    fields
        .into_iter()
        .map(|u| {
            let (release, reader) = match u.reader {
                Reader::Speaker => (setup.release, "speakers do"),
                Reader::Controller => (setup.controller_release, "controller does"),
            };
            let named = first_names(&u.objects);
            let since = if u.since == Release::Main { "newer than v0.16.1".to_string() } else { format!("from {}", u.since) };
            Finding::new(
                Code::LBD224,
                format!(
                    "{} {} is set on {named}, but MetalLB {release}'s {reader} not read it ({since}): it is ignored, so {}",
                    u.kind, u.field, u.instead
                ),
                format!(
                    "the CRDs are newer than the MetalLB Pods: upgrade MetalLB ({since}), or remove {} so the objects say what MetalLB does",
                    u.field
                ),
                u.objects.iter().map(|o| ObjectRef::new(u.kind, ns, o.as_str())).collect(),
            )
        })
        .collect()
}

/// Where a release shows whether its components took the configuration (C-26); `controller`:
/// the controller's alone.
pub(super) fn configuration_state_source(rules: Rules, controller: bool) -> &'static str {
    match (rules.configuration_state, controller) {
        (true, true) => "its log, ConfigurationState/controller",
        (true, false) => "ConfigurationState objects",
        (false, true) => "its log and the metallb_k8s_client_config_stale_bool metric; ConfigurationState exists from v0.15.3",
        (false, false) => {
            "the speaker and controller logs and the metallb_k8s_client_config_stale_bool metric; ConfigurationState exists from v0.15.3"
        }
    }
}

/// The events that make a release's controller retry its pending Services (C-7, C-10, C-20).
pub(super) fn pending_retried_when(rules: Rules) -> &'static str {
    match (rules.release_retry, rules.deletion_retries_always, rules.reprocess_on_key_change) {
        (ReleaseRetry::Never, ..) => "the pools change or a Service is deleted",
        (ReleaseRetry::WhenReleased, true, _) => "the pools change, a Service is deleted, or one loses its address",
        (ReleaseRetry::WhenReleased, false, _) => {
            "the pools change, or a Service with an address is deleted or loses it"
        }
        (ReleaseRetry::WhenReleasedInPool, _, false) => {
            "the pools change, or a Service with an address is deleted or edited so that it loses one still inside a pool"
        }
        (ReleaseRetry::WhenReleasedInPool, _, true) => {
            "the pools change, a Service with an address is deleted or edited so that it loses one still inside a pool, or a Service's sharing key or traffic policy changes"
        }
    }
}
