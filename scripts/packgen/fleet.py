"""One Deployment's pods, kept consistent across metrics, logs, GPU readings and objects.

A `Member` is one pod: its name (with its ReplicaSet's pod-template hash), node, GPUs, IP,
life span, traffic (`Replica`), GPU series and kube-state-metrics timeline. The scenario edits
these to tell its story; `Fleet.objects()` and the exporters then render every file from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from . import k8s
from .pack import Pack
from .series import Series, flat, iso
from .traffic import GpuDevice, GpuSeries, PodTimeline, Replica, gpu, pod_timeline, replica


@dataclass
class Member:
    name: str
    rev: k8s.Revision
    node: k8s.Node
    devices: list[GpuDevice]
    ip: str
    uid: str
    created: datetime
    deleted: datetime | None
    rep: Replica
    gpus: list[GpuSeries]
    timeline: PodTimeline
    info: k8s.PodInfo | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    app: str = ""  # the Deployment the pod belongs to


class Fleet:
    def __init__(
        self, pack: Pack, workload: k8s.Workload, *, job: str, model: str, service: str | None = None
    ):
        """`service=""` means a PodMonitor scrapes the pods: their metrics carry no `service` label."""
        self.pack = pack
        self.w = workload
        self.job = job
        self.model = model
        self.service = workload.name if service is None else service
        self.members: list[Member] = []

    def add(
        self,
        rev: k8s.Revision,
        node: k8s.Node,
        devices: list[GpuDevice],
        ip: str,
        *,
        created: datetime | None = None,
        deleted: datetime | None = None,
        ready_after: timedelta = timedelta(seconds=95),
        rpm: float | Series = 300.0,
        util: float = 78.0,
        fb_used: float = 74_200.0,
        **replica_kw: Any,
    ) -> Member:
        p, c = self.pack, self.pack.clock
        name = p.pod_name(self.w.name, rev.hash)
        created = created or (
            p.as_of - timedelta(days=3, hours=p.rng.randint(1, 20), minutes=p.rng.randint(0, 59))
        )
        uptime = max(0.0, c.minutes_between(created, c.start))
        rep = replica(
            c,
            p.rng,
            pod=name,
            namespace=self.w.namespace,
            node=node.name,
            ip=ip,
            service=self.service,
            job=self.job,
            model=self.model,
            rpm=rpm,
            uptime_min=uptime,
            container=self.w.container,
            port=self.w.port,
            **replica_kw,
        )
        ready_at = created + ready_after
        alive = [(c.at(i) >= ready_at) and (deleted is None or c.at(i) < deleted) for i in range(c.n)]
        rep.down([not a for a in alive])
        if created > c.start:
            rep.resets.add(c.idx(created))
            rep.uptime_min = 0.0
        gpus = [
            gpu(
                c,
                p.rng,
                d,
                util=util,
                fb_used=fb_used,
                pod=name,
                namespace=self.w.namespace,
                container=self.w.container,
            )
            for d in devices
        ]
        bounded = created > c.start or deleted is not None
        for g in gpus:
            if bounded:  # dcgm-exporter only labels a GPU with the pod while the pod holds it
                g.present = [
                    created <= c.at(i) and (deleted is None or c.at(i) < deleted) for i in range(c.n)
                ]
            for i, a in enumerate(alive):
                if not a:
                    g.util[i] = 0.0
                    g.fb_used[i] = 0.0 if c.at(i) < created else 512.0
                    g.power[i] = round(68.0 + p.rng.random() * 4, 3)
                    g.temp[i] = 31.0 + round(p.rng.random() * 2)
        timeline = pod_timeline(
            c,
            pod=name,
            namespace=self.w.namespace,
            uid=k8s.new_uid(p.rng),
            node=node.name,
            ip=ip,
            host_ip=node.internal_ip,
            owner=f"{self.w.name}-{rev.hash}",
            container=self.w.container,
            created=created if created > c.start else None,
            deleted=deleted,
            ready_from=ready_at if ready_at > c.start else None,
        )
        rep.exists = list(timeline.exists)
        m = Member(
            name, rev, node, devices, ip, timeline.uid, created, deleted, rep, gpus, timeline, app=self.w.name
        )
        if deleted is None:
            m.info = k8s.PodInfo(
                name=name,
                revision=rev,
                node=node.name,
                ip=ip,
                host_ip=node.internal_ip,
                created=created,
                uid=timeline.uid,
                started=created + timedelta(seconds=3),
                ready=True,
                ready_since=ready_at,
                running_since=created + timedelta(seconds=4),
                container_id=k8s.container_id(p.rng),
                gpu_uuids=[d.uuid for d in devices],
            )
        self.members.append(m)
        return m

    # -- views ---------------------------------------------------------------------------------------------
    def replicas(self) -> list[Replica]:
        return [m.rep for m in self.members]

    def gpu_series(self) -> list[GpuSeries]:
        return [g for m in self.members for g in m.gpus]

    def timelines(self) -> list[PodTimeline]:
        return [m.timeline for m in self.members]

    def live(self) -> list[Member]:
        return [m for m in self.members if m.info is not None]

    def codes(self) -> dict[int, Series]:
        """Responses per minute by status over every pod (what the gateway sees)."""
        total: dict[int, Series] = {}
        for m in self.members:
            for code, s in m.rep.codes.items():
                total[code] = total.get(code, flat(self.pack.clock, 0.0)) + s
        return total

    def ready_count(self) -> Series:
        return Series(
            float(sum(1 for m in self.members if m.timeline.ready[i])) for i in range(self.pack.clock.n)
        )

    def objects(self) -> list[dict[str, Any]]:
        self.w.pods = [m.info for m in self.members if m.info is not None]
        return self.w.objects(self.pack.as_of)


def rebalance(
    fleet: Fleet, total: Series, *, weights: dict[str, float] | None = None, noise: float = 0.04
) -> None:
    """Spread `total` responses/minute over the pods that are ready, scaling their load gauges."""
    p, c = fleet.pack, fleet.pack.clock
    base = {m.name: m.rep.ok()[0] or 1.0 for m in fleet.members}
    for i in range(c.n):
        up = [m for m in fleet.members if m.timeline.ready[i] and m.rep.present[i]]
        wsum = sum((weights or {}).get(m.name, 1.0) for m in up) or 1.0
        for m in fleet.members:
            if m in up:
                share = (weights or {}).get(m.name, 1.0) / wsum
                v = max(0.0, total[i] * share * (1 + p.rng.gauss(0, noise)))
                scale = v / base[m.name] if base[m.name] else 1.0
                m.rep.codes[200][i] = float(round(v))
                m.rep.running[i] = float(round(m.rep.running[i] * scale))
                m.rep.kv[i] = min(0.99, m.rep.kv[i] * (0.5 + 0.5 * scale))
            else:
                m.rep.codes[200][i] = 0.0


def crash(
    fleet: Fleet,
    m: Member,
    at: datetime,
    back: datetime | None,
    *,
    in_flight: int = 0,
    exit_code: int = 1,
    reason: str = "Error",
    backoff: str | None = None,
    backoff_until: datetime | None = None,
) -> None:
    """The container dies at `at` and serves again at `back` (None: still down at as_of).

    Everything in flight fails with 500 (the gateway sees them; the engine's own counters die
    with the process); the pod is unready, its counters restart from zero, kube-state-metrics
    counts the restart, and the PodInfo at as_of carries `lastState.terminated`.
    """
    p, c = fleet.pack, fleet.pack.clock
    i0 = c.idx(at)
    i1 = c.n if back is None else c.idx(back)
    frac_before = ((at - c.at(i0 - 1)).total_seconds() / 60.0) if i0 > 0 else 0.0
    kept = m.rep.codes[200][i0] * frac_before if i0 < c.n else 0.0
    m.rep.down([i0 <= i < i1 for i in range(c.n)])
    if i0 < c.n:
        m.rep.codes[200][i0] = float(round(kept))
        m.rep.codes.setdefault(500, Series([0.0] * c.n))[i0] += float(in_flight)
    if i1 < c.n:
        m.rep.resets.add(i1)
    t = m.timeline
    for i in range(i0, min(i1, c.n)):
        t.ready[i] = False
        t.last_terminated[i] = reason
    for i in range(i1, c.n):
        t.last_terminated[i] = reason
    restart_at = backoff_until or (at + timedelta(seconds=p.rng.randint(8, 40)))
    restarted = restart_at <= p.as_of
    if i0 < c.n and restarted:
        t.restarts[min(c.n - 1, c.idx(restart_at))] += 1
    if backoff_until is not None:
        for i in range(i0, min(c.idx(backoff_until), c.n)):
            t.waiting_reason[i] = "CrashLoopBackOff"
    for g in m.gpus:
        for i in range(i0, min(i1, c.n)):
            g.util[i] = 0.0
            g.fb_used[i] = 0.0
            g.power[i] = round(71.0 + p.rng.random() * 3, 3)
    info = m.info
    if info is None:
        return
    info.restarts += 1 if restarted else 0
    old_id = info.container_id
    info.container_id = k8s.container_id(p.rng)
    info.last_terminated = {
        "containerID": old_id,
        "exitCode": exit_code,
        "reason": reason,
        "startedAt": iso(info.running_since or info.started or info.created),
        "finishedAt": iso(at),
    }
    if back is None or back > p.as_of:
        info.ready = False
        info.ready_since = at + timedelta(seconds=p.rng.randint(3, 12))
        if backoff_until is not None and backoff_until > p.as_of:
            info.waiting = (
                "CrashLoopBackOff",
                k8s.crashloop_message(
                    fleet.w.container, m.name, fleet.w.namespace, m.uid, backoff or "1m20s"
                ),
            )
        else:
            info.running_since = restart_at
    else:
        info.ready = True
        info.ready_since = back
        info.running_since = restart_at
        info.waiting = None


BACKOFF = [10, 20, 40, 80, 160, 300, 300, 300, 300, 300]


def crashloop(
    fleet: Fleet,
    m: Member,
    *,
    start: datetime,
    boot: timedelta,
    survive: timedelta,
    exit_code: int = 1,
    reason: str = "Error",
) -> list[tuple[datetime, datetime]]:
    """A container that starts, becomes ready after `boot`, and dies `survive` later, forever.

    Kubernetes restarts it with the kubelet's back-off (10s, 20s, 40s ... 5m). Returns the
    (ready, died) pairs before as_of. The pod is never ready on a sample and never scraped.
    """
    p, c = fleet.pack, fleet.pack.clock
    cycles: list[tuple[datetime, datetime]] = []
    t = start
    n = 0
    while True:
        ready = t + boot
        died = ready + survive
        if died > p.as_of:
            break
        cycles.append((ready, died))
        t = died + timedelta(seconds=BACKOFF[min(n, len(BACKOFF) - 1)] + p.rng.uniform(0.5, 2.0))
        n += 1
    tl = m.timeline
    m.rep.down([True] * c.n)
    for i in range(c.n):
        tl.ready[i] = False
    for k, (_, died) in enumerate(cycles):
        nxt = cycles[k + 1][0] - boot if k + 1 < len(cycles) else t
        i0, i1 = c.idx(died), c.idx(nxt)
        tl.restarts[min(c.n - 1, i1 if i1 < c.n else c.n - 1)] += 1 if nxt <= p.as_of else 0
        for i in range(i0, min(i1, c.n)):
            tl.waiting_reason[i] = "CrashLoopBackOff" if k else None
        for i in range(i0, c.n):
            tl.last_terminated[i] = reason
    for g in m.gpus:
        for i in range(c.n):
            g.util[i] = 0.0
            g.fb_used[i] = 0.0
            g.power[i] = round(70.0 + p.rng.random() * 3, 3)
    if m.info is not None and cycles:
        info = m.info
        info.restarts = len(cycles) - 1 + (1 if t <= p.as_of else 0)
        last_ready, last_died = cycles[-1]
        info.ready = False
        info.ready_since = last_died + timedelta(seconds=1)
        info.last_terminated = {
            "containerID": k8s.container_id(p.rng),
            "exitCode": exit_code,
            "reason": reason,
            "startedAt": iso(last_ready - boot),
            "finishedAt": iso(last_died),
        }
        if t > p.as_of:
            backoff = BACKOFF[min(len(cycles) - 1, len(BACKOFF) - 1)]
            info.waiting = (
                "CrashLoopBackOff",
                k8s.crashloop_message(fleet.w.container, m.name, fleet.w.namespace, m.uid, _dur(backoff)),
            )
        else:
            info.running_since = t
    return cycles


def _dur(seconds: int) -> str:
    return f"{seconds // 60}m{seconds % 60}s" if seconds >= 60 else f"{seconds}s"
