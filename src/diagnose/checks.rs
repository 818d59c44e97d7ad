//! Findings: each names the objects involved and carries a hint with the fix (DESIGN §6).

use crate::metallb::release::Release;
use std::collections::BTreeSet;

use super::world::World;
use super::{Evaluation, L2Outcome, SharedAnswer};
use crate::k8s::EXCLUDE_LB_LABEL;
use crate::metallb::config::{Config, ConfigError, L2Ad, Pool};
use crate::metallb::l2::{Election, Exclusion, NodeId};
use crate::metallb::service::Withdraw;
use crate::report::{Code, Finding, ObjectRef};

pub(super) fn names(world: &World, set: impl IntoIterator<Item = NodeId>, limit: usize) -> String {
    let all: Vec<&str> = set.into_iter().map(|n| world.table.name(n)).collect();
    let mut text = all.iter().take(limit).copied().collect::<Vec<_>>().join(", ");
    if all.len() > limit {
        text.push_str(&format!(" and {} more", all.len() - limit));
    }
    text
}

/// Everything the per-Service checks read, computed once per Service.
struct ServiceCtx<'a, 'w> {
    world: &'a World<'w>,
    e: &'a Evaluation<'a>,
    svc: ObjectRef,
    /// Present when the Service is announced in layer 2 under a valid configuration.
    l2: Option<L2View<'a>>,
}

struct L2View<'a> {
    l2: &'a L2Outcome,
    el: &'a Election,
    config: &'a Config,
    pool: &'a Pool,
    /// The advertisements that apply to this Service.
    ads: Vec<ObjectRef>,
    answering: Option<NodeId>,
    /// Every other Service answering on the same IP.
    shared_by: &'a [SharedAnswer],
}

impl L2View<'_> {
    fn ad_objs(&self, ns: &str, idx: impl IntoIterator<Item = usize>) -> Vec<ObjectRef> {
        idx.into_iter()
            .map(|i| ObjectRef::new("L2Advertisement", ns, &self.config.l2_advertisements[self.l2.pool_ads[i]].name))
            .collect()
    }
}

type Check = fn(&ServiceCtx) -> Option<Finding>;

/// The per-Service checks in report order (the JSON lists findings in this order).
const SERVICE_CHECKS: &[Check] = &[
    ip_not_allowed,
    invalid_ip,
    no_serving_endpoint,
    dark,
    exclude_label_trap,
    local_without_endpoint,
    observed_disagrees,
    single_candidate,
    version_dependent,
    announcer_rejects_configuration,
];

pub(super) fn service_findings(world: &World, e: &Evaluation, shared_by: &[SharedAnswer]) -> Vec<Finding> {
    let ctx = ServiceCtx::new(world, e, shared_by);
    SERVICE_CHECKS.iter().filter_map(|check| check(&ctx)).collect()
}

impl<'a, 'w> ServiceCtx<'a, 'w> {
    fn new(world: &'a World<'w>, e: &'a Evaluation<'a>, shared_by: &'a [SharedAnswer]) -> Self {
        let l2 = e.l2.as_ref().zip(world.config.as_ref().ok()).map(|(l2, config)| {
            let el = &l2.election;
            let ns = &world.setup.namespace;
            let mut view = L2View {
                l2,
                el,
                config,
                pool: &config.pools[e.pool.expect("pool set with layer2")],
                ads: Vec::new(),
                answering: l2.answering(world),
                shared_by,
            };
            view.ads = view.ad_objs(ns, el.ads_for_service.iter().copied());
            view
        });
        ServiceCtx { world, e, svc: ObjectRef::new("Service", e.namespace, e.name), l2 }
    }

    fn ns(&self) -> &str {
        &self.world.setup.namespace
    }

    /// The Service followed by the advertisements that apply to it.
    fn svc_and_ads(&self, v: &L2View) -> Vec<ObjectRef> {
        std::iter::once(self.svc.clone()).chain(v.ads.iter().cloned()).collect()
    }
}

fn ip_not_allowed(c: &ServiceCtx) -> Option<Finding> {
    (c.e.withdraw == Some(Withdraw::IpNotAllowed)).then(|| {
        Finding::new(
            Code::LBD111,
            format!("{} belongs to no IPAddressPool in {}: every speaker withdraws it (ipNotAllowed)", c.e.ips.join(", "), c.ns()),
            "add the address to an IPAddressPool in MetalLB's namespace, or let MetalLB assign a new one (remove the stale status or the requested IP)",
            vec![c.svc.clone()],
        )
    })
}

fn invalid_ip(c: &ServiceCtx) -> Option<Finding> {
    (c.e.withdraw == Some(Withdraw::InvalidIp)).then(|| {
        Finding::new(
            Code::LBD101,
            format!("nobody announces this Service: an ingress entry has no parsable IP ({:?}), so every speaker withdraws it (invalidIP)", c.e.ips),
            "MetalLB only announces ingress entries with an IP; remove hostname-only entries written by another controller",
            vec![c.svc.clone()],
        )
    })
}

/// LBD104: no serving endpoint, so every speaker returns notOwner.
fn no_serving_endpoint(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    if v.el.active_endpoint {
        return None;
    }
    let also = if v.shared_by.is_empty() {
        String::new()
    } else {
        let by: Vec<String> = v.shared_by.iter().map(ToString::to_string).collect();
        format!("; the shared IP {} is still answered by {}", v.el.ip, by.join(", "))
    };
    Some(Finding::new(
        Code::LBD104,
        format!("the Service has no serving endpoint, so every speaker returns notOwner for it{also}"),
        format!(
            "check the Pods behind the Service's selector (kubectl -n {} get endpointslices -l kubernetes.io/service-name={}); MetalLB counts ready or serving endpoints, under any traffic policy",
            c.e.namespace, c.e.name
        ),
        vec![c.svc.clone()],
    ))
}

/// LBD101: nobody answers ARP/NDP for this IP on behalf of this Service.
fn dark(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    let (world, el, pool) = (c.world, v.el, v.pool);
    let has_l2 = !pool.l2.is_empty();
    if v.answering.is_some() || !v.shared_by.is_empty() || !(has_l2 || pool.bgp.is_empty()) {
        return None;
    }
    let (cause, hint, mut objects) = if !has_l2 {
        (
            format!("pool {} has no L2Advertisement or BGPAdvertisement", pool.name),
            "create an L2Advertisement for the pool (spec.ipAddressPools)".to_string(),
            vec![ObjectRef::new("IPAddressPool", c.ns(), &pool.name)],
        )
    } else if !el.active_endpoint {
        ("the Service has no serving endpoint".to_string(), format!("see {}", Code::LBD104), vec![])
    } else if el.shared_ip_refusal {
        (
            "newer MetalLB refuses a Service with allow-shared-ip when an L2Advertisement with serviceSelectors applies (sharedIPWithServiceSelector)".to_string(),
            "drop the serviceSelectors from the advertisement or the allow-shared-ip annotation".to_string(),
            v.ads.clone(),
        )
    } else if el.ads_for_service.is_empty() {
        (
            format!("none of the L2Advertisements of pool {} matches the Service's labels (serviceSelectors)", pool.name),
            "label the Service to match an advertisement's serviceSelectors, or add an advertisement without serviceSelectors".to_string(),
            v.ad_objs(c.ns(), 0..v.l2.pool_ads.len()),
        )
    } else if let Some(winner) = el.expected_announcer() {
        (
            format!(
                "the election picks {}, which runs no live speaker (memberlist is disabled, so nobody takes over)",
                world.table.name(winner)
            ),
            "run a speaker on every node that can win, or enable memberlist so a dead speaker drops out".to_string(),
            vec![ObjectRef::cluster("Node", world.table.name(winner))],
        )
    } else {
        let filter = el.emptied_by(&world.l2_context(world.setup.rules(), false)).unwrap_or(Exclusion::NotSelected);
        let text = match filter {
            Exclusion::NoSpeaker => "no node the advertisements select runs a live speaker".to_string(),
            Exclusion::NetworkUnavailable => {
                "every selected node with a live speaker has NetworkUnavailable=True".to_string()
            }
            Exclusion::ExcludeLabel => format!("every node the advertisements select carries {EXCLUDE_LB_LABEL}"),
            Exclusion::NotSelected => "the advertisements matching the Service select no existing node".to_string(),
            Exclusion::MemberlistDisabled => format!(
                "memberlist is disabled, and MetalLB {} has no layer-2 candidate without it (v0.15.0 and later use every node)",
                world.setup.release
            ),
            Exclusion::Cordoned => {
                "every selected node with a live speaker is cordoned, and MetalLB v0.14.9 drops cordoned nodes".to_string()
            }
            _ => "externalTrafficPolicy is Local and no candidate node hosts a serving endpoint".to_string(),
        };
        (
            format!("{text} (filter {})", filter.as_str()),
            format!(
                "see the per-node table (kubectl lbdoctor explain svc {} -n {}) for which filter removed each node",
                c.e.name, c.e.namespace
            ),
            v.ads.clone(),
        )
    };
    objects.insert(0, c.svc.clone());
    Some(Finding::new(Code::LBD101, format!("no node announces {}: {cause}", el.ip), hint, objects))
}

/// LBD102: the advertisement's nodes exist but every one of them carries the exclude label.
fn exclude_label_trap(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    let (world, el) = (c.world, v.el);
    if v.answering.is_some() || world.setup.ignore_exclude_lb || !el.active_endpoint || el.ads_for_service.is_empty() {
        return None;
    }
    let mut reachable = (*el.after_network).clone();
    reachable.intersect_with(&el.advertised);
    let mut kept = reachable.clone();
    kept.difference_with(&world.table.excluded);
    if reachable.is_clear() || !kept.is_clear() {
        return None;
    }
    let ad = |i: usize| &v.config.l2_advertisements[v.l2.pool_ads[i]];
    let trapped: Vec<usize> = el.ads_for_service.iter().copied().filter(|&i| ad(i).has_node_selectors).collect();
    let empty_values = reachable.ones().all(|n| world.exclude_values[n].as_deref() == Some(""));
    let mut objects = vec![c.svc.clone()];
    objects.extend(v.ad_objs(c.ns(), trapped.iter().copied()));
    objects.extend(reachable.ones().map(|n| ObjectRef::cluster("Node", world.table.name(n))));
    let who = if trapped.is_empty() {
        "the advertisements matching the Service".to_string()
    } else {
        trapped.iter().map(|&i| format!("L2Advertisement {}", ad(i).name)).collect::<Vec<_>>().join(", ")
    };
    Some(Finding::new(
        Code::LBD102,
        format!(
            "{who} select{} only nodes that carry {EXCLUDE_LB_LABEL}{} ({}); MetalLB checks the key only, so none of them may announce {}",
            if trapped.len() == 1 { "s" } else { "" },
            if empty_values { " with an empty value" } else { "" },
            names(world, reachable.ones(), 6),
            el.ip,
        ),
        format!(
            "`kubectl get nodes -L {EXCLUDE_LB_LABEL}` shows an empty column for these nodes although the key is present; select other nodes in the L2Advertisement's nodeSelectors, remove the label ({}), or run the speakers with --ignore-exclude-lb",
            if reachable.count_ones(..) <= 6 {
                format!("kubectl label node {} {EXCLUDE_LB_LABEL}-", names(world, reachable.ones(), 6).replace(", ", " "))
            } else {
                format!("from every node that has it: kubectl label node -l {EXCLUDE_LB_LABEL} {EXCLUDE_LB_LABEL}-")
            }
        ),
        objects,
    ))
}

/// LBD103: eTP Local and no candidate hosts a serving endpoint.
fn local_without_endpoint(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    let (world, el) = (c.world, v.el);
    if el.local_endpoints.is_none() || !el.active_endpoint || el.candidates.is_clear() || !el.available.is_clear() {
        return None;
    }
    let with_eps: BTreeSet<NodeId> =
        world.endpoints_of(c.e.namespace, c.e.name).iter().filter(|ep| ep.can_serve).filter_map(|ep| ep.node).collect();
    // Endpoints only where no speaker lives: the speakers' placement is the thing to fix, not
    // the advertisement (MetalLB issue reports of "Local stays dark" mostly end here).
    let speakerless: Vec<NodeId> = with_eps.iter().copied().filter(|&n| world.speaker_live(n) == Some(false)).collect();
    if !with_eps.is_empty() && speakerless.len() == with_eps.len() {
        let why = super::placement::why_no_speaker(world, &speakerless);
        let mut objects = vec![c.svc.clone()];
        objects.extend(speakerless.iter().map(|&n| ObjectRef::cluster("Node", world.table.name(n))));
        return Some(Finding::new(
            Code::LBD103,
            format!(
                "externalTrafficPolicy is Local and the Service's endpoints run only on nodes without a live speaker ({}){why}",
                names(world, speakerless.iter().copied(), 6)
            ),
            format!(
                "run a speaker there: compare the node's taints with the speaker DaemonSet's tolerations and nodeSelector (kubectl describe node {}; kubectl -n {} get daemonset -l component=speaker -o yaml), or schedule the Pods onto nodes that run one",
                world.table.name(speakerless[0]),
                world.setup.namespace
            ),
            objects,
        ));
    }
    Some(Finding::new(
        Code::LBD103,
        format!(
            "externalTrafficPolicy is Local and none of the {} candidate nodes ({}) hosts a serving endpoint{}",
            el.candidates.count_ones(..),
            names(world, el.candidates.ones(), 6),
            if with_eps.is_empty() { String::new() } else { format!("; the endpoints run on {}", names(world, with_eps, 6)) }
        ),
        "schedule the Pods onto nodes the L2Advertisement selects (nodeSelector/affinity), widen the advertisement's nodeSelectors, or use externalTrafficPolicy Cluster",
        c.svc_and_ads(v),
    ))
}

/// LBD105: what the cluster reports against what the election says.
fn observed_disagrees(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    let observed = c.e.observed.as_ref()?;
    let expected: BTreeSet<&str> = v.answering.map(|n| c.world.table.name(n)).into_iter().collect();
    let actual: BTreeSet<&str> = observed.nodes.iter().map(compact_str::CompactString::as_str).collect();
    if expected == actual {
        return None;
    }
    let from_events = observed.source == "events";
    let from_logs = observed.source == "speakerLogs";
    let source = match observed.source {
        "events" => "the latest nodeAssigned Event",
        "speakerLogs" => "the speakers' logs",
        _ => "ServiceL2Status",
    };
    let list = |set: &BTreeSet<&str>, none: &str| {
        if set.is_empty() {
            none.to_string()
        } else {
            set.iter().copied().collect::<Vec<_>>().join(", ")
        }
    };
    let why = if from_events {
        "Events are history: they may predate a configuration or membership change"
    } else if from_logs {
        "the logs were collected when the bundle was, which may not be when the objects were; a speaker logs an announce on every reconcile but a withdrawal once"
    } else if actual.is_empty() {
        "the winner may hold the IP without a ServiceL2Status when its interface check failed (announceFailed), or the status was not written yet"
    } else {
        "a speaker may see a different memberlist (network partition), run an older configuration after a rejected change, or the status may be stale"
    };
    Some(Finding::new(
        Code::LBD105,
        format!(
            "{source} says {} announces {}, the election says {}; {why}",
            list(&actual, "no node"),
            v.el.ip,
            list(&expected, "nobody")
        ),
        {
            // What the running release leaves to look at (S-1, C-26).
            let rules = c.world.setup.rules();
            let state = if rules.configuration_state { " and ConfigurationState" } else { "" };
            let events = if rules.ad_interfaces { ", and look for announceFailed Events" } else { "" };
            format!(
                "compare the speakers' memberlist view{state}{events}; `sudo kubectl lbdoctor arping {} -I <interface>` from a host on the segment shows every MAC that answers on the wire",
                v.el.ip
            )
        },
        std::iter::once(c.svc.clone()).chain(actual.iter().map(|n| ObjectRef::cluster("Node", *n))).collect(),
    ))
}

/// LBD225 (B-5): the elected node's speaker rejects the configuration the others run, so it
/// decides by its last good one, which the snapshot does not show.
fn announcer_rejects_configuration(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    let winner = v.el.expected_announcer()?;
    if !c.world.rejecting.contains(winner) {
        return None;
    }
    let node = c.world.table.name(winner);
    Some(Finding::new(
        Code::LBD225,
        format!(
            "{node} is elected to answer for {}, but its speaker rejects the configuration (LBD201 on {node}): it runs its last good configuration, so whether it answers, and whether another node does too, is unknown",
            v.el.ip
        ),
        format!(
            "fix the BGPPeer or BGPAdvertisement LBD201 names for {node}; kubectl -n {} logs <speaker pod on {node}> | grep 'failed to parse the configuration'",
            c.ns()
        ),
        std::iter::once(c.svc.clone()).chain(std::iter::once(ObjectRef::cluster("Node", node))).collect(),
    ))
}

/// LBD106: one candidate (before the eTP Local filter) means no failover.
fn single_candidate(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    if v.answering.is_none() || v.el.candidates.count_ones(..) != 1 {
        return None;
    }
    let only = v.el.candidates.ones().next()?;
    Some(Finding::new(
        Code::LBD106,
        format!("{} is the only candidate for {}: if it fails nobody takes over", c.world.table.name(only), v.el.ip),
        "widen the L2Advertisement's nodeSelectors or run speakers on more of the selected nodes",
        c.svc_and_ads(v),
    ))
}

/// LBD107: the answer depends on the MetalLB release: this cluster's against the newest (what an
/// upgrade would change), or v0.16.x against main.
fn version_dependent(c: &ServiceCtx) -> Option<Finding> {
    let v = c.l2.as_ref()?;
    let other = v.l2.alternate_expected?;
    let world = c.world;
    let alt = world.alternate.as_ref()?.0.release;
    let used = world.setup.release;
    let name = |n: Option<NodeId>| n.map(|n| world.table.name(n).to_string()).unwrap_or_else(|| "nobody".into());
    let (other_rules, hint) = if alt > used && alt != Release::Main {
        (
            format!("{alt} rules (an upgrade to {alt})"),
            format!("before upgrading to {alt}, check the announcer it elects: kubectl lbdoctor explain svc {} -n {} --metallb-version {alt}", c.e.name, c.e.namespace),
        )
    } else {
        (format!("{alt} rules"), format!("pass --metallb-version {used} or {alt} to match the speakers you run"))
    };
    Some(Finding::new(
        Code::LBD107,
        format!(
            "MetalLB {used} rules elect {}, {other_rules} would elect {}; this report uses {used} ({})",
            name(v.el.expected_announcer()),
            name(other),
            world.setup.release_reason
        ),
        hint,
        c.svc_and_ads(v),
    ))
}

type AdCheck = fn(&World, &Config, &L2Ad) -> Option<Finding>;

/// Per L2Advertisement, in report order.
const L2_AD_CHECKS: &[AdCheck] = &[selects_no_node, attaches_to_no_pool];

pub(super) fn cluster_findings(world: &World) -> Vec<Finding> {
    let mut out = Vec::new();
    if !world.setup.installed {
        return out;
    }
    out.extend(outside_namespace(world));
    out.extend(super::release::findings(world));
    let config = match &world.config {
        Ok(c) => c,
        Err(err) => {
            out.push(configuration_rejected(world, err));
            return out;
        }
    };
    out.extend(world.rejected_on.iter().map(|(nodes, err)| rejected_on_nodes(world, nodes, err)));
    out.extend(config.pools.iter().filter_map(|pool| pool_unannounced(world, pool)));
    for ad in &config.l2_advertisements {
        out.extend(L2_AD_CHECKS.iter().filter_map(|check| check(world, config, ad)));
    }
    out
}

/// LBD201: the speakers refuse the whole configuration and keep their last good one.
fn configuration_rejected(world: &World, err: &ConfigError) -> Finding {
    Finding::new(
        Code::LBD201,
        format!("MetalLB rejects the whole configuration: {}", err.message),
        if err.message.contains("native bgp mode") || err.message.contains("native BGP mode") {
            "the speakers run the native BGP backend (the default when METALLB_BGP_TYPE is unset), which cannot carry this: restrict the BGPAdvertisements to IPv4 pools and standard communities, or switch MetalLB to frr or frr-k8s mode. Until then every speaker keeps its last good configuration, layer 2 included"
            .to_string()
        } else if err.message.contains("contains nodeIp") {
            // C-23: the controller is given no Nodes, so allocation goes on.
            "MetalLB v0.15.0 alone refuses a pool that contains a Node's InternalIP (v0.15.1 reverted it): take the node's address out of the pool's range, or upgrade to v0.15.1 or later. Until then every speaker keeps its last good configuration; the controller goes on allocating".to_string()
        } else if world.controller_config.is_ok() {
            // Advertisements and peers are the speakers' business; the controller reads pools only.
            format!(
                "fix the object named; until then every speaker keeps its last good configuration, which the snapshot cannot show (check {}). The controller reads only pools, communities and namespaces, so allocation goes on",
                super::release::configuration_state_source(world.setup.rules(), false)
            )
        } else {
            format!(
                "fix the object named; until then every speaker and the controller keep their last good configuration, which the snapshot cannot show (check {})",
                super::release::configuration_state_source(world.setup.rules(), false)
            )
        },
        err.objects.clone(),
    )
}

/// LBD201 on some nodes only (B-5): from v0.16.0 each speaker parses only the BGPPeers and
/// BGPAdvertisements that select its Node; these nodes fail, the others run the configuration.
fn rejected_on_nodes(world: &World, nodes: &[String], err: &ConfigError) -> Finding {
    let shown = names(world, nodes.iter().filter_map(|n| world.table.id(n)), 4);
    Finding::new(
        Code::LBD201,
        format!(
            "MetalLB rejects the configuration on {shown} only (from v0.16.0 each speaker parses just the BGPPeers and BGPAdvertisements that select its node; the other nodes run it): {}",
            err.message
        ),
        format!(
            "fix the object named; until then the speakers on these nodes keep their last good configuration, layer 2 included, which the snapshot cannot show (check {}): their BGP verdicts are left out, and a Service they are elected for is flagged (LBD225)",
            super::release::configuration_state_source(world.setup.rules(), false)
        ),
        err.objects.iter().cloned().chain(nodes.iter().map(|n| ObjectRef::cluster("Node", n.as_str()))).collect(),
    )
}

/// LBD202: a pool no advertisement announces.
fn pool_unannounced(world: &World, pool: &Pool) -> Option<Finding> {
    (pool.l2.is_empty() && pool.bgp.is_empty()).then(|| {
        Finding::new(
            Code::LBD202,
            format!(
                "pool {} has no L2Advertisement or BGPAdvertisement: its IPs are allocated but never announced",
                pool.name
            ),
            "create an L2Advertisement (or BGPAdvertisement) that lists the pool in spec.ipAddressPools",
            vec![ObjectRef::new("IPAddressPool", &world.setup.namespace, &pool.name)],
        )
    })
}

/// LBD203: an L2Advertisement whose nodeSelectors match no Node.
fn selects_no_node(world: &World, _: &Config, ad: &L2Ad) -> Option<Finding> {
    ad.nodes.is_empty().then(|| {
        Finding::new(
            Code::LBD203,
            format!(
                "L2Advertisement {} selects no node{}",
                ad.name,
                if ad.has_node_selectors { " with its nodeSelectors" } else { " (the snapshot has no Node objects)" }
            ),
            "check the nodeSelectors against `kubectl get nodes --show-labels`",
            vec![ObjectRef::new("L2Advertisement", &world.setup.namespace, &ad.name)],
        )
    })
}

/// LBD204: an L2Advertisement whose pool fields match no pool.
fn attaches_to_no_pool(world: &World, config: &Config, ad: &L2Ad) -> Option<Finding> {
    (ad.pools.is_empty() && !config.pools.is_empty()).then(|| {
        Finding::new(
            Code::LBD204,
            format!("L2Advertisement {} attaches to no IPAddressPool: its ipAddressPools/ipAddressPoolSelectors match none (a selector matching nothing does not mean all pools)", ad.name),
            "name existing pools in spec.ipAddressPools, fix the selector, or remove both fields to advertise every pool",
            vec![ObjectRef::new("L2Advertisement", &world.setup.namespace, &ad.name)],
        )
    })
}

/// LBD205: MetalLB reads its CRs from its own namespace only.
fn outside_namespace(world: &World) -> Option<Finding> {
    let ns = &world.setup.namespace;
    let snap = world.snap;
    let mut outside: Vec<ObjectRef> = Vec::new();
    let m = &snap.metallb;
    for (kind, ons) in m
        .ip_address_pools
        .iter()
        .map(|o| ("IPAddressPool", (o.namespace(), o.name())))
        .chain(m.l2_advertisements.iter().map(|o| ("L2Advertisement", (o.namespace(), o.name()))))
        .chain(m.bgp_advertisements.iter().map(|o| ("BGPAdvertisement", (o.namespace(), o.name()))))
        .chain(m.bgp_peers.iter().map(|o| ("BGPPeer", (o.namespace(), o.name()))))
        .chain(m.communities.iter().map(|o| ("Community", (o.namespace(), o.name()))))
    {
        if ons.0 != ns {
            outside.push(ObjectRef::new(kind, ons.0, ons.1));
        }
    }
    (!outside.is_empty()).then(|| {
        Finding::new(
            Code::LBD205,
            format!(
                "{} MetalLB object(s) outside MetalLB's namespace {ns} are ignored by MetalLB{}",
                outside.len(),
                // V-5: the webhook runs in the controller.
                if world.setup.controller_release.rules().namespace_webhook {
                    " (its webhook refuses to create them since v0.13.5: they predate it, or were created while it was off)"
                } else {
                    " (its webhook admits them before v0.13.5)"
                }
            ),
            format!(
                "move them to {ns}, or tell lbdoctor the namespace MetalLB runs in (SnapshotInfo metallb.namespace)"
            ),
            outside,
        )
    })
}
