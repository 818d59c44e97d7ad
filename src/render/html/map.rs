//! The node × IP map of MetalLB's layer-2 elections: a row per node, a column per IP grouped by
//! pool, each cell what that node does for that IP and, when it does nothing, the first filter
//! that took it out. Past [`FULL_MAP_CELLS`] the map folds to a column per pool (how many of the
//! pool's IPs each node answers for, and why not the others), and each pool links to a table of
//! its IPs: the whole cluster stays one screen wide at 1,000 nodes × 10,000 IPs.

use std::collections::BTreeMap;
use std::net::IpAddr;

use maud::{html, Markup};

use super::count;
use crate::report::cilium::l2 as cilium;
use crate::report::{Exclusion, L2Cell, Layer2, Report, ServiceReport};

/// Cells drawn one by one; above it, a column per pool.
pub(super) const FULL_MAP_CELLS: usize = 40_000;

/// One IP of the map and the Services announced on it (several share an IP).
struct Column<'r> {
    ip: &'r str,
    services: Vec<(&'r ServiceReport, &'r Layer2, &'r [L2Cell])>,
}

impl Column<'_> {
    /// A node answers ARP/NDP for the IP when it announces any Service on it (MetalLB elects per
    /// Service, the answer is per IP); otherwise its part for the first Service.
    fn cell(&self, node: usize) -> L2Cell {
        let cells = self.services.iter().map(|(_, _, c)| c[node]);
        cells.clone().find(|c| *c == L2Cell::Announces).unwrap_or_else(|| self.services[0].2[node])
    }
}

struct Pool<'r> {
    name: &'r str,
    columns: Vec<Column<'r>>,
}

fn pools(report: &Report) -> Vec<Pool<'_>> {
    let mut by_pool: BTreeMap<&str, BTreeMap<(Option<IpAddr>, &str), Column>> = BTreeMap::new();
    for svc in &report.services {
        let Some(m) = &svc.metallb else { continue };
        let Some(l2) = &m.layer2 else { continue };
        let Some(cells) = l2.cells.as_deref() else { continue };
        let pool = m.pool.as_deref().unwrap_or("-");
        let key = (l2.ip.parse().ok(), l2.ip.as_str());
        by_pool
            .entry(pool)
            .or_default()
            .entry(key)
            .or_insert_with(|| Column { ip: &l2.ip, services: Vec::new() })
            .services
            .push((svc, l2, cells));
    }
    by_pool.into_iter().map(|(name, columns)| Pool { name, columns: columns.into_values().collect() }).collect()
}

/// The short mark of a cell, its class (colour) and its words.
fn mark(cell: L2Cell, rank: Option<usize>) -> (&'static str, &'static str) {
    match cell {
        L2Cell::Announces => ("●", "c-ann"),
        L2Cell::ElectedNoSpeaker => ("○", "c-dead"),
        L2Cell::Lost => match rank {
            Some(2) => ("2", "c-lost"),
            Some(3) => ("3", "c-lost"),
            _ => ("·", "c-lost"),
        },
        L2Cell::Out(x) => (
            match x {
                Exclusion::NoServingEndpoint => "∅",
                Exclusion::SharedIpRefused => "R",
                Exclusion::MemberlistDisabled => "M",
                Exclusion::NoSpeaker => "S",
                Exclusion::NetworkUnavailable => "N",
                Exclusion::Cordoned => "C",
                Exclusion::ExcludeLabel => "X",
                Exclusion::NotSelected => "–",
                Exclusion::NoLocalEndpoint => "E",
                Exclusion::LostElection => "·",
            },
            if x.node_wide() { "c-node" } else { "c-svc" },
        ),
    }
}

/// What a node does for one Service, in words.
fn words(cell: L2Cell, l2: &Layer2, node: &str) -> String {
    match cell {
        L2Cell::Announces => "announces".into(),
        L2Cell::ElectedNoSpeaker => "elected, but runs no live speaker: nobody answers".into(),
        L2Cell::Lost => match (rank_of(l2, node), &l2.expected_announcer) {
            (Some(r), Some(w)) => format!("rank {r}: lost the election to {w}"),
            (None, Some(w)) => format!("lost the election to {w}"),
            _ => "lost the election".into(),
        },
        L2Cell::Out(x) => format!("excluded: {}", x.words()),
    }
}

fn rank_of(l2: &Layer2, node: &str) -> Option<usize> {
    l2.ranks.iter().find(|r| &*r.node == node).map(|r| r.rank)
}

const LEGEND: &[(&str, &str, &str)] = &[
    ("●", "c-ann", "announces (answers ARP/NDP)"),
    ("○", "c-dead", "elected, but no live speaker: nobody answers"),
    ("2 3 ·", "c-lost", "lost the election (rank, when among the first three)"),
    ("S", "c-node", "no live speaker"),
    ("N", "c-node", "NetworkUnavailable"),
    ("C", "c-node", "cordoned (v0.14.9)"),
    ("X", "c-node", "exclude-from-external-load-balancers label"),
    ("M", "c-node", "memberlist disabled"),
    ("–", "c-svc", "not selected by the pool's L2Advertisements"),
    ("E", "c-svc", "no local endpoint (externalTrafficPolicy: Local)"),
    ("∅", "c-svc", "the Service has no serving endpoint"),
    ("R", "c-svc", "shared IP refused (allow-shared-ip with serviceSelectors)"),
];

pub(super) fn map(report: &Report) -> Markup {
    let pools = pools(report);
    let ips: usize = pools.iter().map(|p| p.columns.len()).sum();
    let nodes = &report.nodes;
    if ips == 0 {
        return html! {};
    }
    let full = nodes.len() * ips <= FULL_MAP_CELLS;
    html! {
        (super::section_heading("map", "Layer 2 map"))
        p.note {
            "Which node answers ARP/NDP for each IP MetalLB announces in layer 2, and why each other node does not "
            "(the first filter that removes it, in MetalLB's order). "
            (count(nodes.len(), "node", "nodes")) " × " (count(ips, "IP", "IPs")) " in " (count(pools.len(), "pool", "pools")) "."
            @if !full { " Too many cells for one table: a column per pool below; each pool links to its IPs." }
        }
        details.legend open {
            summary { "Legend" }
            ul.legend { @for (m, class, text) in LEGEND { li { span class={ "cell " (class) } aria-hidden="true" { (m) } " " (text) } } }
        }
        @if full { (full_map(report, &pools)) } @else { (pool_map(report, &pools)) }
        @for pool in &pools { (pool_ips(pool, full)) }
    }
}

fn full_map(report: &Report, pools: &[Pool]) -> Markup {
    html! {
        p.note { "Rows: nodes. Columns: IPs, grouped by pool. Hover or focus a cell for every Service on the IP." }
        div.scroll {
            table.map {
                thead {
                    tr {
                        th scope="col" rowspan="2" { "Node" }
                        @for pool in pools {
                            th scope="colgroup" colspan=(pool.columns.len()) { a href={ "#pool-" (pool.name) } { (pool.name) } }
                        }
                    }
                    tr { @for pool in pools { @for c in &pool.columns { th.ip scope="col" { span { (c.ip) } } } } }
                }
                tbody {
                    @for (n, node) in report.nodes.iter().enumerate() {
                        tr {
                            th scope="row" { (node.name) }
                            @for pool in pools { @for c in &pool.columns { (cell(c, n, &node.name)) } }
                        }
                    }
                }
            }
        }
    }
}

fn cell(c: &Column, n: usize, node: &str) -> Markup {
    let state = c.cell(n);
    let first = c.services[0].1;
    let (m, class) = mark(state, rank_of(first, node));
    let title: Vec<String> = c
        .services
        .iter()
        .map(|(svc, l2, cells)| format!("{}/{}: {node} {}", svc.namespace, svc.name, words(cells[n], l2, node)))
        .collect();
    let title = format!("{} — {}", c.ip, title.join("; "));
    html! { td class={ "cell " (class) } title=(title) { (m) } }
}

/// A node's count per state over a set of columns.
#[derive(Default)]
struct Tally {
    announces: usize,
    dead: usize,
    lost: usize,
    /// Per first filter, in the order met.
    out: Vec<(Exclusion, usize)>,
}

impl Tally {
    fn add(&mut self, cell: L2Cell) {
        match cell {
            L2Cell::Announces => self.announces += 1,
            L2Cell::ElectedNoSpeaker => self.dead += 1,
            L2Cell::Lost => self.lost += 1,
            L2Cell::Out(x) => match self.out.iter_mut().find(|(y, _)| *y == x) {
                Some((_, n)) => *n += 1,
                None => self.out.push((x, 1)),
            },
        }
    }

    fn words(&self) -> String {
        let mut parts = vec![format!("{} announced", self.announces)];
        if self.dead > 0 {
            parts.push(format!("{} elected without a live speaker", self.dead));
        }
        if self.lost > 0 {
            parts.push(format!("{} lost the election", self.lost));
        }
        parts.extend(self.out.iter().map(|(x, n)| format!("{n} {}", x.words())));
        parts.join(", ")
    }

    /// The mark and class the folded cell shows: what most of its IPs say.
    fn mark(&self, total: usize) -> (String, &'static str) {
        if self.announces > 0 {
            return (self.announces.to_string(), "c-ann");
        }
        if self.dead > 0 {
            return ("○".into(), "c-dead");
        }
        match self.out.iter().max_by_key(|(_, n)| *n) {
            Some(&(x, n)) if n * 2 > total => {
                let (m, class) = mark(L2Cell::Out(x), None);
                (m.into(), class)
            }
            _ => ("·".into(), "c-lost"),
        }
    }
}

fn pool_map(report: &Report, pools: &[Pool]) -> Markup {
    html! {
        p.note { "Rows: nodes. Columns: pools; a number is how many of the pool's IPs the node answers for. Hover or focus a cell for the rest." }
        div.scroll {
            table.map.folded {
                thead { tr {
                    th scope="col" { "Node" }
                    @for pool in pools { th scope="col" { a href={ "#pool-" (pool.name) } { (pool.name) } br; span.muted { (pool.columns.len()) " IPs" } } }
                } }
                tbody {
                    @for (n, node) in report.nodes.iter().enumerate() {
                        tr {
                            th scope="row" { (node.name) }
                            @for pool in pools {
                                @let tally = pool.columns.iter().fold(Tally::default(), |mut t, c| { t.add(c.cell(n)); t });
                                @let (m, class) = tally.mark(pool.columns.len());
                                @let title = format!("{} · {}: {}", node.name, pool.name, tally.words());
                                td class={ "cell " (class) } title=(title) { (m) }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A pool's IPs: the winner and the funnel of each.
fn pool_ips(pool: &Pool, open: bool) -> Markup {
    html! {
        details.pool id={ "pool-" (pool.name) } open[open] {
            summary { "Pool " strong { (pool.name) } ": " (count(pool.columns.len(), "IP", "IPs")) }
            table.ips data-sortable {
                thead { tr { @for h in ["IP", "Services", "Announcer", "Candidates, then with a local endpoint", "Emptied by"] { th scope="col" { button type="button" { (h) } } } } }
                tbody {
                    @for c in &pool.columns {
                        @let l2 = c.services[0].1;
                        tr {
                            td.mono { (c.ip) }
                            td.mono { @for (i, (svc, _, _)) in c.services.iter().enumerate() { @if i > 0 { ", " } (svc.namespace) "/" (svc.name) } }
                            td.mono { (l2.expected_announcer.as_deref().unwrap_or("<none>")) }
                            td data-sort=(l2.available) { (l2.candidates) " candidates, " (l2.available) " available" }
                            td { (l2.emptied_by.map(|x| x.words()).unwrap_or("-")) }
                        }
                    }
                }
            }
        }
    }
}

/// One IP Cilium L2 announces, with the Services on it.
struct CiliumColumn<'r> {
    ip: &'r str,
    services: Vec<(&'r ServiceReport, &'r cilium::CellRow)>,
}

impl CiliumColumn<'_> {
    /// The holder of any Service's Lease on the IP answers for it.
    fn cell(&self, node: usize) -> cilium::L2Cell {
        let cells = self.services.iter().map(|(_, row)| row.cells[node]);
        cells.clone().find(|c| *c == cilium::L2Cell::Holds).unwrap_or(self.services[0].1.cells[node])
    }
}

fn cilium_mark(cell: cilium::L2Cell) -> (&'static str, &'static str, &'static str) {
    match cell {
        cilium::L2Cell::Holds => ("●", "c-ann", "holds the Lease: answers ARP/NDP"),
        cilium::L2Cell::Competes => ("◇", "c-lost", "competes for the Lease: takes over if the holder stops renewing"),
        cilium::L2Cell::Out(x) => match x {
            cilium::Exclusion::NotSelectedByPolicy => ("P", "c-svc", "not selected by any L2 policy's nodeSelector"),
            cilium::Exclusion::NoLocalEndpoint => {
                ("E", "c-svc", "no ready local backend (externalTrafficPolicy: Local)")
            }
            cilium::Exclusion::AgentNotReady => ("A", "c-node", "Cilium agent not ready"),
        },
    }
}

/// Cilium L2 announcements: a row per node, a column per announced address grouped by LB-IPAM
/// pool, each cell the node's part in the Lease; folded per pool past [`FULL_MAP_CELLS`].
pub(super) fn cilium_map(report: &Report) -> Markup {
    let mut by_pool: BTreeMap<&str, BTreeMap<(Option<IpAddr>, &str), CiliumColumn>> = BTreeMap::new();
    let mut nodes: Option<&std::sync::Arc<[std::sync::Arc<str>]>> = None;
    for svc in &report.services {
        let Some(c) = &svc.cilium else { continue };
        let Some(l2) = &c.l2 else { continue };
        let Some(row) = &l2.cells else { continue };
        nodes.get_or_insert(&row.nodes);
        for ip in l2.lb_addresses.iter().chain(&l2.external_addresses) {
            let pool =
                c.lbipam.as_ref().and_then(|v| v.held.iter().find(|h| &h.ip == ip)).map_or("-", |h| h.pool.as_str());
            by_pool
                .entry(pool)
                .or_default()
                .entry((ip.parse().ok(), ip.as_str()))
                .or_insert_with(|| CiliumColumn { ip, services: Vec::new() })
                .services
                .push((svc, row));
        }
    }
    let Some(nodes) = nodes else { return html! {} };
    let pools: Vec<(&str, Vec<CiliumColumn>)> =
        by_pool.into_iter().map(|(name, columns)| (name, columns.into_values().collect())).collect();
    let ips: usize = pools.iter().map(|(_, c)| c.len()).sum();
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by(|a, b| nodes[*a].cmp(&nodes[*b]));
    let full = nodes.len() * ips <= FULL_MAP_CELLS;
    let legend = [
        cilium::L2Cell::Holds,
        cilium::L2Cell::Competes,
        cilium::L2Cell::Out(cilium::Exclusion::NotSelectedByPolicy),
        cilium::L2Cell::Out(cilium::Exclusion::NoLocalEndpoint),
        cilium::L2Cell::Out(cilium::Exclusion::AgentNotReady),
    ];
    html! {
        (super::section_heading("cilium-map", "Cilium L2 map"))
        p.note {
            "Which node holds each address's Lease (and so answers ARP/NDP), which nodes compete for it, and why the others do not. "
            (count(nodes.len(), "node", "nodes")) " × " (count(ips, "address", "addresses")) "."
            @if !full { " Too many cells for one table: a column per pool, counting the addresses each node holds." }
        }
        ul.legend { @for c in legend { @let (m, class, text) = cilium_mark(c); li { span class={ "cell " (class) } aria-hidden="true" { (m) } " " (text) } } }
        div.scroll {
            table class=(if full { "map cilium" } else { "map cilium folded" }) {
                thead {
                    @if full {
                        tr {
                            th scope="col" rowspan="2" { "Node" }
                            @for (pool, columns) in &pools { th scope="colgroup" colspan=(columns.len()) { (pool) } }
                        }
                        tr { @for (_, columns) in &pools { @for c in columns { th.ip scope="col" { span { (c.ip) } } } } }
                    } @else {
                        tr { th scope="col" { "Node" } @for (pool, columns) in &pools { th scope="col" { (pool) br; span.muted { (columns.len()) " addresses" } } } }
                    }
                }
                tbody {
                    @for &n in &order {
                        tr {
                            th scope="row" { (nodes[n]) }
                            @for (pool, columns) in &pools {
                                @if full {
                                    @for c in columns {
                                        @let cell = c.cell(n);
                                        @let (m, class, _) = cilium_mark(cell);
                                        @let title = cilium_title(c, n, &nodes[n]);
                                        td class={ "cell " (class) } title=(title) { (m) }
                                    }
                                } @else {
                                    @let held = columns.iter().filter(|c| c.cell(n) == cilium::L2Cell::Holds).count();
                                    @let competes = columns.iter().filter(|c| c.cell(n) == cilium::L2Cell::Competes).count();
                                    @let title = format!("{} · {pool}: holds {held}, competes for {competes} of {}", nodes[n], columns.len());
                                    @if held > 0 { td class="cell c-ann" title=(title) { (held) } }
                                    @else if competes > 0 { td class="cell c-lost" title=(title) { "◇" } }
                                    @else { td class="cell c-svc" title=(title) { "–" } }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn cilium_title(c: &CiliumColumn, n: usize, node: &str) -> String {
    let parts: Vec<String> = c
        .services
        .iter()
        .map(|(svc, row)| format!("{}/{}: {node} {}", svc.namespace, svc.name, cilium_mark(row.cells[n]).2))
        .collect();
    format!("{} — {}", c.ip, parts.join("; "))
}
