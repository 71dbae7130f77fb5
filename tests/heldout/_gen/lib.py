"""Small, self-contained toolkit for writing the held-out scenario packs.

Deliberately independent of the bot and of `scripts/packgen`: the held-out packs must follow
the pack format and the failure taxonomy only, in their own style.

Pieces: a minute clock ending at `as_of`; an OpenMetrics writer (gauges, counters with resets
and scrape gaps, histograms from per-minute log-normal latency distributions); builders of
Kubernetes objects as `kubectl get -o yaml` prints them; ECS log documents; the Alertmanager
webhook; and a real Prometheus used to find when the alert expression starts firing and the
value it had, so that `startsAt` and the `value` annotation agree with the metrics.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

Labels = dict[str, str]
Obj = dict[str, Any]


# ---------------------------------------------------------------------------------------------------------------
# time
# ---------------------------------------------------------------------------------------------------------------
def utc(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def iso(dt: datetime, ms: bool = False) -> str:
    if ms:
        return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Clock:
    """`n` one-minute samples ending exactly at `as_of` (index n-1)."""

    def __init__(self, as_of: datetime, minutes: int = 60) -> None:
        self.as_of = as_of
        self.n = minutes + 1
        self.start = as_of - timedelta(minutes=minutes)

    def at(self, i: int) -> datetime:
        return self.start + timedelta(minutes=i)

    def ts(self, i: int) -> int:
        return int(self.at(i).timestamp())

    def idx(self, dt: datetime) -> int:
        """Index of the last sample at or before `dt`."""
        return int((dt - self.start).total_seconds() // 60)

    def t(self, hhmmss: str) -> datetime:
        h, m, *s = (int(x) for x in hhmmss.split(":"))
        base = self.as_of.replace(hour=h, minute=m, second=s[0] if s else 0, microsecond=0)
        if base > self.as_of + timedelta(hours=1):
            base -= timedelta(days=1)
        return base


def smooth(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return x * x * (3 - 2 * x)


def ramp(clock: Clock, i: int, t0: datetime, t1: datetime) -> float:
    """0 before t0, 1 after t1, smooth in between (by the sample's time)."""
    t = clock.at(i)
    if t <= t0:
        return 0.0
    if t >= t1:
        return 1.0
    return smooth((t - t0).total_seconds() / (t1 - t0).total_seconds())


# ---------------------------------------------------------------------------------------------------------------
# OpenMetrics
# ---------------------------------------------------------------------------------------------------------------
def _esc(v: str) -> str:
    return v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def label_text(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_esc(str(v))}"' for k, v in sorted(labels.items())) + "}"


def num(v: float, digits: int = 10) -> str:
    if float(v).is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.{digits}g}"


def le_py(b: float) -> str:
    return "+Inf" if math.isinf(b) else repr(float(b))


def le_go(b: float) -> str:
    if math.isinf(b):
        return "+Inf"
    return str(int(b)) if float(b).is_integer() else repr(float(b))


def lognorm_cdf(x: float, median: float, sigma: float) -> float:
    if x <= 0:
        return 0.0
    if median <= 0:
        return 1.0
    return 0.5 * (1 + math.erf(math.log(x / median) / (sigma * math.sqrt(2))))


class OM:
    """Families in declaration order; one sample per minute; `None` = not scraped."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.fams: dict[str, tuple[str, str, list[tuple[str, Labels, list[float | None], int]]]] = {}

    def _fam(
        self, name: str, mtype: str, help_text: str
    ) -> list[tuple[str, Labels, list[float | None], int]]:
        if name not in self.fams:
            self.fams[name] = (mtype, help_text, [])
        elif self.fams[name][0] != mtype:
            raise ValueError(f"{name}: {self.fams[name][0]} vs {mtype}")
        return self.fams[name][2]

    def names(self) -> set[str]:
        out = set()
        for name, (_mtype, _, rows) in self.fams.items():
            for suffix, _, _, _ in rows:
                out.add(name + suffix)
        return out

    def gauge(
        self, name: str, help_text: str, labels: Labels, values: Sequence[float | None], digits: int = 6
    ) -> None:
        assert len(values) == self.clock.n, (name, len(values))
        self._fam(name, "gauge", help_text).append(("", dict(labels), list(values), digits))

    def counter(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        increments: Sequence[float],
        *,
        initial: float = 0.0,
        present: Sequence[bool] | None = None,
        resets: Iterable[int] = (),
        suffix_total: bool = True,
        integer: bool = True,
    ) -> list[float | None]:
        """Cumulative counter from per-minute increments. `suffix_total=False` declares it `unknown`."""
        assert len(increments) == self.clock.n, (name, len(increments))
        reset_at = set(resets)
        tot = float(round(initial)) if integer else initial
        vals: list[float | None] = []
        for i, inc in enumerate(increments):
            if i in reset_at:
                tot = 0.0
            tot += max(0.0, round(inc) if integer else inc)
            vals.append(tot if present is None or present[i] else None)
        if suffix_total:
            self._fam(name, "counter", help_text).append(("_total", dict(labels), vals, 10))
        else:
            self._fam(name, "unknown", help_text).append(("", dict(labels), vals, 10))
        return vals

    def histogram(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        buckets: Sequence[float],
        counts: Sequence[float],
        median: Sequence[float],
        sigma: float | Sequence[float],
        **kw: Any,
    ) -> None:
        """Cumulative buckets from per-minute observation counts, each minute log-normal(median, sigma)."""
        sig = [sigma] * self.clock.n if isinstance(sigma, (int, float)) else list(sigma)
        mix = [[(counts[i], median[i], sig[i])] for i in range(self.clock.n)]
        ic = kw.pop("initial_count", 0.0)
        if ic:
            kw["initial"] = [(ic, median[0], sig[0])]
        self.histogram_mix(name, help_text, labels, buckets, mix, **kw)

    def histogram_mix(
        self,
        name: str,
        help_text: str,
        labels: Labels,
        buckets: Sequence[float],
        mix: Sequence[Sequence[tuple[float, float, float]]],
        *,
        initial: Sequence[tuple[float, float, float]] = (),
        present: Sequence[bool] | None = None,
        resets: Iterable[int] = (),
        le: Callable[[float], str] = le_py,
        scale: float = 1.0,
    ) -> None:
        """Cumulative buckets; minute i observes, for each (count, median, sigma) in mix[i], `count`
        values from a log-normal. `scale` converts the distribution's unit into the bucket unit."""
        n = self.clock.n
        assert len(mix) == n
        bounds = [*sorted(buckets), math.inf]
        reset_at = set(resets)
        cum = [0.0] * len(bounds)
        tsum = 0.0

        def observe(parts: Iterable[tuple[float, float, float]]) -> None:
            nonlocal tsum
            for cnt, med, sg in parts:
                c = float(round(max(0.0, cnt)))
                if not c:
                    continue
                for b, bound in enumerate(bounds):
                    cum[b] += (
                        c if math.isinf(bound) else math.floor(c * lognorm_cdf(bound / scale, med, sg) + 0.5)
                    )
                tsum += c * med * math.exp(sg * sg / 2) * scale

        observe(initial)
        rows: list[list[float | None]] = [[] for _ in bounds]
        sums: list[float | None] = []
        cnts: list[float | None] = []
        for i in range(n):
            if i in reset_at:
                cum = [0.0] * len(bounds)
                tsum = 0.0
            observe(mix[i])
            ok = present is None or present[i]
            for b in range(len(bounds)):
                rows[b].append(cum[b] if ok else None)
            sums.append(round(tsum, 3) if ok else None)
            cnts.append(cum[-1] if ok else None)
        fam = self._fam(name, "histogram", help_text)
        for b, bound in enumerate(bounds):
            fam.append(("_bucket", {**labels, "le": le(bound)}, rows[b], 10))
        fam.append(("_sum", dict(labels), sums, 10))
        fam.append(("_count", dict(labels), cnts, 10))

    def render(self) -> str:
        rank = {"_bucket": 0, "_sum": 1, "_count": 2}
        stamps = [str(self.clock.ts(i)) for i in range(self.clock.n)]
        out: list[str] = []
        for name, (mtype, help_text, rows) in self.fams.items():
            out.append(f"# HELP {name} {help_text}")
            out.append(f"# TYPE {name} {mtype}")
            for suffix, labels, values, digits in sorted(
                rows, key=lambda r: (rank.get(r[0], 0), label_text(r[1]))
            ):
                head = name + suffix + label_text(labels)
                for i, v in enumerate(values):
                    if v is None:
                        continue
                    out.append(f"{head} {num(v, digits)} {stamps[i]}")
        out.append("# EOF")
        return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------------------------
# random names
# ---------------------------------------------------------------------------------------------------------------
SAFE = "bcdfghjklmnpqrstvwxz2456789"  # the alphabet Kubernetes uses for generated names


def kname(rng: random.Random, k: int) -> str:
    return "".join(rng.choice(SAFE) for _ in range(k))


def uid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[rng.randrange(4)]}{h[17:20]}-{h[20:32]}"


def gpu_uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def hexid(rng: random.Random, k: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(k))


# ---------------------------------------------------------------------------------------------------------------
# Kubernetes objects
# ---------------------------------------------------------------------------------------------------------------
def node_obj(
    name: str,
    *,
    created: datetime,
    uid_: str,
    labels: Labels,
    ip: str,
    capacity: dict[str, str],
    allocatable: dict[str, str],
    conditions: list[Obj],
    node_info: dict[str, str],
    taints: list[Obj] | None = None,
    unschedulable: bool = False,
    provider_id: str | None = None,
    pod_cidr: str | None = None,
    annotations: dict[str, str] | None = None,
) -> Obj:
    spec: Obj = {}
    if pod_cidr:
        spec["podCIDR"] = pod_cidr
        spec["podCIDRs"] = [pod_cidr]
    if provider_id:
        spec["providerID"] = provider_id
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": uid_,
            "creationTimestamp": iso(created),
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                **labels,
            },
            "annotations": annotations
            or {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        },
        "spec": spec,
        "status": {
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "capacity": capacity,
            "allocatable": allocatable,
            "conditions": conditions,
            "nodeInfo": {"architecture": "amd64", "operatingSystem": "linux", **node_info},
        },
    }


def node_conditions(
    as_of: datetime, since: datetime, ready: bool = True, **overrides: tuple[str, str, str]
) -> list[Obj]:
    hb = as_of - timedelta(seconds=random.Random(since.timestamp()).randint(5, 40))
    base = {
        "MemoryPressure": ("False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        "DiskPressure": ("False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        "PIDPressure": ("False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        "Ready": ("True", "KubeletReady", "kubelet is posting ready status")
        if ready
        else ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."),
    }
    base.update(overrides)
    return [
        {
            "type": t,
            "status": s,
            "reason": r,
            "message": m,
            "lastHeartbeatTime": iso(hb),
            "lastTransitionTime": iso(since),
        }
        for t, (s, r, m) in base.items()
    ]


def owner(kind: str, name: str, uid_: str, api: str = "apps/v1") -> Obj:
    return {
        "apiVersion": api,
        "kind": kind,
        "name": name,
        "uid": uid_,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def service_obj(
    name: str,
    ns: str,
    selector: Labels,
    ports: list[Obj],
    cluster_ip: str,
    labels: Labels | None = None,
    created: datetime | None = None,
    uid_: str = "",
) -> Obj:
    md: Obj = {"name": name, "namespace": ns}
    if labels:
        md["labels"] = labels
    if created:
        md["creationTimestamp"] = iso(created)
    if uid_:
        md["uid"] = uid_
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": md,
        "spec": {
            "type": "ClusterIP",
            "clusterIP": cluster_ip,
            "clusterIPs": [cluster_ip],
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "selector": selector,
            "ports": ports,
            "sessionAffinity": "None",
        },
        "status": {"loadBalancer": {}},
    }


def httproute_obj(
    name: str,
    ns: str,
    *,
    gateway: str,
    gateway_ns: str,
    hostnames: list[str],
    rules: list[Obj],
    created: datetime,
    uid_: str,
    generation: int = 1,
    controller: str = "gateway.envoyproxy.io/gatewayclass-controller",
    annotations: dict[str, str] | None = None,
) -> Obj:
    md: Obj = {
        "name": name,
        "namespace": ns,
        "uid": uid_,
        "generation": generation,
        "creationTimestamp": iso(created),
    }
    if annotations:
        md["annotations"] = annotations
    return {
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": md,
        "spec": {
            "parentRefs": [
                {
                    "group": "gateway.networking.k8s.io",
                    "kind": "Gateway",
                    "name": gateway,
                    "namespace": gateway_ns,
                }
            ],
            "hostnames": hostnames,
            "rules": rules,
        },
        "status": {
            "parents": [
                {
                    "parentRef": {
                        "group": "gateway.networking.k8s.io",
                        "kind": "Gateway",
                        "name": gateway,
                        "namespace": gateway_ns,
                    },
                    "controllerName": controller,
                    "conditions": [
                        {
                            "type": "Accepted",
                            "status": "True",
                            "reason": "Accepted",
                            "message": "Route is accepted",
                            "observedGeneration": generation,
                            "lastTransitionTime": iso(created),
                        },
                        {
                            "type": "ResolvedRefs",
                            "status": "True",
                            "reason": "ResolvedRefs",
                            "message": "Resolved all the Object references for the Route",
                            "observedGeneration": generation,
                            "lastTransitionTime": iso(created),
                        },
                    ],
                }
            ]
        },
    }


def event_obj(
    rng: random.Random,
    *,
    ns: str,
    kind: str,
    name: str,
    obj_uid: str,
    reason: str,
    message: str,
    first: datetime,
    last: datetime | None = None,
    count: int = 1,
    etype: str = "Normal",
    component: str = "kubelet",
    host: str | None = None,
    field_path: str | None = None,
    api_version: str = "v1",
    resource_version: str | None = None,
) -> Obj:
    last = last or first
    inv: Obj = {"apiVersion": api_version, "kind": kind, "name": name, "uid": obj_uid}
    if kind != "Node":
        inv["namespace"] = ns
    if field_path:
        inv["fieldPath"] = field_path
    if resource_version:
        inv["resourceVersion"] = resource_version
    src: Obj = {"component": component}
    if host:
        src["host"] = host
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{hexid(rng, 16)}",
            "namespace": ns if kind != "Node" else "default",
            "uid": uid(rng),
            "creationTimestamp": iso(first),
        },
        "involvedObject": inv,
        "reason": reason,
        "message": message,
        "source": src,
        "firstTimestamp": iso(first),
        "lastTimestamp": iso(last),
        "count": count,
        "type": etype,
        "eventTime": None,
        "reportingComponent": component if component != "kubelet" else "kubelet",
        "reportingInstance": host or "",
    }


def configmap_obj(
    name: str, ns: str, data: dict[str, str], created: datetime, uid_: str, labels: Labels | None = None
) -> Obj:
    md: Obj = {"name": name, "namespace": ns, "uid": uid_, "creationTimestamp": iso(created)}
    if labels:
        md["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}


def container_id(rng: random.Random) -> str:
    return "containerd://" + hexid(rng, 64)


def image_id(image: str) -> str:
    repo = image.rsplit(":", 1)[0]
    return f"{repo}@sha256:{hashlib.sha256(image.encode()).hexdigest()}"


# ---------------------------------------------------------------------------------------------------------------
# logs (ECS)
# ---------------------------------------------------------------------------------------------------------------
class Logs:
    def __init__(self) -> None:
        self.docs: list[Obj] = []

    def add(
        self,
        ts: datetime,
        message: str,
        *,
        service: str,
        ns: str | None = None,
        pod: str | None = None,
        node: str | None = None,
        container: str | None = None,
        level: str = "info",
        error_type: str | None = None,
        error_message: str | None = None,
        status: int | None = None,
        trace_id: str | None = None,
        logger: str | None = None,
        dataset: str | None = None,
        extra: Obj | None = None,
    ) -> None:
        d: Obj = {"@timestamp": iso(ts, ms=True), "message": message, "log": {"level": level}}
        if logger:
            d["log"]["logger"] = logger
        d["service"] = {"name": service}
        kube: Obj = {}
        if ns:
            kube["namespace"] = ns
        if pod:
            kube["pod"] = {"name": pod}
        if node:
            kube["node"] = {"name": node}
        if kube:
            d["kubernetes"] = kube
        if container:
            d["container"] = {"name": container}
        if node:
            d["host"] = {"name": node}
        if dataset:
            d["event"] = {"dataset": dataset}
        if error_type or error_message:
            d["error"] = {k: v for k, v in (("type", error_type), ("message", error_message)) if v}
        if status is not None:
            d["http"] = {"response": {"status_code": status}}
        if trace_id:
            d["trace"] = {"id": trace_id}
        if extra:
            for k, v in extra.items():
                d[k] = v
        self.docs.append(d)

    def dump(self, lo: datetime, hi: datetime) -> str:
        lo_s, hi_s = iso(lo, ms=True), iso(hi, ms=True)
        docs = sorted(
            (d for d in self.docs if lo_s <= d["@timestamp"] <= hi_s), key=lambda d: d["@timestamp"]
        )
        return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)


def within(rng: random.Random, minute: datetime, lo: float = 0.0, hi: float = 59.999) -> datetime:
    return minute + timedelta(seconds=rng.uniform(lo, hi))


# ---------------------------------------------------------------------------------------------------------------
# Alertmanager webhook
# ---------------------------------------------------------------------------------------------------------------
def fingerprint(labels: Labels) -> str:
    """FNV-1a 64 over the sorted label pairs, like Prometheus' `LabelSet.Fingerprint`."""
    h = 0xCBF29CE484222325
    for k in sorted(labels):
        for part in (k, labels[k]):
            for b in part.encode():
                h ^= b
                h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
            h ^= 0xFF
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def webhook(
    *,
    labels: Labels,
    annotations: dict[str, str],
    starts_at: datetime,
    expr: str,
    prometheus_url: str,
    external_url: str,
    group_by: list[str],
    receiver: str,
    route_matchers: str,
) -> Obj:
    gen = f"{prometheus_url}/graph?g0.expr={urllib.parse.quote(expr, safe='')}&g0.tab=1"
    alert = {
        "status": "firing",
        "labels": labels,
        "annotations": annotations,
        "startsAt": iso(starts_at, ms=True),
        "endsAt": "0001-01-01T00:00:00Z",
        "generatorURL": gen,
        "fingerprint": fingerprint(labels),
    }
    group = {k: labels[k] for k in group_by if k in labels}
    gk = ", ".join(f'{k}="{v}"' for k, v in sorted(group.items()))
    return {
        "receiver": receiver,
        "status": "firing",
        "alerts": [alert],
        "groupLabels": group,
        "commonLabels": labels,
        "commonAnnotations": annotations,
        "externalURL": external_url,
        "version": "4",
        "groupKey": f"{route_matchers}:{{{gk}}}",
        "truncatedAlerts": 0,
    }


# ---------------------------------------------------------------------------------------------------------------
# a real Prometheus on the pack's samples
# ---------------------------------------------------------------------------------------------------------------
class Prom:
    """`promtool tsdb create-blocks-from openmetrics` + a Prometheus server on those blocks."""

    def __init__(self, om_text: str) -> None:
        self.tmp = tempfile.mkdtemp(prefix="heldout-prom-")
        om = Path(self.tmp) / "metrics.om"
        om.write_text(om_text)
        data = Path(self.tmp) / "data"
        subprocess.run(
            ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om), str(data)],
            check=True,
            capture_output=True,
        )
        cfg = Path(self.tmp) / "prometheus.yml"
        cfg.write_text("global: {scrape_interval: 1m}\n")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={cfg}",
                f"--storage.tsdb.path={data}",
                "--storage.tsdb.retention.time=30y",
                f"--web.listen-address=127.0.0.1:{self.port}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 40
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(0.3)

    def query(self, expr: str, at: datetime) -> list[Any]:
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(
            {"query": expr, "time": f"{at.timestamp():.3f}"}
        )
        with urllib.request.urlopen(url, timeout=20) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError(body)
        return list(body["data"]["result"])

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=20)
        shutil.rmtree(self.tmp, ignore_errors=True)


def current_firing(
    prom: Prom, expr: str, clock: Clock, for_minutes: int, eval_offset_s: int
) -> tuple[datetime, float]:
    """Evaluate like a rule group every minute (at +eval_offset_s) up to `as_of`; return when the alert
    that is firing at `as_of` started firing (pending for `for_minutes`) and the value it had then."""
    true_since: datetime | None = None
    fired: tuple[datetime, float] | None = None
    for i in range(clock.n):
        at = clock.at(i) + timedelta(seconds=eval_offset_s)
        if at > clock.as_of:
            break
        res = prom.query(expr, at)
        if res:
            if true_since is None:
                true_since = at
            if fired is None and at - true_since >= timedelta(minutes=for_minutes):
                fired = (at, float(res[0]["value"][1]))
        else:
            true_since = None
            fired = None
    if fired is None or not prom.query(expr, clock.as_of):
        raise RuntimeError(f"alert not firing at as_of: {expr}")
    if prom.query(expr, clock.at(20)):
        raise RuntimeError(f"alert already true 20 minutes into the window: {expr}")
    return fired


def dump_yaml_all(objs: list[Obj]) -> str:
    return yaml.safe_dump_all(objs, sort_keys=False, width=140, default_flow_style=False)


def write_pack(
    root: Path,
    name: str,
    *,
    as_of: datetime,
    namespace: str,
    description: str,
    alert: Obj,
    om: OM,
    logs: Logs,
    objects: list[Obj],
    gpus: dict[str, list[Obj]] | None,
    expected: Obj,
    logs_index: str = "logs-inference",
) -> Path:
    out = root / name
    out.mkdir(parents=True, exist_ok=True)
    meta = {
        "name": name,
        "as_of": iso(as_of),
        "namespace": namespace,
        "logs_index": logs_index,
        "description": description,
    }
    (out / "scenario.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, width=110))
    (out / "alert.json").write_text(json.dumps(alert, indent=2) + "\n")
    (out / "metrics.om").write_text(om.render())
    (out / "logs.ndjson").write_text(logs.dump(om.clock.start, as_of))
    (out / "k8s.yaml").write_text(dump_yaml_all(objects))
    if gpus is not None:
        (out / "gpus.json").write_text(json.dumps({"nodes": gpus}, indent=2) + "\n")
    (out / "expected.yaml").write_text(yaml.safe_dump(expected, sort_keys=False))
    return out
