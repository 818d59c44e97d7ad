#!/usr/bin/env python3
"""Generate a 23-day `kubectl lbdoctor history` story: snapshot, speaker logs and ground truth.

    python3 scripts/gen-history-story.py [--variant story|two-nodes] [--out-dir DIR]
                                          (default DIR: testdata/history/<variant>)

Deterministic (fixed seed; same bytes on every run; Python 3 stdlib only). Writes into DIR:

  cluster.yaml            the cluster at capture time (after the fix), `kubectl get -o yaml` shapes.
  logs/<speaker pod>.log  `kubectl logs --since-time=<window start> -n metallb-system POD -c speaker`
                          at capture time: only each Pod's CURRENT container.
  truth.json              the ground truth, taken from the simulation's own state (who really
                          announced which IP when), never from reading the logs back.
  README.md               the story, the truth definitions, the counts, where the evidence is.

This is an independent model of MetalLB v0.16.1 (layer 2, memberlist v0.5.1) written from how
MetalLB and memberlist behave, not from the lbdoctor history code. A discrete-event simulation
runs every speaker with its own memberlist view and its own copy of the configuration; a
speaker announces an IP iff it is the sha256 winner among the candidates of ITS view, and logs
serviceAnnounced on every reconcile it wins, serviceWithdrawn (notOwner) when it stops.

The story (homelab, 8 nodes): the speaker DaemonSet is rolled (rollout restart) on day 1; from
then on gpu-1's speaker is SIGKILLed (exit 137) whenever the GPU host is under memory pressure
(a host watchdog kills it), so it crash-loops in bursts for ~17 days, with some memberlist flaps
(stalls without a restart) in between. On day 14 the operator excludes gpu-1 from the
L2Advertisement; gpu-1 keeps crash-looping until day 18, moving no IP any more. The snapshot is
taken on day 24, 23 days after the window start.

`--variant two-nodes` (testdata/history/two-nodes) is the same model with a second flapping node
(storage-1, from day 12, never fixed, still a candidate at capture), a second pool whose
L2Advertisement gets a node added (IPs move between stable nodes), a stable node OOMKilled once,
a Service deleted mid-window and an externalTrafficPolicy: Local Service whose endpoint moves.
The default variant's output is unchanged by it (byte for byte).

`--variant fast-returns` (testdata/history/fast-returns) is the story with fast returns: in most
pressure bursts gpu-1's new container is killed 3-6.5 s after it starts, so it joins, takes its IPs
back and leaves again within seconds, and the runner-up's notOwner withdrawal and its next
takeover lie a few seconds apart; kubelet restarts it 11-12 s after each kill (no back-off
growth). Half the failure marks are missing from every surviving log (the marking peer's line is
in a container log that is gone), so those departures show only as the peers' NodeLeave events.
The default variant's output is unchanged by it too.
"""

import argparse
import datetime as dt
import hashlib
import heapq
import json
import os
import random
import sys
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from k8s_yaml import K8S_ALNUM, LOWER, Names, dump_documents  # noqa: E402  (what the generators share)

SEED = 20261124
rng = random.Random(SEED)
# --variant fast-returns (see the docstring); the other variants never read it as True.
FAST = False

# --------------------------------------------------------------------------- time
# Instants are integers: nanoseconds since the Unix epoch, UTC.

SEC = 1_000_000_000
MS = 1_000_000
MIN = 60 * SEC
HOUR = 60 * MIN
DAY = 24 * HOUR
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def ns_of(text):
    d = dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    return int((d - _EPOCH).total_seconds()) * SEC


def rfc3339(ns):
    """Go's time.RFC3339 in UTC: whole seconds (truncated), as the speaker's `ts` is written."""
    return (_EPOCH + dt.timedelta(seconds=ns // SEC)).strftime("%Y-%m-%dT%H:%M:%SZ")


def day_of(ns):
    return rfc3339(ns)[:10]


def u_ms(lo, hi):
    """A random duration between lo and hi milliseconds, in ns (microsecond grain)."""
    return rng.randint(lo * 1000, hi * 1000) * 1000


CAPTURED_AT = "2026-11-24T07:45:00Z"
CAPTURED = ns_of(CAPTURED_AT)
WINDOW_START = CAPTURED - 23 * DAY  # 2026-11-01T07:45:00Z, the --since-time
ROLLOUT_AT = ns_of("2026-11-01T10:04:12Z")  # kubectl rollout restart ds/speaker
FIX_AT = ns_of("2026-11-14T19:26:41Z")  # kubectl apply of L2Advertisement l2 with nodeSelectors
STABLE_FROM = ns_of("2026-11-18T05:40:00Z")  # no pressure on gpu-1 after this

TOOL_VERSION = "0.1.0"
SERVER_VERSION = "v1.33.4"
METALLB_VERSION = "v0.16.1"
MLB_NS = "metallb-system"
POOL = "lan"
POOL_FIRST, POOL_LAST = 200, 249
EXCLUDE_LB = "node.kubernetes.io/exclude-from-external-load-balancers"
GPU = "gpu-1"
CP = "cp-1"

# --------------------------------------------------------------------------- cluster model

NODES = [
    # name, InternalIP, pod /24 index, role
    ("cp-1", "192.0.2.11", 0, "control-plane"),
    ("worker-a", "192.0.2.21", 1, "worker"),
    ("worker-b", "192.0.2.22", 2, "worker"),
    ("worker-c", "192.0.2.23", 3, "worker"),
    ("worker-d", "192.0.2.24", 4, "worker"),
    ("worker-e", "192.0.2.25", 5, "worker"),
    ("storage-1", "192.0.2.41", 6, "storage"),
    ("gpu-1", "192.0.2.51", 7, "gpu"),
]
NODE_NAMES = [n for n, *_ in NODES]
NODE_IP = {n: ip for n, ip, _, _ in NODES}
NODE_IDX = {n: i for n, _, i, _ in NODES}
STABLE = [n for n in NODE_NAMES if n != GPU]

# The rollout order (maxUnavailable 1). Every IP's runner-up is rolled before its owner, so the
# runner-up's takeover and its notOwner withdrawal both land in its NEW container's log (the one
# kubectl shows). gpu-1 goes 7th; cp-1 (never a candidate) last, while gpu-1 starts crash-looping.
ROLLOUT_ORDER = ["worker-a", "worker-b", "worker-c", "worker-d", "worker-e", "storage-1", "gpu-1", "cp-1"]


def sha_key(node, ip):
    return hashlib.sha256(f"{node}#{ip}".encode()).hexdigest()


def l2_order(ip, candidates):
    """MetalLB layer 2: the candidates in ascending sha256(node + "#" + ip)."""
    return sorted(candidates, key=lambda n: sha_key(n, ip))


ORIG_CANDIDATES = [n for n in NODE_NAMES if n != CP]  # cp-1 has the exclude label
FIXED_CANDIDATES = [n for n in ORIG_CANDIDATES if n != GPU]

# (namespace, name, ip, ports [(name, port, targetPort, protocol)], ready nodes, not-ready nodes,
#  created, allow-shared-ip key)
SERVICES = [
    ("media", "jellyfin", "192.0.2.218", [("http", 8096, 8096, "TCP")], ["gpu-1"], [],
     "2026-10-12T19:04:11Z", None),
    ("media", "immich", "192.0.2.237", [("http", 2283, 2283, "TCP")], ["gpu-1", "worker-c"], [],
     "2026-10-12T19:31:50Z", None),
    ("ai", "ollama", "192.0.2.235", [("http", 11434, 11434, "TCP")], ["gpu-1"], [],
     "2026-10-19T21:07:33Z", None),
    ("apps", "gitea", "192.0.2.239", [("http", 80, 3000, "TCP"), ("ssh", 22, 2222, "TCP")], ["worker-b"], [],
     "2026-10-06T08:15:27Z", None),
    ("apps", "nextcloud", "192.0.2.225", [("https", 443, 443, "TCP")], ["storage-1", "worker-d"], [],
     "2026-10-06T08:40:02Z", None),
    ("monitoring", "grafana", "192.0.2.226", [("http", 80, 3000, "TCP")], ["worker-e"], [],
     "2026-10-05T10:02:19Z", None),
    ("apps", "vaultwarden", "192.0.2.232", [("http", 80, 8080, "TCP")], ["worker-a"], [],
     "2026-10-07T21:12:45Z", None),
    # Shared IP (same allow-shared-ip key, no port clash). dns/adguard-dot sorts first and has no
    # ready endpoint (its pod never became ready), so only dns/pihole is ever announced.
    ("dns", "adguard-dot", "192.0.2.209", [("dot", 853, 853, "TCP")], [], ["worker-d"],
     "2026-10-28T18:22:05Z", "dns"),
    ("dns", "pihole", "192.0.2.209", [("dns", 53, 53, "UDP"), ("dns-tcp", 53, 53, "TCP"), ("http", 80, 80, "TCP")],
     ["worker-c", "worker-e"], [], "2026-10-08T17:45:10Z", "dns"),
]
SVC_KEYS = sorted(f"{s[0]}/{s[1]}" for s in SERVICES)
SVC = {f"{s[0]}/{s[1]}": s for s in SERVICES}
SVC_IP = {k: SVC[k][2] for k in SVC_KEYS}
SVC_READY = {k: bool(SVC[k][4]) for k in SVC_KEYS}
IPS = sorted(set(SVC_IP.values()), key=lambda ip: tuple(int(x) for x in ip.split(".")))
IP_SERVICES = {ip: [k for k in SVC_KEYS if SVC_IP[k] == ip] for ip in IPS}
GPU_IPS = [ip for ip in IPS if l2_order(ip, ORIG_CANDIDATES)[0] == GPU]
SHARED_IP = next(ip for ip in IPS if len(IP_SERVICES[ip]) > 1)


def check_design():
    """The invariants the story depends on; fail loudly if an edit breaks them."""
    assert sorted(GPU_IPS) == sorted(["192.0.2.218", "192.0.2.237", "192.0.2.235"]), GPU_IPS
    runner = {ip: l2_order(ip, ORIG_CANDIDATES)[1] for ip in IPS}
    assert [runner[ip] for ip in ["192.0.2.218", "192.0.2.237", "192.0.2.235"]] == ["worker-a", "worker-a", "worker-c"]
    for ip in IPS:
        if ip not in GPU_IPS:
            assert GPU not in l2_order(ip, ORIG_CANDIDATES)[:3], ip
    assert GPU not in l2_order(SHARED_IP, ORIG_CANDIDATES)[:3]
    assert IP_SERVICES[SHARED_IP][0] == "dns/adguard-dot" and not SVC_READY["dns/adguard-dot"]
    assert SVC_READY["dns/pihole"]
    pos = {n: i for i, n in enumerate(ROLLOUT_ORDER)}
    for ip in IPS:
        o = l2_order(ip, ORIG_CANDIDATES)
        assert pos[o[1]] < pos[o[0]], (ip, o[:2])  # runner-up rolled before the owner
    assert ROLLOUT_ORDER[-2:] == [GPU, CP]


# --------------------------------------------------------------------------- log lines
# go-kit's JSON logger marshals a map: keys sorted; ts is time.RFC3339 (whole seconds, UTC).

def ts(ns):
    return rfc3339(ns)


def j_announce(ns, ip, pool=POOL):
    return ('{"caller":"main.go:481","event":"serviceAnnounced","ips":["%s"],"level":"info",'
            '"msg":"service has IP, announcing","pool":"%s","protocol":"layer2","ts":"%s"}' % (ip, pool, ts(ns)))


# Reasons decided before SetBalancer's log.With("ips"/"pool"/"protocol") (speaker/main.go:385-441)
# withdraw with the bare context; the election's (notOwner, noMatchingAdvertisement, ...) carry them.
EARLY_REASONS = ("serviceDeleted", "notLoadBalancer", "noIPAllocated", "invalidIP")


def j_withdraw(ns, ip, reason="notOwner", pool=POOL):
    if reason in EARLY_REASONS:
        return ('{"caller":"main.go:525","event":"serviceWithdrawn","ip":["%s"],"level":"info",'
                '"msg":"withdrawing service announcement","reason":"%s","ts":"%s"}' % (ip, reason, ts(ns)))
    return ('{"caller":"main.go:525","event":"serviceWithdrawn","ip":["%s"],"ips":["%s"],"level":"info",'
            '"msg":"withdrawing service announcement","pool":"%s","protocol":"layer2","reason":"%s","ts":"%s"}'
            % (ip, ip, pool, reason, ts(ns)))


def j_ml(ns, caller, level, msg):
    return ('{"caller":"%s","component":"Memberlist","level":"%s","msg":"memberlist: %s","ts":"%s"}'
            % (caller, level, msg, ts(ns)))


def j_ml_suspect(ns, node):
    return j_ml(ns, "state.go:521", "info", f"Suspect {node} has failed, no acks received")


def j_ml_tcp_refused(ns, node):
    return j_ml(ns, "state.go:474", "error",
                f"Failed fallback TCP ping: dial tcp {NODE_IP[node]}:7946: connect: connection refused")


def j_ml_marking(ns, node, confirmations):
    return j_ml(ns, "state.go:1245", "info",
                f"Marking {node} as failed, suspect timeout reached ({confirmations} peer confirmations)")


def j_ml_refute_suspect(ns, frm):
    return j_ml(ns, "state.go:1197", "warn", f"Refuting a suspect message (from: {frm})")


def j_ml_refute_dead(ns, frm):
    return j_ml(ns, "state.go:1284", "warn", f"Refuting a dead message (from: {frm})")


def j_node_event(ns, name, event):
    return ('{"caller":"speakerlist.go:343","level":"info","msg":"node event - forcing sync","node addr":"%s",'
            '"node event":"%s","node name":"%s","ts":"%s"}' % (NODE_IP[name], event, name, ts(ns)))


def j_reload(ns):
    return ('{"caller":"service_controller_reload.go:63","controller":"ServiceReconciler - reprocessAll",'
            '"level":"info","start reconcile":"metallbreload/reload","ts":"%s"}' % ts(ns))


def j_svc_start(ns, svc):
    return ('{"caller":"service_controller.go:64","controller":"ServiceReconciler","level":"info",'
            '"start reconcile":"%s","ts":"%s"}' % (svc, ts(ns)))


def j_svc_end(ns, svc):
    return ('{"caller":"service_controller.go:115","controller":"ServiceReconciler","end reconcile":"%s",'
            '"level":"info","ts":"%s"}' % (svc, ts(ns)))


def j_config(ns, end=False):
    if end:
        return ('{"caller":"config_controller.go:157","controller":"ConfigReconciler","end reconcile":"/",'
                '"level":"info","ts":"%s"}' % ts(ns))
    return ('{"caller":"config_controller.go:59","controller":"ConfigReconciler","level":"info",'
            '"start reconcile":"/","ts":"%s"}' % ts(ns))


def j_start(ns):
    return ('{"branch":"HEAD","caller":"main.go:120","commit":"791dfcc6","goversion":"gc / go1.23.8 / amd64",'
            '"level":"info","msg":"MetalLB speaker starting version 0.16.1 (commit 791dfcc6, branch HEAD)",'
            '"ts":"%s","version":"0.16.1"}' % ts(ns))


def j_startup_noise(ns, i):
    return [
        '{"caller":"main.go:183","level":"info","msg":"loading excludel2 config","op":"startup","ts":"%s"}',
        '{"caller":"announcer.go:126","event":"createARPResponder","interface":"eno1","level":"info",'
        '"msg":"created ARP responder for interface","ts":"%s"}',
        '{"caller":"announcer.go:135","event":"createNDPResponder","interface":"eno1","level":"info",'
        '"msg":"created NDP responder for interface","ts":"%s"}',
        '{"caller":"k8s.go:423","level":"info","msg":"Starting Manager","op":"Run","ts":"%s"}',
        '{"caller":"speakerlist.go:313","level":"info","msg":"triggering discovery","op":"memberDiscovery",'
        '"ts":"%s"}',
    ][i] % ts(ns)


def klog(ns, severity, text):
    """client-go's klog line on stderr: not JSON (a malformed line for the scanner)."""
    d = _EPOCH + dt.timedelta(seconds=ns // SEC)
    return "%s%s %s.%06d       1 %s" % (severity, d.strftime("%m%d"), d.strftime("%H:%M:%S"),
                                         (ns % SEC) // 1000, text)


KLOG_WATCH = ('reflector.go:561] k8s.io/client-go@v0.32.3/tools/cache/reflector.go:251: watch of '
              '*v1.EndpointSlice ended with: an error on the server ("unable to decode an event from the watch '
              'stream: http2: client connection lost") has prevented the request from succeeding')
KLOG_REFUSED = ('reflector.go:166] "Unhandled Error" err="k8s.io/client-go@v0.32.3/tools/cache/reflector.go:251: '
                'Failed to watch *v1.Node: Get \\"https://10.96.0.1:443/api/v1/nodes?allowWatchBookmarks=true\\": '
                'dial tcp 10.96.0.1:443: connect: connection refused"')

# --------------------------------------------------------------------------- the simulation


class Speaker:
    def __init__(self, name):
        self.name = name
        self.cid = 0  # container number; 1 = the pre-rollout pod's container
        self.running = False
        self.joined = False
        self.view = set()  # memberlist members alive in this speaker's view
        self.fixed = False  # this speaker has loaded the L2Advertisement with nodeSelectors
        self.announced = {}  # service key -> instant this container started announcing it
        self.containers = []  # [{"cid", "start", "stop", "how"}]


class Sim:
    def __init__(self):
        self.sp = {n: Speaker(n) for n in NODE_NAMES}
        self.q = []
        self.seq = 0
        self.lines = {n: [] for n in NODE_NAMES}  # [(ns, seq, text, cid)]
        self.alive = set()  # the cluster's memberlist consensus
        self.global_fixed = False
        # truth
        self.owner = {}
        self.vacant = {}  # ip -> (reason, ns, line seq) while nobody announces
        self.annc = {ip: set() for ip in IPS}
        self.changes = []  # dicts
        self.departures = []  # (node, ns, how)
        self.rejoins = []  # (node, ns, how)
        self.assigned = {}  # (svc, node) -> [announce instants]
        self.misses = []  # (peer, node, ns, what) NodeLeave lines a peer never wrote
        self.notes = {}

    # -- plumbing
    def push(self, t, fn, *args):
        self.seq += 1
        heapq.heappush(self.q, (t, self.seq, fn, args))

    def run(self, until):
        while self.q and self.q[0][0] < until:
            t, _, fn, args = heapq.heappop(self.q)
            fn(t, *args)

    def emit(self, n, t, text):
        self.seq += 1
        self.lines[n].append((t, self.seq, text, self.sp[n].cid))
        return self.seq

    # -- election
    def candidate(self, m, viewer):
        if m == CP:
            return False
        if m == GPU and self.sp[viewer].fixed:
            return False
        return True

    def winner(self, n, ip):
        cand = [m for m in sorted(self.sp[n].view) if self.candidate(m, n)]
        return l2_order(ip, cand)[0] if cand else None

    def announces_ip(self, n, ip):
        return any(SVC_IP[k] == ip for k in self.sp[n].announced)

    # -- truth bookkeeping (the real announcer of each IP)
    def change(self, t, ip, frm, to, kind, evidence):
        assert frm != to
        self.changes.append({"t": t, "ip": ip, "from": frm, "to": to, "kind": kind, "evidence": evidence})
        self.owner[ip] = to

    def truth_start(self, y, ip, t, line):
        self.annc[ip].add(y)
        o = self.owner[ip]
        if y == o:
            self.vacant.pop(ip, None)
            return
        if ip in self.vacant:
            reason, tv, wline = self.vacant.pop(ip)
            if reason == "yield":
                # the old owner withdrew because y outranks it: the change is its withdrawal
                self.change(tv, ip, o, y, "takeback", wline)
            else:
                self.change(t, ip, o, y, "takeover", (y, line))
            return
        if not (o in self.sp[y].view and self.candidate(o, y)):
            # y believes the owner is gone (dead, left, flapping) or no longer a candidate
            self.change(t, ip, o, y, "takeover", (y, line))
        # else: y outranks a live owner; the change happens when the owner yields

    def truth_stop(self, x, ip, t, reason, line=None):
        self.annc[ip].discard(x)
        if x != self.owner[ip]:
            return
        others = sorted(self.annc[ip], key=lambda m: sha_key(m, ip))
        if others:
            y = others[0]
            if reason == "yield":
                self.change(t, ip, x, y, "takeback", (x, line))
            else:
                self.change(t, ip, x, y, "takeover", None)  # evidence: y's earlier announce
        else:
            self.vacant[ip] = (reason, t, (x, line) if line else None)

    # -- a speaker handles one Service (MetalLB's SetBalancer / ShouldAnnounce)
    def handle(self, n, key, t):
        s = self.sp[n]
        ip = SVC_IP[key]
        win = self.winner(n, ip) if SVC_READY[key] else None
        if win == n:
            t += u_ms(1, 8)
            line = self.emit(n, t, j_announce(t, ip))
            self.assigned.setdefault((key, n), []).append(t)
            if key not in s.announced:
                first = not self.announces_ip(n, ip)
                s.announced[key] = t
                if first:
                    self.truth_start(n, ip, t, line)
        elif key in s.announced:
            t += u_ms(1, 8)
            line = self.emit(n, t, j_withdraw(t, ip))
            del s.announced[key]
            if not self.announces_ip(n, ip):
                reason = "yield" if self.candidate(n, n) else "excluded"
                self.truth_stop(n, ip, t, reason, line)
        return t

    def reprocess(self, n, t):
        """A forced sync: ServiceReconciler - reprocessAll, every Service handled once."""
        t += u_ms(1, 5)
        self.emit(n, t, j_reload(t))
        for key in SVC_KEYS:
            t = self.handle(n, key, t)
        return t

    def peers(self, n):
        return [p for p in NODE_NAMES if p != n and self.sp[p].running and self.sp[p].joined]

    # -- containers
    def boot_pre_window(self):
        """At the window start every speaker runs its pre-rollout container, joined, announcing."""
        self.alive = set(NODE_NAMES)
        for n in NODE_NAMES:
            s = self.sp[n]
            s.cid, s.running, s.joined, s.view = 1, True, True, set(NODE_NAMES)
            s.containers.append({"cid": 1, "start": None, "stop": None, "how": None})
        for ip in IPS:
            o = l2_order(ip, ORIG_CANDIDATES)[0]
            self.owner[ip] = o
            self.annc[ip].add(o)
        for key in SVC_KEYS:
            if SVC_READY[key]:
                o = self.owner[SVC_IP[key]]
                self.sp[o].announced[key] = None
        self.owner_at_start = dict(self.owner)

    def start_container(self, t, n):
        s = self.sp[n]
        s.cid += 1
        s.running, s.joined = True, False
        s.view = {n}
        s.announced = {}
        s.fixed = self.global_fixed
        s.containers.append({"cid": s.cid, "start": t, "stop": None, "how": None})
        self.emit(n, t, j_start(t))
        u = t
        for i in range(5):
            u += u_ms(3, 60)
            self.emit(n, u, j_startup_noise(u, i))
        u += u_ms(150, 350)
        self.emit(n, u, j_node_event(u, n, "NodeJoin"))  # memberlist.Create: the local node
        self.push(t + u_ms(1100, 2300), self.ml_join, n, s.cid)

    def ml_join(self, t, n, cid):
        s = self.sp[n]
        if s.cid != cid or not s.running:
            return
        if n not in self.alive:
            self.alive.add(n)
            if any(d[0] == n for d in self.departures):
                self.rejoins.append((n, t, "restart"))
        s.view = set(self.alive)
        s.joined = True
        for m in sorted(s.view - {n}):  # push/pull: a NotifyJoin for every current member
            u = t + u_ms(1, 30)
            self.emit(n, u, j_node_event(u, m, "NodeJoin"))
        for p in self.peers(n):
            self.push(t + u_ms(5, 300), self.learn, p, n, "join", self.sp[p].cid)
        self.push(t + u_ms(150, 250), self.startup_reconcile, n, cid)

    def startup_reconcile(self, t, n, cid):
        s = self.sp[n]
        if s.cid != cid or not s.running:
            return
        self.emit(n, t, j_config(t))
        t += u_ms(20, 60)
        self.emit(n, t, j_config(t, end=True))
        for key in SVC_KEYS:
            t += u_ms(2, 20)
            self.emit(n, t, j_svc_start(t, key))
            t = self.handle(n, key, t)
            t += u_ms(1, 4)
            self.emit(n, t, j_svc_end(t, key))
        self.reprocess(n, t + u_ms(5, 40))  # the forced sync the NodeJoin events asked for

    def learn(self, t, p, m, ev, cid):
        """Peer p's memberlist tells it (NotifyLeave / NotifyJoin) that m left or joined."""
        s = self.sp[p]
        if s.cid != cid or not s.running or not s.joined:
            return
        if ev == "leave" and m in s.view:
            s.view.discard(m)
            self.emit(p, t, j_node_event(t, m, "NodeLeave"))
            self.reprocess(p, t)
        elif ev == "join" and m not in s.view:
            s.view.add(m)
            self.emit(p, t, j_node_event(t, m, "NodeJoin"))
            self.reprocess(p, t)

    def stop_container(self, t, n, how):
        s = self.sp[n]
        s.running, s.joined = False, False
        s.containers[-1]["stop"], s.containers[-1]["how"] = t, how
        for ip in sorted({SVC_IP[k] for k in s.announced}):
            self.truth_stop(n, ip, t, "died" if how == "crash" else "left")
        s.announced = {}

    def crash(self, t, n, restart_at, detect):
        """SIGKILL: no Leave. Peers find out by probing (detect: the failure-detector parameters)."""
        assert n in self.alive and self.sp[n].running
        if restart_at is not None and restart_at - t < 25 * SEC and "conf" not in detect:
            # a 10 s backoff: the suspicion must have run out (2 confirmations, 4 s) before the
            # new container joins, else memberlist would never have marked it failed
            detect = dict(detect, conf=2)
        self.stop_container(t, n, "crash")
        self.detect_failure(t, n, "crash", **detect)
        if restart_at is not None:
            self.push(restart_at, self.start_container, n)

    def detect_failure(self, t, n, kind, prober=None, conf=None, probe_ms=None, miss=()):
        """memberlist's probe: the prober's UDP ping and TCP fallback fail, it logs Suspect; c other
        peers' probes fail too (their Suspect lines are the confirmations); the prober's suspicion
        timer (min 4 s, max 24 s for 8 nodes, k=2) fires and it alone logs Marking."""
        peers = [p for p in self.peers(n)]
        p0 = prober or rng.choice(peers)
        c = conf if conf is not None else (2 if rng.random() < 0.88 else 1)
        t_probe = t + (probe_ms * MS if probe_ms is not None else u_ms(100, 1800))
        if kind == "crash":
            u = t_probe + u_ms(500, 520)
            self.emit(p0, u, j_ml_tcp_refused(u, n))
        t_s = t_probe + u_ms(985, 1010)
        self.emit(p0, t_s, j_ml_suspect(t_s, n))
        others = [p for p in peers if p != p0 and p not in miss]  # a confirmer would mark it itself
        for q in rng.sample(others, c):
            tq = t_s + u_ms(300, 3300)
            if kind == "crash":
                u = tq - u_ms(480, 500)
                self.emit(q, u, j_ml_tcp_refused(u, n))
            self.emit(q, tq, j_ml_suspect(tq, n))
        timeout = {2: 4000, 1: 11380}[c]
        t_mark = t_s + timeout * MS + u_ms(0, 3)
        self.push(t_mark, self.mark_dead, n, p0, c, kind, tuple(miss))
        return t_mark

    def mark_dead(self, t, n, p0, c, kind, miss):
        assert n in self.alive, (n, rfc3339(t))
        assert (kind == "crash") != self.sp[n].running, (n, kind, rfc3339(t))
        self.alive.discard(n)
        self.departures.append((n, t, kind))
        # fast-returns: the marking peer's line is in a container log that is gone
        if not (FAST and kind == "crash" and rng.random() < 0.5):
            self.emit(p0, t, j_ml_marking(t, n, c))
        for p in self.peers(n):
            if p in miss:
                self.misses.append((p, n, t, "flap: dead message never reached it (refutation first)"))
                continue
            d = u_ms(1, 3) if p == p0 else u_ms(5, 250)
            self.push(t + d, self.learn, p, n, "leave", self.sp[p].cid)
        # peers that are restarting right now never hear it
        for p in NODE_NAMES:
            if p != n and not (self.sp[p].running and self.sp[p].joined):
                self.misses.append((p, n, t, "its own container was restarting"))

    def graceful_stop(self, t, n, restart_at):
        """SIGTERM (rollout): memberlist Leave is broadcast, then the process exits."""
        t_leave = t + u_ms(150, 300)
        self.alive.discard(n)
        self.departures.append((n, t_leave, "graceful"))
        for p in self.peers(n):
            self.push(t_leave + u_ms(5, 300), self.learn, p, n, "leave", self.sp[p].cid)
        self.push(t + u_ms(450, 800), self.stop_container, n, "graceful")
        self.push(restart_at, self.start_container, n)

    def refute_dead(self, t, n, cid):
        s = self.sp[n]
        assert s.cid == cid and s.running
        frm = self.notes["last_marker"][n]  # the dead message's From: the peer that marked it
        self.emit(n, t, j_ml_refute_dead(t, frm))
        if n not in self.alive:
            self.alive.add(n)
            self.rejoins.append((n, t, "flap"))
        for p in self.peers(n):
            self.push(t + u_ms(5, 300), self.learn, p, n, "join", self.sp[p].cid)

    def false_suspect(self, t, n, prober):
        t_s = t + u_ms(985, 1010)
        self.emit(prober, t_s, j_ml_suspect(t_s, n))
        u = t_s + u_ms(150, 500)
        self.emit(n, u, j_ml_refute_suspect(u, prober))

    def config_change(self, t):
        self.global_fixed = True
        for n in NODE_NAMES:
            if self.sp[n].running:
                self.push(t + u_ms(60, 450), self.apply_config, n, self.sp[n].cid)

    def apply_config(self, t, n, cid):
        s = self.sp[n]
        if s.cid != cid or not s.running:
            return
        s.fixed = True
        self.emit(n, t, j_config(t))
        t += u_ms(15, 60)
        self.emit(n, t, j_config(t, end=True))
        self.reprocess(n, t)

    def churn(self, t, key):
        """An EndpointSlice of the Service changes: every speaker reconciles it."""
        for n in NODE_NAMES:
            s = self.sp[n]
            if not (s.running and s.joined):
                continue
            u = t + u_ms(0, 400)
            self.emit(n, u, j_svc_start(u, key))
            u = self.handle(n, key, u)
            u += u_ms(1, 5)
            self.emit(n, u, j_svc_end(u, key))

    def malformed(self, t, n, text):
        assert self.sp[n].running
        self.emit(n, t, text)


# --------------------------------------------------------------------------- the schedule

def pressure_periods():
    """When the GPU host's watchdog kills the speaker: [(start, end)], bursts of crash-looping."""
    periods = []
    day0 = ns_of("2026-11-01T00:00:00Z")
    # day 1: right from gpu-1's rollout container, and in the evening
    periods.append((ns_of("2026-11-01T10:06:00Z"), ns_of("2026-11-01T11:35:00Z")))
    periods.append((ns_of("2026-11-01T21:10:00Z"), ns_of("2026-11-01T22:05:00Z")))
    for d in range(1, 18):  # 2026-11-02 .. 2026-11-18
        base = day0 + d * DAY
        date = day_of(base)
        if date == "2026-11-09":  # the bad night: a long training run
            periods.append((base + 40 * MIN, base + 7 * HOUR + 50 * MIN))
            periods.append((base + 20 * HOUR + 5 * MIN, base + 21 * HOUR + 10 * MIN))
            continue
        if date == "2026-11-14":  # a morning burst before the fix, an evening one after it
            periods.append((base + 6 * HOUR + 20 * MIN, base + 7 * HOUR + 25 * MIN))
            periods.append((base + 21 * HOUR + 5 * MIN, base + 22 * HOUR + 40 * MIN))
            continue
        if date == "2026-11-18":  # the last burst, then the watchdog is fixed
            periods.append((base + 3 * HOUR + 10 * MIN, STABLE_FROM - 15 * MIN))
            continue
        k = rng.choice([1, 2, 2, 3])
        slots = sorted(rng.sample(range(0, 24 * 60 - 150, 10), k))
        last_end = base
        for s in slots:
            start = base + s * MIN + rng.randint(0, 599) * SEC
            length = rng.randint(35, 95) * MIN + rng.randint(0, 59) * SEC
            if start < last_end + 30 * MIN:
                continue
            end = start + length
            periods.append((start, end))
            last_end = end
    periods.sort()
    return periods


def gpu_schedule(first_start, first_crash):
    """gpu-1's containers after the rollout: [(start, crash or None)]. Kubelet's CrashLoopBackOff:
    10 s, doubling to 5 min, reset once a container ran 10 min."""
    periods = pressure_periods()
    conts = []
    start, crash = first_start, first_crash
    backoff = 10 * SEC
    while True:
        conts.append((start, crash))
        if crash is None:
            break
        if crash - start >= 10 * MIN or FAST:
            backoff = 10 * SEC
        delay = backoff
        backoff = min(2 * backoff, 300 * SEC)
        start = crash + delay + u_ms(800, 2000)
        crash = None
        for p0, p1 in periods:
            if p1 <= start + 20 * SEC:
                continue
            e = max(start + 20 * SEC, p0)
            c = e + rng.randint(50, 360) * SEC + u_ms(0, 999)
            if c <= p1:
                # fast-returns: inside a burst the new container is killed seconds after it joined
                if FAST and start >= p0 and rng.random() < 0.7:
                    c = start + u_ms(3000, 6500)
                crash = c
                break
    return conts


def running_at(conts, t, margin):
    for s, c in conts:
        if s + margin <= t and (c is None or t + margin < c):
            return True
    return False


# --------------------------------------------------------------------------- the story

FLAPS = [
    # (wanted instant, peers that miss the dead message, stall ms)
    ("2026-11-03T14:12:09Z", (), 2600),
    ("2026-11-06T21:40:31Z", ("storage-1",), 5200),
    ("2026-11-07T03:15:02Z", ("worker-c", "cp-1"), 1900),  # worker-c misses: 192.0.2.235 stays
    ("2026-11-10T16:05:44Z", (), 7400),
    ("2026-11-12T11:48:20Z", ("worker-e",), 3100),
]
FALSE_SUSPICIONS = ["2026-11-05T08:31:40Z", "2026-11-16T13:02:11Z", "2026-11-21T04:17:53Z"]
MALFORMED = [
    ("2026-11-04T03:12:45Z", "worker-c", "W", KLOG_WATCH),
    ("2026-11-15T17:40:02Z", "worker-c", "W", KLOG_WATCH),
    ("2026-11-20T08:21:09Z", "worker-d", "E", KLOG_REFUSED),
]


def rollout_and_crash_loop(sim, order):
    """The day-1 rollout (kubectl rollout restart ds/speaker: maxUnavailable 1, readiness gated,
    in `order`) and gpu-1's crash loop after it, both variants' opening: (plan, containers)."""
    plan = {}
    t = ROLLOUT_AT + 2 * SEC
    for n in order:
        delete = t
        # cp-1's new container joins only after gpu-1 (killed 0.9 s after this SIGTERM) was marked
        start = delete + (6800 * MS if n == CP else u_ms(4500, 7000))
        ready = start + u_ms(10500, 19500)
        plan[n] = (delete, start, ready)
        t = ready + u_ms(1000, 4000)
    # gpu-1's new container is killed ~1 s after cp-1's old one got SIGTERM: cp-1's new speaker
    # joins after gpu-1 was marked failed and never logs that NodeLeave.
    first_crash = plan[CP][0] + 900 * MS
    conts = gpu_schedule(plan[GPU][1], first_crash)
    sim.notes["gpu_containers"] = conts
    sim.notes["rollout"] = plan
    for n in order:
        delete, start, _ = plan[n]
        sim.push(delete, sim.graceful_stop, n, start)
    # the first crash: fast detection, 2 confirmations, before cp-1 joins
    for k, (s, c) in enumerate(conts):
        if c is None:
            continue
        nxt = conts[k + 1][0] if k + 1 < len(conts) else None
        detect = {"prober": "worker-d", "conf": 2, "probe_ms": 300} if k == 0 else {}
        sim.push(c, sim.crash, GPU, nxt, detect)
    sim.notes["crashes"] = [c for _, c in conts if c is not None]
    return plan, conts


def build_story():
    sim = Sim()
    sim.notes["last_marker"] = {}
    sim.boot_pre_window()

    plan, conts = rollout_and_crash_loop(sim, ROLLOUT_ORDER)

    # -- flaps and false suspicions while gpu-1 is up and quiet
    busy = [ROLLOUT_AT, plan[CP][2] + 30 * SEC, FIX_AT]
    for s, c in conts:
        busy.append(s)
        if c is not None:
            busy.append(c)
    flap_times = []
    for want, miss, stall in FLAPS:
        t0 = ns_of(want)
        while not running_at(conts, t0, 3 * MIN) or any(abs(t0 - b) < 3 * MIN for b in busy):
            t0 += 7 * MIN
        assert t0 < FIX_AT
        flap_times.append((t0, miss, stall))
        busy.append(t0)
    fs_times = []
    for want in FALSE_SUSPICIONS:
        t0 = ns_of(want)
        while not running_at(conts, t0, 3 * MIN) or any(abs(t0 - b) < 3 * MIN for b in busy):
            t0 += 7 * MIN
        fs_times.append(t0)
        busy.append(t0)
    assert running_at(conts, FIX_AT, 5 * MIN), "gpu-1 must be up (and announcing) at the fix"
    sim.notes["flaps"] = flap_times
    sim.notes["false_suspicions"] = fs_times

    for t0, miss, stall in flap_times:
        sim.push(t0, lambda t, m=miss, st=stall: flap_with_marker(sim, t, m, st))
    for t0 in fs_times:
        sim.push(t0, lambda t: sim.false_suspect(t, GPU, rng.choice([p for p in sim.peers(GPU)])))
    sim.push(FIX_AT, sim.config_change)

    # -- EndpointSlice churn: every 70-190 min some Service's slice changes
    busy.sort()
    t = WINDOW_START + rng.randint(5, 40) * MIN
    while t < CAPTURED - 2 * MIN:
        if not any(abs(t - b) < 90 * SEC for b in busy) and not (plan[ROLLOUT_ORDER[0]][0] - 2 * MIN < t < plan[CP][2] + 2 * MIN):
            key = rng.choice(SVC_KEYS)
            sim.push(t, sim.churn, key)
        t += rng.randint(70, 190) * MIN + u_ms(0, 59_999)
    for at, node, sev, text in MALFORMED:
        ns = ns_of(at) + 123_456_000
        sim.push(ns, lambda t, n=node, sv=sev, tx=text: sim.malformed(t, n, klog(t, sv, tx)))

    sim.run(CAPTURED)
    return sim


def flap_with_marker(sim, t, miss, stall):
    """gpu-1 stalls (no restart): peers mark it failed; when it wakes it refutes the dead message
    and is alive again. It never stops announcing in its own view."""
    assert sim.sp[GPU].running and sim.sp[GPU].joined
    prober = rng.choice([p for p in sim.peers(GPU) if p not in miss])
    sim.notes["last_marker"][GPU] = prober
    t_mark = sim.detect_failure(t, GPU, "flap", prober=prober, miss=miss)
    sim.push(t_mark + stall * MS, sim.refute_dead, GPU, sim.sp[GPU].cid)


# --------------------------------------------------------------------------- truth

def ip_order_key(ip):
    return tuple(int(x) for x in ip.split("."))


def compute_truth(sim, files):
    changes = sorted(sim.changes, key=lambda c: c["t"])
    ips = {}
    for ip in IPS:
        cs = [c for c in changes if c["ip"] == ip]
        by_day = {}
        for c in cs:
            by_day[day_of(c["t"])] = by_day.get(day_of(c["t"]), 0) + 1
        ips[ip] = {
            "services": IP_SERVICES[ip],
            "ownerAtWindowStart": sim.owner_at_start[ip],
            "ownerChangesByDay": dict(sorted(by_day.items())),
            "ownerChanges": len(cs),
            "takeovers": sum(1 for c in cs if c["kind"] == "takeover"),
            "takebacks": sum(1 for c in cs if c["kind"] == "takeback"),
            "ownerAtCapture": sim.owner[ip],
        }
    per_day = {}
    for c in changes:
        per_day[day_of(c["t"])] = per_day.get(day_of(c["t"]), 0) + 1
    worst = max(sorted(per_day.items()), key=lambda kv: kv[1])
    ties = [d for d, v in per_day.items() if v == worst[1]]
    assert len(ties) == 1, ties
    restarts = {n: 0 for n in NODE_NAMES}
    for n in NODE_NAMES:
        for c in sim.sp[n].containers[2:]:  # after the rollout container: kubelet restarts
            if c["start"] is not None and c["start"] >= WINDOW_START:
                restarts[n] += 1
    nodes, dep_by_day, rej_by_day = {}, {}, {}
    for n in NODE_NAMES:
        deps = [d for d in sim.departures if d[0] == n]
        rejs = [r for r in sim.rejoins if r[0] == n]
        nodes[n] = {"departures": len(deps), "rejoins": len(rejs), "restartsInWindow": restarts[n],
                    "gracefulRestarts": sum(1 for d in deps if d[2] == "graceful"),
                    "crashes": sum(1 for d in deps if d[2] == "crash"),
                    "flaps": sum(1 for d in deps if d[2] == "flap")}
        dd, rr = {}, {}
        for _, t, _ in deps:
            dd[day_of(t)] = dd.get(day_of(t), 0) + 1
        for _, t, _ in rejs:
            rr[day_of(t)] = rr.get(day_of(t), 0) + 1
        dep_by_day[n] = dict(sorted(dd.items()))
        rej_by_day[n] = dict(sorted(rr.items()))
    truth = {
        "generatedBy": "scripts/gen-history-story.py" + (" --variant fast-returns" if FAST else ""),
        "window": {"start": rfc3339(WINDOW_START), "end": CAPTURED_AT},
        "culprit": GPU,
        "stableNodes": sorted(STABLE),
        "fix": {"at": rfc3339(FIX_AT), "object": f"L2Advertisement {MLB_NS}/l2",
                "change": "spec.nodeSelectors: kubernetes.io/hostname NotIn [gpu-1]"},
        "ips": {ip: ips[ip] for ip in sorted(IPS, key=ip_order_key)},
        "ownerChangesByDay": dict(sorted(per_day.items())),
        "worstDay": {"day": worst[0], "ownerChanges": worst[1]},
        "nodes": nodes,
        "departuresByDay": dep_by_day,
        "rejoinsByDay": rej_by_day,
        "changes": [[rfc3339(c["t"]), c["ip"], c["from"], c["to"], c["kind"], c["evidenceAt"]] for c in changes],
    }
    return truth


# --------------------------------------------------------------------------- snapshot objects

UID_NS = uuid.UUID("6c1f3e0a-9b2d-4e57-8f10-3d5a7c9e2b41")


_names = Names(rng, UID_NS, 81_200_000, "2026-10-05T09:00:00Z")
suffix, uid, rv, meta = _names.suffix, _names.uid, _names.rv, _names.meta


def snapshot_info():
    return {
        "apiVersion": "lbdoctor/v1alpha1",
        "kind": "SnapshotInfo",
        "metadata": {"name": "snapshot"},
        "spec": {
            "capturedAt": CAPTURED_AT,
            "toolVersion": TOOL_VERSION,
            "serverVersion": SERVER_VERSION,
            "unreadable": [],
            "metallb": {"version": METALLB_VERSION, "namespace": MLB_NS, "memberlist": "enabled"},
        },
    }


def namespace(name, created, extra_labels=None):
    labels = {"kubernetes.io/metadata.name": name}
    labels.update(extra_labels or {})
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": meta("Namespace", name, labels=labels, created=created),
            "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}


def node(name, ip, idx, role):
    labels = {"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}
    spec = {"podCIDR": f"10.244.{idx}.0/24", "podCIDRs": [f"10.244.{idx}.0/24"]}
    if role == "control-plane":
        labels["node-role.kubernetes.io/control-plane"] = ""
        labels[EXCLUDE_LB] = ""  # kubeadm sets it with an empty value; the key alone excludes
        spec["taints"] = [{"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"}]
    elif role == "gpu":
        labels["nvidia.com/gpu.present"] = "true"
        labels["node-role.kubernetes.io/gpu"] = ""
    elif role == "storage":
        labels["node-role.kubernetes.io/storage"] = ""
    else:
        labels["node-role.kubernetes.io/worker"] = ""
    hb = rfc3339(CAPTURED - (50 - idx * 5) * SEC)
    conditions = [
        {"type": "NetworkUnavailable", "status": "False", "reason": "CalicoIsUp",
         "message": "Calico is running on this node",
         "lastHeartbeatTime": "2026-10-27T06:20:41Z", "lastTransitionTime": "2026-10-27T06:20:41Z"},
        {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory",
         "message": "kubelet has sufficient memory available",
         "lastHeartbeatTime": hb, "lastTransitionTime": "2026-10-27T06:19:58Z"},
        {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "kubelet is posting ready status",
         "lastHeartbeatTime": hb, "lastTransitionTime": "2026-10-27T06:20:44Z"},
    ]
    capacity = {"cpu": "16", "memory": "65536Mi", "pods": "110"}
    if role == "gpu":
        capacity["nvidia.com/gpu"] = "1"
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": meta("Node", name, labels=labels, created=f"2026-10-05T09:{idx * 3 + 2:02d}:{idx * 7 % 60:02d}Z"),
        "spec": spec,
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "allocatable": dict(capacity), "capacity": capacity, "conditions": conditions,
            "nodeInfo": {"architecture": "amd64", "containerRuntimeVersion": "containerd://2.0.5",
                         "kernelVersion": "6.8.0-88-generic", "kubeletVersion": SERVER_VERSION,
                         "operatingSystem": "linux", "osImage": "Ubuntu 24.04.3 LTS"},
        },
    }


SPEAKER_IMAGE = f"quay.io/metallb/speaker:{METALLB_VERSION}"
SPEAKER_DIGEST = "sha256:" + hashlib.sha256(b"speaker " + METALLB_VERSION.encode()).hexdigest()
CONTROLLER_IMAGE = f"quay.io/metallb/controller:{METALLB_VERSION}"
SPEAKER_LABELS = {"app": "metallb", "component": "speaker"}
REVISION_HASH = "7c9b6f5d84"


def speaker_daemonset():
    env = [
        {"name": "METALLB_NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
        {"name": "METALLB_HOST", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.hostIP"}}},
        {"name": "METALLB_ML_BIND_ADDR", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
        {"name": "METALLB_ML_LABELS", "value": "app=metallb,component=speaker"},
        {"name": "METALLB_ML_SECRET_KEY_PATH", "value": "/etc/ml_secret_key"},
    ]
    n = len(NODES)
    return {
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": meta("DaemonSet", "speaker", MLB_NS, created="2026-10-05T09:40:12Z",
                         labels=dict(SPEAKER_LABELS), generation=2,
                         annotations={"deprecated.daemonset.template.generation": "2"}),
        "spec": {
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": dict(SPEAKER_LABELS)},
            "template": {
                "metadata": {"labels": dict(SPEAKER_LABELS),
                             "annotations": {"kubectl.kubernetes.io/restartedAt": rfc3339(ROLLOUT_AT)}},
                "spec": {
                    "containers": [{
                        "name": "speaker", "image": SPEAKER_IMAGE,
                        "args": ["--port=7472", "--log-level=info"], "env": env,
                        "livenessProbe": {"httpGet": {"path": "/metrics", "port": "monitoring"},
                                          "initialDelaySeconds": 10, "failureThreshold": 3, "periodSeconds": 10},
                        "readinessProbe": {"httpGet": {"path": "/metrics", "port": "monitoring"},
                                           "initialDelaySeconds": 10, "failureThreshold": 3, "periodSeconds": 10},
                        "ports": [
                            {"containerPort": 7472, "name": "monitoring", "protocol": "TCP"},
                            {"containerPort": 7946, "name": "memberlist-tcp", "protocol": "TCP"},
                            {"containerPort": 7946, "name": "memberlist-udp", "protocol": "UDP"},
                        ],
                    }],
                    "hostNetwork": True,
                    "nodeSelector": {"kubernetes.io/os": "linux"},
                    "serviceAccountName": "speaker",
                    "terminationGracePeriodSeconds": 2,
                    "tolerations": [
                        {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane", "operator": "Exists"},
                    ],
                },
            },
            "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}},
        },
        "status": {"currentNumberScheduled": n, "desiredNumberScheduled": n, "numberAvailable": n,
                   "numberMisscheduled": 0, "numberReady": n, "observedGeneration": 2, "updatedNumberScheduled": n},
    }


def container_id(node_name, start):
    return "containerd://" + hashlib.sha256(f"{node_name}/{start}".encode()).hexdigest()


def speaker_pod(node_name, ds_uid, name, created, restarts, running_since, last_terminated):
    labels = dict(SPEAKER_LABELS, **{"controller-revision-hash": REVISION_HASH, "pod-template-generation": "2"})
    status = {
        "containerID": container_id(node_name, running_since), "image": SPEAKER_IMAGE,
        "imageID": f"quay.io/metallb/speaker@{SPEAKER_DIGEST}", "lastState": {}, "name": "speaker",
        "ready": True, "restartCount": restarts, "started": True,
        "state": {"running": {"startedAt": rfc3339(running_since)}},
    }
    if last_terminated:
        status["lastState"] = {"terminated": last_terminated}
    ready_at = rfc3339(running_since + 14 * SEC)
    conds = [
        {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": rfc3339(created + 2 * SEC)},
        {"type": "Initialized", "status": "True", "lastTransitionTime": rfc3339(created + 1 * SEC)},
        {"type": "Ready", "status": "True", "lastTransitionTime": ready_at},
        {"type": "ContainersReady", "status": "True", "lastTransitionTime": ready_at},
        {"type": "PodScheduled", "status": "True", "lastTransitionTime": rfc3339(created)},
    ]
    ip = NODE_IP[node_name]
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": meta("Pod", name, MLB_NS, created=rfc3339(created), labels=labels, generateName="speaker-",
                         ownerReferences=[{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "speaker",
                                           "uid": ds_uid, "controller": True, "blockOwnerDeletion": True}]),
        "spec": {
            "containers": [{"name": "speaker", "image": SPEAKER_IMAGE, "args": ["--port=7472", "--log-level=info"]}],
            "hostNetwork": True, "nodeName": node_name, "serviceAccountName": "speaker",
            "terminationGracePeriodSeconds": 2,
        },
        "status": {
            "conditions": conds, "containerStatuses": [status], "hostIP": ip, "hostIPs": [{"ip": ip}],
            "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "qosClass": "Burstable",
            "startTime": rfc3339(created),
        },
    }


_next_pod_host = {n: 10 for n in NODE_NAMES}


def pod_ip(node_name):
    _next_pod_host[node_name] += rng.randint(1, 9)
    return f"10.244.{NODE_IDX[node_name]}.{_next_pod_host[node_name]}"


def controller_pod():
    rs = "controller-7b6c9d8f5d"
    name = f"{rs}-{suffix()}"
    started = "2026-10-27T06:31:09Z"
    node_name = "worker-c"
    ip = pod_ip(node_name)
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": meta("Pod", name, MLB_NS, created=started,
                         labels={"app": "metallb", "component": "controller", "pod-template-hash": "7b6c9d8f5d"},
                         ownerReferences=[{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                           "uid": uid("ReplicaSet", MLB_NS, rs),
                                           "controller": True, "blockOwnerDeletion": True}]),
        "spec": {
            "containers": [{"name": "controller", "image": CONTROLLER_IMAGE,
                            "args": ["--port=7472", "--log-level=info", "--tls-min-version=VersionTLS12"]}],
            "nodeName": node_name, "serviceAccountName": "controller",
        },
        "status": {
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": started},
                           {"type": "PodScheduled", "status": "True", "lastTransitionTime": started}],
            "containerStatuses": [{"name": "controller", "image": CONTROLLER_IMAGE, "ready": True,
                                   "restartCount": 0, "started": True,
                                   "state": {"running": {"startedAt": started}}}],
            "hostIP": NODE_IP[node_name], "hostIPs": [{"ip": NODE_IP[node_name]}],
            "phase": "Running", "podIP": ip, "podIPs": [{"ip": ip}], "qosClass": "BestEffort", "startTime": started,
        },
    }


def ip_pool():
    size = POOL_LAST - POOL_FIRST + 1
    return {
        "apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
        "metadata": meta("IPAddressPool", POOL, MLB_NS, created="2026-10-05T09:42:30Z", generation=1),
        "spec": {"addresses": [f"192.0.2.{POOL_FIRST}-192.0.2.{POOL_LAST}"], "autoAssign": True,
                 "avoidBuggyIPs": False},
        "status": {"assignedIPv4": len(IPS), "assignedIPv6": 0, "availableIPv4": size - len(IPS),
                   "availableIPv6": 0},
    }


def l2_advertisement():
    return {
        "apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
        "metadata": meta("L2Advertisement", "l2", MLB_NS, created="2026-10-05T09:42:30Z", generation=2),
        "spec": {
            "ipAddressPools": [POOL],
            "nodeSelectors": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "NotIn", "values": [GPU]}]}],
        },
    }


_cluster_ip = [20]
_node_port = [30100]


def service(ns, name, ip, ports, created, share):
    _cluster_ip[0] += rng.randint(1, 20)
    cip = f"203.0.113.{_cluster_ip[0]}"
    spec_ports = []
    for pname, port, target, proto in ports:
        _node_port[0] += rng.randint(7, 900)
        spec_ports.append({"name": pname, "port": port, "targetPort": target, "protocol": proto,
                           "nodePort": _node_port[0]})
    ann = {"metallb.io/ip-allocated-from-pool": POOL, "metallb.io/loadBalancerIPs": ip}
    if share:
        ann["metallb.io/allow-shared-ip"] = share
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": meta("Service", name, ns, created=created, labels={"app.kubernetes.io/name": name},
                         annotations=ann),
        "spec": {
            "allocateLoadBalancerNodePorts": True, "clusterIP": cip, "clusterIPs": [cip],
            "externalTrafficPolicy": "Cluster", "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack", "ports": spec_ports,
            "selector": {"app.kubernetes.io/name": name}, "sessionAffinity": "None", "type": "LoadBalancer",
        },
        "status": {"loadBalancer": {"ingress": [{"ip": ip, "ipMode": "VIP"}]}},
    }


def endpoint_slice(svc, ready_nodes, unready_nodes):
    ns, name = svc["metadata"]["namespace"], svc["metadata"]["name"]
    rs_hash = "".join(rng.choice(K8S_ALNUM) for _ in range(10))
    eps = []
    for node_name, ready in [(x, True) for x in ready_nodes] + [(x, False) for x in unready_nodes]:
        pod = f"{name}-{rs_hash}-{suffix()}"
        eps.append({
            "addresses": [pod_ip(node_name)],
            "conditions": {"ready": ready, "serving": ready, "terminating": False},
            "nodeName": node_name,
            "targetRef": {"kind": "Pod", "name": pod, "namespace": ns, "uid": uid("Pod", ns, pod)},
        })
    ports = [{"name": p["name"], "port": p["targetPort"], "protocol": p["protocol"]} for p in svc["spec"]["ports"]]
    return {
        "apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "addressType": "IPv4",
        "endpoints": eps, "ports": ports,
        "metadata": meta("EndpointSlice", f"{name}-{suffix()}", ns,
                         created="2026-10-27T06:3%d:%02dZ" % (rng.randint(2, 9), rng.randint(0, 59)),
                         labels={"endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                                 "kubernetes.io/service-name": name},
                         generateName=f"{name}-",
                         ownerReferences=[{"apiVersion": "v1", "kind": "Service", "name": name,
                                           "uid": svc["metadata"]["uid"], "controller": True,
                                           "blockOwnerDeletion": True}]),
    }


def service_l2_status(svc, node_name, speaker, created):
    ns, sname = svc["metadata"]["namespace"], svc["metadata"]["name"]
    return {
        "apiVersion": "metallb.io/v1beta1", "kind": "ServiceL2Status",
        "metadata": meta("ServiceL2Status", f"l2-{suffix(alphabet=LOWER)}", MLB_NS, created=created,
                         generateName="l2-",
                         labels={"metallb.io/node": node_name, "metallb.io/service-name": sname,
                                 "metallb.io/service-namespace": ns},
                         ownerReferences=[{"apiVersion": "v1", "kind": "Pod", "name": speaker["metadata"]["name"],
                                           "uid": speaker["metadata"]["uid"]}]),
        "spec": {},
        "status": {"node": node_name, "serviceName": sname, "serviceNamespace": ns},
    }


def node_assigned_event(svc, node_name, count, first, last):
    ns, sname = svc["metadata"]["namespace"], svc["metadata"]["name"]
    name = "%s.%x" % (sname, 0x1879A30000000000 + int(hashlib.sha256(f"{ns}/{sname}/{node_name}".encode())
                                                       .hexdigest()[:10], 16))
    return {
        "apiVersion": "v1", "kind": "Event",
        "metadata": meta("Event", name, ns, created=first),
        "involvedObject": {"apiVersion": "v1", "kind": "Service", "name": sname, "namespace": ns,
                           "uid": svc["metadata"]["uid"], "resourceVersion": svc["metadata"]["resourceVersion"]},
        "reason": "nodeAssigned",
        "message": f'announcing from node "{node_name}" with protocol "layer2"',
        "source": {"component": "metallb-speaker"},
        "reportingComponent": "metallb-speaker", "reportingInstance": "",
        "type": "Normal", "count": count, "firstTimestamp": first, "lastTimestamp": last,
    }


def build_snapshot(sim, pod_names):
    info = snapshot_info()
    namespaces = [namespace(MLB_NS, "2026-10-05T09:39:58Z",
                            {"pod-security.kubernetes.io/enforce": "privileged",
                             "pod-security.kubernetes.io/audit": "privileged",
                             "pod-security.kubernetes.io/warn": "privileged"}),
                  namespace("ai", "2026-10-19T20:58:02Z"),
                  namespace("apps", "2026-10-06T08:10:00Z"),
                  namespace("dns", "2026-10-08T17:40:31Z"),
                  namespace("media", "2026-10-12T18:55:41Z"),
                  namespace("monitoring", "2026-10-05T09:58:12Z")]
    nodes = [node(*n) for n in NODES]
    ds = speaker_daemonset()
    speakers = {}
    plan = sim.notes["rollout"]
    for n in NODE_NAMES:
        s = sim.sp[n]
        delete, start, _ = plan[n]
        created = delete + 1500 * MS  # the new Pod object, right after the old one went away
        last = s.containers[-1]
        assert last["stop"] is None
        restarts = len(s.containers) - 2  # containers of the new Pod after its first
        lt = None
        if restarts:
            prev = s.containers[-2]
            lt = {"containerID": container_id(n, prev["start"]), "exitCode": 137, "reason": "Error",
                  "startedAt": rfc3339(prev["start"]), "finishedAt": rfc3339(prev["stop"])}
        speakers[n] = speaker_pod(n, ds["metadata"]["uid"], pod_names[n], created, restarts, last["start"], lt)
    ctrl = controller_pod()
    services, slices = {}, []
    for key in SVC_KEYS:
        ns, name, ip, ports, ready, unready, created, share = SVC[key]
        svc = service(ns, name, ip, ports, created, share)
        services[key] = svc
        slices.append(endpoint_slice(svc, ready, unready))
    base = namespaces + nodes + [ds] + [speakers[n] for n in NODE_NAMES] + [ctrl, ip_pool(), l2_advertisement()] \
        + [services[k] for k in SVC_KEYS] + slices
    statuses, events = [], []
    for key in SVC_KEYS:
        if not SVC_READY[key]:
            continue
        ip = SVC_IP[key]
        holders = [n for n in NODE_NAMES if key in sim.sp[n].announced]
        assert holders == [sim.owner[ip]], (key, holders, sim.owner[ip])
        n = holders[0]
        since = sim.sp[n].announced[key]
        statuses.append(service_l2_status(services[key], n, speakers[n], rfc3339(since + 350 * MS)))
    for key in SVC_KEYS:
        for n in NODE_NAMES:
            times = sim.assigned.get((key, n))
            if not times:
                continue
            count, first = len(times), rfc3339(times[0])
            if n == sim.owner_at_start[SVC_IP[key]]:
                # the aggregated Event has been counting since long before the window
                count += rng.randint(900, 2400)
                first = rfc3339(ns_of(SVC[key][6]) + 41 * SEC)
            events.append(node_assigned_event(services[key], n, count, first, rfc3339(times[-1])))
    return [info] + base + statuses + events


# --------------------------------------------------------------------------- files

HEADER = """\
# GENERATED by scripts/gen-history-story.py -- do not edit by hand; change the script and re-run it.
# {what}
"""


def file_lines(sim, n):
    cid = sim.sp[n].cid
    return sorted((x for x in sim.lines[n] if x[3] == cid and WINDOW_START <= x[0] < CAPTURED),
                  key=lambda x: (x[0], x[1]))


def attach_evidence(sim, files):
    """Every change must be visible in a file kubectl shows: the new owner's serviceAnnounced
    (takeover) or the old owner's serviceWithdrawn notOwner (takeback)."""
    where = {}
    for fname, (n, lines) in files.items():
        for i, x in enumerate(lines, 1):
            where[x[1]] = f"{fname}:{i}"
    for c in sim.changes:
        ev = c["evidence"]
        if ev is None:
            # takeover decided when the old owner stopped: the new owner's announce came earlier
            y = c["to"]
            cands = [x for x in sim.lines[y] if x[0] <= c["t"] and f'"ips":["{c["ip"]}"]' in x[2]]
            ev = (y, cands[-1][1]) if cands else None
        c["evidenceAt"] = where.get(ev[1]) if ev else None
        assert c["evidenceAt"], ("no evidence in any shown log", c)


def readme(sim, truth, files, pod_names, total_size):
    conts = sim.notes["gpu_containers"]
    crashes = sim.notes["crashes"]
    plan = sim.notes["rollout"]
    fname_of = {n: f"{pod_names[n]}.log" for n in NODE_NAMES}
    orders = {ip: l2_order(ip, ORIG_CANDIDATES) for ip in IPS}
    worst_ip = max(sorted(truth["ips"], key=ip_order_key), key=lambda ip: truth["ips"][ip]["ownerChanges"])
    g = truth["nodes"][GPU]
    out = [
        "# `kubectl lbdoctor history` story: 23 days, a crash-looping speaker, a fix"
        + (" (variant `fast-returns`: it returns within seconds)" if FAST else ""),
        "",
        "GENERATED by `scripts/gen-history-story.py"
        + (" --variant fast-returns" if FAST else "")
        + "` (deterministic, fixed seed; do not edit by hand).",
        "Independent of the lbdoctor history code: a discrete-event model of MetalLB v0.16.1 layer 2 with",
        "memberlist (hashicorp/memberlist v0.5.1) in which every speaker has its own memberlist view and its",
        "own copy of the configuration. `truth.json` comes from that model's state, not from the logs.",
        "",
        f"Total size of this directory: {total_size / 1e6:.2f} MB.",
        "",
        f"## The cluster (`cluster.yaml`, captured {CAPTURED_AT})",
        "",
        f"8 nodes; MetalLB {METALLB_VERSION}, layer 2, memberlist enabled; one pool `lan` "
        f"192.0.2.{POOL_FIRST}-192.0.2.{POOL_LAST}; one L2Advertisement `{MLB_NS}/l2`.",
        "cp-1 carries `node.kubernetes.io/exclude-from-external-load-balancers: \"\"` (never a candidate).",
        "All Services are externalTrafficPolicy Cluster. Candidates under the original configuration: the 7",
        "nodes other than cp-1; the winner of an IP is the candidate with the smallest",
        "`sha256(node + \"#\" + ip)`:",
        "",
        "| IP | Services | sha256 order (original candidates) | owner at window start | owner at capture |",
        "|---|---|---|---|---|",
    ]
    for ip in sorted(IPS, key=ip_order_key):
        out.append(f"| {ip} | {', '.join(IP_SERVICES[ip])} | {', '.join(orders[ip])} | "
                   f"{truth['ips'][ip]['ownerAtWindowStart']} | {truth['ips'][ip]['ownerAtCapture']} |")
    out += [
        "",
        f"gpu-1 wins {', '.join(GPU_IPS)} under the original configuration (runner-ups worker-a, worker-a,",
        "worker-c); no other IP has gpu-1 among its first three. "
        f"{SHARED_IP} is shared (`metallb.io/allow-shared-ip: dns`) by",
        "dns/adguard-dot (sorts first; its only endpoint is not ready, so no speaker ever announces it and it",
        "has no ServiceL2Status) and dns/pihole (ready endpoints; announced by its owner).",
        "",
        "Speaker Pods at capture (`kubectl logs` file = Pod name):",
        "",
        "| node | Pod / log file | Pod created (rollout) | current container since | restartCount | file starts |",
        "|---|---|---|---|---|---|",
    ]
    for n in NODE_NAMES:
        s = sim.sp[n]
        lines = files[fname_of[n]][1]
        out.append(f"| {n} | {fname_of[n]} | {rfc3339(plan[n][0] + 1500 * MS)} | {rfc3339(s.containers[-1]['start'])} "
                   f"| {len(s.containers) - 2} | {rfc3339(lines[0][0])} |")
    first_c = crashes[0]
    out += [
        "",
        "## The story",
        "",
        f"* Window: `--since-time={rfc3339(WINDOW_START)}` to capture {CAPTURED_AT} (23 days). Until the",
        "  rollout nothing happens but EndpointSlice churn; those lines were in the pre-rollout Pods, which",
        "  are gone, so every file starts at its rollout container.",
        f"* **Day 1, {rfc3339(ROLLOUT_AT)}: `kubectl rollout restart ds/speaker`** (template annotation",
        "  `kubectl.kubernetes.io/restartedAt`; generation 2). maxUnavailable 1, readiness-gated, in the order",
        f"  {', '.join(ROLLOUT_ORDER)}. Each speaker gets SIGTERM, leaves memberlist gracefully (peers log",
        "  NodeLeave with no Suspect/Marking lines), its new Pod's container starts a few seconds later, logs",
        "  NodeJoin for EVERY current member including itself (not rejoins), and the peers log NodeJoin for it.",
        "  Each IP's owner is rolled after its runner-up, so the runner-up's takeover announce and its later",
        "  notOwner withdrawal are in its new container's log.",
        f"* gpu-1's new container (started {rfc3339(plan[GPU][1])}) is SIGKILLed at {rfc3339(first_c)}, one",
        "  second after cp-1's old speaker got SIGTERM: cp-1's new speaker joins after gpu-1 was marked failed,",
        "  so **cp-1's file has no NodeLeave for that departure** and its startup NodeJoin list has 7 members;",
        "  it then logs NodeJoin gpu-1 when gpu-1 restarts (a real rejoin).",
        f"* **Days 1-18: gpu-1's speaker crash-loops in bursts** (a host watchdog SIGKILLs it under memory",
        f"  pressure: exit 137, reason Error). {len(crashes)} crashes in the window, restartCount at capture",
        f"  {len(sim.sp[GPU].containers) - 2}; runs of 1-6 min inside a burst, kubelet backoff 10 s doubling to",
        "  5 min, reset after a 10-min run; hours of normal running between bursts. The worst night is",
        "  2026-11-09 (a 7-hour burst). Each crash: the prober logs `Failed fallback TCP ping ... connection",
        "  refused` and `Suspect gpu-1 has failed`, 1-2 other peers log Suspect (the confirmations), the",
        "  prober alone logs `Marking gpu-1 as failed ... (N peer confirmations)` after 4 s (2) or 11.4 s (1);",
        "  every other running speaker logs NodeLeave gpu-1 and reprocesses (owners re-announce; worker-a",
        "  announces 192.0.2.218 and 192.0.2.237, worker-c 192.0.2.235: takeovers). Each restart: peers log",
        "  NodeJoin gpu-1, worker-a / worker-c withdraw with notOwner (takebacks); gpu-1's own announce is in",
        "  a container log kubectl no longer shows.",
        f"* **Flaps without a restart** ({len(sim.notes['flaps'])}): gpu-1 stalls, peers suspect and mark it",
        "  failed and log NodeLeave; the runner-ups announce while gpu-1 still announces in its own view",
        "  (takeover); gpu-1 logs `Refuting a dead message (from: <marker>)` (in a container that later",
        "  crashed, so not shown), peers log NodeJoin, the runner-ups withdraw notOwner (takeback). Some peers",
        "  never received the dead message (the refutation reached them first) and log neither line:",
    ]
    for t0, miss, stall in sim.notes["flaps"]:
        out.append(f"  - flap at {rfc3339(t0)} (stall ~{stall / 1000:.1f} s after the mark); missed by: "
                   f"{', '.join(miss) if miss else 'nobody'}")
    out += [
        "  worker-c missing the 2026-11-07 flap is why 192.0.2.235 has 2 owner changes fewer than the others.",
        f"* False suspicions: {', '.join(rfc3339(t) for t in sim.notes['false_suspicions'])}: one peer logs",
        "  Suspect, gpu-1 logs `Refuting a suspect message`; no Marking, no NodeLeave, nothing moves. The last",
        "  one is in gpu-1's current container.",
        f"* **Day 14, {rfc3339(FIX_AT)}: the fix.** L2Advertisement `{MLB_NS}/l2` gets",
        "  `nodeSelectors: [{matchExpressions: [{key: kubernetes.io/hostname, operator: NotIn, values: [gpu-1]}]}]`.",
        "  Every speaker logs ConfigReconciler start/end and reprocesses; gpu-1 (alive, announcing) withdraws",
        "  its three IPs with noMatchingAdvertisement, the reason v0.16.1 gives a node no L2Advertisement selects (its log is lost: that container crashed later), worker-a / worker-c",
        "  announce them: 3 owner changes, counted as takeovers (the old owner stopped being a candidate).",
        "* Day 14 has a crash burst in the morning (IPs move) and another in the evening after the fix (no",
        "  IP moves): its gpu-1 departures and its owner changes no longer go together.",
        f"* Days 14-18: gpu-1 keeps crash-looping (peers still log Suspect/Marking/NodeLeave/NodeJoin and",
        "  reprocess) but it is no candidate any more: no IP moves. Its last crash is",
        f"  {rfc3339(crashes[-1])}; its current container started {rfc3339(sim.sp[GPU].containers[-1]['start'])}",
        "  and runs to capture; its file starts there (no serviceAnnounced in it at all).",
        "* worker-a takes gpu-1's IPs over hundreds of times and is a stable node: it must not be blamed.",
        "* Noise: EndpointSlice churn every 70-190 min (every speaker logs ServiceReconciler start/end for",
        "  that Service, its owner re-announces), startup lines, 3 klog lines (not JSON) in worker-c's and",
        "  worker-d's files. Timestamps are whole seconds; many lines share one.",
        "",
        "## Truth (`truth.json`)",
        "",
        "* **Owner of an IP** = the node whose speaker is really announcing it, from the model's state",
        "  (including gpu-1's containers whose logs are gone). An **owner change** = the announcer changes",
        "  from node X to node Y (X != Y); the owner at the window start is not a change.",
        "* **takeover**: Y starts announcing because, in Y's view, X is dead / has left / is no candidate",
        "  (crash, flap, graceful leave, the fix). Counted at Y's first serviceAnnounced; evidence: that line",
        "  in Y's file.",
        "* **takeback**: X withdraws (serviceWithdrawn notOwner) because Y, which outranks it, is (back) in its",
        "  view (restart, end of a flap, rollout return). Counted at X's withdrawal; evidence: that line in X's",
        "  file (Y's own announce may be in a log kubectl no longer shows).",
        "* During a flap both gpu-1 (in its own view) and the runner-up announce: the runner-up's start is a",
        "  change (takeover), its withdrawal at the rejoin another (takeback).",
        "* Days are UTC days of the instant of the change.",
        "* **departure** = the cluster's memberlist marks the node failed (Marking) or receives its graceful",
        "  Leave; once per event, at that instant. **rejoin** = the node is alive again after a departure",
        "  (restart join or refutation), once per event. A starting speaker's NodeJoin lines for the other",
        "  members are not rejoins of those members. `restartsInWindow` = kubelet container restarts (crash",
        "  restarts) in the window: gpu-1's equals its restartCount (its Pod was created by the rollout); the",
        "  rollout replaced every Pod once (`gracefulRestarts`, also a departure and a rejoin).",
        "* `changes` lists every change: [instant, ip, from, to, kind, file:line of the evidence]. Every change",
        "  has its evidence in a shown file (the script asserts it).",
        "",
        "## Counts",
        "",
        "| IP | Services | owner changes | takeovers | takebacks | owner at capture |",
        "|---|---|---|---|---|---|",
    ]
    for ip in sorted(IPS, key=ip_order_key):
        e = truth["ips"][ip]
        out.append(f"| {ip} | {', '.join(e['services'])} | {e['ownerChanges']} | {e['takeovers']} | "
                   f"{e['takebacks']} | {e['ownerAtCapture']} |")
    ties = [ip for ip in sorted(IPS, key=ip_order_key) if ip != worst_ip
            and truth["ips"][ip]["ownerChangesByDay"] == truth["ips"][worst_ip]["ownerChangesByDay"]]
    tie_note = f" ({', '.join(ties)} has exactly the same counts)" if ties else ""
    out += [
        "",
        f"Worst day (all IPs): **{truth['worstDay']['day']}, {truth['worstDay']['ownerChanges']} owner changes**.",
        "",
        f"Owner changes per day for the worst IP, {worst_ip} ({', '.join(IP_SERVICES[worst_ip])}){tie_note},",
        "and for all IPs (days without any are left out):",
        "",
        f"| day | {worst_ip} | all IPs | gpu-1 departures | gpu-1 rejoins |",
        "|---|---|---|---|---|",
    ]
    all_days = sorted(set(truth["ownerChangesByDay"]) | set(truth["departuresByDay"][GPU]))
    for d in all_days:
        out.append(f"| {d} | {truth['ips'][worst_ip]['ownerChangesByDay'].get(d, 0)} | "
                   f"{truth['ownerChangesByDay'].get(d, 0)} | {truth['departuresByDay'][GPU].get(d, 0)} | "
                   f"{truth['rejoinsByDay'][GPU].get(d, 0)} |")
    out += [
        "",
        "| node | departures | rejoins | crashes | flaps | graceful | restartsInWindow |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in NODE_NAMES:
        e = truth["nodes"][n]
        out.append(f"| {n} | {e['departures']} | {e['rejoins']} | {e['crashes']} | {e['flaps']} | "
                   f"{e['gracefulRestarts']} | {e['restartsInWindow']} |")
    out += [
        "",
        "Lines a peer never wrote (so one file alone undercounts):",
        "",
    ]
    for p, n, t, why in sim.misses:
        out.append(f"* {p}: no NodeLeave {n} for the departure at {rfc3339(t)} ({why})")
    out += [
        "",
        "## Where the evidence is",
        "",
        "| file | node | lines | serviceAnnounced | serviceWithdrawn notOwner | NodeLeave | NodeJoin | Suspect | Marking | evidence for changes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    ev_count = {}
    for c in truth["changes"]:
        f = c[5].split(":")[0]
        ev_count[f] = ev_count.get(f, 0) + 1
    for n in NODE_NAMES:
        f = fname_of[n]
        lines = files[f][1]
        txt = [x[2] for x in lines]
        out.append(f"| {f} | {n} | {len(lines)} | {sum('serviceAnnounced' in x for x in txt)} | "
                   f"{sum('serviceWithdrawn' in x for x in txt)} | {sum('NodeLeave' in x for x in txt)} | "
                   f"{sum('NodeJoin' in x for x in txt)} | {sum('Suspect ' in x for x in txt)} | "
                   f"{sum('Marking ' in x for x in txt)} | {ev_count.get(f, 0)} |")
    out += [
        "",
        "* Takeovers of gpu-1's IPs: worker-a's file (`serviceAnnounced` `\"ips\":[\"192.0.2.218\"]` /",
        "  `[\"192.0.2.237\"]`, the first after a `NodeLeave` `gpu-1` line of the same second) and worker-c's",
        "  file (`192.0.2.235`). Takebacks: the `serviceWithdrawn` `notOwner` lines for those IPs in the same",
        "  files, right after a `NodeJoin` `gpu-1`. gpu-1's departures: `Marking gpu-1 as failed` (one peer)",
        "  and `NodeLeave` `gpu-1` (every running peer, a few missing, see above); rejoins: `NodeJoin gpu-1`",
        "  in the peers' files outside their own startup burst.",
        "* Rollout changes: the runner-up's `serviceAnnounced` after `NodeLeave <owner>` and its",
        "  `serviceWithdrawn notOwner` after `NodeJoin <owner>`, e.g. worker-a for 192.0.2.239 (worker-b's),",
        "  worker-b for 192.0.2.225, 192.0.2.226 and 192.0.2.209, worker-d for 192.0.2.232.",
        "* The fix: ConfigReconciler lines at the fix second in every file, worker-a's / worker-c's",
        "  `serviceAnnounced` right after them. gpu-1's withdrawal is not in any shown file.",
        "* `truth.json` `changes[*][5]` gives the exact `file:line` for every change. First and last few:",
        "",
    ]
    for c in truth["changes"][:6] + truth["changes"][-4:]:
        out.append(f"  - {c[0]} {c[1]} {c[2]} -> {c[3]} ({c[4]}): {c[5]}")
    out.append("")
    return "\n".join(out)


# =========================================================================== variant "two-nodes"
# Two flapping nodes (gpu-1 crash-loops and is fixed; storage-1 flaps later and is not fixed),
# plus four things that move an IP without anyone flapping: a stable node's single OOM restart,
# an L2Advertisement nodeSelectors tweak that adds an outranking node, a deleted Service, and an
# externalTrafficPolicy: Local Service whose only endpoint moves to another node.
#
# Every name below is used only by this variant; configure_two_nodes() rebinds the few module
# tables the shared helpers read (SVC_IP, SVC_KEYS, ...). The default variant never calls it.

STORAGE = "storage-1"
OOM_NODE = "worker-e"
EXCLUDED_LB = {CP}  # kubeadm's exclude-from-external-load-balancers label (never a candidate)
POOL_INFRA = "infra"
INFRA_FIRST, INFRA_LAST = 100, 109
INFRA_NODES_BEFORE = ["worker-c", "worker-d"]
INFRA_NODES_AFTER = ["worker-b", "worker-c", "worker-d"]
LOCAL_SVC = "home/home-assistant"
LOCAL_FROM, LOCAL_TO = "worker-c", "worker-a"
DELETED_SVC = "apps/wikijs"

TN_FIX_WANT = "2026-11-14T19:26:41Z"  # L2Advertisement l2: nodeSelectors NotIn [gpu-1]
TN_OOM_WANT = "2026-11-08T03:12:40Z"  # worker-e's speaker OOMKilled once
TN_MOVE_WANT = "2026-11-11T16:20:05Z"  # home-assistant's pod moves from worker-c to worker-a
TN_DELETE_WANT = "2026-11-16T20:41:09Z"  # kubectl delete svc -n apps wikijs
TN_INFRA_WANT = "2026-11-19T10:03:27Z"  # L2Advertisement l2-infra: worker-b added to its nodeSelectors

# (namespace, name, ip, ports, ready nodes, not-ready nodes, created, allow-shared-ip, pool, ETP)
TN_SERVICES = [
    ("media", "jellyfin", "192.0.2.207", [("http", 8096, 8096, "TCP")], ["gpu-1"], [],
     "2026-10-12T19:04:11Z", None, POOL, "Cluster"),
    ("ai", "ollama", "192.0.2.235", [("http", 11434, 11434, "TCP")], ["gpu-1"], [],
     "2026-10-19T21:07:33Z", None, POOL, "Cluster"),
    ("apps", "nextcloud", "192.0.2.222", [("https", 443, 443, "TCP")], ["storage-1"], [],
     "2026-10-06T08:40:02Z", None, POOL, "Cluster"),
    ("backup", "minio", "192.0.2.217", [("api", 9000, 9000, "TCP"), ("console", 9001, 9001, "TCP")],
     ["storage-1"], [], "2026-10-09T12:30:44Z", None, POOL, "Cluster"),
    ("monitoring", "grafana", "192.0.2.203", [("http", 80, 3000, "TCP")], ["worker-e"], [],
     "2026-10-05T10:02:19Z", None, POOL, "Cluster"),
    ("apps", "gitea", "192.0.2.239", [("http", 80, 3000, "TCP"), ("ssh", 22, 2222, "TCP")], ["worker-b"], [],
     "2026-10-06T08:15:27Z", None, POOL, "Cluster"),
    ("dns", "adguard-dot", "192.0.2.230", [("dot", 853, 853, "TCP")], [], ["worker-d"],
     "2026-10-28T18:22:05Z", "dns", POOL, "Cluster"),
    ("dns", "pihole", "192.0.2.230", [("dns", 53, 53, "UDP"), ("dns-tcp", 53, 53, "TCP"), ("http", 80, 80, "TCP")],
     ["worker-c", "worker-e"], [], "2026-10-08T17:45:10Z", "dns", POOL, "Cluster"),
    ("apps", "vaultwarden", "192.0.2.227", [("http", 80, 8080, "TCP")], ["worker-a"], [],
     "2026-10-07T21:12:45Z", None, POOL, "Cluster"),
    ("apps", "wikijs", "192.0.2.210", [("http", 80, 3000, "TCP")], ["worker-d"], [],
     "2026-10-10T16:51:02Z", None, POOL, "Cluster"),
    ("home", "home-assistant", "192.0.2.213", [("http", 8123, 8123, "TCP")], [LOCAL_FROM], [],
     "2026-10-11T09:27:36Z", None, POOL, "Local"),
    ("infra", "unifi", "192.0.2.104", [("https", 8443, 8443, "TCP"), ("inform", 8080, 8080, "TCP"),
                                       ("stun", 3478, 3478, "UDP")], ["worker-d"], [],
     "2026-10-13T20:14:09Z", None, POOL_INFRA, "Cluster"),
    ("infra", "mosquitto", "192.0.2.105", [("mqtt", 1883, 1883, "TCP"), ("mqtts", 8883, 8883, "TCP")],
     ["worker-c"], [], "2026-10-13T20:19:55Z", None, POOL_INFRA, "Cluster"),
]
TN_POOL = {f"{s[0]}/{s[1]}": s[8] for s in TN_SERVICES}
TN_ETP = {f"{s[0]}/{s[1]}": s[9] for s in TN_SERVICES}

# Each IP's runner-up is rolled before its owner (so both halves of the rollout change are in
# the runner-up's new container); gpu-1 second to last, cp-1 last, as in the story.
TN_ROLLOUT_ORDER = ["worker-a", "worker-d", "worker-c", "worker-b", "worker-e", "storage-1", "gpu-1", "cp-1"]

TN_GPU_FLAPS = [
    ("2026-11-03T14:12:09Z", (), 2600),
    ("2026-11-06T21:40:31Z", ("worker-d",), 5200),
    ("2026-11-10T16:05:44Z", (), 7400),
    ("2026-11-12T11:48:20Z", ("worker-b",), 3100),  # worker-b (runner-up of 192.0.2.207) misses it
]
TN_GPU_FALSE = ["2026-11-05T08:31:40Z", "2026-11-16T13:02:11Z", "2026-11-21T04:17:53Z"]
TN_STORAGE_CRASHES = ["2026-11-13T21:02:17Z", "2026-11-16T18:40:52Z", "2026-11-19T23:15:08Z",
                      "2026-11-21T14:09:33Z"]
TN_STORAGE_FLAPS = [
    ("2026-11-12T02:14:26Z", (), 3300),
    ("2026-11-12T23:40:03Z", (), 2100),
    ("2026-11-13T09:05:41Z", ("cp-1",), 4600),
    ("2026-11-14T03:33:12Z", (), 2900),
    ("2026-11-15T16:20:37Z", ("worker-d",), 1800),  # worker-d (runner-up of 192.0.2.222) misses it
    ("2026-11-16T01:12:55Z", (), 6100),
    ("2026-11-17T11:45:19Z", (), 2400),
    ("2026-11-18T22:10:44Z", ("worker-b", "worker-e"), 3700),
    ("2026-11-19T04:50:09Z", (), 2200),
    ("2026-11-20T01:05:30Z", (), 2800),  # the bad night on the storage host: 5 flaps in 3 hours
    ("2026-11-20T01:41:12Z", (), 5400),
    ("2026-11-20T02:33:48Z", ("worker-c",), 2000),
    ("2026-11-20T03:17:05Z", (), 3900),
    ("2026-11-20T04:02:26Z", (), 2500),
    ("2026-11-22T02:08:14Z", (), 3100),
    ("2026-11-23T05:31:40Z", (), 4200),
    ("2026-11-23T21:44:02Z", ("cp-1",), 2700),
]
TN_STORAGE_FALSE = ["2026-11-18T07:30:21Z", "2026-11-22T19:05:48Z"]
TN_MALFORMED = [
    ("2026-11-04T03:12:45Z", "worker-c", "W", KLOG_WATCH),
    ("2026-11-15T17:40:02Z", "worker-a", "W", KLOG_WATCH),
    ("2026-11-20T08:21:09Z", "worker-d", "E", KLOG_REFUSED),
]
LAST_STATE_REASON = {GPU: "Error", STORAGE: "OOMKilled", OOM_NODE: "OOMKilled"}


def configure_two_nodes():
    """Rebind the module tables the shared helpers read to this variant's Services."""
    global SERVICES, SVC_KEYS, SVC, SVC_IP, SVC_READY, IPS, IP_SERVICES, GPU_IPS, SHARED_IP, STABLE
    SERVICES = [s[:8] for s in TN_SERVICES]
    SVC_KEYS = sorted(f"{s[0]}/{s[1]}" for s in SERVICES)
    SVC = {f"{s[0]}/{s[1]}": s for s in SERVICES}
    SVC_IP = {k: SVC[k][2] for k in SVC_KEYS}
    SVC_READY = {k: bool(SVC[k][4]) for k in SVC_KEYS}
    IPS = sorted(set(SVC_IP.values()), key=lambda ip: tuple(int(x) for x in ip.split(".")))
    IP_SERVICES = {ip: [k for k in SVC_KEYS if SVC_IP[k] == ip] for ip in IPS}
    GPU_IPS = [ip for ip in IPS if tn_order(ip)[:1] == [GPU]]
    SHARED_IP = next(ip for ip in IPS if len(IP_SERVICES[ip]) > 1)
    STABLE = [n for n in NODE_NAMES if n not in (GPU, STORAGE)]


def tn_ad_nodes(key, cfg):
    """The nodes the Service's L2Advertisement selects, under config versions cfg."""
    if TN_POOL[key] == POOL:
        return set(NODE_NAMES) - ({GPU} if cfg["l2"] >= 2 else set())
    return set(INFRA_NODES_AFTER if cfg["l2-infra"] >= 2 else INFRA_NODES_BEFORE)


def tn_candidates(key, view, cfg, ep_nodes):
    """MetalLB v0.16.1 layer2 ShouldAnnounce: memberlist members, minus exclude-lb-labelled nodes,
    matched by one of the Service's L2Advertisements; for externalTrafficPolicy Local only the
    nodes with a serving endpoint."""
    ad = tn_ad_nodes(key, cfg)
    c = [m for m in sorted(view) if m in ad and m not in EXCLUDED_LB]
    if TN_ETP[key] == "Local":
        c = [m for m in c if m in ep_nodes]
    return c


TN_CFG0 = {"l2": 1, "l2-infra": 1}


def tn_initial_eps(key):
    return set(SVC[key][4])


def tn_order(ip):
    """sha256 order of the candidates for ip under the original configuration (all members up):
    the IP's first Service with a serving endpoint decides (a shared IP's unready one is never
    announced)."""
    keys = [k for k in sorted(SVC) if SVC[k][2] == ip]
    key = next((k for k in keys if SVC[k][4]), keys[0])
    return l2_order(ip, tn_candidates(key, set(NODE_NAMES), TN_CFG0, tn_initial_eps(key)))


class Sim2(Sim):
    """The story's simulation with per-Service candidates: two L2Advertisements (one per pool),
    externalTrafficPolicy Local, deleted Services, the real withdrawal reasons, and the cause of
    every owner change."""

    def __init__(self):
        super().__init__()
        self.services = set(SVC_KEYS)  # Services that exist (the API server's view)
        self.eps = {k: tn_initial_eps(k) for k in SVC_KEYS}  # nodes with a serving endpoint
        self.global_cfg = dict(TN_CFG0)
        self.ctx = None  # what the event being processed is, when it is a config/endpoint change
        self.deleted = {}  # ip -> (service, instant)
        self.owner_before_delete = {}
        for n in NODE_NAMES:
            self.sp[n].cfg = dict(TN_CFG0)

    # -- election, per Service
    def cands(self, n, key):
        s = self.sp[n]
        return tn_candidates(key, s.view, s.cfg, self.eps[key])

    def is_candidate(self, m, viewer, key):
        return m in self.cands(viewer, key)

    def winner_key(self, n, key):
        if not self.eps[key]:  # no active endpoint at all: nobody announces
            return None
        c = self.cands(n, key)
        return l2_order(SVC_IP[key], c)[0] if c else None

    def node_cause(self, m):
        kinds = [d[2] for d in self.departures if d[0] == m]
        return f"{m} {kinds[-1]}"

    def other_cause(self, o, viewer, key):
        """o is in viewer's memberlist view but no candidate for key: the configuration or the
        endpoints say so."""
        if o not in tn_ad_nodes(key, self.sp[viewer].cfg):
            return "config l2" if TN_POOL[key] == POOL else "config l2-infra"
        assert TN_ETP[key] == "Local" and o not in self.eps[key], (o, viewer, key)
        return f"endpoint {key}"

    # -- truth
    def change(self, t, ip, frm, to, kind, evidence, cause=None):
        assert frm != to and cause, (ip, frm, to, kind, cause)
        self.changes.append({"t": t, "ip": ip, "from": frm, "to": to, "kind": kind, "evidence": evidence,
                             "cause": cause})
        self.owner[ip] = to

    def truth_start(self, y, ip, t, line, key=None):
        self.annc[ip].add(y)
        o = self.owner[ip]
        assert o is not None, ("announce of a deleted Service's IP", ip)
        if y == o:
            self.vacant.pop(ip, None)
            return
        if ip in self.vacant:
            reason, tv, wline, cause = self.vacant.pop(ip)
            if reason == "yield":
                self.change(tv, ip, o, y, "takeback", wline, cause)
            else:
                self.change(t, ip, o, y, "takeover", (y, line), cause)
            return
        if o not in self.sp[y].view:
            self.change(t, ip, o, y, "takeover", (y, line), self.node_cause(o))
        elif not self.is_candidate(o, y, key):
            self.change(t, ip, o, y, "takeover", (y, line), self.other_cause(o, y, key))
        # else: y outranks a live candidate owner; the change happens when the owner yields

    def truth_stop(self, x, ip, t, reason, line=None, cause=None):
        self.annc[ip].discard(x)
        if x != self.owner[ip]:
            return
        if reason == "died":
            cause = f"{x} crash"
        elif reason == "left":
            cause = f"{x} graceful"
        if reason == "deleted":
            assert not self.annc[ip], ip
            self.owner_before_delete[ip] = x
            self.owner[ip] = None
            return
        others = sorted(self.annc[ip], key=lambda m: sha_key(m, ip))
        if others:
            y = others[0]
            if reason == "yield":
                self.change(t, ip, x, y, "takeback", (x, line), cause)
            else:
                self.change(t, ip, x, y, "takeover", None, cause)
        else:
            self.vacant[ip] = (reason, t, (x, line) if line else None, cause)

    # -- a speaker handles one Service: SetBalancer / ShouldAnnounce / deleteBalancer
    def handle(self, n, key, t):
        s = self.sp[n]
        ip = SVC_IP[key]
        if key not in self.services:  # SetBalancer(svc == nil): deleteBalancer "serviceDeleted"
            if key in s.announced:
                t += u_ms(1, 8)
                line = self.emit(n, t, j_withdraw(t, ip, "serviceDeleted"))
                del s.announced[key]
                if not self.announces_ip(n, ip):
                    self.truth_stop(n, ip, t, "deleted", line)
            return t
        win = self.winner_key(n, key)
        if win == n:
            t += u_ms(1, 8)
            line = self.emit(n, t, j_announce(t, ip, TN_POOL[key]))
            self.assigned.setdefault((key, n), []).append(t)
            if key not in s.announced:
                first = not self.announces_ip(n, ip)
                s.announced[key] = t
                if first:
                    self.truth_start(n, ip, t, line, key)
        elif key in s.announced:
            in_ad = n in tn_ad_nodes(key, s.cfg)
            # ShouldAnnounce's order: no active endpoint -> notOwner; my node not selected by the
            # Service's L2Advertisements -> noMatchingAdvertisement; lost the election -> notOwner
            reason = "noMatchingAdvertisement" if (self.eps[key] and not in_ad) else "notOwner"
            t += u_ms(1, 8)
            line = self.emit(n, t, j_withdraw(t, ip, reason, TN_POOL[key]))
            del s.announced[key]
            if not self.announces_ip(n, ip):
                if self.is_candidate(n, n, key):
                    assert win is not None
                    self.truth_stop(n, ip, t, "yield", line, self.ctx or self.node_cause(win))
                else:
                    self.truth_stop(n, ip, t, "excluded", line, self.other_cause(n, n, key))
        return t

    def reprocess(self, n, t):
        t += u_ms(1, 5)
        self.emit(n, t, j_reload(t))
        for key in sorted(self.services):
            t = self.handle(n, key, t)
        return t

    def boot_pre_window(self):
        self.alive = set(NODE_NAMES)
        for n in NODE_NAMES:
            s = self.sp[n]
            s.cid, s.running, s.joined, s.view = 1, True, True, set(NODE_NAMES)
            s.containers.append({"cid": 1, "start": None, "stop": None, "how": None})
        for ip in IPS:
            self.owner[ip] = None
        for key in SVC_KEYS:
            w = self.winner_key(CP, key)  # every view is the same before the window
            if w is None:
                continue
            ip = SVC_IP[key]
            assert self.owner[ip] in (None, w)
            self.owner[ip] = w
            self.annc[ip].add(w)
            self.sp[w].announced[key] = None
        assert all(self.owner[ip] for ip in IPS)
        self.owner_at_start = dict(self.owner)

    def start_container(self, t, n):
        super().start_container(t, n)
        self.sp[n].cfg = dict(self.global_cfg)

    def startup_reconcile(self, t, n, cid):
        s = self.sp[n]
        if s.cid != cid or not s.running:
            return
        self.emit(n, t, j_config(t))
        t += u_ms(20, 60)
        self.emit(n, t, j_config(t, end=True))
        for key in sorted(self.services):
            t += u_ms(2, 20)
            self.emit(n, t, j_svc_start(t, key))
            t = self.handle(n, key, t)
            t += u_ms(1, 4)
            self.emit(n, t, j_svc_end(t, key))
        self.reprocess(n, t + u_ms(5, 40))

    # -- configuration, Services, endpoints
    def config_change(self, t, name):
        self.global_cfg[name] += 1
        for n in NODE_NAMES:
            if self.sp[n].running:
                self.push(t + u_ms(60, 450), self.apply_config2, n, self.sp[n].cid, name)

    def apply_config2(self, t, n, cid, name):
        s = self.sp[n]
        if s.cid != cid or not s.running:
            return
        s.cfg[name] = self.global_cfg[name]
        self.emit(n, t, j_config(t))
        t += u_ms(15, 60)
        self.emit(n, t, j_config(t, end=True))
        self.ctx = f"config {name}"
        self.reprocess(n, t)
        self.ctx = None

    def reconcile_all(self, t, key):
        """Every running speaker's ServiceReconciler gets the Service (or its slice) event."""
        for n in NODE_NAMES:
            s = self.sp[n]
            if not (s.running and s.joined):
                continue
            u = t + u_ms(0, 400)
            self.emit(n, u, j_svc_start(u, key))
            u = self.handle(n, key, u)
            u += u_ms(1, 5)
            self.emit(n, u, j_svc_end(u, key))

    def churn(self, t, key):
        if key in self.services:
            self.reconcile_all(t, key)

    def delete_service(self, t, key):
        ip = SVC_IP[key]
        self.services.discard(key)
        self.deleted[ip] = (key, t)
        self.reconcile_all(t, key)
        # the garbage collector removes its EndpointSlice a moment later: one more reconcile
        self.push(t + u_ms(700, 2400), self.reconcile_all, key)

    def set_endpoints(self, t, key, nodes):
        self.eps[key] = set(nodes)
        self.ctx = f"endpoint {key}"
        self.reconcile_all(t, key)
        self.ctx = None


def tn_flap(sim, t, n, miss, stall):
    """n stalls (no restart): peers mark it failed; it refutes the dead message when it wakes."""
    assert sim.sp[n].running and sim.sp[n].joined, (n, rfc3339(t))
    prober = rng.choice([p for p in sim.peers(n) if p not in miss and p in STABLE])
    sim.notes["last_marker"][n] = prober
    t_mark = sim.detect_failure(t, n, "flap", prober=prober, miss=miss)
    sim.push(t_mark + stall * MS, sim.refute_dead, n, sim.sp[n].cid)


def tn_stable_prober(sim, n):
    return rng.choice([p for p in sim.peers(n) if p in STABLE])


def build_two_nodes():
    sim = Sim2()
    sim.notes["last_marker"] = {}
    sim.boot_pre_window()

    plan, conts = rollout_and_crash_loop(sim, TN_ROLLOUT_ORDER)

    busy = [ROLLOUT_AT, plan[CP][2] + 30 * SEC]
    for s, c in conts:
        busy.append(s)
        if c is not None:
            busy.append(c)

    def clear(t0, gap=3 * MIN):
        return not any(abs(t0 - b) < gap for b in busy)

    def place(want, ok=lambda t0: True, gap=3 * MIN):
        t0 = ns_of(want)
        while not (ok(t0) and clear(t0, gap)):
            t0 += 7 * MIN
        busy.append(t0)
        return t0

    # -- the fix: gpu-1 must be up (and announcing) when it lands
    fix_at = place(TN_FIX_WANT, lambda t0: running_at(conts, t0, 5 * MIN))
    sim.notes["fix_at"] = fix_at

    # -- storage-1: a few crash restarts (OOMKilled, 10 s backoff), flaps in between
    st_conts = []
    start = plan[STORAGE][1]
    st_crashes = []
    for want in TN_STORAGE_CRASHES:
        c = place(want, lambda t0: t0 > start + 30 * MIN) + u_ms(0, 999)
        st_conts.append((start, c))
        start = c + 10 * SEC + u_ms(800, 2000)
        busy.append(start)
        st_crashes.append((c, start))
    st_conts.append((start, None))
    for c, r in st_crashes:
        sim.push(c, lambda tt, rr=r: sim.crash(tt, STORAGE, rr, {"prober": tn_stable_prober(sim, STORAGE)}))
    sim.notes["storage_containers"] = st_conts
    sim.notes["storage_crashes"] = [c for c, _ in st_crashes]

    # -- worker-e: one OOM kill, restarted after kubelet's 10 s backoff
    oom_at = place(TN_OOM_WANT) + u_ms(0, 999)
    oom_restart = oom_at + 10 * SEC + u_ms(800, 2000)
    busy.append(oom_restart)
    sim.push(oom_at, lambda tt: sim.crash(tt, OOM_NODE, oom_restart, {"prober": tn_stable_prober(sim, OOM_NODE)}))
    sim.notes["oom"] = (oom_at, oom_restart)

    up_st = lambda t0: running_at(st_conts, t0, 3 * MIN)  # noqa: E731
    up_gpu = lambda t0: running_at(conts, t0, 3 * MIN)  # noqa: E731

    gpu_flaps = []
    for want, miss, stall in TN_GPU_FLAPS:
        t0 = place(want, up_gpu)
        assert t0 < fix_at
        gpu_flaps.append((t0, miss, stall))
    gpu_fs = [place(w, up_gpu) for w in TN_GPU_FALSE]
    st_flaps = []
    for want, miss, stall in TN_STORAGE_FLAPS:
        st_flaps.append((place(want, up_st), miss, stall))
    st_fs = [place(w, up_st) for w in TN_STORAGE_FALSE]
    sim.notes.update(gpu_flaps=gpu_flaps, gpu_false=gpu_fs, storage_flaps=st_flaps, storage_false=st_fs)
    for t0, miss, stall in gpu_flaps:
        sim.push(t0, lambda t, m=miss, st=stall: tn_flap(sim, t, GPU, m, st))
    for t0 in gpu_fs:
        sim.push(t0, lambda t: sim.false_suspect(t, GPU, tn_stable_prober(sim, GPU)))
    for t0, miss, stall in st_flaps:
        sim.push(t0, lambda t, m=miss, st=stall: tn_flap(sim, t, STORAGE, m, st))
    for t0 in st_fs:
        sim.push(t0, lambda t: sim.false_suspect(t, STORAGE, tn_stable_prober(sim, STORAGE)))

    # -- the changes that move IPs without anyone departing
    sim.push(fix_at, sim.config_change, "l2")
    infra_at = place(TN_INFRA_WANT)
    sim.push(infra_at, sim.config_change, "l2-infra")
    delete_at = place(TN_DELETE_WANT)
    sim.push(delete_at, sim.delete_service, DELETED_SVC)
    # home-assistant's Deployment gets a new nodeSelector (the Zigbee stick moved to worker-a):
    # the new pod on worker-a becomes ready, the old one on worker-c terminates (still serving),
    # then goes away; only then does worker-c stop being a candidate.
    move_at = place(TN_MOVE_WANT)
    move_term = move_at + u_ms(900, 1600)
    move_gone = move_term + u_ms(18000, 26000)
    busy += [move_term, move_gone]
    sim.push(move_at, sim.set_endpoints, LOCAL_SVC, [LOCAL_FROM, LOCAL_TO])
    sim.push(move_term, sim.set_endpoints, LOCAL_SVC, [LOCAL_FROM, LOCAL_TO])
    sim.push(move_gone, sim.set_endpoints, LOCAL_SVC, [LOCAL_TO])
    sim.notes.update(infra_at=infra_at, delete_at=delete_at, move=(move_at, move_term, move_gone))

    # -- EndpointSlice churn and klog lines
    busy.sort()
    t = WINDOW_START + rng.randint(5, 40) * MIN
    while t < CAPTURED - 2 * MIN:
        if not any(abs(t - b) < 90 * SEC for b in busy) and not (
                plan[TN_ROLLOUT_ORDER[0]][0] - 2 * MIN < t < plan[CP][2] + 2 * MIN):
            key = rng.choice([k for k in SVC_KEYS if k != LOCAL_SVC])
            sim.push(t, sim.churn, key)
        t += rng.randint(70, 190) * MIN + u_ms(0, 59_999)
    for at, node_name, sev, text in TN_MALFORMED:
        ns = ns_of(at) + 123_456_000
        sim.push(ns, lambda t, n=node_name, sv=sev, tx=text: sim.malformed(t, n, klog(t, sv, tx)))

    sim.run(CAPTURED)
    return sim


def check_design_two():
    """The invariants the variant depends on."""
    order = {ip: tn_order(ip) for ip in IPS}
    gpu_ips = [ip for ip in IPS if order[ip][0] == GPU]
    st_ips = [ip for ip in IPS if order[ip][0] == STORAGE]
    assert gpu_ips == ["192.0.2.207", "192.0.2.235"], gpu_ips
    assert st_ips == ["192.0.2.217", "192.0.2.222"], st_ips
    for ip in IPS:
        o = order[ip]
        if ip in gpu_ips:
            assert STORAGE not in o[:3] and OOM_NODE not in o[:3], (ip, o)
        elif ip in st_ips:
            assert GPU not in o[:3] and OOM_NODE not in o[:3], (ip, o)
        else:
            assert GPU not in o[:3] and STORAGE not in o[:3], (ip, o)
            assert OOM_NODE not in o[1:3], (ip, o)
    assert [ip for ip in IPS if order[ip][0] == OOM_NODE] == ["192.0.2.203"]
    # the Local Service: worker-c outranks worker-a, so the move happens when worker-c's endpoint goes
    lip = SVC_IP[LOCAL_SVC]
    assert l2_order(lip, [LOCAL_FROM, LOCAL_TO]) == [LOCAL_FROM, LOCAL_TO]
    assert order[lip] == [LOCAL_FROM]
    assert l2_order(lip, [n for n in NODE_NAMES if n not in EXCLUDED_LB])[0] == STORAGE  # README says so
    # the infra pool: worker-c owns both, worker-b outranks it once it is added
    for k in SVC_KEYS:
        if TN_POOL[k] == POOL_INFRA:
            assert l2_order(SVC_IP[k], INFRA_NODES_BEFORE)[0] == "worker-c"
            assert l2_order(SVC_IP[k], INFRA_NODES_AFTER)[:2] == ["worker-b", "worker-c"]
            assert INFRA_FIRST <= int(SVC_IP[k].split(".")[3]) <= INFRA_LAST
    assert IP_SERVICES[SHARED_IP][0] == "dns/adguard-dot" and not SVC_READY["dns/adguard-dot"]
    pos = {n: i for i, n in enumerate(TN_ROLLOUT_ORDER)}
    for ip in IPS:
        o = order[ip]
        if len(o) > 1:
            assert pos[o[1]] < pos[o[0]], (ip, o[:2])
    assert TN_ROLLOUT_ORDER[-2:] == [GPU, CP]


def compute_truth_two(sim):
    changes = sorted(sim.changes, key=lambda c: c["t"])
    ips = {}
    for ip in IPS:
        cs = [c for c in changes if c["ip"] == ip]
        by_day = {}
        for c in cs:
            by_day[day_of(c["t"])] = by_day.get(day_of(c["t"]), 0) + 1
        key0 = IP_SERVICES[ip][0]
        e = {
            "services": IP_SERVICES[ip],
            "pool": TN_POOL[key0],
            "externalTrafficPolicy": TN_ETP[key0],
            "ownerAtWindowStart": sim.owner_at_start[ip],
            "ownerChangesByDay": dict(sorted(by_day.items())),
            "ownerChanges": len(cs),
            "takeovers": sum(1 for c in cs if c["kind"] == "takeover"),
            "takebacks": sum(1 for c in cs if c["kind"] == "takeback"),
            "ownerAtCapture": sim.owner[ip],
        }
        if ip in sim.deleted:
            key, t = sim.deleted[ip]
            e["deleted"] = {"service": key, "at": rfc3339(t), "lastOwner": sim.owner_before_delete[ip],
                            "reason": "serviceDeleted"}
        ips[ip] = e
    per_day = {}
    for c in changes:
        per_day[day_of(c["t"])] = per_day.get(day_of(c["t"]), 0) + 1
    worst = max(sorted(per_day.items()), key=lambda kv: kv[1])
    ties = [d for d, v in per_day.items() if v == worst[1]]
    assert len(ties) == 1, ties
    by_cause = {}
    for c in changes:
        by_cause[c["cause"]] = by_cause.get(c["cause"], 0) + 1
    nodes, dep_by_day, rej_by_day = {}, {}, {}
    for n in NODE_NAMES:
        s = sim.sp[n]
        deps = [d for d in sim.departures if d[0] == n]
        rejs = [r for r in sim.rejoins if r[0] == n]
        restarts = sum(1 for c in s.containers[2:] if c["start"] is not None and c["start"] >= WINDOW_START)
        caused = {k: by_cause.get(f"{n} {k}", 0) for k in ("crash", "flap", "graceful")}
        nodes[n] = {"departures": len(deps), "rejoins": len(rejs), "restartsInWindow": restarts,
                    "gracefulRestarts": sum(1 for d in deps if d[2] == "graceful"),
                    "crashes": sum(1 for d in deps if d[2] == "crash"),
                    "flaps": sum(1 for d in deps if d[2] == "flap"),
                    "restartCountAtCapture": len(s.containers) - 2,
                    "lastTerminationReason": LAST_STATE_REASON.get(n) if len(s.containers) > 2 else None,
                    "ownerChangesCaused": caused}
        dd, rr = {}, {}
        for _, t, _ in deps:
            dd[day_of(t)] = dd.get(day_of(t), 0) + 1
        for _, t, _ in rejs:
            rr[day_of(t)] = rr.get(day_of(t), 0) + 1
        dep_by_day[n] = dict(sorted(dd.items()))
        rej_by_day[n] = dict(sorted(rr.items()))

    def flap_caused(n):
        return nodes[n]["ownerChangesCaused"]["crash"] + nodes[n]["ownerChangesCaused"]["flap"]
    culprits = sorted([GPU, STORAGE], key=lambda n: -flap_caused(n))
    assert flap_caused(culprits[0]) > flap_caused(culprits[1]) > 0
    quiet = [{"at": rfc3339(c["t"]), "ip": c["ip"], "from": c["from"], "to": c["to"], "kind": c["kind"],
              "cause": c["cause"], "evidenceAt": c["evidenceAt"]}
             for c in changes if c["cause"].startswith(("config ", "endpoint "))]
    move_at, move_term, move_gone = sim.notes["move"]
    truth = {
        "generatedBy": "scripts/gen-history-story.py --variant two-nodes",
        "variant": "two-nodes",
        "window": {"start": rfc3339(WINDOW_START), "end": CAPTURED_AT},
        "culprits": culprits,
        "fixed": {GPU: {"at": rfc3339(sim.notes["fix_at"]), "object": f"L2Advertisement {MLB_NS}/l2",
                        "change": "spec.nodeSelectors: kubernetes.io/hostname NotIn [gpu-1]"}},
        "stillCandidate": [STORAGE],
        "stableNodes": sorted(STABLE),
        "ips": {ip: ips[ip] for ip in sorted(IPS, key=ip_order_key)},
        "ownerChangesByDay": dict(sorted(per_day.items())),
        "worstDay": {"day": worst[0], "ownerChanges": worst[1]},
        "nodes": nodes,
        "departuresByDay": dep_by_day,
        "rejoinsByDay": rej_by_day,
        "ownerChangesByCause": dict(sorted(by_cause.items())),
        "withoutDeparture": {
            "configChanges": [
                {"at": rfc3339(sim.notes["fix_at"]), "object": f"L2Advertisement {MLB_NS}/l2",
                 "change": "spec.nodeSelectors: kubernetes.io/hostname NotIn [gpu-1]"},
                {"at": rfc3339(sim.notes["infra_at"]), "object": f"L2Advertisement {MLB_NS}/l2-infra",
                 "change": "spec.nodeSelectors: kubernetes.io/hostname In [worker-c, worker-d] -> "
                           "In [worker-b, worker-c, worker-d]"}],
            "endpointMoves": [{"service": LOCAL_SVC, "from": LOCAL_FROM, "to": LOCAL_TO,
                               "newEndpointReady": rfc3339(move_at), "oldEndpointTerminating": rfc3339(move_term),
                               "oldEndpointGone": rfc3339(move_gone)}],
            "serviceDeletions": [{"service": k, "ip": ip, "at": rfc3339(t), "owner": sim.owner_before_delete[ip]}
                                 for ip, (k, t) in sorted(sim.deleted.items())],
            "ownerChanges": quiet,
        },
        "changes": [[rfc3339(c["t"]), c["ip"], c["from"], c["to"], c["kind"], c["evidenceAt"]] for c in changes],
        "changeCauses": [c["cause"] for c in changes],
    }
    return truth


def build_snapshot_two(sim, pod_names):
    info = snapshot_info()
    namespaces = [namespace(MLB_NS, "2026-10-05T09:39:58Z",
                            {"pod-security.kubernetes.io/enforce": "privileged",
                             "pod-security.kubernetes.io/audit": "privileged",
                             "pod-security.kubernetes.io/warn": "privileged"}),
                  namespace("ai", "2026-10-19T20:58:02Z"),
                  namespace("apps", "2026-10-06T08:10:00Z"),
                  namespace("backup", "2026-10-09T12:21:17Z"),
                  namespace("dns", "2026-10-08T17:40:31Z"),
                  namespace("home", "2026-10-11T09:20:03Z"),
                  namespace("infra", "2026-10-13T20:02:40Z"),
                  namespace("media", "2026-10-12T18:55:41Z"),
                  namespace("monitoring", "2026-10-05T09:58:12Z")]
    nodes = [node(*n) for n in NODES]
    ds = speaker_daemonset()
    speakers = {}
    plan = sim.notes["rollout"]
    for n in NODE_NAMES:
        s = sim.sp[n]
        delete, start, _ = plan[n]
        created = delete + 1500 * MS
        last = s.containers[-1]
        assert last["stop"] is None
        restarts = len(s.containers) - 2
        lt = None
        if restarts:
            prev = s.containers[-2]
            assert prev["how"] == "crash"
            lt = {"containerID": container_id(n, prev["start"]), "exitCode": 137, "reason": LAST_STATE_REASON[n],
                  "startedAt": rfc3339(prev["start"]), "finishedAt": rfc3339(prev["stop"])}
        speakers[n] = speaker_pod(n, ds["metadata"]["uid"], pod_names[n], created, restarts, last["start"], lt)
    ctrl = controller_pod()
    live = sorted(sim.services)
    services, slices = {}, []
    for key in live:
        ns, name, ip, ports, ready, unready, created, share = SVC[key]
        svc = service(ns, name, ip, ports, created, share)
        ann = svc["metadata"]["annotations"]
        if TN_POOL[key] == POOL_INFRA:
            ann["metallb.io/address-pool"] = POOL_INFRA
            ann["metallb.io/ip-allocated-from-pool"] = POOL_INFRA
        if TN_ETP[key] == "Local":
            svc["spec"]["externalTrafficPolicy"] = "Local"
            _node_port[0] += rng.randint(7, 900)
            svc["spec"]["healthCheckNodePort"] = _node_port[0]
        services[key] = svc
        ready_now = sorted(sim.eps[key]) if ready else []
        slices.append(endpoint_slice(svc, ready_now, unready))
    lan_ips = {SVC_IP[k] for k in live if TN_POOL[k] == POOL}
    infra_ips = {SVC_IP[k] for k in live if TN_POOL[k] == POOL_INFRA}
    pools = [tn_pool(POOL, POOL_FIRST, POOL_LAST, len(lan_ips), True, "2026-10-05T09:42:30Z"),
             tn_pool(POOL_INFRA, INFRA_FIRST, INFRA_LAST, len(infra_ips), False, "2026-10-13T20:05:48Z")]
    ads = [l2_advertisement(), {
        "apiVersion": "metallb.io/v1beta1", "kind": "L2Advertisement",
        "metadata": meta("L2Advertisement", "l2-infra", MLB_NS, created="2026-10-13T20:05:48Z", generation=2),
        "spec": {"ipAddressPools": [POOL_INFRA],
                 "nodeSelectors": [{"matchExpressions": [
                     {"key": "kubernetes.io/hostname", "operator": "In", "values": list(INFRA_NODES_AFTER)}]}]},
    }]
    base = namespaces + nodes + [ds] + [speakers[n] for n in NODE_NAMES] + [ctrl] + pools + ads \
        + [services[k] for k in live] + slices
    statuses, events = [], []
    for key in live:
        if not sim.eps[key]:
            continue
        ip = SVC_IP[key]
        holders = [n for n in NODE_NAMES if key in sim.sp[n].announced]
        assert holders == [sim.owner[ip]], (key, holders, sim.owner[ip])
        n = holders[0]
        statuses.append(service_l2_status(services[key], n, speakers[n], rfc3339(sim.sp[n].announced[key] + 350 * MS)))
    for key in live:
        for n in NODE_NAMES:
            times = sim.assigned.get((key, n))
            if not times:
                continue
            count, first = len(times), rfc3339(times[0])
            if n == sim.owner_at_start[SVC_IP[key]]:
                count += rng.randint(900, 2400)
                first = rfc3339(ns_of(SVC[key][6]) + 41 * SEC)
            events.append(node_assigned_event(services[key], n, count, first, rfc3339(times[-1])))
    return [info] + base + statuses + events


def tn_pool(name, first, last, assigned, auto, created):
    size = last - first + 1
    return {
        "apiVersion": "metallb.io/v1beta1", "kind": "IPAddressPool",
        "metadata": meta("IPAddressPool", name, MLB_NS, created=created, generation=1),
        "spec": {"addresses": [f"192.0.2.{first}-192.0.2.{last}"], "autoAssign": auto, "avoidBuggyIPs": False},
        "status": {"assignedIPv4": assigned, "assignedIPv6": 0, "availableIPv4": size - assigned,
                   "availableIPv6": 0},
    }


def readme_two(sim, truth, files, pod_names, total_size):
    plan = sim.notes["rollout"]
    fname_of = {n: f"{pod_names[n]}.log" for n in NODE_NAMES}
    line_of = {}
    for f, (n, lines) in files.items():
        for i, x in enumerate(lines, 1):
            line_of[x[1]] = f"{f}:{i}"
    orders = {ip: tn_order(ip) for ip in IPS}
    T = truth
    g, st, oom = T["nodes"][GPU], T["nodes"][STORAGE], T["nodes"][OOM_NODE]
    move_at, move_term, move_gone = sim.notes["move"]
    oom_at, oom_restart = sim.notes["oom"]
    dip = next(iter(sim.deleted))
    dkey, dat = sim.deleted[dip]
    lip = SVC_IP[LOCAL_SVC]
    infra_keys = [k for k in SVC_KEYS if TN_POOL[k] == POOL_INFRA]
    gpu_ips = [ip for ip in IPS if orders[ip][0] == GPU]
    st_ips = [ip for ip in IPS if orders[ip][0] == STORAGE]
    out = [
        "# `kubectl lbdoctor history` variant `two-nodes`: two flapping nodes, one fixed, one not",
        "",
        "GENERATED by `scripts/gen-history-story.py --variant two-nodes` (deterministic, fixed seed; do not edit",
        "by hand). The same independent model as `../story` (MetalLB v0.16.1 layer 2, hashicorp/memberlist",
        "v0.5.1, every speaker with its own memberlist view, configuration copy and Service cache);",
        "`truth.json` comes from the model's state, not from the logs.",
        "",
        f"Total size of this directory: {total_size / 1e6:.2f} MB.",
        "",
        "What this variant has that `story` has not:",
        "",
        "1. **Two flapping nodes.** gpu-1 crash-loops and is fixed mid-window (as in `story`); storage-1",
        "   starts flapping later (memberlist flaps without a restart, plus a few OOM-kill restarts), is",
        "   NOT fixed, is still a candidate at capture and still owns its two IPs.",
        "2. **A configuration change among stable nodes**: L2Advertisement `l2-infra` gets worker-b added to",
        "   its nodeSelectors; worker-b outranks worker-c for both infra IPs; worker-c withdraws `notOwner`.",
        "   Nobody departed.",
        f"3. **A stable node restarting once**: {OOM_NODE}'s speaker is OOMKilled (exit 137) once; restartCount 1.",
        f"4. **A deleted Service**: `{dkey}` is deleted mid-window; its owner logs `serviceWithdrawn` with",
        f"   reason `serviceDeleted`; at capture no Service holds {dip}: only the logs name it.",
        f"5. **externalTrafficPolicy: Local**: `{LOCAL_SVC}`'s only endpoint moves from {LOCAL_FROM} to",
        f"   {LOCAL_TO}; {LOCAL_FROM} withdraws `notOwner` and {LOCAL_TO} announces.",
        "",
        f"## The cluster (`cluster.yaml`, captured {CAPTURED_AT})",
        "",
        f"8 nodes; MetalLB {METALLB_VERSION}, layer 2, memberlist enabled. Two pools, one L2Advertisement each:",
        "",
        f"* `{POOL}` 192.0.2.{POOL_FIRST}-192.0.2.{POOL_LAST} (autoAssign) -> L2Advertisement `{MLB_NS}/l2`: no",
        "  nodeSelectors until the fix, then `kubernetes.io/hostname NotIn [gpu-1]` (generation 2).",
        f"* `{POOL_INFRA}` 192.0.2.{INFRA_FIRST}-192.0.2.{INFRA_LAST} (autoAssign false; Services ask for it with",
        f"  `metallb.io/address-pool: {POOL_INFRA}`) -> L2Advertisement `{MLB_NS}/l2-infra`: nodeSelectors",
        f"  `kubernetes.io/hostname In [{', '.join(INFRA_NODES_BEFORE)}]`, then `In [{', '.join(INFRA_NODES_AFTER)}]`",
        "  (generation 2).",
        "",
        "cp-1 carries `node.kubernetes.io/exclude-from-external-load-balancers: \"\"` (never a candidate). In",
        "v0.16.1 the candidates of a Service are the memberlist members selected by one of the Service's",
        "L2Advertisements, minus exclude-labelled nodes; for externalTrafficPolicy Local only those with a",
        "serving endpoint; the winner is the smallest `sha256(node + \"#\" + ip)`.",
        "",
        "| IP | Services | pool | ETP | sha256 order (candidates at window start) | owner at window start | owner at capture |",
        "|---|---|---|---|---|---|---|",
    ]
    for ip in sorted(IPS, key=ip_order_key):
        e = T["ips"][ip]
        out.append(f"| {ip} | {', '.join(e['services'])} | {e['pool']} | {e['externalTrafficPolicy']} | "
                   f"{', '.join(orders[ip])} | {e['ownerAtWindowStart']} | {e['ownerAtCapture'] or '(none: deleted)'} |")
    out += [
        "",
        f"gpu-1 wins {', '.join(gpu_ips)} (runner-ups {', '.join(orders[ip][1] for ip in gpu_ips)});",
        f"storage-1 wins {', '.join(st_ips)} (runner-ups {', '.join(orders[ip][1] for ip in st_ips)}). Neither",
        "flapping node is among the first three of any other IP, and neither is in the other's first three,",
        f"so each one's departures move its own IPs only. {OOM_NODE} wins 192.0.2.203 only and is second or",
        "third nowhere. "
        f"{SHARED_IP} is shared (`metallb.io/allow-shared-ip: dns`): dns/adguard-dot (its only endpoint",
        "is not ready, never announced, no ServiceL2Status) and dns/pihole.",
        f"{lip} ({LOCAL_SVC}) is externalTrafficPolicy Local: its only candidate is the node of its endpoint",
        f"({LOCAL_FROM}, later {LOCAL_TO}); sha256 puts {LOCAL_FROM} before {LOCAL_TO} for it, so while both have",
        f"an endpoint {LOCAL_FROM} keeps it. Over all 7 candidates storage-1 would be first: a reader that",
        "ignores the traffic policy gets this IP wrong.",
        "",
        "Speaker Pods at capture (`kubectl logs` file = Pod name):",
        "",
        "| node | Pod / log file | Pod created (rollout) | current container since | restartCount | lastState | file starts |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in NODE_NAMES:
        s = sim.sp[n]
        lines = files[fname_of[n]][1]
        rc = len(s.containers) - 2
        ls = f"terminated {LAST_STATE_REASON[n]} (137)" if rc else "-"
        out.append(f"| {n} | {fname_of[n]} | {rfc3339(plan[n][0] + 1500 * MS)} | {rfc3339(s.containers[-1]['start'])} "
                   f"| {rc} | {ls} | {rfc3339(lines[0][0])} |")
    gcr = sim.notes["crashes"]
    scr = sim.notes["storage_crashes"]
    out += [
        "",
        "## The story",
        "",
        f"* Window: `--since-time={rfc3339(WINDOW_START)}` to capture {CAPTURED_AT} (23 days). The files start at",
        "  each Pod's current container (kubectl logs shows no earlier container).",
        f"* **Day 1, {rfc3339(ROLLOUT_AT)}: `kubectl rollout restart ds/speaker`**, maxUnavailable 1, in the order",
        f"  {', '.join(TN_ROLLOUT_ORDER)} (every IP's runner-up before its owner). Graceful leaves",
        "  (NodeLeave without Suspect/Marking), each runner-up takes over and hands back (2 changes per IP,",
        f"  except {lip}: nobody else has an endpoint, it is simply unannounced for a few seconds). gpu-1's new",
        "  container is SIGKILLed right after cp-1's old speaker got SIGTERM, so cp-1's file has no NodeLeave",
        "  for that departure (as in `story`).",
        f"* **gpu-1 (days 1-18)** crash-loops in bursts (host watchdog SIGKILL, exit 137, reason Error): {g['crashes']}",
        f"  crashes, restartCount {g['restartCountAtCapture']}, plus {g['flaps']} flaps without a restart and "
        f"{len(sim.notes['gpu_false'])} false suspicions",
        f"  ({', '.join(rfc3339(t) for t in sim.notes['gpu_false'])}). Flaps:",
    ]
    for t0, miss, stall in sim.notes["gpu_flaps"]:
        out.append(f"  - {rfc3339(t0)} (stall ~{stall / 1000:.1f} s after the mark); missed by: {', '.join(miss) or 'nobody'}")
    out += [
        f"* **The fix, {T['fixed'][GPU]['at']}**: L2Advertisement `l2` gets `nodeSelectors: kubernetes.io/hostname",
        "  NotIn [gpu-1]`. gpu-1 (alive) withdraws its two IPs with `noMatchingAdvertisement` (v0.16.1's reason",
        "  when no L2Advertisement of the Service selects my node; that container crashed later, so its log is",
        f"  gone); worker-c / worker-b announce them (2 takeovers). gpu-1 keeps crash-looping until {rfc3339(gcr[-1])}",
        "  but moves no IP any more.",
        f"* **storage-1 (days 12-24)**: the storage host stalls under memory pressure (ZFS ARC + backups). "
        f"{st['flaps']} memberlist",
        "  flaps (peers log Suspect, one logs Marking, all log NodeLeave; storage-1 logs `Refuting a dead",
        "  message (from: <marker>)`; peers log NodeJoin), the worst night 2026-11-20 (5 flaps in 3 hours), and",
        f"  {st['crashes']} OOM kills (exit 137, reason OOMKilled; peers see `connection refused`, Marking after 4 s;",
        f"  restarted after 10 s): {', '.join(rfc3339(t) for t in scr)}. restartCount {st['restartCountAtCapture']}. "
        f"Its current container",
        f"  started {rfc3339(sim.sp[STORAGE].containers[-1]['start'])}; the later flaps' `Refuting a dead message` "
        "lines are in its file.",
        "  Not fixed: at capture storage-1 is alive, a candidate and the owner of "
        f"{', '.join(ip for ip in st_ips if T['ips'][ip]['ownerAtCapture'] == STORAGE)}. "
        f"False suspicions: {', '.join(rfc3339(t) for t in sim.notes['storage_false'])}. Flaps:",
    ]
    for t0, miss, stall in sim.notes["storage_flaps"]:
        out.append(f"  - {rfc3339(t0)} (stall ~{stall / 1000:.1f} s); missed by: {', '.join(miss) or 'nobody'}")
    ev = {}
    for c in sim.changes:
        ev.setdefault(c["cause"], []).append(c)

    def ev_lines(cause):
        return "; ".join(f"{c['ip']} {c['from']} -> {c['to']} {c['kind']} at {rfc3339(c['t'])} ({c['evidenceAt']})"
                         for c in sorted(ev.get(cause, []), key=lambda c: c["t"]))
    dline = next(line_of[x[1]] for x in sim.lines[T["withoutDeparture"]["serviceDeletions"][0]["owner"]]
                 if "serviceDeleted" in x[2])
    out += [
        f"* **{OOM_NODE} restarts once, {rfc3339(oom_at)}**: the kernel OOM killer kills its speaker (exit 137,",
        f"  OOMKilled), kubelet restarts it at {rfc3339(oom_restart)} (restartCount 1). Peers detect it like a crash",
        "  (Suspect, Marking, NodeLeave, then NodeJoin). It is the owner of 192.0.2.203, so that IP moves away and",
        f"  back: {ev_lines(OOM_NODE + ' crash')}. One crash in 23 days is churn, not flapping: {OOM_NODE} is a stable node.",
        f"  Its file starts at the restart (its rollout container is not shown).",
        f"* **{LOCAL_SVC} moves, {rfc3339(move_at)}** (externalTrafficPolicy Local; its Deployment got a new",
        f"  nodeSelector): the new pod on {LOCAL_TO} is ready at {rfc3339(move_at)} (both endpoints serve:",
        f"  {LOCAL_FROM} keeps the IP), the old one is terminating (still serving) at {rfc3339(move_term)}, and its",
        f"  endpoint is gone at {rfc3339(move_gone)}: every speaker logs ServiceReconciler for it three times;",
        f"  at the third, {LOCAL_FROM} withdraws with `notOwner` (v0.16.1 has no separate reason: with the",
        f"  endpoint gone it is no candidate and loses the election) and {LOCAL_TO} announces: "
        f"{ev_lines('endpoint ' + LOCAL_SVC)}.",
        f"* **{DELETED_SVC} deleted, {rfc3339(dat)}**: every speaker logs ServiceReconciler start/end for it",
        f"  (twice: the Service, then its EndpointSlice's removal); its owner "
        f"{T['withoutDeparture']['serviceDeletions'][0]['owner']} "
        f"logs `serviceWithdrawn` `\"reason\":\"serviceDeleted\"` ({dline}).",
        f"  Not an owner change (nobody takes over). At capture no Service, EndpointSlice, ServiceL2Status or",
        f"  Event names it; {dip} is free in the pool.",
        f"* **l2-infra tweak, {T['withoutDeparture']['configChanges'][1]['at']}**: `kubectl apply` of L2Advertisement",
        f"  `l2-infra` with worker-b added. Every speaker logs ConfigReconciler start/end and reprocesses; worker-b",
        f"  outranks worker-c for {', '.join(SVC_IP[k] for k in infra_keys)} "
        f"({', '.join(infra_keys)}): worker-c withdraws with `notOwner`,",
        f"  worker-b announces: {ev_lines('config l2-infra')}. No departure, nobody to blame.",
        "* Noise: EndpointSlice churn every 70-190 min (ServiceReconciler start/end on every speaker, the owner",
        "  re-announces), startup lines, 3 klog lines (not JSON) in worker-c's, worker-a's and worker-d's files.",
        "",
        "## Truth (`truth.json`)",
        "",
        "Same definitions and fields as `../story/README.md`:",
        "",
        "* **Owner of an IP** = the node whose speaker is really announcing it (model state, including",
        "  containers whose logs are gone). An **owner change** = the announcer changes from X to Y (X != Y),",
        "  counted once, on the UTC day of its instant; the owner at the window start is not a change.",
        "* **takeover**: Y starts announcing because, in Y's view, X is dead / has left / is no candidate",
        "  (crash, flap, graceful leave, the fix, the Local endpoint gone). Counted at Y's first",
        "  serviceAnnounced; evidence: that line in Y's file.",
        "* **takeback**: X withdraws (serviceWithdrawn notOwner) because Y, which outranks it, is (back) among",
        "  its candidates (restart, end of a flap, rollout return, and here the l2-infra tweak that made",
        "  worker-b a candidate). Counted at X's withdrawal; evidence: that line in X's file.",
        "* A deleted Service's withdrawal is no owner change: the IP has no owner afterwards",
        "  (`ownerAtCapture: null`, `deleted` says when and who had it).",
        "* **departure** = memberlist marks the node failed (Marking) or receives its graceful Leave; **rejoin**",
        "  = alive again after a departure (restart join or refutation); once per event. `restartsInWindow` =",
        "  kubelet restarts after the rollout container (= restartCount at capture).",
        "* Extra fields here: `culprits` (the flapping nodes, most owner changes caused first), `fixed`,",
        "  `stillCandidate`, `nodes[n].ownerChangesCaused` (changes due to n's crashes / flaps / graceful",
        "  rollout leave: the takeover when it went and the takeback when it came back), `ownerChangesByCause`,",
        "  `changeCauses` (parallel to `changes`), `withoutDeparture` (the config, endpoint and deletion events and",
        "  the changes they caused, with evidence), `ips[ip].pool` / `.externalTrafficPolicy` / `.deleted`.",
        "",
        "## Counts",
        "",
        "| IP | Services | owner changes | takeovers | takebacks | owner at capture |",
        "|---|---|---|---|---|---|",
    ]
    for ip in sorted(IPS, key=ip_order_key):
        e = T["ips"][ip]
        out.append(f"| {ip} | {', '.join(e['services'])} | {e['ownerChanges']} | {e['takeovers']} | "
                   f"{e['takebacks']} | {e['ownerAtCapture'] or '(none: deleted)'} |")
    out += [
        "",
        f"Worst day (all IPs): **{T['worstDay']['day']}, {T['worstDay']['ownerChanges']} owner changes**.",
        "",
        f"Culprits: **{', '.join(T['culprits'])}** (owner changes caused by crashes + flaps: "
        + ", ".join(f"{n} {T['nodes'][n]['ownerChangesCaused']['crash'] + T['nodes'][n]['ownerChangesCaused']['flap']}"
                    for n in T["culprits"]) + f"). Fixed: gpu-1 at {T['fixed'][GPU]['at']}. Still a candidate: storage-1.",
        "",
        "Owner changes by cause:",
        "",
        "| cause | owner changes |",
        "|---|---|",
    ]
    for c, v in T["ownerChangesByCause"].items():
        out.append(f"| {c} | {v} |")
    out += [
        "",
        "Owner changes per day (days without any change or departure are left out):",
        "",
        "| day | " + " | ".join(gpu_ips + st_ips) + " | all IPs | gpu-1 dep. | gpu-1 rej. | storage-1 dep. | storage-1 rej. |",
        "|---|" + "---|" * (len(gpu_ips) + len(st_ips) + 5),
    ]
    days = sorted(set(T["ownerChangesByDay"]) | set(T["departuresByDay"][GPU]) | set(T["departuresByDay"][STORAGE]))
    for d in days:
        cells = [str(T["ips"][ip]["ownerChangesByDay"].get(d, 0)) for ip in gpu_ips + st_ips]
        out.append(f"| {d} | " + " | ".join(cells) + f" | {T['ownerChangesByDay'].get(d, 0)} | "
                   f"{T['departuresByDay'][GPU].get(d, 0)} | {T['rejoinsByDay'][GPU].get(d, 0)} | "
                   f"{T['departuresByDay'][STORAGE].get(d, 0)} | {T['rejoinsByDay'][STORAGE].get(d, 0)} |")
    out += [
        "",
        "| node | departures | rejoins | crashes | flaps | graceful | restartsInWindow | changes caused (crash/flap/graceful) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n in NODE_NAMES:
        e = T["nodes"][n]
        oc = e["ownerChangesCaused"]
        out.append(f"| {n} | {e['departures']} | {e['rejoins']} | {e['crashes']} | {e['flaps']} | "
                   f"{e['gracefulRestarts']} | {e['restartsInWindow']} | {oc['crash']}/{oc['flap']}/{oc['graceful']} |")
    out += ["", "Lines a peer never wrote (so one file alone undercounts):", ""]
    for p, n, t, why in sim.misses:
        out.append(f"* {p}: no NodeLeave {n} for the departure at {rfc3339(t)} ({why})")
    out += [
        "",
        "## Where the evidence is",
        "",
        "| file | node | lines | serviceAnnounced | serviceWithdrawn | NodeLeave | NodeJoin | Suspect | Marking | Refuting a dead | evidence for changes |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    ev_count = {}
    for c in T["changes"]:
        f = c[5].split(":")[0]
        ev_count[f] = ev_count.get(f, 0) + 1
    for n in NODE_NAMES:
        f = fname_of[n]
        txt = [x[2] for x in files[f][1]]
        out.append(f"| {f} | {n} | {len(txt)} | {sum('serviceAnnounced' in x for x in txt)} | "
                   f"{sum('serviceWithdrawn' in x for x in txt)} | {sum('NodeLeave' in x for x in txt)} | "
                   f"{sum('NodeJoin' in x for x in txt)} | {sum('Suspect ' in x for x in txt)} | "
                   f"{sum('Marking ' in x for x in txt)} | {sum('Refuting a dead' in x for x in txt)} | "
                   f"{ev_count.get(f, 0)} |")
    out += [
        "",
        "* Withdrawal reasons in the shown files: `notOwner` (lost the election, also the Local endpoint move and",
        "  the l2-infra tweak) and one `serviceDeleted`. gpu-1's `noMatchingAdvertisement` at the fix is in a",
        "  container kubectl no longer shows.",
        "* `truth.json` `changes[*][5]` gives the exact `file:line` for every change; `withoutDeparture.ownerChanges`",
        "  lists the ones no departure caused. First and last few changes:",
        "",
    ]
    for c in T["changes"][:4] + T["changes"][-4:]:
        out.append(f"  - {c[0]} {c[1]} {c[2]} -> {c[3]} ({c[4]}): {c[5]}")
    out.append("")
    return "\n".join(out)


def main_two_nodes(out):
    configure_two_nodes()
    check_design_two()
    sim = build_two_nodes()
    assert sim.alive == set(NODE_NAMES)
    for n in NODE_NAMES:
        assert sim.sp[n].running and sim.sp[n].joined and sim.sp[n].view == set(NODE_NAMES), n
    final_cfg = {"l2": 2, "l2-infra": 2}
    for ip in IPS:
        if ip in sim.deleted:
            assert sim.owner[ip] is None and not sim.annc[ip] and ip not in sim.vacant, ip
            continue
        assert ip not in sim.vacant and sim.annc[ip] == {sim.owner[ip]}, (ip, sim.annc[ip])
        keys = [k for k in IP_SERVICES[ip] if sim.eps[k]]
        assert sim.owner[ip] == l2_order(ip, tn_candidates(keys[0], set(NODE_NAMES), final_cfg, sim.eps[keys[0]]))[0]
    assert sim.owner[[ip for ip in IPS if tn_order(ip)[0] == STORAGE][0]] == STORAGE

    pod_names = {n: f"speaker-{suffix()}" for n in NODE_NAMES}
    files = {f"{pod_names[n]}.log": (n, file_lines(sim, n)) for n in NODE_NAMES}
    attach_evidence(sim, files)
    docs = build_snapshot_two(sim, pod_names)
    truth = compute_truth_two(sim)
    write_outputs(out, files, docs, truth,
                  "8-node homelab, MetalLB v0.16.1 layer 2: gpu-1 fixed, storage-1 still flapping (see README.md).",
                  lambda size: readme_two(sim, truth, files, pod_names, size))


def write_outputs(out, files, docs, truth, what, readme_of):
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    for f in os.listdir(os.path.join(out, "logs")):
        if f.endswith(".log") and f not in files:
            os.remove(os.path.join(out, "logs", f))
    with open(os.path.join(out, "cluster.yaml"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dump_documents(docs, HEADER.format(what=what)))
    for fname, (n, lines) in files.items():
        with open(os.path.join(out, "logs", fname), "w", encoding="utf-8", newline="\n") as fh:
            fh.write("".join(x[2] + "\n" for x in lines))
    with open(os.path.join(out, "truth.json"), "w", encoding="utf-8", newline="\n") as fh:
        json.dump(truth, fh, indent=1)
        fh.write("\n")
    size = 0
    for root, _, fs in os.walk(out):
        for f in fs:
            if f != "README.md":
                size += os.path.getsize(os.path.join(root, f))
    text = readme_of(size)
    size += len(text.encode())
    text = readme_of(size)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    print(f"gen-history-story: wrote {out} ({size / 1e6:.2f} MB, {len(docs)} objects, "
          f"{sum(len(v[1]) for v in files.values())} log lines, {len(truth['changes'])} owner changes)",
          file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.realpath(os.path.join(here, ".."))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", choices=["story", "two-nodes", "fast-returns"], default="story",
                    help="story: one crash-looping node, fixed (testdata/history/story); two-nodes: a second "
                         "flapping node that is not fixed, a config change among stable nodes, one OOM restart, "
                         "a deleted Service, an externalTrafficPolicy Local endpoint move "
                         "(testdata/history/two-nodes)")
    ap.add_argument("--out-dir", default=None,
                    help="default: testdata/history/<variant>")
    ap.add_argument("--seed", type=int, default=SEED,
                    help="another seed gives another history of the same kind (held-out checks); "
                         "testdata uses the default")
    args = ap.parse_args()
    rng.seed(args.seed)
    if args.out_dir is None:
        args.out_dir = os.path.join(repo, "testdata", "history", args.variant)
    if args.variant == "two-nodes":
        main_two_nodes(args.out_dir)
        return
    global FAST
    FAST = args.variant == "fast-returns"

    check_design()
    sim = build_story()
    # -- end-state checks
    assert sim.alive == set(NODE_NAMES)
    for n in NODE_NAMES:
        assert sim.sp[n].running and sim.sp[n].joined and sim.sp[n].view == set(NODE_NAMES), n
    for ip in IPS:
        assert ip not in sim.vacant and sim.annc[ip] == {sim.owner[ip]}, (ip, sim.annc[ip])
        assert sim.owner[ip] == l2_order(ip, FIXED_CANDIDATES)[0]

    pod_names = {n: f"speaker-{suffix()}" for n in NODE_NAMES}
    files = {f"{pod_names[n]}.log": (n, file_lines(sim, n)) for n in NODE_NAMES}
    attach_evidence(sim, files)
    docs = build_snapshot(sim, pod_names)
    truth = compute_truth(sim, files)

    out = args.out_dir
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    for f in os.listdir(os.path.join(out, "logs")):
        if f.endswith(".log") and f not in files:
            os.remove(os.path.join(out, "logs", f))
    with open(os.path.join(out, "cluster.yaml"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(dump_documents(docs, HEADER.format(
            what="8-node homelab, MetalLB v0.16.1 layer 2, after the fix of gpu-1's crash loop (see README.md).")))
    for fname, (n, lines) in files.items():
        with open(os.path.join(out, "logs", fname), "w", encoding="utf-8", newline="\n") as fh:
            fh.write("".join(x[2] + "\n" for x in lines))
    with open(os.path.join(out, "truth.json"), "w", encoding="utf-8", newline="\n") as fh:
        json.dump(truth, fh, indent=1)
        fh.write("\n")
    size = 0
    for root, _, fs in os.walk(out):
        for f in fs:
            if f != "README.md":
                size += os.path.getsize(os.path.join(root, f))
    text = readme(sim, truth, files, pod_names, size)
    size += len(text.encode())
    text = readme(sim, truth, files, pod_names, size)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    print(f"gen-history-story: wrote {out} ({size / 1e6:.2f} MB, {len(docs)} objects, "
          f"{sum(len(v[1]) for v in files.values())} log lines, {len(truth['changes'])} owner changes)",
          file=sys.stderr)


if __name__ == "__main__":
    main()
