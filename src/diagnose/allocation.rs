//! The controller replay turned into report data: `allocation` per Service, its findings
//! (LBD110, LBD112-LBD114) and the pool-level ones (LBD206-LBD208).

use compact_str::CompactString;
use std::net::IpAddr;

use super::world::World;
use crate::k8s::ip::go_ip_string;
use crate::metallb::alloc::allocator::{ip_key, is_buggy, PoolFit};
use crate::metallb::alloc::controller::{ClearCause, Failure};
use crate::metallb::alloc::error::AllocError;
use crate::metallb::alloc::family::Family;
use crate::metallb::alloc::replay::{Conflict, Outcome, Status};
use crate::metallb::alloc::svc::Ann;
use crate::report::{Allocation, Code, Finding, ObjectRef, PossibleOutcome};

fn texts(ips: &[IpAddr]) -> Vec<String> {
    ips.iter().map(|ip| go_ip_string(*ip)).collect()
}

fn view<'w>(world: &'w World, o: &Outcome) -> Option<&'w crate::metallb::alloc::svc::SvcView<'w>> {
    world.replay().map(|r| r.view(o))
}

pub(super) fn outcome<'w>(world: &'w World, namespace: &str, name: &str) -> Option<&'w Outcome> {
    world.replay()?.outcomes.get(&format!("{namespace}/{name}")).map(|o| &**o)
}

/// A Service's `allocation` and its findings; `None` and none when MetalLB's controller does not
/// apply (not a LoadBalancer, no MetalLB, or its configuration unknown).
pub(super) fn assess(world: &World, namespace: &str, name: &str, is_lb: bool) -> (Option<Allocation>, Vec<Finding>) {
    // A Service that is no longer a LoadBalancer counts while its status still holds IPs: the
    // controller clears them (controller spec §2).
    let stale = |o: &&Outcome| o.sync.cleared_held.as_deref() == Some(&ClearCause::NotLoadBalancer);
    let Some(o) = outcome(world, namespace, name).filter(|o| is_lb || stale(o)) else {
        return (None, Vec::new());
    };
    let detail = detail(world, namespace, o);
    let found = findings(world, namespace, name, o, &detail);
    let mut allocation = report(o, detail);
    // What the controller said matters while the Service still waits for an IP.
    if o.held.is_empty() {
        let key = format!("{namespace}/{name}");
        allocation.controller_log = world
            .snap
            .bundles
            .iter()
            .flat_map(|b| &b.logs)
            .filter_map(|log| log.allocation_failures.get(&key))
            .max_by(|a, b| a.at.cmp(&b.at))
            .cloned()
            .map(Box::new);
    }
    (Some(allocation), found)
}

fn report(o: &Outcome, detail: String) -> Allocation {
    let mut events = o.sync.events.clone();
    if o.expected.is_none() {
        // Which Event MetalLB emits depends on its random pick; only the warnings are certain.
        events.retain(|e| e.reason == "deprecatedAnnotation");
    }
    let metallb_event = if o.expected.is_none() {
        // The message names the IPs MetalLB picks, and that pick is random.
        None
    } else {
        events.iter().find(|e| e.reason != "deprecatedAnnotation").cloned().map(Box::new)
    };
    Allocation {
        status: o.status,
        pool: o.pool.clone(),
        expected_ips: o
            .expected
            .as_ref()
            .map(|ips| ips.iter().map(|ip| CompactString::from(go_ip_string(*ip))).collect()),
        possible_outcomes: (!o.possible.is_empty()).then(|| {
            o.possible.iter().map(|(pool, ips)| PossibleOutcome { pool: pool.clone(), ips: texts(ips) }).collect()
        }),
        reason: reason(o),
        metallb_event,
        events: events.into(),
        detail: detail.into(),
        controller_log: None,
    }
}

fn failure_code(f: &Failure) -> &'static str {
    match f {
        Failure::NoPools => "noPools",
        Failure::NoClusterIp => "noClusterIP",
        Failure::NotEnoughClusterIps => "notEnoughClusterIPs",
        Failure::ClusterIpFamily(_) => "clusterIPFamilyUnknown",
        Failure::InvalidRequest(e) | Failure::Allocation(e) | Failure::SharingKeyRefused(e) => e.code(),
        Failure::Internal(_) => "internalError",
    }
}

pub fn reason(o: &Outcome) -> &'static str {
    match o.status {
        Status::NotOurs => "loadBalancerClass",
        Status::Mismatch => match o.sync.cleared_held.as_deref() {
            Some(ClearCause::NotLoadBalancer) => "notLoadBalancer",
            Some(ClearCause::NotAllowed(e)) => match e {
                AllocError::NotAllowed { .. } => "heldIPNotInAnyPool",
                AllocError::PoolNotCompatible { .. } => "heldIPPoolNotCompatible",
                AllocError::SharingConflict { .. } => "heldIPSharingConflict",
                AllocError::PortInUse { .. } => "heldIPPortConflict",
                _ => "heldIPNotAllowed",
            },
            Some(ClearCause::PoolAnnotationChanged { .. }) => "poolAnnotationChanged",
            Some(ClearCause::RequestedIpsChanged) => "requestedIPsChanged",
            Some(ClearCause::FamilyChanged) => "familyChanged",
            None => o.sync.failure.as_deref().map_or("cleared", failure_code),
        },
        Status::Pending => match o.sync.failure.as_deref() {
            Some(f) => failure_code(f),
            None if o.expected.is_none() => "randomPool",
            None => "wouldAllocate",
        },
        Status::Allocated => match (o.sync.failure.as_deref(), o.sync.additional_failed.as_deref()) {
            (Some(Failure::InvalidRequest(_)), _) => "invalidRequestKept",
            (Some(Failure::ClusterIpFamily(_)), _) => "clusterIPFamilyUnknown",
            (_, Some(_)) => "additionalFamilyFailed",
            _ if o.expected.as_ref().is_some_and(|e| e.len() > o.held.len()) => "keptAddedFamily",
            _ => "kept",
        },
    }
}

fn list(items: &[impl AsRef<str>]) -> String {
    items.iter().map(AsRef::as_ref).collect::<Vec<&str>>().join(", ")
}

fn conflict_words(c: &Conflict, me: &str) -> String {
    let ip = go_ip_string(c.ip);
    let others = list(&c.others);
    match c.refusal {
        Some("existingNoSharing") => format!(
            "{ip} is held by {others}, which does not carry metallb.io/allow-shared-ip, so nobody can share it"
        ),
        Some("newNoSharing") => format!(
            "{ip} is held by {others}; {me} has no metallb.io/allow-shared-ip annotation, so it cannot share the address"
        ),
        Some("sharingKeyMismatch") => format!(
            "{ip} is held by {others} with sharing key {:?}, but {me} uses {:?}: the keys must be equal",
            c.existing.as_ref().map(|k| k.sharing.as_str()).unwrap_or(""),
            c.new.sharing
        ),
        Some("backendKeyMismatch") => format!(
            "{ip} is held by {others} with the same sharing key, but with externalTrafficPolicy: Local both must select the same Pods (selector {:?} against {:?}); an eTP Local Service never shares with an eTP Cluster one",
            c.new.backend,
            c.existing.as_ref().map(|k| k.backend.as_str()).unwrap_or("")
        ),
        _ => format!("{ip} is held by {others} on a port this Service also uses (the same protocol and port number cannot be shared)"),
    }
}

fn error_words(world: &World, namespace: &str, o: &Outcome, e: &AllocError) -> String {
    let me = view(world, o).map(|s| s.key()).unwrap_or_default();
    match e {
        AllocError::SharingConflict { .. } | AllocError::PortInUse { .. } => match &o.conflict {
            Some(c) => conflict_words(c, &me),
            None => e.to_string(),
        },
        AllocError::NotAllowed { ips } if ips.iter().any(Option::is_none) => {
            "the pool has free addresses only of the other IP family; MetalLB reports the missing address as <nil>".into()
        }
        AllocError::NotAllowed { ips } => format!(
            "{} is in no IPAddressPool of {} (or sits on a .0/.255 address of an avoidBuggyIPs pool, or a dual-stack pair spans two pools)",
            list(&ips.iter().map(|ip| crate::metallb::alloc::family::ip_text(*ip)).collect::<Vec<_>>()),
            world.setup.namespace
        ),
        AllocError::PoolNotCompatible { pool } => {
            let why = world
                .replay()
                .and_then(|r| r.controller.alloc.pools().by_name.values().find(|p| &p.name == pool).cloned())
                .and_then(|p| {
                    let labels = view(world, o).map(|s| s.labels.clone()).unwrap_or_default();
                    p.incompatibility(namespace, &labels)
                })
                .unwrap_or_default();
            format!("pool {pool}'s serviceAllocation refuses this Service: {why}")
        }
        AllocError::NoAvailableInPool { pool } => format!("pool {pool} has no address left that this Service could take"),
        AllocError::NoAvailableInPoolForFamily { pool, family, .. } => {
            format!("pool {pool} cannot provide the {family} address(es) this Service needs")
        }
        AllocError::NoAvailable => {
            let mut why = fit_words(o);
            if o.family == Some(Family::Dual) && view(world, o).is_some_and(|s| s.policy() == "SingleStack") {
                why = "the Service has two ClusterIPs but no ipFamilyPolicy (or SingleStack): MetalLB treats it as single-stack and can never allocate for it; set ipFamilyPolicy".into();
            }
            format!("no pool offers an address: {why}")
        }
        AllocError::UnknownPool { pool } => {
            format!("the metallb.io/address-pool annotation names {pool:?}, which is not an IPAddressPool in {}", world.setup.namespace)
        }
        AllocError::RequestFamilyMismatch { .. } => format!(
            "the requested IPs are not of the Service's ClusterIP family ({}); MetalLB needs exactly one IP per ClusterIP family",
            o.family.map(|f| f.as_str()).unwrap_or("unknown")
        ),
        AllocError::RequestPoolMismatch { pool, .. } => {
            format!("the requested IPs are not in pool {pool}, which metallb.io/address-pool asks for")
        }
        AllocError::BothRequests { .. } => {
            "the Service sets both spec.loadBalancerIP and metallb.io/loadBalancerIPs; keep one".into()
        }
        AllocError::InvalidAnnotation { .. } | AllocError::InvalidSpecIp { .. } => {
            "a requested IP does not parse (empty items from a trailing comma count)".into()
        }
        other => other.to_string(),
    }
}

fn fit_words(o: &Outcome) -> String {
    if o.fits.is_empty() {
        return "there is no pool it may use automatically".into();
    }
    let parts: Vec<String> = o
        .fits
        .iter()
        .map(|(pool, fit)| match fit {
            PoolFit::Candidate(_) => format!("{pool} has room but the address is refused (sharing or ports)"),
            PoolFit::AutoAssignOff => format!("{pool} has autoAssign: false (only explicit requests)"),
            PoolFit::NotCompatible(why) => format!("{pool}: {why}"),
            PoolFit::NeverAutoAssigned => format!(
                "{pool} has a serviceAllocation that selects no namespace or Service, so it is never auto-assigned"
            ),
            PoolFit::Exhausted => format!("{pool} is full"),
            PoolFit::NoAddressOfFamily(f) => format!("{pool} has no free {f} address"),
        })
        .collect();
    parts.join("; ")
}

fn detail(world: &World, namespace: &str, o: &Outcome) -> String {
    let mut out: Vec<String> = Vec::new();
    let ns = &world.setup.namespace;
    let expected = o.expected.as_ref().map(|e| list(&texts(e)));
    match o.status {
        Status::NotOurs => out.push(format!(
            "MetalLB (--lb-class={:?}) ignores this Service because of its loadBalancerClass: it never writes its status or emits events",
            world.setup.lb_class
        )),
        Status::Allocated => {
            out.push(match &o.pool {
                Some(pool) => format!("MetalLB keeps {} from pool {pool}", list(&o.held)),
                None => format!("MetalLB leaves {} in the status", list(&o.held)),
            });
            if let Some(f) = o.sync.failure.as_deref() {
                match f {
                    Failure::InvalidRequest(e) => out.push(format!(
                        "but it rejects the Service's requested IPs on every sync ({}): {}",
                        e,
                        error_words(world, namespace, o, e)
                    )),
                    Failure::ClusterIpFamily(e) => out.push(format!(
                        "but its ClusterIPs have no usable family ({e}), so MetalLB stops before re-registering the IP: the allocator does not reserve it and may hand it to another Service"
                    )),
                    _ => {}
                }
            }
            if let Some(e) = o.sync.additional_failed.as_deref() {
                out.push(format!(
                    "PreferDualStack asks for a second family, which fails on every sync with a Normal event: {e}"
                ));
            } else if o.expected.as_ref().is_some_and(|e| e.len() > o.held.len()) {
                out.push(format!("and adds an address of the other family (PreferDualStack): {}", expected.clone().unwrap_or_default()));
            }
        }
        Status::Mismatch => {
            let why = match o.sync.cleared_held.as_deref() {
                Some(ClearCause::NotLoadBalancer) => format!(
                    "the Service is type {}, no longer LoadBalancer: the controller clears its status.loadBalancer and the ip-allocated-from-pool annotation, and the speakers withdraw it (notLoadBalancer)",
                    view(world, o).map(|v| v.type_).filter(|t| !t.is_empty()).unwrap_or("ClusterIP")
                ),
                Some(ClearCause::NotAllowed(e)) => error_words(world, namespace, o, e),
                Some(ClearCause::PoolAnnotationChanged { wanted, held }) => {
                    format!("metallb.io/address-pool asks for {wanted} but the IPs belong to {held}")
                }
                Some(ClearCause::RequestedIpsChanged) => "the requested IPs differ from the ones held".into(),
                Some(ClearCause::FamilyChanged) => {
                    "the IP family of the status does not match the Service's ClusterIPs".into()
                }
                None => match o.sync.failure.as_deref() {
                    Some(Failure::NoPools) => format!("there is no IPAddressPool in {ns}: MetalLB wipes held IPs without an event"),
                    Some(Failure::NoClusterIp) => "the Service has no ClusterIP (the API server always sets one; a hand-written snapshot may lack spec.clusterIP): MetalLB clears its status without an event".into(),
                    Some(Failure::NotEnoughClusterIps) => "RequireDualStack with fewer than two ClusterIPs".into(),
                    _ => "MetalLB clears it".into(),
                },
            };
            if matches!(o.sync.failure.as_deref(), Some(Failure::SharingKeyRefused(_))) {
                // C-2: the release refuses the address and writes nothing.
                out.push(format!(
                    "MetalLB stops reserving {} because {why}; this release then stops (Warning svcCannotShareKey) and retries with back-off: the status keeps the address, which another Service may be given",
                    list(&o.held)
                ));
            } else {
                out.push(format!("MetalLB would release {} because {why}", list(&o.held)));
            }
            match (o.sync.failure.as_deref(), expected) {
                (Some(Failure::Allocation(e)), _) => {
                    out.push(format!("then fails to allocate a new one ({e}): {}", error_words(world, namespace, o, e)))
                }
                (None, Some(ips)) if !ips.is_empty() => out.push(format!("and assign {ips} instead")),
                _ => {}
            }
        }
        Status::Pending => match (o.sync.failure.as_deref(), expected) {
            (Some(Failure::Allocation(e) | Failure::InvalidRequest(e)), _) => {
                out.push(format!("MetalLB cannot allocate: {}", error_words(world, namespace, o, e)))
            }
            (Some(Failure::NoPools), _) => out.push(format!(
                "there is no IPAddressPool in {ns}: MetalLB leaves every Service pending, without an event"
            )),
            (Some(Failure::NoClusterIp), _) => {
                out.push("the Service has no ClusterIP (the API server always sets one; a hand-written snapshot may lack spec.clusterIP): MetalLB skips it without an event".into())
            }
            (Some(Failure::NotEnoughClusterIps), _) => out.push(
                "ipFamilyPolicy RequireDualStack but fewer than two ClusterIPs: the cluster is not dual-stack".into(),
            ),
            (Some(Failure::ClusterIpFamily(e)), _) => out.push(format!("the ClusterIPs have no usable family: {e}")),
            (Some(Failure::Internal(what)), _) => out.push(format!("MetalLB reports an internal error ({what})")),
            (Some(Failure::SharingKeyRefused(e)), _) => out.push(format!("MetalLB refuses the address it holds: {e}")),
            (None, Some(ips)) => out.push(format!(
                "MetalLB would assign {ips} from pool {} now; as the status is still empty, its controller has not processed the Service (is the controller Pod running? see its log)",
                o.pool.as_deref().unwrap_or("-")
            )),
            (None, None) => out.push(format!(
                "MetalLB would assign an address now, from one of {} pools it picks at random (Go map order): {}; as the status is still empty, its controller has not processed the Service (is the controller Pod running? see its log)",
                o.possible.len(),
                random_pools(&o.possible)
            )),
        },
    }
    if o.status == Status::Mismatch && o.expected.is_none() && !o.possible.is_empty() {
        out.push(format!("the replacement comes from a pool MetalLB picks at random: {}", random_pools(&o.possible)));
    }
    if !o.order_peers.is_empty() {
        let release = world.setup.controller_release;
        out.push(if release.rules().holders_first {
            format!(
                "this depends on the order MetalLB re-registers Services with as many ingress entries ({}): MetalLB leaves it unspecified, lbdoctor uses namespace/name order",
                list(&o.order_peers)
            )
        } else {
            format!(
                "this depends on the order MetalLB {release}'s controller syncs Services after a restart ({}): before v0.14.0 it is the informer's, unspecified; lbdoctor takes the most ingress entries first, then namespace/name",
                list(&o.order_peers)
            )
        });
    }
    if let Some(svc) = view(world, o) {
        let deprecated = svc.deprecated_annotations();
        if !deprecated.is_empty() {
            out.push(format!(
                "it uses deprecated annotations ({}), still honoured by MetalLB {}",
                deprecated.join(", "),
                world.setup.controller_release
            ));
        }
    }
    let mut text = out.join("; ");
    text.push('.');
    text
}

/// The pools MetalLB may pick from, as prose: the first few, then a count (the JSON's
/// `possibleOutcomes` and explain's allocation line list them all), so that twenty pools do not
/// make a 1 KB sentence repeated in every affected Service's detail and finding.
fn random_pools(possible: &[(String, Vec<IpAddr>)]) -> String {
    const SHOWN: usize = 3;
    let named = |(p, ips): &(String, Vec<IpAddr>)| format!("{} from {p}", list(&texts(ips)));
    if possible.len() <= SHOWN + 1 {
        return possible.iter().map(named).collect::<Vec<_>>().join(" or ");
    }
    let first = possible[..SHOWN].iter().map(named).collect::<Vec<_>>().join(", ");
    format!("{first} or one of {} other pools", possible.len() - SHOWN)
}

fn objects(namespace: &str, name: &str, o: &Outcome, ns: &str) -> Vec<ObjectRef> {
    let mut objs = vec![ObjectRef::new("Service", namespace, name)];
    if let Some(c) = &o.conflict {
        objs.extend(c.others.iter().map(|s| ObjectRef::from_key("Service", s)));
    }
    if let Some(p) = &o.pool {
        objs.push(ObjectRef::new("IPAddressPool", ns, p.as_str()));
    }
    objs
}

fn findings(world: &World, namespace: &str, name: &str, o: &Outcome, detail: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let ns = &world.setup.namespace;
    let event = o.sync.events.iter().find(|e| e.reason != "deprecatedAnnotation");
    let said = event
        .map(|e| format!(" MetalLB says: {} {}: {}", e.type_, e.reason, e.message))
        .unwrap_or_else(|| " MetalLB emits no event for this.".into());
    let ends_without_ip = o.expected.as_ref().is_some_and(|e| e.is_empty());
    match o.status {
        Status::Pending if o.sync.failure.is_none() => {
            let rules = world.setup.controller_release.rules();
            out.push(Finding::new(
                Code::LBD115,
                format!("pending: {detail}"),
                format!(
                    "check that MetalLB's controller Pod runs and has loaded its configuration ({}); a Service created a moment before the snapshot is also still pending. MetalLB {} retries pending Services only when {}: an address freed any other way stays unused until this Service changes (any edit) or the controller restarts",
                    super::release::configuration_state_source(rules, true),
                    rules.release,
                    super::release::pending_retried_when(rules)
                ),
                objects(namespace, name, o, ns),
            ))
        }
        Status::Pending if o.sync.failure.is_some() => out.push(Finding::new(
            Code::LBD110,
            format!("pending: {detail}{said}"),
            hint_for(o),
            objects(namespace, name, o, ns),
        )),
        Status::Mismatch if o.sync.cleared_held.as_deref() == Some(&ClearCause::NotLoadBalancer) => out.push(Finding::new(
            Code::LBD112,
            format!("{detail}{said}"),
            format!(
                "nothing to fix if the type change was meant: the stale address goes at the controller's next sync of the Service (any edit, or a controller restart); until then status shows an IP nobody announces (kubectl -n {namespace} get svc {name} -o jsonpath='{{.status.loadBalancer}}')"
            ),
            objects(namespace, name, o, ns),
        )),
        Status::Mismatch => out.push(Finding::new(
            if ends_without_ip { Code::LBD110 } else { Code::LBD112 },
            format!("{detail}{said}"),
            "the IP changes at MetalLB's next sync of this Service (any edit, or a controller restart); fix the cause or request the IP you want explicitly",
            objects(namespace, name, o, ns),
        )),
        Status::Allocated if o.sync.failure.is_some() || o.sync.additional_failed.is_some() => out.push(Finding::new(
            Code::LBD114,
            format!("{detail}{said}"),
            "the current IP stays for now; fix the request (annotations, ipFamilyPolicy, ClusterIPs) so the next change does not leave the Service pending",
            objects(namespace, name, o, ns),
        )),
        _ => {}
    }
    if !o.restart_takers.is_empty() {
        out.push(restart_takers(world, namespace, name, o));
    }
    if let (Some(ips), Some(pool_name)) = (&o.expected, &o.pool) {
        let pool =
            world.replay().and_then(|r| r.controller.alloc.pools().by_name.values().find(|p| p.name == *pool_name));
        let buggy: Vec<String> = ips.iter().filter(|ip| is_buggy(ip_key(**ip))).map(|ip| go_ip_string(*ip)).collect();
        if pool.is_some_and(|p| !p.avoid_buggy_ips) && !buggy.is_empty() {
            out.push(Finding::new(
                Code::LBD113,
                format!(
                    "{} ends in .0 or .255 and comes from pool {pool_name}, which does not set avoidBuggyIPs: some clients and CPE firmware drop traffic to such addresses",
                    buggy.join(", ")
                ),
                "set avoidBuggyIPs: true on the pool (MetalLB then re-assigns these Services) or request another IP",
                vec![ObjectRef::new("Service", namespace, name), ObjectRef::new("IPAddressPool", ns, pool_name.as_str())],
            ));
        }
    }
    out
}

/// LBD116 (C-14): a v0.13.x controller restart may sync a pending (or re-allocated) Service
/// before this one and give it this Service's address.
fn restart_takers(world: &World, namespace: &str, name: &str, o: &Outcome) -> Finding {
    let release = world.setup.controller_release;
    let lost = if release.rules().clear_assignment_event {
        "with a Normal ClearAssignment Event, then gets another address if one is free"
    } else {
        "silently, then gets another address if one is free"
    };
    Finding::new(
        Code::LBD116,
        format!(
            "MetalLB {release}'s controller syncs Services in no particular order after a restart (before v0.14.0): if it syncs {} first, that Service takes {} and this one loses it {lost}",
            list(&o.restart_takers),
            list(&o.held)
        ),
        "upgrade the controller to v0.14.0 or later, which re-registers held addresses before anything else; until then resolve the Services named (pending, or about to be re-allocated: their allocation at start-up is what competes)",
        std::iter::once(ObjectRef::new("Service", namespace, name))
            .chain(o.restart_takers.iter().map(|s| ObjectRef::from_key("Service", s)))
            .collect(),
    )
}

fn hint_for(o: &Outcome) -> String {
    let code = reason(o);
    match code {
        "sharingConflict" | "portConflict" => "give both Services the same metallb.io/allow-shared-ip value, distinct ports and (for eTP Local) the same selector, or request a different IP".into(),
        "poolExhausted" | "noAvailableIPs" => "add addresses to a pool the Service may use, free an IP, or check the pools' serviceAllocation and autoAssign".into(),
        "unknownPool" => "fix the metallb.io/address-pool annotation to name an IPAddressPool in MetalLB's namespace".into(),
        "poolNotCompatible" => "adjust the pool's serviceAllocation (namespaces, namespaceSelectors, serviceSelectors) or the Service's labels".into(),
        "ipNotInAnyPool" => "request an IP inside an IPAddressPool, or add it to one".into(),
        "poolLacksFamily" => "add a CIDR of the missing family to the pool, or change the Service's ipFamilies".into(),
        "noPools" => "create an IPAddressPool in MetalLB's namespace".into(),
        _ => "see the detail: it names the object to change".into(),
    }
}

/// Pool-level findings: nearly exhausted (LBD206), a node address inside a pool (LBD207), an
/// `autoAssign: false` pool nothing requests (LBD208).
pub(super) fn pool_findings(world: &World) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(r) = world.replay() else { return out };
    let ns = &world.setup.namespace;
    let alloc = &r.controller.alloc;
    let views: Vec<&crate::metallb::alloc::svc::SvcView> = r.outcomes.values().map(|o| r.view(o)).collect();
    for pool in alloc.pools().by_name.values() {
        let obj = ObjectRef::new("IPAddressPool", ns, &pool.name);
        let c = alloc.counters(&pool.name);
        let (_, cap4, cap6) = pool.count();
        for (family, used, cap) in [("IPv4", c.assigned_ipv4, cap4), ("IPv6", c.assigned_ipv6, cap6)] {
            if cap > 0 && cap < (1 << 62) && used > 0 && used * 10 >= cap * 9 {
                out.push(Finding::new(
                    Code::LBD206,
                    format!("pool {} has {used} of {cap} {family} addresses in use ({}%)", pool.name, used * 100 / cap),
                    "add addresses to the pool (a new spec.addresses entry) before Services start to stay pending",
                    vec![obj.clone()],
                ));
            }
        }
        let mut node_hits = Vec::new();
        for node in &world.snap.nodes {
            let name = node.metadata.name.as_deref().unwrap_or("");
            for a in node.status.iter().flat_map(|s| s.addresses.iter().flatten()) {
                if a.type_ != "InternalIP" && a.type_ != "ExternalIP" {
                    continue;
                }
                let Some(ip) = crate::k8s::ip::parse_go_ip(&a.address) else { continue };
                if pool.cidrs.iter().any(|c| c.contains(&ip)) {
                    node_hits.push((ObjectRef::cluster("Node", name), format!("{} {} of {name}", a.type_, a.address)));
                }
            }
        }
        if !node_hits.is_empty() {
            let mut objects = vec![obj.clone()];
            objects.extend(node_hits.iter().map(|(o, _)| o.clone()));
            objects.dedup();
            out.push(Finding::new(
                Code::LBD207,
                format!(
                    "pool {} contains node addresses ({}): MetalLB can hand them to a Service, and two hosts then answer ARP/NDP for one IP",
                    pool.name,
                    node_hits.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join(", ")
                ),
                "exclude the node addresses from spec.addresses (split the range around them)",
                objects,
            ));
        }
        if !pool.auto_assign && alloc.in_use(&pool.name) == 0 {
            let requested = views.iter().any(|v| {
                v.annotation(Ann::AddressPool) == pool.name.as_str()
                    || matches!(crate::metallb::alloc::controller::desired_lb_ips(v), Ok(Some((ips, _)))
                        if ips.iter().flatten().any(|ip| pool.cidrs.iter().any(|c| c.contains(ip))))
            });
            if !requested {
                out.push(Finding::new(
                    Code::LBD208,
                    format!(
                        "pool {} has autoAssign: false and no Service requests or holds any of its addresses",
                        pool.name
                    ),
                    "request it with metallb.io/address-pool or metallb.io/loadBalancerIPs, or delete the pool",
                    vec![obj],
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::random_pools;

    fn pools(n: usize) -> Vec<(String, Vec<std::net::IpAddr>)> {
        (0..n).map(|i| (format!("pool-{i}"), vec![format!("192.0.2.{i}").parse().unwrap()])).collect()
    }

    #[test]
    fn up_to_four_pools_are_all_named() {
        assert_eq!(random_pools(&pools(2)), "192.0.2.0 from pool-0 or 192.0.2.1 from pool-1");
        assert_eq!(random_pools(&pools(4)).matches(" from ").count(), 4);
    }

    #[test]
    fn more_pools_name_the_first_three_and_count_the_rest() {
        assert_eq!(
            random_pools(&pools(20)),
            "192.0.2.0 from pool-0, 192.0.2.1 from pool-1, 192.0.2.2 from pool-2 or one of 17 other pools"
        );
    }
}
