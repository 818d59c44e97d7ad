//! The one-sentence answer for a Service, written from the same values as the decision.

use fixedbitset::FixedBitSet;

use super::world::World;
use super::{L2Outcome, SharedAnswer};
use crate::k8s::EXCLUDE_LB_LABEL;
use crate::metallb::config::Pool;
use crate::report::metallb::Sentence;
use crate::report::Exclusion;

/// `groups`: the non-announcing nodes by the first filter that removes them
/// (`Election::exclusion_groups`). Without `named`, groups of more than four nodes are counted,
/// not named: a report of many Services names them in `excluded` and `nodes` instead.
/// `shared_by`: every other Service answering on the same IP.
pub(super) fn sentence(
    world: &World,
    pool: &Pool,
    l2: &L2Outcome,
    groups: &[(Exclusion, FixedBitSet)],
    named: bool,
    shared_by: &[SharedAnswer],
) -> Sentence {
    let el = &l2.election;
    let ip = &el.ip;
    let head = match head(world, pool, l2) {
        Head::Announces(node) => format!("{node} announces {ip}"),
        // MetalLB elects per Service but ARP answers per IP: a sibling's announcer still answers.
        Head::Nobody { why, .. } if !shared_by.is_empty() => {
            let still: Vec<String> =
                shared_by.iter().map(|s| format!("{} still answers it for {}", s.node, s.service)).collect();
            format!("no node announces {ip} for this Service: {why}; {}", still.join("; "))
        }
        Head::Nobody { verb, why } => format!("nobody {verb} {ip}: {why}"),
    };
    let clauses = clauses(world, el, groups, named);
    let tail = (!clauses.is_empty()).then(|| {
        world.tails.get_or_make(clauses, |clauses| {
            let parts: Vec<String> = clauses.iter().map(|c| c.words(world)).collect();
            parts.join("; ").into()
        })
    });
    Sentence::new(head, tail)
}

/// The first clause, before the IP is written in: who announces, or why nobody does.
enum Head {
    Announces(String),
    /// `verb`: "announces", or "answers for" when an announcer is elected but runs no speaker.
    Nobody {
        verb: &'static str,
        why: String,
    },
}

fn head(world: &World, pool: &Pool, l2: &L2Outcome) -> Head {
    let el = &l2.election;
    let nobody = |why: String| Head::Nobody { verb: "announces", why };
    match (el.expected_announcer(), l2.answering(world)) {
        (Some(n), Some(_)) => Head::Announces(world.table.name(n).to_string()),
        (Some(n), None) => Head::Nobody {
            verb: "answers for",
            why: format!("the election picks {}, which runs no live speaker", world.table.name(n)),
        },
        (None, _) if !el.active_endpoint => nobody("the Service has no serving endpoint".into()),
        (None, _) if el.shared_ip_refusal => {
            nobody("newer MetalLB refuses allow-shared-ip Services on L2Advertisements with serviceSelectors".into())
        }
        (None, _) if pool.l2.is_empty() => nobody(format!("pool {} has no advertisement", pool.name)),
        (None, _) if el.ads_for_service.is_empty() => {
            nobody(format!("no L2Advertisement of pool {} matches the Service", pool.name))
        }
        (None, _) => {
            let ctx = world.l2_context(world.setup.rules(), false);
            nobody(match el.emptied_by(&ctx) {
                Some(Exclusion::NotSelected) => "its advertisements select no existing node".to_string(),
                Some(Exclusion::NoSpeaker) => "no node its advertisements select runs a live speaker".to_string(),
                Some(Exclusion::NetworkUnavailable) => {
                    "every node its advertisements select has NetworkUnavailable=True".to_string()
                }
                Some(Exclusion::ExcludeLabel) => {
                    format!("every node its advertisements select carries {EXCLUDE_LB_LABEL}")
                }
                Some(Exclusion::MemberlistDisabled) => {
                    format!("memberlist is disabled, and MetalLB {} elects nobody without it", world.setup.release)
                }
                Some(Exclusion::Cordoned) => {
                    "every node its advertisements select is cordoned (v0.14.9 drops them)".to_string()
                }
                _ => "no candidate node hosts a serving endpoint (externalTrafficPolicy Local)".to_string(),
            })
        }
    }
}

/// One clause of the verdict, as the values that decide its words: the filter, how many nodes
/// it removed and which of them the words name. Equal clauses read the same, so each distinct
/// tail is written once per run (the 10,000 Services of the benchmark snapshot have 589).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Clause {
    code: Exclusion,
    count: u32,
    /// The node named alone, or whose first role the whole group shares; else `u32::MAX`.
    first: u32,
    /// The whole group has `first`'s first role.
    role: bool,
    /// The nodes named in the parenthesis (the first four), when they are named.
    names: Option<Vec<u32>>,
    /// ExcludeLabel: every node carries the label with an empty value. LostElection: a
    /// preference score, not the hash alone, decided.
    flag: bool,
}

/// One clause per filter that removed nodes, in filter order.
fn clauses(
    world: &World,
    el: &crate::metallb::l2::Election,
    groups: &[(Exclusion, FixedBitSet)],
    named: bool,
) -> Vec<Clause> {
    use Exclusion::*;
    let score = |n: usize| el.scores.as_ref().and_then(|s| s.get(world.table.name(n))).copied().unwrap_or(0);
    let winner = el.expected_announcer();
    let mut out = Vec::new();
    for code in [
        MemberlistDisabled,
        NoSpeaker,
        NetworkUnavailable,
        Cordoned,
        ExcludeLabel,
        NotSelected,
        NoLocalEndpoint,
        LostElection,
    ] {
        let Some((_, group)) = groups.iter().find(|(x, _)| *x == code) else {
            continue;
        };
        let count = group.count_ones(..);
        // The losers in election order, as the per-node rows list them.
        let order = (code == LostElection).then(|| el.order.iter().skip(1).map(|r| r.node));
        let first = match order.clone().and_then(|mut o| o.next()) {
            Some(n) => n,
            None => group.ones().next().unwrap_or_default(),
        };
        let role = count > 1
            && world.node_roles[first]
                .first()
                .is_some_and(|r| world.role_nodes.get(r.as_str()).is_some_and(|nodes| group.is_subset(nodes)));
        let names = (count > 1 && (count <= 4 || named)).then(|| match order {
            Some(o) => o.take(4).map(|n| n as u32).collect(),
            None => group.ones().take(4).map(|n| n as u32).collect(),
        });
        let flag = match code {
            ExcludeLabel => group.ones().all(|n| world.exclude_values[n].as_deref() == Some("")),
            // Without preference scores every score is 0: no need to walk a thousand losers.
            LostElection => el.scores.is_some() && group.ones().chain(winner).any(|n| score(n) > 0),
            _ => false,
        };
        out.push(Clause {
            code,
            count: count as u32,
            first: if count == 1 || role { first as u32 } else { u32::MAX },
            role,
            names,
            flag,
        });
    }
    out
}

impl Clause {
    fn words(&self, world: &World) -> String {
        use Exclusion::*;
        let count = self.count as usize;
        let subject = self.subject(world);
        let verb = if count == 1 { "is" } else { "are" };
        match self.code {
            NoSpeaker => format!("{subject} {} no live speaker", if count == 1 { "runs" } else { "run" }),
            NetworkUnavailable => format!("{subject} {verb} out: NetworkUnavailable=True"),
            MemberlistDisabled => format!("{subject} {verb} no candidate: memberlist is disabled"),
            Cordoned => format!("{subject} {verb} cordoned (v0.14.9 drops cordoned nodes)"),
            ExcludeLabel => {
                let how = if self.flag { "present with an empty value" } else { "the key alone counts" };
                format!("{subject} {verb} excluded by {EXCLUDE_LB_LABEL} ({how})")
            }
            NotSelected => {
                format!("{subject} {verb} not selected by any L2Advertisement matching the Service")
            }
            NoLocalEndpoint => format!(
                "{subject} {} no serving endpoint (externalTrafficPolicy Local)",
                if count == 1 { "hosts" } else { "host" }
            ),
            _ if self.flag => format!("{subject} lost the election (preference score first, then hash)"),
            _ => format!("{subject} lost the hash election"),
        }
    }

    /// "worker-b", "3 control-plane nodes (cp-1, cp-2, cp-3)", "5 nodes (a, b, c, …)" or, its
    /// names not given, "5 nodes".
    fn subject(&self, world: &World) -> String {
        let count = self.count as usize;
        if count == 1 {
            return world.table.name(self.first as usize).to_string();
        }
        let role = self.role.then(|| world.node_roles[self.first as usize].first()).flatten();
        let Some(names) = &self.names else {
            return match role {
                Some(r) => format!("{count} {r} nodes"),
                None => format!("{count} nodes"),
            };
        };
        let names: Vec<&str> = names.iter().map(|&n| world.table.name(n as usize)).collect();
        let more = if count > 4 { format!(", … (+{})", count - 4) } else { String::new() };
        match role {
            Some(r) => format!("{count} {r} nodes ({}{more})", names.join(", ")),
            None => format!("{count} nodes ({}{more})", names.join(", ")),
        }
    }
}
