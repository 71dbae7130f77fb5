"""A double-bit ECC error (Xid 48) kills one vLLM replica 15 minutes after a sibling reranker rollout.

At 19:40 the voice-search team rolls out its TEI reranker (revision 7 -> 8: TEI 1.7.4 -> 1.8.1).
Its new pods warm up, fail a few readiness probes, and the old pods drain with a handful of Istio
503s (UC). Then it runs normally. At 19:55:07 GPU 5 of `a100-lon1-r04-n13` reports an uncorrectable
double-bit error: `NVRM: Xid 48` (DBE), Xid 63 (row remapper: new row marked for remapping, reset
the GPU to activate) and Xid 94 (contained). DCGM shows `DCGM_FI_DEV_ECC_DBE_VOL_TOTAL` rising and a
row remap pending, and the device plugin marks the GPU unhealthy (allocatable 8 -> 7). The vLLM
engine on that GPU dies with `CUDA error: uncorrectable ECC error encountered`. With
`VLLM_KEEP_ALIVE_ON_ENGINE_DEATH=1` and a `/v1/models` readiness probe the pod stays Ready and
answers 500 to its share of traffic, which least-request balancing makes larger. The other
replica and the ASR pod on the same node (another GPU) are fine. The page is a namespace-wide
Istio 5xx ratio that names no workload.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from .. import exporters as ex
from .. import k8s
from ..common import TRACE_VLLM_ENGINE, rate_ratio, threshold_alert
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_stats
from ..fleet import Fleet, Member
from ..logs import LogBook, Source, ecs
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import GpuDevice, GpuSeries, gpu_idle, node_timeline

NAME = "sibling-rollout-xid48-dbe"
ENGINE = "vLLM 0.10.2 (V1 metric names) + TEI 1.8 reranker behind an Istio gateway, bare-metal A100"
NS = "voice-search"
GW_NS = "voice-gw"
GW_POD = "voice-gw-istio-7c9d4f6b58-x2v7k"
GW_IP = "10.61.4.37"


class _Pack(Pack):
    """A Pack whose expected.yaml also lists the decoy actions and the incident's scope."""

    forbidden: list[tuple[str, str]]
    scope: list[str]

    def write(self, root: Path) -> Path:
        out = super().write(root)
        path = out / "expected.yaml"
        exp: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
        exp["forbidden_actions"] = [{"kind": k, "target": t} for k, t in self.forbidden]
        exp["scope"] = list(self.scope)
        path.write_text(yaml.safe_dump(exp, sort_keys=False), encoding="utf-8")
        return out


ISTIO_PROXY = {
    "name": "istio-proxy",
    "image": "docker.io/istio/proxyv2:1.26.2",
    "args": ["proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local", "--proxyLogLevel=warning"],
    "ports": [{"containerPort": 15090, "name": "http-envoy-prom", "protocol": "TCP"}],
    "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
}
MESH_ANNOTATIONS = {
    "prometheus.io/path": "/stats/prometheus",
    "prometheus.io/port": "15020",
    "prometheus.io/scrape": "true",
    "sidecar.istio.io/status": '{"initContainers":["istio-init"],"containers":["istio-proxy"],"volumes":["workload-socket",'  # noqa: E501
    '"credential-socket","workload-certs","istio-envoy","istio-data","istio-podinfo","istio-token","istiod-ca-cert"],'
    '"imagePullSecrets":null,"revision":"default"}',
}


def _strip_injected(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Istio injects its sidecar into Pods only: Deployments and ReplicaSets never show it."""
    out = []
    for o in objs:
        if o["kind"] in ("Deployment", "ReplicaSet"):
            o = copy.deepcopy(o)
            spec = o["spec"]["template"]["spec"]
            spec["containers"] = [ct for ct in spec["containers"] if ct["name"] != "istio-proxy"]
            o["spec"]["template"]["metadata"].pop("annotations", None)
        out.append(o)
    return out


def _istio_labels(dst: str, code: int, flags: str) -> dict[str, str]:
    return {
        "connection_security_policy": "unknown",
        "container": "istio-proxy",
        "destination_app": dst,
        "destination_canonical_revision": "latest",
        "destination_canonical_service": dst,
        "destination_cluster": "Kubernetes",
        "destination_principal": f"spiffe://cluster.local/ns/{NS}/sa/{dst}",
        "destination_service": f"{dst}.{NS}.svc.cluster.local",
        "destination_service_name": dst,
        "destination_service_namespace": NS,
        "destination_version": "unknown",
        "destination_workload": dst,
        "destination_workload_namespace": NS,
        "grpc_response_status": "",
        "instance": f"{GW_IP}:15020",
        "job": "istio-system/envoy-stats-monitor",
        "namespace": GW_NS,
        "pod": GW_POD,
        "reporter": "source",
        "request_protocol": "http",
        "response_code": str(code),
        "response_flags": flags,
        "source_app": "voice-gw-istio",
        "source_canonical_revision": "latest",
        "source_canonical_service": "voice-gw-istio",
        "source_cluster": "Kubernetes",
        "source_principal": f"spiffe://cluster.local/ns/{GW_NS}/sa/voice-gw-istio",
        "source_version": "unknown",
        "source_workload": "voice-gw-istio",
        "source_workload_namespace": GW_NS,
    }


def _istio_access(
    ts: datetime,
    *,
    status: int,
    flags: str,
    details: str,
    duration_ms: int,
    upstream: str | None,
    cluster: str,
    path: str,
    client: str,
    agent: str,
    request_id: str,
    route: str,
    bytes_sent: int,
) -> str:
    """Istio's default text access-log format (the gateway's istio-proxy)."""
    svc = str(max(0, duration_ms - 1)) if upstream else "-"
    up = upstream or "-"
    local = f"{GW_IP}:{40000 + k8s.stable(request_id) % 20000}" if upstream else "-"
    return (
        f'[{iso(ts, ms=True)}] "POST {path} HTTP/1.1" {status} {flags} {details} - "-" 1864 {bytes_sent} '
        f'{duration_ms} {svc} "{client}" "{agent}" "{request_id}" "api.voice-search.example.co.uk" "{up}" '
        f"{cluster} {local} {GW_IP}:8443 {client}:0 api.voice-search.example.co.uk {route}"
    )


def _obfuscate(model_id: str) -> str:
    """TEI logs the model id with all but its first three and last four characters masked."""
    head, mid, tail = model_id[:3], model_id[3:-4], model_id[-4:]
    return head + "".join("*" if ch.isalnum() else ch for ch in mid) + tail


def _a100_node(p: Pack, name: str, ip: str, rack: str, cidr: str) -> tuple[k8s.Node, list[GpuDevice]]:
    return p.gpu_node(
        name,
        ip=ip,
        zone="lon1",
        instance_type="dgx-a100-80g",
        product="NVIDIA A100-SXM4-80GB",
        count=8,
        pod_cidr=cidr,
        cpu=256,
        memory_mi=2_097_152,
        kernel="5.15.0-1063-nvidia",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.30.10",
        runtime="containerd://1.7.25",
        driver="550.144.03",
        labels={"topology.kubernetes.io/rack": rack, "node-role.example.co.uk/gpu": "a100"},
        taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
    )


def _dcgm_ecc(p: Pack, gpus: Sequence[GpuSeries], values: dict[str, dict[str, Series]]) -> None:
    """The ECC and row-remapper fields this cluster adds to dcgm-exporter's counters CSV."""
    for g in gpus:
        lab = {
            "DCGM_FI_DRIVER_VERSION": "550.144.03",
            "Hostname": g.dev.node,
            "UUID": g.dev.uuid,
            "device": f"nvidia{g.dev.index}",
            "gpu": str(g.dev.index),
            "job": "nvidia-dcgm-exporter",
            "modelName": g.dev.product,
            "pci_bus_id": g.dev.pci,
        }
        if g.pod:
            lab.update({"container": g.container or "vllm", "namespace": g.namespace or "", "pod": g.pod})
        v = values.get(g.dev.uuid, {})
        zero = flat(p.clock, 0.0)
        for name, help_text, kind in (
            ("DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "Total number of single-bit volatile ECC errors.", "counter"),
            ("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "Total number of double-bit volatile ECC errors.", "counter"),
            (
                "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS",
                "Number of remapped rows for uncorrectable errors",
                "counter",
            ),
            ("DCGM_FI_DEV_ROW_REMAP_PENDING", "Whether remapping of rows is pending", "gauge"),
        ):
            series = v.get(name, zero)
            if kind == "counter":  # dcgm-exporter's counters carry no `_total` suffix of their own
                p.om.family(name, "unknown", help_text).add("", lab, list(series))
            else:
                p.om.gauge(name, help_text, lab, series)


def build() -> Pack:
    p = _Pack(
        NAME,
        as_of="2026-09-29T20:12:00Z",
        namespace=NS,
        seed=1515,
        description=(
            "Voice search answers fail for part of the users since shortly before 20:00; the reranker was "
            "rolled out at 19:40."
        ),
    )
    c, rng = p.clock, p.rng
    roll = p.t("19:40:12")
    onset = p.t("19:55:07")

    # --- nodes ----------------------------------------------------------------------------------------------
    n11, d11 = _a100_node(p, "a100-lon1-r04-n11", "10.61.2.111", "r04", "10.61.64.0/23")
    n13, d13 = _a100_node(p, "a100-lon1-r04-n13", "10.61.2.113", "r04", "10.61.68.0/23")
    cpu = k8s.Node(
        name="cpu-lon1-r02-n07",
        internal_ip="10.61.2.27",
        zone="lon1",
        instance_type="r760-2x32c",
        cpu=64,
        memory_mi=524_288,
        uid=k8s.new_uid(rng),
        pod_cidr="10.61.4.0/23",
        kernel="5.15.0-125-generic",
        os_image="Ubuntu 22.04.5 LTS",
        kubelet_version="v1.30.10",
        runtime="containerd://1.7.25",
        labels={"topology.kubernetes.io/rack": "r02"},
    )

    # --- the vLLM deployment (the incident) -----------------------------------------------------------------
    args = [
        "--model",
        "/models/Qwen/Qwen3-8B",
        "--served-model-name",
        "qwen3-8b-voicesearch",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.90",
        "--max-num-seqs",
        "128",
        "--enable-prefix-caching",
        "--reasoning-parser",
        "qwen3",
    ]
    env = [
        {"name": "VLLM_KEEP_ALIVE_ON_ENGINE_DEATH", "value": "1"},
        {"name": "HF_HUB_OFFLINE", "value": "1"},
    ]
    rev3 = p.revision(3, p.ago(days=18, hours=2), "vllm/vllm-openai:v0.10.1.1", args, env=env)
    rev4 = p.revision(
        4,
        p.ago(days=6, hours=9, minutes=31),
        "vllm/vllm-openai:v0.10.2",
        args,
        env=env,
        replicas=2,
        change_cause="vllm 0.10.2",
    )
    w = k8s.Workload(
        name="vllm-qwen3-8b-voicesearch",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={"app": "vllm-qwen3-8b-voicesearch", "app.kubernetes.io/part-of": "voice-search"},
        revisions=[rev3, rev4],
        pods=[],
        created=p.ago(days=64),
        replicas=2,
        readiness={
            "httpGet": {"path": "/v1/models", "port": 8000},
            "periodSeconds": 10,
            "failureThreshold": 3,
        },
        uid=k8s.new_uid(rng),
        cpu="12",
        memory="96Gi",
        memory_limit="128Gi",
        service_account="vllm-qwen3-8b-voicesearch",
        volumes=[
            {
                "name": "models",
                "nfs": {"server": "nas-lon1-02.storage.example.co.uk", "path": "/export/models"},
            },
            {"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "16Gi"}},
        ],
        volume_mounts=[
            {"name": "models", "mountPath": "/models", "readOnly": True},
            {"name": "dshm", "mountPath": "/dev/shm"},
        ],
        sidecars=[ISTIO_PROXY],
        pod_annotations=dict(MESH_ANNOTATIONS),
        cluster_ip="10.61.128.41",
    )
    fleet = Fleet(p, w, job=f"{NS}/vllm-qwen3-8b-voicesearch", model="qwen3-8b-voicesearch", service="")
    good = fleet.add(
        rev4,
        n11,
        [d11[2]],
        "10.61.64.23",
        created=rev4.created + timedelta(minutes=1, seconds=12),
        rpm=265,
        prompt_len=980,
        gen_len=120,
        ttft=0.09,
        itl=0.011,
        kv=0.27,
        util=71,
        fb_used=73_900,
    )
    bad = fleet.add(
        rev4,
        n13,
        [d13[5]],
        "10.61.68.51",
        created=rev4.created + timedelta(minutes=4, seconds=40),
        rpm=265,
        prompt_len=980,
        gen_len=120,
        ttft=0.09,
        itl=0.011,
        kv=0.27,
        util=71,
        fb_used=73_900,
    )
    gpu_bad = bad.gpus[0]
    for g in good.gpus + bad.gpus:  # A100 SXM4: 400 W board
        g.power = (g.util * 3.4 + 58 + noisy(flat(c, 0.0), rng, 0, 6.0)).map(lambda v: round(v, 3))

    # the fault: the engine dies; the API server (and readiness) stay up and answer 500 in ~2 ms
    k = c.idx(onset)
    frac = (c.at(k) - onset).total_seconds() / 60.0
    total = good.rep.ok() + bad.rep.ok()
    for i in range(k, c.n):
        share = 0.61 if i > k else 0.5
        to_bad = round(total[i] * share)
        errs = round(to_bad * (frac if i == k else 1.0))
        bad.rep.codes.setdefault(500, flat(c, 0.0))[i] = float(errs)
        bad.rep.codes[200][i] = float(round(to_bad - errs))
        good.rep.codes[200][i] = float(round(total[i] - to_bad + rng.gauss(0, 3)))
    frozen = (bad.rep.running[k - 1], bad.rep.kv[k - 1])
    for i in range(k, c.n):
        bad.rep.running[i], bad.rep.kv[i], bad.rep.waiting[i] = frozen[0], frozen[1], 0.0
    bad.rep.served_s = bad.rep.ok()
    for i in range(k, c.n):
        gpu_bad.util[i] = 0.0
        gpu_bad.fb_used[i] = float(round(486 + rng.uniform(-3, 3)))
        gpu_bad.power[i] = round(61.0 + rng.random() * 3, 3)
        g = good.gpus[0]
        g.util[i] = float(min(99, round(g.util[i] * 0.86)))
    gpu_bad.xid = Series(94.0 if i >= k else 0.0 for i in range(c.n))
    t48 = onset
    t63 = onset + timedelta(milliseconds=23)
    t94 = onset + timedelta(milliseconds=25)
    gpu_bad.xid_events = [(48, t48), (63, t63), (94, t94)]
    gpu_bad.ecc_uncorrected = 2
    sbe = Series(
        float(0 if i < c.idx(p.t("19:46:30")) else 1 if i < c.idx(p.t("19:51:10")) else 3) for i in range(c.n)
    )
    ecc = {
        gpu_bad.dev.uuid: {
            "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL": sbe,
            "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": Series(2.0 if i >= k else 0.0 for i in range(c.n)),
            "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": Series(1.0 if i >= k else 0.0 for i in range(c.n)),
            "DCGM_FI_DEV_ROW_REMAP_PENDING": Series(1.0 if i >= k else 0.0 for i in range(c.n)),
        }
    }

    # an ASR server of another team on the same node, another GPU, unaffected
    asr_rev = p.revision(
        11,
        p.ago(days=9),
        "nvcr.io/nvidia/riva/riva-speech:2.19.0",
        ["start-riva", "--asr_service=true"],
        replicas=1,
    )
    asr_w = k8s.Workload(
        name="riva-asr-en-gb",
        namespace="speech-asr",
        container="riva",
        port=50051,
        labels={"app": "riva-asr-en-gb", "team": "speech"},
        revisions=[asr_rev],
        pods=[],
        created=p.ago(days=200),
        replicas=1,
        cpu="8",
        memory="32Gi",
        memory_limit="48Gi",
        uid=k8s.new_uid(rng),
        cluster_ip="10.61.131.12",
    )
    asr_fleet = Fleet(p, asr_w, job="speech-asr/riva-asr-en-gb", model="", service="")
    asr = asr_fleet.add(asr_rev, n13, [d13[1]], "10.61.68.19", rpm=600, util=41, fb_used=18_200)
    for g in asr.gpus:
        g.power = (g.util * 3.4 + 58 + noisy(flat(c, 0.0), rng, 0, 5.0)).map(lambda v: round(v, 3))

    # --- the sibling: TEI reranker, rolled out at 19:40 -----------------------------------------------------
    targs = [
        "--model-id",
        "/models/BAAI/bge-reranker-v2-m3",
        "--port",
        "8080",
        "--max-client-batch-size",
        "64",
    ]
    trev7 = p.revision(7, p.ago(days=34), "ghcr.io/huggingface/text-embeddings-inference:cpu-1.7.4", targs)
    trev8 = p.revision(
        8,
        roll,
        "ghcr.io/huggingface/text-embeddings-inference:cpu-1.8.1",
        [*targs, "--max-batch-tokens", "32768"],
        replicas=2,
        change_cause="tei 1.8.1, max-batch-tokens 32768 (VS-2231)",
    )
    tw = k8s.Workload(
        name="tei-voice-reranker",
        namespace=NS,
        container="tei",
        port=8080,
        labels={"app": "tei-voice-reranker", "app.kubernetes.io/part-of": "voice-search"},
        revisions=[trev7, trev8],
        pods=[],
        created=p.ago(days=120),
        replicas=2,
        gpus=0,
        cpu="16",
        memory="12Gi",
        memory_limit="16Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 5, "failureThreshold": 2},
        uid=k8s.new_uid(rng),
        sidecars=[ISTIO_PROXY],
        pod_annotations=dict(MESH_ANNOTATIONS),
        cluster_ip="10.61.128.57",
        generation=12,
    )
    tfleet = Fleet(p, tw, job=f"{NS}/tei-voice-reranker", model="", service="")
    sched = [
        (roll, roll + timedelta(seconds=53)),
        (roll + timedelta(seconds=55), roll + timedelta(minutes=1, seconds=49)),
    ]
    olds: list[Member] = []
    news: list[Member] = []
    for j, (created, ready) in enumerate(sched):
        olds.append(
            tfleet.add(
                trev7,
                cpu,
                [],
                f"10.61.4.{60 + j}",
                deleted=ready + timedelta(seconds=2),
                rpm=560,
                ttft=0.012,
                itl=0.001,
            )
        )
        news.append(
            tfleet.add(
                trev8,
                cpu,
                [],
                f"10.61.5.{12 + 9 * j}",
                created=created,
                ready_after=ready - created,
                rpm=560,
                ttft=0.012,
                itl=0.001,
            )
        )
    for m in olds:
        m.info = None
    # what the reranker pods serve: one steady stream, moved over as the new pods become ready
    rr_total = noisy(flat(c, 1120.0), rng, 0.03)
    for i in range(c.n):
        up = [m for m in tfleet.members if m.timeline.ready[i] and m.rep.present[i]]
        for m in tfleet.members:
            m.rep.codes[200][i] = (
                float(round(rr_total[i] / len(up) * rng.uniform(0.96, 1.04))) if m in up else 0.0
            )
    rr503 = flat(c, 0.0)
    for _, ready in sched:  # connections still open on the old pod when it goes
        rr503[c.idx(ready + timedelta(seconds=2))] += float(rng.randint(3, 6))

    # --- metrics --------------------------------------------------------------------------------------------
    ex.vllm(p.om, fleet.replicas(), itl=False)
    ex.dcgm(p.om, fleet.gpu_series() + asr.gpus, driver="550.144.03")
    _dcgm_ecc(p, fleet.gpu_series() + asr.gpus, ecc)
    for m in tfleet.members:
        r = m.rep
        lab = {"instance": f"{m.ip}:8080", "job": r.job, "namespace": NS, "pod": m.name, "method": "rerank"}
        p.om.counter(
            "te_request_count",
            "Total number of requests",
            lab,
            r.requests(),
            present=r.present,
            resets=r.resets,
            initial=r.ok()[0] * r.uptime_min,
            total_suffix=False,
        )
        p.om.counter(
            "te_request_success",
            "Number of successful requests",
            lab,
            r.ok(),
            present=r.present,
            resets=r.resets,
            initial=r.ok()[0] * r.uptime_min,
            total_suffix=False,
        )
        base = {k: v for k, v in lab.items() if k != "method"}
        p.om.gauge(
            "te_queue_size",
            "Number of requests waiting in the internal queue",
            base,
            noisy(flat(c, 1.0), rng, 0.6).map(lambda v: float(max(0, round(v)))),
            r.present,
        )
    ex.up(p.om, tfleet.replicas())
    ex.ksm_pods(p.om, fleet.timelines() + tfleet.timelines())
    nts = []
    for node in (n11, n13):
        nt = node_timeline(c, node.name, gpus=8, internal_ip=node.internal_ip)
        if node is n13:
            nt.gpus_allocatable = Series(7.0 if i > k else 8.0 for i in range(c.n))
        nts.append(nt)
    ex.ksm_nodes(p.om, nts)
    ex.ksm_deployment(
        p.om, namespace=NS, name=w.name, spec=flat(c, 2), available=flat(c, 2), generation=flat(c, 7.0)
    )
    kr = c.idx(roll)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=tw.name,
        spec=flat(c, 2),
        available=Series(2.0 for _ in range(c.n)),
        updated=Series(
            float(sum(1 for m in news if m.timeline.exists[i])) if i >= kr else 2.0 for i in range(c.n)
        ),
        generation=Series(11.0 if i < kr else 12.0 for i in range(c.n)),
    )
    # Istio: what the gateway's sidecar reports (reporter="source"), per destination workload
    vcodes = fleet.codes()
    tcodes = tfleet.codes()
    istio_series = [
        ("vllm-qwen3-8b-voicesearch", 200, "-", vcodes[200]),
        ("vllm-qwen3-8b-voicesearch", 500, "-", vcodes.get(500, flat(c, 0.0))),
        ("tei-voice-reranker", 200, "-", tcodes[200]),
        ("tei-voice-reranker", 503, "UC", rr503),
    ]
    for dst, code, flags, inc in istio_series:
        ints = inc.ints()
        seen = 40 + k8s.stable(f"{dst}/{code}") % 400
        init = float(round(ints[0] * 21_000)) if code < 300 else float(seen)
        p.om.counter("istio_requests", "Total requests.", _istio_labels(dst, code, flags), ints, initial=init)
    bad5 = vcodes.get(500, flat(c, 0.0)) + rr503
    tot = vcodes[200] + vcodes.get(500, flat(c, 0.0)) + tcodes[200] + rr503
    ratio = rate_ratio(bad5.ints(), tot.ints())
    sel = f'reporter="source",source_workload="voice-gw-istio",destination_service_namespace="{NS}"'
    threshold_alert(
        p,
        expr=(
            f'sum by (destination_service_namespace) (rate(istio_requests_total{{{sel},response_code=~"5.."}}[5m])) '
            f"/ sum by (destination_service_namespace) (rate(istio_requests_total{{{sel}}}[5m])) > 0.05"
        ),
        condition=[v > 0.05 for v in ratio],
        value=ratio,
        for_minutes=2,
        labels={
            "alertname": "MeshNamespaceHigh5xxRatio",
            "destination_service_namespace": NS,
            "severity": "critical",
            "team": "voice-search",
        },
        summary="voice-search: more than 5% of requests through voice-gw answer 5xx",
        description=(
            "The 5xx ratio of requests from the voice-gw ingress to services in voice-search is above 5% "
            "(Istio, reporter=source)."
        ),
        prometheus="http://prometheus-operated.monitoring.svc:9090",
        alertmanager="http://alertmanager-operated.monitoring.svc:9093",
        value_format="{:.4f}",
        runbook="https://runbooks.voice-search.example.co.uk/mesh/5xx",
        group_by=("alertname", "destination_service_namespace"),
    )

    # --- logs -----------------------------------------------------------------------------------------------
    vllm_stats(p, good, every=3)
    vllm_stats(p, bad, every=3, alive=[i < k for i in range(c.n)])
    for m in fleet.members:
        p.access_logs(m.rep, src_of(m), vllm_access(), errors_after=onset, clients=["127.0.0.6"], every=6)
    kernel = Source("kernel", None, None, n13.name, None, dataset="system.syslog")
    bus = gpu_bad.dev.kernel_pci
    for ts, lvl, msg in (
        (t48 - timedelta(microseconds=40), "error", f"NVRM: GPU at PCI:{bus}: {gpu_bad.dev.uuid}"),
        (t48 - timedelta(microseconds=31), "error", "NVRM: GPU Board Serial Number: 1654321087342"),
        (
            t48,
            "error",
            f"NVRM: Xid (PCI:{bus}): 48, pid=2316407, name=VLLM::EngineCor, An uncorrectable double bit error (DBE) "
            "has been detected on GPU in the framebuffer at physAddr 0x1b3f52c40 partition 9, subpartition 1.",
        ),
        (
            t63,
            "error",
            f"NVRM: Xid (PCI:{bus}): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000001b3f52c40) "
            "marked for remapping, reset gpu to activate.",
        ),
        (
            t94,
            "error",
            f"NVRM: Xid (PCI:{bus}): 94, pid=2316407, name=VLLM::EngineCor, Contained: SM (0x1). RST: No, D-RST: No",
        ),
    ):
        xid = msg.split("): ", 1)[1].split(",", 1)[0] if "Xid (" in msg else None
        p.logs.add(ecs(ts, msg, kernel, level=lvl, error_type=f"Xid {xid}" if xid else None))
    plugin = Source(
        "nvidia-device-plugin",
        "gpu-operator",
        "nvidia-device-plugin-daemonset-q7m4t",
        n13.name,
        "nvidia-device-plugin",
    )
    for dt, msg in (
        (
            1.2,
            "Processing event {Device:{Handle:0xc0005a8e10} EventType:8 EventData:48 GpuInstanceId:4294967295 ComputeInstanceId:4294967295}",  # noqa: E501
        ),
        (1.21, f"XidCriticalError: Xid=48 on Device={gpu_bad.dev.uuid}; marking device as unhealthy."),
        (1.23, f"'nvidia.com/gpu' device marked unhealthy: {gpu_bad.dev.uuid}"),
        (
            1.4,
            "Processing event {Device:{Handle:0xc0005a8e10} EventType:8 EventData:63 GpuInstanceId:4294967295 ComputeInstanceId:4294967295}",  # noqa: E501
        ),
        (1.41, f"XidCriticalError: Xid=63 on Device={gpu_bad.dev.uuid}; marking device as unhealthy."),
    ):
        ts = onset + timedelta(seconds=dt)
        stamp = f"I0929 {ts:%H:%M:%S}.{ts.microsecond:06d}       1 "
        where = "server.go:359] " if msg.startswith("'nvidia") else "health.go:159] "
        p.logs.add(ecs(ts, stamp + where + msg, plugin, level="info"))
    ec = "EngineCore_0 pid=241"
    err = "CUDA error: uncorrectable ECC error encountered"
    tb = (
        TRACE_VLLM_ENGINE
        + '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 1705, in execute_model\n'  # noqa: E501
        "    valid_sampled_token_ids = sampled_token_ids.tolist()\n"
        f"RuntimeError: {err}\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might "
        "be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."
    )
    t_err = onset + timedelta(milliseconds=611)
    vllm_line_doc(
        p,
        bad,
        t_err,
        "ERROR",
        "core.py:710",
        "EngineCore encountered a fatal error.",
        proc=ec,
        error_type="RuntimeError",
        error_message=err,
        stack=tb,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=2),
        "ERROR",
        "core.py:710",
        f"RuntimeError: {err}",
        proc=ec,
        error_type="RuntimeError",
        error_message=err,
    )
    vllm_line_doc(
        p,
        bad,
        t_err + timedelta(milliseconds=57),
        "ERROR",
        "async_llm.py:420",
        "AsyncLLM output_handler failed.",
        error_type="EngineDeadError",
        error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
    )
    for i in range(k, c.n - 1):
        for _ in range(2 if i < k + 2 else 1):
            ts = p.ids.within(c.at(i), max(0.0, (onset - c.at(i)).total_seconds() + 1.0))
            vllm_line_doc(
                p,
                bad,
                ts,
                "ERROR",
                "serving_chat.py:1176",
                "Error in chat completion stream generator.",
                error_type="EngineDeadError",
                error_message="EngineCore encountered an issue. See stack trace (above) for the root cause.",
            )
    # the reranker rollout in the reranker's own words
    for m in news:
        src = src_of(m)
        t0 = m.created + timedelta(seconds=7.4)
        for dt, msg in (
            (
                0.0,
                'text_embeddings_router: router/src/main.rs:203: Args { model_id: "'
                + _obfuscate(targs[1])
                + '", revision: None, tokenization_workers: None, dtype: None, pooling: None, max_concurrent_requests: 512, max_batch_tokens: 32768, max_batch_requests: None, max_client_batch_size: 64, auto_truncate: false, hostname: "'  # noqa: E501
                + m.name
                + '", port: 8080 }',
            ),
            (
                0.9,
                "text_embeddings_router: router/src/lib.rs:231: Maximum number of tokens per request: 8192",
            ),
            (
                1.1,
                "text_embeddings_core::tokenization: core/src/tokenization.rs:38: Starting 16 tokenization workers",
            ),
            (2.6, "text_embeddings_router: router/src/lib.rs:281: Starting model backend"),
            (
                16.3,
                "text_embeddings_backend_candle: backends/candle/src/lib.rs:260: Starting XlmRoberta model on Cpu",
            ),
            (31.8, "text_embeddings_router: router/src/lib.rs:299: Warming up model"),
            (
                45.2,
                "text_embeddings_router::http::server: router/src/http/server.rs:1852: Starting HTTP server: 0.0.0.0:8080",  # noqa: E501
            ),
            (45.21, "text_embeddings_router::http::server: router/src/http/server.rs:1853: Ready"),
        ):
            ts = t0 + timedelta(seconds=dt)
            stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z"
            p.logs.add(ecs(ts, f"{stamp}  INFO {msg}", src, level="info"))
        for i in range(c.idx(m.created) + 2, c.n, 4):
            ts = p.ids.within(c.at(i))
            stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z"
            d = rng.uniform(9, 34)
            p.logs.add(
                ecs(
                    ts,
                    f'{stamp}  INFO rerank{{total_time="{d:.6f}ms" tokenization_time="{d * 0.1:.6f}ms" '
                    f'queue_time="{d * 0.07:.6f}ms" inference_time="{d * 0.78:.6f}ms"}}: '
                    "text_embeddings_router::http::server: router/src/http/server.rs:464: Success",
                    src,
                    level="info",
                )
            )
    for m in olds:
        src = src_of(m)
        assert m.deleted is not None
        ts = m.deleted - timedelta(seconds=1, milliseconds=640)
        stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z"
        p.logs.add(
            ecs(
                ts,
                f"{stamp}  INFO text_embeddings_router::shutdown: router/src/shutdown.rs:28: signal received, "
                "starting graceful shutdown",
                src,
                level="info",
            )
        )
        for i in range(2, c.idx(m.deleted), 4):
            ts = p.ids.within(c.at(i))
            stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond:06d}Z"
            d = rng.uniform(9, 34)
            p.logs.add(
                ecs(
                    ts,
                    f'{stamp}  INFO rerank{{total_time="{d:.6f}ms" tokenization_time="{d * 0.1:.6f}ms" '
                    f'queue_time="{d * 0.07:.6f}ms" inference_time="{d * 0.78:.6f}ms"}}: '
                    "text_embeddings_router::http::server: router/src/http/server.rs:464: Success",
                    src,
                    level="info",
                )
            )
    asrc = Source("riva-asr-en-gb", "speech-asr", asr.name, n13.name, "riva")
    for i in range(1, c.n, 6):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f"I{ts:%m%d} {ts:%H:%M:%S}.{ts.microsecond:06d}   412 grpc_riva_asr.cc:1093] ASRService.StreamingRecognize "  # noqa: E501
                f"called. (streams active: {rng.randint(38, 57)})",
                asrc,
                level="info",
            )
        )
    # the gateway's access log (sampled), including the reranker drain and the vLLM 500s
    gw = Source("istio-proxy", GW_NS, GW_POD, cpu.name, "istio-proxy")
    book = LogBook()
    for i in range(c.n - 1):
        minute = c.at(i)
        for dst, port, code_series, path, rname in (
            ("vllm-qwen3-8b-voicesearch", 8000, vcodes, "/v1/chat/completions", "voice-llm"),
            ("tei-voice-reranker", 8080, tcodes, "/rerank", "voice-rerank"),
        ):
            cluster = f"outbound|{port}||{dst}.{NS}.svc.cluster.local"
            members = fleet.members if port == 8000 else tfleet.members
            for code, series in sorted(code_series.items()):
                n = int(series[i + 1])
                if n <= 0 or (code < 300 and i % 6):
                    continue
                for _ in range(1 if code < 300 else min(2, n)):
                    if code >= 500:
                        m = bad
                        ts = p.ids.within(minute, max(0.0, (onset - minute).total_seconds() + 0.5))
                    else:
                        live = [x for x in members if x.rep.present[i + 1] and x.rep.codes[200][i + 1] > 0]
                        m = rng.choice(live)
                        ts = p.ids.within(minute)
                    dur = (
                        rng.randint(2, 5)
                        if code >= 500
                        else (rng.randint(900, 2600) if port == 8000 else rng.randint(12, 60))
                    )
                    book.add(
                        ecs(
                            ts,
                            _istio_access(
                                ts,
                                status=code,
                                flags="-",
                                details="via_upstream",
                                duration_ms=dur,
                                upstream=f"{m.ip}:{port}",
                                cluster=cluster,
                                path=path,
                                client=p.ids.ip("10.62"),
                                agent="voice-search-bff/5.3.0",
                                request_id=p.ids.request_id(),
                                route=rname,
                                bytes_sent=1210 if code < 300 else 150,
                            ),
                            gw,
                            level="info",
                            status=code,
                        )
                    )
    for j, (_, ready) in enumerate(sched):
        for _ in range(2):
            ts = ready + timedelta(seconds=2 + rng.uniform(0.1, 1.8))
            old = olds[j]
            book.add(
                ecs(
                    ts,
                    _istio_access(
                        ts,
                        status=503,
                        flags="UC",
                        details="upstream_reset_before_response_started{connection_termination}",
                        duration_ms=rng.randint(8, 40),
                        upstream=f"{old.ip}:8080",
                        cluster=f"outbound|8080||tei-voice-reranker.{NS}.svc.cluster.local",
                        path="/rerank",
                        client=p.ids.ip("10.62"),
                        agent="voice-search-bff/5.3.0",
                        request_id=p.ids.request_id(),
                        route="voice-rerank",
                        bytes_sent=95,
                    ),
                    gw,
                    level="info",
                    status=503,
                )
            )
    p.logs.extend(book.docs)

    # --- events ---------------------------------------------------------------------------------------------
    old_rs, new_rs = f"{tw.name}-{trev7.hash}", f"{tw.name}-{trev8.hash}"
    ev: list[dict[str, Any]] = []
    steps = [
        (sched[0][0], f"Scaled up replica set {new_rs} from 0 to 1"),
        (sched[0][1] + timedelta(seconds=1), f"Scaled down replica set {old_rs} from 2 to 1"),
        (sched[1][0], f"Scaled up replica set {new_rs} from 1 to 2"),
        (sched[1][1] + timedelta(seconds=1), f"Scaled down replica set {old_rs} from 1 to 0"),
    ]
    for at, msg in steps:
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Deployment",
                name=tw.name,
                uid=tw.uid,
                reason="ScalingReplicaSet",
                message=msg,
                first=at,
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
    for m in news:
        born = m.created
        for dt, reason, msg, warn in (
            (0.02, "Scheduled", f"Successfully assigned {NS}/{m.name} to {cpu.name}", False),
            (1.6, "Pulling", f'Pulling image "{trev8.image}"', False),
            (
                4.9,
                "Pulled",
                f'Successfully pulled image "{trev8.image}" in 3.284s (3.284s including waiting). Image size: 1192315904 bytes.',  # noqa: E501
                False,
            ),
            (5.1, "Created", "Created container: tei", False),
            (5.4, "Started", "Started container tei", False),
        ):
            ev.append(
                k8s.event(
                    namespace=NS,
                    kind="Pod",
                    name=m.name,
                    uid=m.uid,
                    reason=reason,
                    message=msg,
                    first=born + timedelta(seconds=dt),
                    warning=warn,
                    component="default-scheduler" if reason == "Scheduled" else "kubelet",
                    host=None if reason == "Scheduled" else cpu.name,
                    field_path=None if reason == "Scheduled" else "spec.containers{tei}",
                )
            )
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Unhealthy",
                message=f'Readiness probe failed: Get "http://{m.ip}:8080/health": dial tcp {m.ip}:8080: connect: connection refused',  # noqa: E501
                first=born + timedelta(seconds=16),
                last=born + timedelta(seconds=46),
                count=7,
                component="kubelet",
                host=cpu.name,
                field_path="spec.containers{tei}",
            )
        )
    for m in olds:
        assert m.deleted is not None
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Killing",
                message="Stopping container tei",
                first=m.deleted - timedelta(seconds=2),
                warning=False,
                component="kubelet",
                host=cpu.name,
                field_path="spec.containers{tei}",
            )
        )
    ev += [
        k8s.event(
            namespace="gpu-operator",
            kind="Pod",
            name="nvidia-dcgm-exporter-5kq8w",
            uid=k8s.new_uid(rng),
            reason="BackOff",
            message="Back-off restarting failed container nvidia-dcgm-exporter in pod "
            "nvidia-dcgm-exporter-5kq8w_gpu-operator(3c1e8f72-5b0d-4a4e-9d52-7b1f0c2e9a61)",
            first=p.ago(days=4, hours=3),
            last=p.t("19:33:02"),
            count=19,
            component="kubelet",
            host="a100-lon1-r05-n02",
            field_path="spec.containers{nvidia-dcgm-exporter}",
        ),
        k8s.event(
            namespace=NS,
            kind="HorizontalPodAutoscaler",
            name="voice-search-bff",
            uid=k8s.new_uid(rng),
            reason="FailedGetPodsMetric",
            message="failed to get pods metric value: unable to get metric "
            "http_requests_in_flight: unable to fetch metrics from custom metrics API: the server could not find "
            "the metric http_requests_in_flight for pods",
            first=p.ago(days=15),
            last=p.t("20:09:31"),
            count=5214,
            component="horizontal-pod-autoscaler",
            api_version="autoscaling/v2",
        ),
        k8s.event(
            namespace="default",
            kind="Node",
            name=n11.name,
            uid=n11.uid,
            reason="NodeHasSufficientMemory",
            message=f"Node {n11.name} status is now: NodeHasSufficientMemory",
            first=p.ago(days=26),
            warning=False,
            component="kubelet",
            host=n11.name,
        ),
    ]

    # --- objects --------------------------------------------------------------------------------------------
    n13.allocatable_gpu = 7
    p.objects.extend(_strip_injected(fleet.objects()))
    p.objects.extend(_strip_injected(tfleet.objects()))
    for name, svc, port, path in (
        ("voice-llm", w.name, 8000, "/v1/chat/completions"),
        ("voice-rerank", tw.name, 8080, "/rerank"),
    ):
        p.objects.append(
            k8s.httproute(
                name=name,
                namespace=NS,
                gateway="voice-gw",
                gateway_namespace=GW_NS,
                hostnames=["api.voice-search.example.co.uk"],
                backends=[(svc, port, 1)],
                created=p.ago(days=120),
                controller="istio.io/gateway-controller",
                path=path,
            )
        )
    p.objects.extend(asr_fleet.objects())
    p.objects.extend([n11.object(p.as_of), n13.object(p.as_of), cpu.object(p.as_of)])
    p.objects.extend(ev)
    held = {g.dev.uuid: g for g in fleet.gpu_series() + asr.gpus}
    readings = [held.get(d.uuid) or gpu_idle(c, rng, d) for d in [*d11, *d13]]
    p.record_gpus(readings)
    for reading in p.gpus[n13.name]:
        if reading["uuid"] == gpu_bad.dev.uuid:
            reading["retired_pages_pending"] = True  # the row remap waits for a GPU reset

    p.expect(
        "infrastructure",
        "INF_GPU_XID",
        ("cordon_node", f"node/{n13.name}"),
        ("restart_pod", f"pod/{bad.name}"),
    )
    p.forbidden = [
        ("rollback_deployment", f"deployment/{tw.name}"),
        *[("restart_pod", f"pod/{m.name}") for m in news],
        ("add_replica", f"deployment/{tw.name}"),
        ("reroute", "httproute/voice-rerank"),
        ("restart_pod", f"pod/{good.name}"),
        ("cordon_node", f"node/{cpu.name}"),
        ("restart_pod", f"pod/{asr.name}"),
        ("rollback_deployment", f"deployment/{asr_w.name}"),
    ]
    p.scope = [
        f"deployment/{w.name}",
        f"pod/{good.name}",
        f"pod/{bad.name}",
        f"node/{n11.name}",
        f"node/{n13.name}",
        "httproute/voice-llm",
    ]
    p.notes["onset"] = iso(onset)
    p.notes["sibling_rollout"] = iso(roll)
    return p
