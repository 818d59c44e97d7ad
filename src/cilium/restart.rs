//! What the next cilium-operator start does to LB-IPAM's allocations (cilium.md §3 and the
//! start-up path of operator/pkg/lbipam, commit named in docs/modelled.md). The operator starts
//! with empty allocators, re-imports every Service's ingress, then satisfies what is still
//! unsatisfied. Go map order decides which Service goes first within the satisfied and the
//! unsatisfied group, which pool serves a generic request, and which of several equally small
//! free blocks AllocAny takes; every order is replayed, so a Service gets the set of outcomes
//! Cilium can reach.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::net::IpAddr;

use super::lbipam::{incompatibility, to_u128, Pool, Reason, Request};
use super::nodeipam::Family;

/// Leaves explored per group of interacting Services before the answer is marked incomplete.
const LEAF_BUDGET: usize = 20_000;
/// Larger groups are sampled (a fixed-seed sequence of orders) instead of enumerated.
const EXHAUSTIVE_MAX: usize = 7;
const SAMPLES: usize = 2_000;

/// The start-up rules of one Cilium release line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Satisfied Services are revalidated before unsatisfied ones (PR #41147, v1.19).
    pub satisfied_first: bool,
    /// Every Service re-imports before any allocates (PR #45543, v1.20).
    pub two_phase: bool,
    /// An imported address already held under the same sharing key is joined instead of dropped (PR #46262, main).
    pub import_joins: bool,
    /// An imported address is entered in the sharing-key index (PR #34783, v1.17).
    pub import_indexes_key: bool,
    pub label: &'static str,
}

impl Rules {
    pub const NEWEST: Rules = Rules {
        satisfied_first: true,
        two_phase: true,
        import_joins: true,
        import_indexes_key: true,
        label: "v1.21/main",
    };

    /// From the operator's (else the agent's) image tag; unknown or unparsable: the newest rules.
    pub fn for_version(version: Option<&str>) -> Rules {
        if version.is_some_and(|v| matches!(v.trim_start_matches('v'), "main" | "latest")) {
            return Rules::NEWEST;
        }
        let numbers = version.map(crate::metallb::install::version_numbers).unwrap_or_default();
        let (major, minor) = match numbers.as_slice() {
            [major, minor, ..] => (*major, *minor),
            _ => return Rules::NEWEST,
        };
        let at_least = |m: u64| (major, minor) >= (1, m);
        Rules {
            satisfied_first: at_least(19),
            two_phase: at_least(20),
            import_joins: at_least(21),
            import_indexes_key: at_least(17),
            label: match () {
                _ if at_least(21) => "v1.21/main",
                _ if at_least(20) => "v1.20",
                _ if at_least(19) => "v1.19",
                _ if at_least(17) => "v1.17-v1.18",
                _ => "v1.16 and older",
            },
        }
    }
}

/// One state a restart can leave a Service in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// `status.loadBalancer.ingress` after the restart, in order.
    pub ingress: Vec<IpAddr>,
    /// The condition LB-IPAM writes; `None` = left as it is (the Service stays satisfied).
    pub condition: Option<(Reason, String)>,
}

#[derive(Debug, Clone, Default)]
pub struct Outcomes {
    pub options: Vec<Outcome>,
    /// Every order Cilium allows was replayed (else a sample of them).
    pub exhaustive: bool,
}

impl Outcomes {
    fn add(&mut self, o: Outcome) {
        if !self.options.contains(&o) {
            self.options.push(o);
        }
    }
}

type RangeId = (usize, usize);

/// What never changes during a replay: per Service, where each ingress address would be imported
/// from, and where its requests can be served.
struct Ctx<'a> {
    pools: &'a [Pool],
    requests: &'a [Request],
    rules: Rules,
    /// Per Service, per ingress entry: the enabled range that would import it (`None` = dropped).
    import: Vec<Vec<(IpAddr, Option<RangeId>)>>,
    /// Satisfied on the status it starts with: revalidated in the first group.
    first_group: Vec<bool>,
}

/// The allocators and the Services being replayed; only what a group touches is copied.
#[derive(Clone)]
struct State<'b> {
    base: &'b Base,
    free: BTreeMap<RangeId, BTreeMap<u128, u128>>,
    /// Address → the Services sharing it.
    holders: BTreeMap<IpAddr, Vec<usize>>,
    /// Sharing key → addresses in the order they entered the index.
    index: BTreeMap<String, Vec<IpAddr>>,
    services: BTreeMap<usize, Svc>,
}

#[derive(Debug, Clone, Default)]
struct Svc {
    ingress: Vec<IpAddr>,
    allocated: Vec<IpAddr>,
    condition: Option<(Reason, String)>,
}

/// The allocators after the Services whose import nothing can disturb.
struct Base {
    used: HashMap<RangeId, BTreeSet<u128>>,
    holders: HashMap<IpAddr, Vec<usize>>,
    index: BTreeMap<String, Vec<IpAddr>>,
}

pub fn replay(pools: &[Pool], requests: &[Request], rules: Rules) -> Vec<Outcomes> {
    let import: Vec<Vec<(IpAddr, Option<RangeId>)>> =
        requests.iter().map(|r| r.ingress.iter().map(|ip| (*ip, importable(pools, r, *ip))).collect()).collect();
    let first_group = requests.iter().map(|r| satisfied(r, &r.ingress)).collect();
    let ctx = Ctx { pools, requests, rules, import, first_group };
    let mut importers: HashMap<IpAddr, BTreeSet<usize>> = HashMap::new();
    for (s, entries) in ctx.import.iter().enumerate() {
        for (ip, range) in entries {
            if range.is_some() {
                importers.entry(*ip).or_default().insert(s);
            }
        }
    }
    let contested = |s: usize| ctx.import[s].iter().any(|(ip, g)| g.is_some() && importers[ip].len() > 1);
    let mut active: Vec<bool> = (0..requests.len())
        .map(|s| {
            let kept: Vec<IpAddr> = ctx.import[s].iter().filter(|(_, g)| g.is_some()).map(|(ip, _)| *ip).collect();
            contested(s) || !satisfied(&requests[s], &kept)
        })
        .collect();
    if !rules.two_phase {
        settle_interleaved(&ctx, &mut active);
    }
    let mut base = Base { used: HashMap::new(), holders: HashMap::new(), index: BTreeMap::new() };
    let mut out: Vec<Outcomes> = vec![Outcomes { options: vec![], exhaustive: true }; requests.len()];
    for s in (0..requests.len()).filter(|&s| !active[s]) {
        let mut ingress = Vec::new();
        for (ip, range) in &ctx.import[s] {
            let Some(g) = range else { continue };
            if base.holders.contains_key(ip) {
                ingress.push(*ip); // a later duplicate entry of its own address
                continue;
            }
            base.holders.insert(*ip, vec![s]);
            base.used.entry(*g).or_default().insert(to_u128(*ip));
            if let (Some(key), true) = (&requests[s].sharing_key, rules.import_indexes_key) {
                base.index.entry(key.clone()).or_default().push(*ip);
            }
            ingress.push(*ip);
        }
        ingress.dedup();
        out[s].add(Outcome { ingress, condition: None });
    }
    for group in groups(&ctx, &active) {
        let mut search = Search { ctx: &ctx, group: &group, leaves: 0, seen: BTreeMap::new(), complete: true, rng: 0 };
        let start = State {
            base: &base,
            free: BTreeMap::new(),
            holders: BTreeMap::new(),
            index: BTreeMap::new(),
            services: group
                .iter()
                .map(|&s| (s, Svc { ingress: requests[s].ingress.clone(), ..Svc::default() }))
                .collect(),
        };
        if group.len() <= EXHAUSTIVE_MAX {
            search.choose(start, Vec::new());
        } else {
            search.complete = false;
            // Seeded from the members' names, so the object order of the snapshot does not matter.
            let mut names: Vec<String> =
                group.iter().map(|&s| format!("{}/{}", requests[s].namespace, requests[s].name)).collect();
            names.sort();
            search.rng = names
                .join(",")
                .bytes()
                .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
            for _ in 0..SAMPLES {
                search.sample(start.clone());
            }
        }
        for &s in &group {
            out[s].exhaustive = search.complete;
            for o in search.seen.remove(&s).unwrap_or_default() {
                out[s].add(o);
            }
        }
    }
    out
}

/// §3.8: the enabled range an ingress address is imported from, or `None` (dropped).
fn importable(pools: &[Pool], r: &Request, ip: IpAddr) -> Option<RangeId> {
    if !r.specific.is_empty() && !r.specific.contains(&ip) {
        return None;
    }
    if !r.families.contains(&family_of(ip)) {
        return None;
    }
    // A reserved first/last address is "in use" with no Services: never imported.
    range_of(pools, r, ip).ok().filter(|&(p, g)| !pools[p].ranges[g].reserved(ip))
}

fn family_of(ip: IpAddr) -> Family {
    if ip.is_ipv4() {
        Family::V4
    } else {
        Family::V6
    }
}

/// `findRangeOfIP`: enabled ranges never overlap (the later pool is in conflict), so at most one
/// contains the address. `Err(true)` = a range contains it but its pool does not select the Service.
fn range_of(pools: &[Pool], r: &Request, ip: IpAddr) -> Result<RangeId, bool> {
    let mut found_pool = false;
    for (p, pool) in pools.iter().enumerate().filter(|(_, p)| p.allocates()) {
        for (g, range) in pool.ranges.iter().enumerate() {
            if range.contains(ip) {
                found_pool = true;
                if pool.selects(&r.labels) {
                    return Ok((p, g));
                }
            }
        }
    }
    Err(found_pool)
}

/// `isSatisfied` on a status: every requested address present, or an address of every requested family.
fn satisfied(r: &Request, ingress: &[IpAddr]) -> bool {
    if !r.specific.is_empty() {
        return r.specific.iter().all(|ip| ingress.contains(ip));
    }
    r.families.iter().all(|f| ingress.iter().any(|ip| family_of(*ip) == *f))
}

/// The enabled ranges a generic request of `family` may be served from, per pool in spec order.
fn generic_ranges(ctx: &Ctx, s: usize, family: Family) -> Vec<Vec<RangeId>> {
    ctx.pools
        .iter()
        .enumerate()
        .filter(|(_, p)| p.allocates() && p.selects(&ctx.requests[s].labels))
        .map(|(p, pool)| {
            pool.ranges.iter().enumerate().filter(|(_, g)| g.family() == family).map(|(g, _)| (p, g)).collect()
        })
        .filter(|v: &Vec<RangeId>| !v.is_empty())
        .collect()
}

/// Every range a Service may take an address from during the replay.
fn touched_ranges(ctx: &Ctx, s: usize) -> Vec<RangeId> {
    let r = &ctx.requests[s];
    let mut out: Vec<RangeId> = ctx.import[s].iter().filter_map(|(_, g)| *g).collect();
    if r.specific.is_empty() {
        for f in &r.families {
            out.extend(generic_ranges(ctx, s, *f).into_iter().flatten());
        }
    } else {
        out.extend(r.specific.iter().filter_map(|ip| range_of(ctx.pools, r, *ip).ok()));
    }
    out
}

/// Before v1.20 a Service allocates right after its own import, so it can take an address a
/// Service later in the order would have imported: those importers join the replay.
fn settle_interleaved(ctx: &Ctx, active: &mut [bool]) {
    loop {
        let mut grown = false;
        let allocating: Vec<(usize, Vec<RangeId>)> =
            (0..active.len()).filter(|&a| active[a]).map(|a| (a, touched_ranges(ctx, a))).collect();
        for (s, is_active) in active.iter_mut().enumerate() {
            if *is_active {
                continue;
            }
            let exposed = allocating.iter().any(|(a, ranges)| {
                let goes_after = ctx.rules.satisfied_first && ctx.first_group[s] && !ctx.first_group[*a];
                !goes_after && ctx.import[s].iter().any(|(_, g)| g.is_some_and(|g| ranges.contains(&g)))
            });
            if exposed {
                *is_active = true;
                grown = true;
            }
        }
        if !grown {
            return;
        }
    }
}

/// Active Services that share a range or a sharing key, each group replayed on its own.
fn groups(ctx: &Ctx, active: &[bool]) -> Vec<Vec<usize>> {
    let members: Vec<usize> = (0..active.len()).filter(|&s| active[s]).collect();
    let mut parent: Vec<usize> = (0..members.len()).collect();
    fn find(parent: &mut [usize], i: usize) -> usize {
        let mut i = i;
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut owner: HashMap<String, usize> = HashMap::new();
    for (i, &s) in members.iter().enumerate() {
        let mut resources: Vec<String> = touched_ranges(ctx, s).iter().map(|(p, g)| format!("range {p}/{g}")).collect();
        if let Some(key) = &ctx.requests[s].sharing_key {
            resources.push(format!("key {key}"));
        }
        for res in resources {
            match owner.get(&res) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
                None => {
                    owner.insert(res, i);
                }
            }
        }
    }
    let mut by_root: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, &s) in members.iter().enumerate() {
        let root = find(&mut parent, i);
        by_root.entry(root).or_default().push(s);
    }
    // Members by name: a sampled replay then does not depend on the snapshot's object order.
    let name = |s: &usize| (&ctx.requests[*s].namespace, &ctx.requests[*s].name);
    by_root
        .into_values()
        .map(|mut g| {
            g.sort_by(|a, b| name(a).cmp(&name(b)));
            g
        })
        .collect()
}

struct Search<'c, 'a> {
    ctx: &'c Ctx<'a>,
    group: &'c [usize],
    leaves: usize,
    seen: BTreeMap<usize, Vec<Outcome>>,
    complete: bool,
    rng: u64,
}

impl Search<'_, '_> {
    /// The Services that may go next: the satisfied group first, when the release does that.
    fn next_candidates(&self, order: &[usize]) -> Vec<usize> {
        let left: Vec<usize> = self.group.iter().copied().filter(|s| !order.contains(s)).collect();
        if self.ctx.rules.satisfied_first && left.iter().any(|&s| self.ctx.first_group[s]) {
            return left.into_iter().filter(|&s| self.ctx.first_group[s]).collect();
        }
        left
    }

    fn choose(&mut self, state: State, order: Vec<usize>) {
        if self.leaves >= LEAF_BUDGET {
            self.complete = false;
            return;
        }
        if order.len() == self.group.len() {
            if self.ctx.rules.two_phase {
                self.phase_b(state, &order, 0);
            } else {
                self.leaf(&state);
            }
            return;
        }
        for s in self.next_candidates(&order) {
            let mut next = state.clone();
            import(self.ctx, &mut next, s);
            let mut order = order.clone();
            order.push(s);
            if self.ctx.rules.two_phase {
                self.choose(next, order);
            } else {
                for branch in satisfy(self.ctx, next, s) {
                    self.choose(branch, order.clone());
                }
            }
        }
    }

    fn phase_b(&mut self, state: State, order: &[usize], at: usize) {
        if at == order.len() {
            self.leaf(&state);
            return;
        }
        if self.leaves >= LEAF_BUDGET {
            self.complete = false;
            return;
        }
        for branch in satisfy(self.ctx, state, order[at]) {
            self.phase_b(branch, order, at + 1);
        }
    }

    /// One whole replay with every choice taken from a fixed-seed sequence.
    fn sample(&mut self, mut state: State) {
        let mut order = Vec::new();
        while order.len() < self.group.len() {
            let candidates = self.next_candidates(&order);
            let s = candidates[self.pick(candidates.len())];
            order.push(s);
            import(self.ctx, &mut state, s);
            if !self.ctx.rules.two_phase {
                let mut branches = satisfy(self.ctx, state, s);
                let i = self.pick(branches.len());
                state = branches.swap_remove(i);
            }
        }
        if self.ctx.rules.two_phase {
            for &s in &order {
                let mut branches = satisfy(self.ctx, state, s);
                let i = self.pick(branches.len());
                state = branches.swap_remove(i);
            }
        }
        self.leaf(&state);
    }

    fn pick(&mut self, n: usize) -> usize {
        // splitmix64: deterministic, so the same snapshot always gives the same sample.
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }

    fn leaf(&mut self, state: &State) {
        self.leaves += 1;
        for (&s, svc) in &state.services {
            let o = Outcome { ingress: svc.ingress.clone(), condition: svc.condition.clone() };
            let seen = self.seen.entry(s).or_default();
            if !seen.contains(&o) {
                seen.push(o);
            }
        }
    }
}

impl State<'_> {
    fn holder(&self, ip: IpAddr) -> Option<&Vec<usize>> {
        self.holders.get(&ip).or_else(|| self.base.holders.get(&ip))
    }

    fn blocks(&mut self, ctx: &Ctx, g: RangeId) -> &mut BTreeMap<u128, u128> {
        let base = self.base;
        self.free.entry(g).or_insert_with(|| {
            let range = &ctx.pools[g.0].ranges[g.1];
            let (mut from, mut to) = (to_u128(range.from), to_u128(range.to));
            if range.reserves_first_last {
                from += 1;
                to -= 1;
            }
            let mut blocks = BTreeMap::new();
            let mut next = from;
            for &u in base.used.get(&g).into_iter().flatten() {
                if u > next {
                    blocks.insert(next, u - 1);
                }
                next = next.max(u + 1);
            }
            if next <= to {
                blocks.insert(next, to);
            }
            blocks
        })
    }

    /// `Alloc(ip)`: false when the address is in use (or reserved).
    fn take(&mut self, ctx: &Ctx, g: RangeId, ip: IpAddr) -> bool {
        let u = to_u128(ip);
        let blocks = self.blocks(ctx, g);
        let Some((&start, &end)) = blocks.range(..=u).next_back() else {
            return false;
        };
        if end < u {
            return false;
        }
        blocks.remove(&start);
        if start < u {
            blocks.insert(start, u - 1);
        }
        if u < end {
            blocks.insert(u + 1, end);
        }
        true
    }

    /// `AllocAny`: the first address of the smallest free block; equal sizes are heap order in
    /// Go, so every one of them is a possibility. Empty = full.
    fn any_choices(&mut self, ctx: &Ctx, g: RangeId) -> Vec<u128> {
        let blocks = self.blocks(ctx, g);
        let Some(min) = blocks.iter().map(|(s, e)| e - s).min() else {
            return vec![];
        };
        blocks.iter().filter(|(s, e)| *e - *s == min).map(|(s, _)| *s).collect()
    }

    fn join(&mut self, ip: IpAddr, s: usize) {
        let mut members = self.holder(ip).cloned().unwrap_or_default();
        members.push(s);
        self.holders.insert(ip, members);
    }

    fn index_add(&mut self, key: &str, ip: IpAddr) {
        self.index.entry(key.to_string()).or_default().push(ip);
    }
}

fn compatible(ctx: &Ctx, state: &State, s: usize, ip: IpAddr) -> Result<(), &'static str> {
    let members = state.holder(ip).map(Vec::as_slice).unwrap_or_default();
    match members.iter().find_map(|&o| incompatibility(&ctx.requests[s], &ctx.requests[o])) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

fn from_u128(v: u128, v4: bool) -> IpAddr {
    if v4 {
        IpAddr::V4((v as u32).into())
    } else {
        IpAddr::V6(v.into())
    }
}

/// `stripOrImportIngresses` at start-up: nothing is allocated yet, so every entry is either
/// imported, joined (same sharing key, compatible; newest releases) or dropped.
fn import(ctx: &Ctx, state: &mut State, s: usize) {
    let r = &ctx.requests[s];
    let mut kept = Vec::new();
    let mut allocated = std::mem::take(&mut state.services.get_mut(&s).expect("replayed").allocated);
    for &(ip, range) in &ctx.import[s] {
        if allocated.contains(&ip) {
            kept.push(ip);
            continue;
        }
        let Some(g) = range else { continue };
        if state.take(ctx, g, ip) {
            state.holders.insert(ip, vec![s]);
            if let (Some(key), true) = (&r.sharing_key, ctx.rules.import_indexes_key) {
                state.index_add(key, ip);
            }
        } else {
            let joins = ctx.rules.import_joins && r.sharing_key.is_some() && compatible(ctx, state, s, ip).is_ok();
            if !joins {
                continue;
            }
            state.join(ip, s);
        }
        allocated.push(ip);
        kept.push(ip);
    }
    kept.dedup();
    let svc = state.services.get_mut(&s).expect("replayed");
    svc.ingress = kept;
    svc.allocated = allocated;
}

/// `satisfyService` when the Service is not satisfied after its import; every state it can
/// leave behind (pool order and smallest-block ties are Go's to choose).
fn satisfy<'b>(ctx: &Ctx, state: State<'b>, s: usize) -> Vec<State<'b>> {
    let r = &ctx.requests[s];
    if satisfied(r, &state.services[&s].ingress) {
        return vec![state];
    }
    let mut states = if r.specific.is_empty() {
        let mut states = vec![state];
        for f in [Family::V4, Family::V6] {
            if !r.families.contains(&f) {
                continue;
            }
            states = states.into_iter().flat_map(|st| generic(ctx, st, s, f)).collect();
        }
        states
    } else {
        vec![specific(ctx, state, s)]
    };
    for st in &mut states {
        let svc = st.services.get_mut(&s).expect("replayed");
        for ip in svc.allocated.clone() {
            if !svc.ingress.contains(&ip) {
                svc.ingress.push(ip);
            }
        }
        if satisfied(r, &svc.ingress) {
            svc.condition = Some((Reason::Satisfied, String::new()));
        }
    }
    states
}

fn fail(state: &mut State, s: usize, reason: Reason, message: String) {
    state.services.get_mut(&s).expect("replayed").condition = Some((reason, message));
}

fn specific<'b>(ctx: &Ctx, mut state: State<'b>, s: usize) -> State<'b> {
    let r = &ctx.requests[s];
    for &ip in &r.specific {
        if state.services[&s].allocated.contains(&ip) {
            continue;
        }
        let g = match range_of(ctx.pools, r, ip) {
            Ok(g) => g,
            Err(false) => {
                fail(&mut state, s, Reason::NoPool, format!("No pool exists with a CIDR containing '{ip}'"));
                continue;
            }
            Err(true) => {
                fail(
                    &mut state,
                    s,
                    Reason::PoolSelectorMismatch,
                    format!("The pool with the CIDR containing '{ip}', doesn't select this service"),
                );
                continue;
            }
        };
        if state.take(ctx, g, ip) {
            state.holders.insert(ip, vec![s]);
            if let Some(key) = &r.sharing_key {
                state.index_add(key, ip);
            }
        } else if r.sharing_key.is_none() || ctx.pools[g.0].ranges[g.1].reserved(ip) {
            fail(
                &mut state,
                s,
                Reason::AlreadyAllocated,
                format!("The IP '{ip}' is already allocated to another service"),
            );
            continue;
        } else if let Err(why) = compatible(ctx, &state, s, ip) {
            fail(
                &mut state,
                s,
                Reason::AlreadyAllocatedIncompatibleService,
                format!("The IP '{ip}' is already allocated to an incompatible service. Reason: {why}"),
            );
            continue;
        } else {
            state.join(ip, s);
        }
        state.services.get_mut(&s).expect("replayed").allocated.push(ip);
    }
    state
}

fn generic<'b>(ctx: &Ctx, mut state: State<'b>, s: usize, family: Family) -> Vec<State<'b>> {
    let r = &ctx.requests[s];
    if state.services[&s].allocated.iter().any(|ip| family_of(*ip) == family) {
        return vec![state];
    }
    if let Some(key) = &r.sharing_key {
        let fits = |ip: &IpAddr| family_of(*ip) == family && compatible(ctx, &state, s, *ip).is_ok();
        // The first compatible entry of the index joins. Entries from the imports nothing can
        // disturb come first, in an order the replay does not fix: any of them may be first.
        let settled: Vec<IpAddr> = state.base.index.get(key).into_iter().flatten().copied().filter(fits).collect();
        let choices = if settled.is_empty() {
            state.index.get(key).into_iter().flatten().copied().find(fits).into_iter().collect()
        } else {
            settled
        };
        if !choices.is_empty() {
            return choices
                .into_iter()
                .map(|ip| {
                    let mut st = state.clone();
                    st.join(ip, s);
                    st.services.get_mut(&s).expect("replayed").allocated.push(ip);
                    st
                })
                .collect();
        }
    }
    let pools = generic_ranges(ctx, s, family);
    if pools.is_empty() {
        fail(
            &mut state,
            s,
            Reason::NoPool,
            "There are no enabled CiliumLoadBalancerIPPools that match this service".into(),
        );
        return vec![state];
    }
    let mut out = Vec::new();
    for ranges in &pools {
        // Whichever pool Go's map order puts first serves from its first range with room.
        let Some((g, starts)) = ranges.iter().find_map(|&g| {
            let starts = state.any_choices(ctx, g);
            (!starts.is_empty()).then_some((g, starts))
        }) else {
            continue;
        };
        for start in starts {
            let ip = from_u128(start, family == Family::V4);
            let mut st = state.clone();
            st.take(ctx, g, ip);
            st.holders.insert(ip, vec![s]);
            if let Some(key) = &r.sharing_key {
                st.index_add(key, ip);
            }
            st.services.get_mut(&s).expect("replayed").allocated.push(ip);
            out.push(st);
        }
    }
    if out.is_empty() {
        fail(
            &mut state,
            s,
            Reason::OutOfIps,
            "All enabled CiliumLoadBalancerIPPools that match this service ran out of allocatable IPs".into(),
        );
        return vec![state];
    }
    out
}
