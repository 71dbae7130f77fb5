"""What happened, minute by minute: per-replica traffic, per-GPU readings, pod and node state.

Scenarios describe the incident in these engine-neutral terms (requests by status code,
latency distributions, queue, KV cache, GPU utilisation, readiness, restarts); the exporter
builders in `exporters.py` turn the same model into vLLM, SGLang, TGI or Triton metrics.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from .series import Clock, Dist, Series, diurnal, flat, noisy


@dataclass
class Replica:
    """One serving process (pod) as its engine's /metrics would describe it."""

    pod: str
    namespace: str
    node: str
    ip: str
    service: str
    job: str
    model: str
    present: list[bool]
    codes: dict[int, Series]
    ttft: Dist
    itl: Dist
    e2e: Dist
    queue: Dist
    prompt_len: Series
    gen_len: Series
    running: Series
    waiting: Series
    kv: Series
    preempt: Series
    resets: set[int] = field(default_factory=set)
    uptime_min: float = 4000.0
    length_frac: float = 0.11
    port: int = 8000
    container: str = "server"
    prefix_hit: float = 0.35
    served_s: Series | None = None  # requests the engine actually ran (default: 2xx + 5xx)
    exists: list[bool] | None = None  # the pod exists (a scrape target), whether or not it answers

    @property
    def n(self) -> int:
        return len(self.present)

    def requests(self) -> Series:
        total = Series([0.0] * self.n)
        for s in self.codes.values():
            total = total + s
        return total

    def by_class(self, klass: int) -> Series:
        total = Series([0.0] * self.n)
        for code, s in self.codes.items():
            if code // 100 == klass:
                total = total + s
        return total

    def ok(self) -> Series:
        return self.by_class(2)

    def served(self) -> Series:
        return (self.served_s if self.served_s is not None else self.ok() + self.by_class(5)).ints()

    def gen_tokens(self) -> Series:
        return (self.ok() * self.gen_len).ints()

    def prompt_tokens(self) -> Series:
        # failed requests were usually prefilled too; 4xx were rejected before
        return (self.served() * self.prompt_len).ints()

    def derive_e2e(self, sigma: float = 0.55) -> None:
        """End-to-end latency from TTFT, inter-token latency and output length."""
        med = Series(
            self.ttft.median[i] + self.itl.median[i] * max(1.0, self.gen_len[i] - 1) for i in range(self.n)
        )
        self.e2e = Dist(med, sigma)

    def with_e2e(self) -> Replica:
        self.derive_e2e()
        return self

    def down(self, minutes: list[bool]) -> None:
        """The process is gone on these minutes: nothing served, nothing scraped."""
        for i, gone in enumerate(minutes):
            if gone:
                self.present[i] = False
                for s in self.codes.values():
                    s[i] = 0.0
                self.running[i] = self.waiting[i] = self.kv[i] = 0.0
                self.preempt[i] = 0.0


def replica(
    clock: Clock,
    rng: random.Random,
    *,
    pod: str,
    namespace: str,
    node: str,
    ip: str,
    service: str,
    job: str,
    model: str,
    rpm: float | Series,
    prompt_len: float = 1100,
    gen_len: float = 240,
    ttft: float = 0.18,
    itl: float = 0.024,
    kv: float = 0.34,
    running: float | None = None,
    uptime_min: float = 4000.0,
    container: str = "server",
    port: int = 8000,
    wobble: float = 0.06,
) -> Replica:
    """A healthy replica at a steady load, with realistic jitter."""
    base = rpm if isinstance(rpm, Series) else flat(clock, rpm) * diurnal(clock, rng, wobble)
    ok = noisy(base, rng, 0.05).ints()
    run = running if running is not None else max(1.0, (float(base[0]) / 60.0) * (ttft + itl * gen_len))
    return Replica(
        pod=pod,
        namespace=namespace,
        node=node,
        ip=ip,
        service=service,
        job=job,
        model=model,
        present=[True] * clock.n,
        codes={200: ok},
        ttft=Dist(noisy(flat(clock, ttft), rng, 0.06), 0.55),
        itl=Dist(noisy(flat(clock, itl), rng, 0.03), 0.22),
        e2e=Dist(flat(clock, ttft + itl * gen_len), 0.55),
        queue=Dist(noisy(flat(clock, 0.004), rng, 0.1), 0.8),
        prompt_len=noisy(flat(clock, prompt_len), rng, 0.04),
        gen_len=noisy(flat(clock, gen_len), rng, 0.04),
        running=noisy(flat(clock, run), rng, 0.07).map(lambda v: float(round(v))),
        waiting=flat(clock, 0.0),
        kv=noisy(flat(clock, kv), rng, 0.04).clip(0.0, 1.0),
        preempt=flat(clock, 0.0),
        uptime_min=uptime_min,
        container=container,
        port=port,
    ).with_e2e()


# -- GPUs ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GpuDevice:
    node: str
    index: int
    uuid: str
    pci: str  # "00000000:A8:00.0" as DCGM labels it
    product: str = "NVIDIA H100 80GB HBM3"
    memory_mib: int = 81559

    @property
    def kernel_pci(self) -> str:
        """The bus id as the kernel's NVRM lines print it: `0000:a8:00`."""
        return self.pci[4:].lower().rsplit(".", 1)[0]


def gpu_uuid(rng: random.Random) -> str:
    h = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass
class GpuSeries:
    dev: GpuDevice
    util: Series
    fb_used: Series
    temp: Series
    power: Series
    xid: Series
    pod: str | None = None
    namespace: str | None = None
    container: str | None = None
    present: list[bool] | None = None
    xid_events: list[tuple[int, datetime]] = field(default_factory=list)
    sm_clock: float = 1980.0
    ecc_uncorrected: int = 0


def gpu(
    clock: Clock,
    rng: random.Random,
    dev: GpuDevice,
    *,
    util: float | Series,
    fb_used: float | Series,
    pod: str | None = None,
    namespace: str | None = None,
    container: str | None = None,
) -> GpuSeries:
    u = util if isinstance(util, Series) else noisy(flat(clock, util), rng, 0.04)
    u = u.clip(0, 100).map(lambda v: float(round(v)))
    fb = fb_used if isinstance(fb_used, Series) else noisy(flat(clock, fb_used), rng, 0.002)
    fb = fb.clip(0, dev.memory_mib).map(lambda v: float(round(v)))
    temp = (u * 0.28 + 33 + noisy(flat(clock, 0.0), rng, 0, 0.8)).map(lambda v: float(round(v)))
    power = (u * 5.6 + 95 + noisy(flat(clock, 0.0), rng, 0, 9.0)).map(lambda v: round(v, 3))
    return GpuSeries(dev, u, fb, temp, power, flat(clock, 0.0), pod, namespace, container)


def gpu_idle(clock: Clock, rng: random.Random, dev: GpuDevice) -> GpuSeries:
    """An allocatable GPU nobody uses: 0 % utilisation, a few MiB of driver context."""
    g = gpu(clock, rng, dev, util=0.0, fb_used=0.0)
    g.temp = noisy(flat(clock, 29.0), rng, 0, 0.4).map(lambda v: float(round(v)))
    g.power = noisy(flat(clock, 69.0), rng, 0, 1.2).map(lambda v: round(v, 3))
    return g


# -- Kubernetes state over time --------------------------------------------------------------------------
@dataclass
class PodTimeline:
    """A pod's life inside the window, for kube-state-metrics."""

    pod: str
    namespace: str
    uid: str
    node: str | None
    ip: str | None
    host_ip: str | None
    owner: str  # ReplicaSet name
    container: str
    exists: list[bool]
    ready: list[bool]
    restarts: Series  # restarts happening in each minute
    waiting_reason: list[str | None]
    last_terminated: list[str | None]
    phase: list[str]


def pod_timeline(
    clock: Clock,
    *,
    pod: str,
    namespace: str,
    uid: str,
    node: str | None,
    ip: str | None,
    host_ip: str | None,
    owner: str,
    container: str = "server",
    created: datetime | None = None,
    deleted: datetime | None = None,
    ready_from: datetime | None = None,
) -> PodTimeline:
    n = clock.n
    c = 0 if created is None else clock.idx(created)
    d = n if deleted is None else clock.idx(deleted)
    r = c if ready_from is None else clock.idx(ready_from)
    exists = [c <= i < d for i in range(n)]
    return PodTimeline(
        pod=pod,
        namespace=namespace,
        uid=uid,
        node=node,
        ip=ip,
        host_ip=host_ip,
        owner=owner,
        container=container,
        exists=exists,
        ready=[exists[i] and i >= r for i in range(n)],
        restarts=flat(clock, 0.0),
        waiting_reason=[None] * n,
        last_terminated=[None] * n,
        phase=["Running" if exists[i] else "" for i in range(n)],
    )


@dataclass
class NodeTimeline:
    node: str
    ready: list[str]  # "true" | "false" | "unknown" per minute
    unschedulable: list[bool]
    gpus_allocatable: Series | None = None
    taints: list[tuple[str, str, str, list[bool]]] = field(default_factory=list)  # key, value, effect, when
    kubelet_version: str = "v1.30.4"
    internal_ip: str = ""


def node_timeline(clock: Clock, node: str, *, gpus: int | None = None, internal_ip: str = "") -> NodeTimeline:
    return NodeTimeline(
        node=node,
        ready=["true"] * clock.n,
        unschedulable=[False] * clock.n,
        gpus_allocatable=None if gpus is None else flat(clock, gpus),
        internal_ip=internal_ip,
    )
