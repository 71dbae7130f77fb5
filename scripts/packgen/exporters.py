"""Exporter families with their real names, types, help texts, labels and bucket layouts.

vLLM (V1 names, or the V0-era names of 0.6.x), SGLang, HF TGI, Triton (+ TensorRT-LLM backend),
DCGM exporter, kube-state-metrics, Envoy upstream counters, Prometheus `up`, and the outputs of
Sloth's SLO recording rules. Every builder reads the engine-neutral model of `traffic.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from .k8s import stable as stable_int
from .openmetrics import Labels, OpenMetrics, le_plain
from .series import Clock, Dist, Series, flat
from .traffic import GpuSeries, NodeTimeline, PodTimeline, Replica

VLLM_TTFT = [
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
    160.0,
    640.0,
    2560.0,
]
VLLM_ITL = [
    0.01,
    0.025,
    0.05,
    0.075,
    0.1,
    0.15,
    0.2,
    0.3,
    0.4,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
    20.0,
    40.0,
    80.0,
]
VLLM_E2E = [
    0.3,
    0.5,
    0.8,
    1.0,
    1.5,
    2.0,
    2.5,
    5.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    120.0,
    240.0,
    480.0,
    960.0,
    1920.0,
    7680.0,
]
V0_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
V0_TPOT = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]
V0_E2E = [1.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0]
SGLANG_TTFT = [
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    2.0,
    4.0,
    6.0,
    8.0,
    10.0,
    20.0,
    40.0,
    60.0,
    80.0,
    100.0,
    200.0,
    400.0,
]
SGLANG_ITL = [
    0.002,
    0.004,
    0.006,
    0.008,
    0.01,
    0.015,
    0.02,
    0.025,
    0.03,
    0.035,
    0.04,
    0.06,
    0.08,
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    2.0,
    4.0,
    6.0,
    8.0,
]
SGLANG_E2E = [
    0.1,
    0.2,
    0.4,
    0.6,
    0.8,
    1.0,
    2.0,
    4.0,
    6.0,
    8.0,
    10.0,
    20.0,
    40.0,
    60.0,
    80.0,
    100.0,
    200.0,
    400.0,
    600.0,
    1200.0,
    1800.0,
    2400.0,
]
TGI_DURATION = [0.0001 * 1.5**k for k in range(1, 36)]  # router/src/server.rs: 35 geometric buckets
ENVOY_MS = [
    0.5,
    1,
    5,
    10,
    25,
    50,
    100,
    250,
    500,
    1000,
    2500,
    5000,
    10000,
    30000,
    60000,
    300000,
    600000,
    1800000,
    3600000,
]

STATUS_TEXT = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    408: "Request Timeout",
    422: "Unprocessable Entity",
    424: "Failed Dependency",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def scrape_labels(r: Replica, *, model: bool = True, engine: str | None = None) -> Labels:
    """Labels a Prometheus Operator ServiceMonitor gives one engine pod, plus the engine's own."""
    labels: Labels = {"instance": f"{r.ip}:{r.port}", "job": r.job, "namespace": r.namespace, "pod": r.pod}
    if r.service:  # ServiceMonitor targets carry `service`; PodMonitor targets do not
        labels["service"] = r.service
    if model:
        labels["model_name"] = r.model
    if engine is not None:
        labels["engine"] = engine
    return labels


def _initial(r: Replica, per_minute: Series) -> float:
    return float(round(max(0.0, per_minute[0]) * r.uptime_min)) if r.present[0] and 0 not in r.resets else 0.0


def up(om: OpenMetrics, reps: Sequence[Replica]) -> None:
    for r in reps:
        values = [1.0 if p else 0.0 for p in r.present]
        exists = r.exists if r.exists is not None else [True] * r.n
        om.gauge(
            "up",
            "1 if the instance is healthy (the scrape succeeded), 0 otherwise.",
            scrape_labels(r, model=False),
            values,
            exists,
        )


def http_requests(om: OpenMetrics, r: Replica, handler: str = "/v1/chat/completions") -> None:
    """prometheus-fastapi-instrumentator's counter, grouped status codes (`2xx`, `5xx`)."""
    base = scrape_labels(r, model=False)
    for klass in sorted({code // 100 for code in r.codes}):
        inc = r.by_class(klass)
        om.counter(
            "http_requests",
            "Total number of requests by method, status and handler.",
            {**base, "handler": handler, "method": "POST", "status": f"{klass}xx"},
            inc,
            present=r.present,
            resets=r.resets,
            initial=_initial(r, inc),
        )


# -- vLLM ----------------------------------------------------------------------------------------------------
def vllm(
    om: OpenMetrics, reps: Sequence[Replica], *, v0: bool = False, itl: bool = True, e2e: bool = False
) -> None:
    """vLLM's /metrics. `v0=True` gives the 0.6-era names (`gpu_cache_usage_perc`, TPOT).

    The histograms are most of a pack's size; `itl` / `e2e` leave out the ones a story does not need.
    """
    for r in reps:
        lab = scrape_labels(r, engine=None if v0 else "0")
        p, rs = r.present, r.resets
        om.gauge(
            "vllm:num_requests_running", "Number of requests in model execution batches.", lab, r.running, p
        )
        om.gauge(
            "vllm:num_requests_waiting", "Number of requests waiting to be processed.", lab, r.waiting, p
        )
        if v0:
            om.gauge(
                "vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage.", lab, r.kv, p
            )
        else:
            om.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, r.kv, p)
        preempt = r.preempt.ints()
        om.counter(
            "vllm:num_preemptions",
            "Cumulative number of preemption from the engine.",
            lab,
            preempt,
            present=p,
            resets=rs,
            initial=float(round(r.uptime_min * 0.02)) if not v0 else 0.0,
        )
        pt, gt = r.prompt_tokens(), r.gen_tokens()
        om.counter(
            "vllm:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            pt,
            present=p,
            resets=rs,
            initial=_initial(r, pt),
        )
        om.counter(
            "vllm:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            gt,
            present=p,
            resets=rs,
            initial=_initial(r, gt),
        )
        ok = r.ok()
        for reason, frac in (("stop", 1 - r.length_frac), ("length", r.length_frac)):
            inc = (ok * frac).ints()
            om.counter(
                "vllm:request_success",
                "Count of successfully processed requests.",
                {**lab, "finished_reason": reason},
                inc,
                present=p,
                resets=rs,
                initial=_initial(r, inc),
            )
        if not v0:
            queries = pt
            hits = (pt * r.prefix_hit).ints()
            om.counter(
                "vllm:prefix_cache_queries",
                "Prefix cache queries, in terms of number of queried tokens.",
                lab,
                queries,
                present=p,
                resets=rs,
                initial=_initial(r, queries),
            )
            om.counter(
                "vllm:prefix_cache_hits",
                "Prefix cache hits, in terms of number of cached tokens.",
                lab,
                hits,
                present=p,
                resets=rs,
                initial=_initial(r, hits),
            )
        served = r.served()
        decode = Series(max(0.0, g - o) for g, o in zip(gt, ok, strict=True))
        om.histogram(
            "vllm:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            V0_TTFT if v0 else VLLM_TTFT,
            served,
            r.ttft,
            present=p,
            resets=rs,
            initial_count=_initial(r, served),
        )
        if itl and v0:
            om.histogram(
                "vllm:time_per_output_token_seconds",
                "Histogram of time per output token in seconds.",
                lab,
                V0_TPOT,
                decode,
                r.itl,
                present=p,
                resets=rs,
                initial_count=_initial(r, decode),
            )
        elif itl:
            om.histogram(
                "vllm:inter_token_latency_seconds",
                "Histogram of inter-token latency in seconds.",
                lab,
                VLLM_ITL,
                decode,
                r.itl,
                present=p,
                resets=rs,
                initial_count=_initial(r, decode),
            )
        if e2e:
            om.histogram(
                "vllm:e2e_request_latency_seconds",
                "Histogram of e2e request latency in seconds.",
                lab,
                V0_E2E if v0 else VLLM_E2E,
                served,
                r.e2e,
                present=p,
                resets=rs,
                initial_count=_initial(r, served),
            )
        http_requests(om, r)
    up(om, reps)


def flat_like(r: Replica, value: float) -> Series:
    return Series([float(value)] * r.n)


# -- SGLang --------------------------------------------------------------------------------------------------
def sglang(
    om: OpenMetrics, reps: Sequence[Replica], *, max_total_tokens: int = 520_000, itl: bool = True
) -> None:
    for r in reps:
        lab = scrape_labels(r)
        p, rs = r.present, r.resets
        gt, pt = r.gen_tokens(), r.prompt_tokens()
        om.gauge("sglang:num_running_reqs", "The number of running requests.", lab, r.running, p)
        om.gauge("sglang:num_queue_reqs", "The number of requests in the waiting queue.", lab, r.waiting, p)
        om.gauge(
            "sglang:num_used_tokens",
            "The number of used tokens.",
            lab,
            (r.kv * max_total_tokens).map(lambda v: float(round(v))),
            p,
        )
        om.gauge("sglang:token_usage", "The token usage.", lab, r.kv, p)
        om.gauge(
            "sglang:gen_throughput",
            "The generation throughput (token/s).",
            lab,
            (gt / 60.0).map(lambda v: round(v, 2)),
            p,
        )
        om.gauge("sglang:cache_hit_rate", "The prefix cache hit rate.", lab, flat_like(r, r.prefix_hit), p)
        om.counter(
            "sglang:prompt_tokens",
            "Number of prefill tokens processed.",
            lab,
            pt,
            present=p,
            resets=rs,
            initial=_initial(r, pt),
        )
        om.counter(
            "sglang:generation_tokens",
            "Number of generation tokens processed.",
            lab,
            gt,
            present=p,
            resets=rs,
            initial=_initial(r, gt),
        )
        served = r.served()
        om.counter(
            "sglang:num_requests",
            "Number of requests processed.",
            lab,
            served,
            present=p,
            resets=rs,
            initial=_initial(r, served),
        )
        decode = Series(max(0.0, g - o) for g, o in zip(gt, r.ok(), strict=True))
        om.histogram(
            "sglang:time_to_first_token_seconds",
            "Histogram of time to first token in seconds.",
            lab,
            SGLANG_TTFT,
            served,
            r.ttft,
            present=p,
            resets=rs,
            initial_count=_initial(r, served),
        )
        if itl:
            om.histogram(
                "sglang:inter_token_latency_seconds",
                "Histogram of inter-token latency in seconds.",
                lab,
                SGLANG_ITL,
                decode,
                r.itl,
                present=p,
                resets=rs,
                initial_count=_initial(r, decode),
            )
        om.histogram(
            "sglang:e2e_request_latency_seconds",
            "Histogram of End-to-end request latency in seconds",
            lab,
            SGLANG_E2E,
            served,
            r.e2e,
            present=p,
            resets=rs,
            initial_count=_initial(r, served),
        )
    up(om, reps)


# -- TGI -----------------------------------------------------------------------------------------------------
def tgi(
    om: OpenMetrics,
    reps: Sequence[Replica],
    *,
    batch_max_tokens: int = 262_144,
    errors: dict[int, str] | None = None,
) -> None:
    """HF TGI router metrics (metrics-exporter-prometheus: counters without `_total`).

    `errors` maps a status code to the router's `err` label (InferError::error_type()).
    """
    errs = errors or {422: "validation", 429: "overloaded", 500: "generation", 503: "overloaded"}
    for r in reps:
        lab = scrape_labels(r, model=False)
        p, rs = r.present, r.resets
        total = r.requests()
        ok = r.ok()
        om.gauge("tgi_queue_size", "Number of requests waiting in the internal queue", lab, r.waiting, p)
        om.gauge("tgi_batch_current_size", "Current batch size", lab, r.running, p)
        om.gauge(
            "tgi_batch_current_max_tokens",
            "Maximum tokens for the current batch",
            lab,
            (r.kv * batch_max_tokens).map(lambda v: float(round(v))),
            p,
        )
        om.counter(
            "tgi_request_count",
            "Total number of requests",
            lab,
            total,
            present=p,
            resets=rs,
            initial=_initial(r, total),
            total_suffix=False,
        )
        om.counter(
            "tgi_request_success",
            "Number of successful requests",
            lab,
            ok,
            present=p,
            resets=rs,
            initial=_initial(r, ok),
            total_suffix=False,
        )
        for code, series in sorted(r.codes.items()):
            if code in errs:
                om.counter(
                    "tgi_request_failure",
                    "Number of failed requests",
                    {**lab, "err": errs[code]},
                    series,
                    present=p,
                    resets=rs,
                    total_suffix=False,
                )
        om.histogram(
            "tgi_request_duration",
            "Request duration",
            lab,
            TGI_DURATION,
            ok,
            r.e2e,
            present=p,
            resets=rs,
            initial_count=_initial(r, ok),
            le_format=repr_le,
        )
        om.histogram(
            "tgi_request_mean_time_per_token_duration",
            "Mean time per token per request",
            lab,
            TGI_DURATION,
            ok,
            r.itl,
            present=p,
            resets=rs,
            initial_count=_initial(r, ok),
            le_format=repr_le,
        )
    up(om, reps)


def repr_le(bound: float) -> str:
    return "+Inf" if bound == float("inf") else repr(bound)


# -- Triton + TensorRT-LLM -----------------------------------------------------------------------------------
def triton(
    om: OpenMetrics,
    reps: Sequence[Replica],
    gpus: dict[str, list[GpuSeries]],
    *,
    models: Sequence[str] = ("ensemble", "tensorrt_llm"),
    max_blocks: int = 14_336,
) -> None:
    """Triton's :8002/metrics: per-model counters (no `_total`), pending gauge, GPU gauges, TRT-LLM."""
    for r in reps:
        base = {"instance": f"{r.ip}:8002", "job": r.job, "namespace": r.namespace, "pod": r.pod}
        if r.service:
            base["service"] = r.service
        p, rs = r.present, r.resets
        ok = r.ok()
        rejected = r.by_class(5)
        for model in models:
            lab = {**base, "model": model, "version": "1"}
            om.counter(
                "nv_inference_request_success",
                "Number of successful inference requests, all batch sizes",
                lab,
                ok,
                present=p,
                resets=rs,
                initial=_initial(r, ok),
                total_suffix=False,
            )
            om.counter(
                "nv_inference_request_failure",
                "Number of failed inference requests, all batch sizes",
                {**lab, "reason": "REJECTED"},
                rejected,
                present=p,
                resets=rs,
                total_suffix=False,
            )
            om.counter(
                "nv_inference_request_failure",
                "Number of failed inference requests, all batch sizes",
                {**lab, "reason": "BACKEND"},
                flat_like(r, 0),
                present=p,
                resets=rs,
                total_suffix=False,
            )
            om.counter(
                "nv_inference_count",
                "Number of inferences performed (does not include cached requests)",
                lab,
                ok,
                present=p,
                resets=rs,
                initial=_initial(r, ok),
                total_suffix=False,
            )
            execs = (ok * (1.0 if model == "ensemble" else 0.92)).ints()
            om.counter(
                "nv_inference_exec_count",
                "Number of model executions performed (does not include cached requests)",
                lab,
                execs,
                present=p,
                resets=rs,
                initial=_initial(r, execs),
                total_suffix=False,
            )
            dur = Series(ok[i] * r.e2e.mean(i) * 1e6 for i in range(r.n)).ints()
            om.counter(
                "nv_inference_request_duration_us",
                "Cumulative inference request duration in microseconds (includes cached requests)",
                lab,
                dur,
                present=p,
                resets=rs,
                initial=_initial(r, dur),
                total_suffix=False,
            )
            qdur = Series(ok[i] * r.queue.mean(i) * 1e6 for i in range(r.n)).ints()
            om.counter(
                "nv_inference_queue_duration_us",
                "Cumulative inference queuing duration in microseconds (includes cached requests)",
                lab,
                qdur,
                present=p,
                resets=rs,
                initial=_initial(r, qdur),
                total_suffix=False,
            )
            om.gauge(
                "nv_inference_pending_request_count",
                "Instantaneous number of pending requests awaiting execution per-model.",
                lab,
                r.waiting if model == "ensemble" else (r.waiting * 0.1).map(round),
                p,
            )
        trt = {**base, "model": "tensorrt_llm", "version": "1"}
        for rtype, values in (
            ("active", r.running),
            ("max", flat_like(r, 256)),
            ("scheduled", r.running),
            ("context", (r.running * 0.08).map(lambda v: float(round(v)))),
            ("waiting", r.waiting),
        ):
            om.gauge(
                "nv_trt_llm_request_metrics",
                "TRT LLM request metrics",
                {**trt, "request_type": rtype},
                values,
                p,
            )
        used = (r.kv * max_blocks).map(lambda v: float(round(v)))
        for btype, values in (
            ("max", flat_like(r, max_blocks)),
            ("used", used),
            ("free", (used * -1) + max_blocks),
            ("tokens_per", flat_like(r, 64)),
            ("fraction", r.kv.map(lambda v: round(v, 4))),
        ):
            om.gauge(
                "nv_trt_llm_kv_cache_block_metrics",
                "TRT LLM KV cache block metrics",
                {**trt, "kv_cache_block_type": btype},
                values,
                p,
            )
        for g in gpus.get(r.pod, []):
            glab = {**base, "gpu_uuid": g.dev.uuid}
            om.gauge(
                "nv_gpu_utilization",
                "GPU utilization rate [0.0 - 1.0)",
                glab,
                (g.util * 0.01).map(lambda v: round(v, 3)),
                p,
            )
            om.gauge(
                "nv_gpu_memory_total_bytes",
                "GPU total memory, in bytes",
                glab,
                flat_like(r, g.dev.memory_mib * 1048576.0),
                p,
            )
            om.gauge("nv_gpu_memory_used_bytes", "GPU used memory, in bytes", glab, g.fb_used * 1048576.0, p)
            om.gauge("nv_gpu_power_usage", "GPU power usage in watts", glab, g.power, p)
        om.gauge(
            "up",
            "1 if the instance is healthy (the scrape succeeded), 0 otherwise.",
            dict(base),
            [1.0 if x else 0.0 for x in p],
            r.exists if r.exists is not None else None,
        )


# -- DCGM ----------------------------------------------------------------------------------------------------
def dcgm(om: OpenMetrics, gpus: Sequence[GpuSeries], driver: str = "550.90.07") -> None:
    for g in gpus:
        lab: Labels = {
            "DCGM_FI_DRIVER_VERSION": driver,
            "Hostname": g.dev.node,
            "UUID": g.dev.uuid,
            "device": f"nvidia{g.dev.index}",
            "gpu": str(g.dev.index),
            "job": "nvidia-dcgm-exporter",
            "modelName": g.dev.product,
            "pci_bus_id": g.dev.pci,
        }
        if g.pod:
            lab.update({"container": g.container or "server", "namespace": g.namespace or "", "pod": g.pod})
        p = g.present
        om.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", lab, g.util, p)
        om.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", lab, g.fb_used, p)
        om.gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", lab, g.power, p)
        xid_present = None if p is None else [a or b > 0 for a, b in zip(p, g.xid, strict=True)]
        om.gauge(
            "DCGM_FI_DEV_XID_ERRORS", "Value of the last XID error encountered.", lab, g.xid, xid_present
        )


# -- kube-state-metrics ---------------------------------------------------------------------------------------
KSM = {"job": "kube-state-metrics"}


def ksm_pods(om: OpenMetrics, pods: Sequence[PodTimeline], *, phase: bool = False) -> None:
    for t in pods:
        pl = {**KSM, "namespace": t.namespace, "pod": t.pod, "uid": t.uid}
        ex = t.exists
        om.gauge(
            "kube_pod_info",
            "Information about pod.",
            {
                **pl,
                "node": t.node or "",
                "pod_ip": t.ip or "",
                "host_ip": t.host_ip or "",
                "created_by_kind": "ReplicaSet",
                "created_by_name": t.owner,
                "priority_class": "",
                "host_network": "false",
            },
            [1.0] * len(ex),
            ex,
        )
        for cond in ("true", "false", "unknown"):
            vals = [(1.0 if (r and cond == "true") or (not r and cond == "false") else 0.0) for r in t.ready]
            om.gauge(
                "kube_pod_status_ready",
                "Describes whether the pod is ready to serve requests.",
                {**pl, "condition": cond},
                vals,
                ex,
            )
        for ph_name in ("Pending", "Running", "Succeeded", "Failed", "Unknown") if phase else ():
            om.gauge(
                "kube_pod_status_phase",
                "The pods current phase.",
                {**pl, "phase": ph_name},
                [1.0 if ph == ph_name else 0.0 for ph in t.phase],
                ex,
            )
        cl = {**pl, "container": t.container}
        om.counter(
            "kube_pod_container_status_restarts",
            "The number of container restarts per container.",
            cl,
            t.restarts,
            present=ex,
        )
        for reason in sorted({w for w in t.waiting_reason if w}):
            mask = [ex[i] and t.waiting_reason[i] == reason for i in range(len(ex))]
            om.gauge(
                "kube_pod_container_status_waiting_reason",
                "Describes the reason the container is currently in waiting state.",
                {**cl, "reason": reason},
                [1.0] * len(ex),
                mask,
            )
        for reason in sorted({w for w in t.last_terminated if w}):
            mask = [ex[i] and t.last_terminated[i] == reason for i in range(len(ex))]
            om.gauge(
                "kube_pod_container_status_last_terminated_reason",
                "Describes the last reason the container was in terminated state.",
                {**cl, "reason": reason},
                [1.0] * len(ex),
                mask,
            )


def ksm_nodes(om: OpenMetrics, nodes: Sequence[NodeTimeline]) -> None:
    for t in nodes:
        nl = {**KSM, "node": t.node}
        for status in ("true", "false", "unknown"):
            om.gauge(
                "kube_node_status_condition",
                "The condition of a cluster node.",
                {**nl, "condition": "Ready", "status": status},
                [1.0 if s == status else 0.0 for s in t.ready],
            )
        om.gauge(
            "kube_node_spec_unschedulable",
            "Whether a node can schedule new pods.",
            nl,
            [1.0 if u else 0.0 for u in t.unschedulable],
        )
        if t.gpus_allocatable is not None:
            om.gauge(
                "kube_node_status_allocatable",
                "The allocatable for different resources of a node that are available for scheduling.",
                {**nl, "resource": "nvidia_com_gpu", "unit": "integer"},
                t.gpus_allocatable,
            )
        for key, value, effect, when in t.taints:
            om.gauge(
                "kube_node_spec_taint",
                "The taint of a cluster node.",
                {**nl, "key": key, "value": value, "effect": effect},
                [1.0] * len(when),
                when,
            )


def ksm_deployment(
    om: OpenMetrics,
    *,
    namespace: str,
    name: str,
    spec: Series,
    available: Series,
    updated: Series | None = None,
    generation: Series | None = None,
) -> None:
    dl = {**KSM, "namespace": namespace, "deployment": name}
    om.gauge("kube_deployment_spec_replicas", "Number of desired pods for a deployment.", dl, spec)
    om.gauge(
        "kube_deployment_status_replicas_available",
        "The number of available replicas per deployment.",
        dl,
        available,
    )
    om.gauge(
        "kube_deployment_status_replicas_unavailable",
        "The number of unavailable replicas per deployment.",
        dl,
        (spec - available).clip(0),
    )
    om.gauge(
        "kube_deployment_status_replicas_updated",
        "The number of updated replicas per deployment.",
        dl,
        updated if updated is not None else spec,
    )
    if generation is not None:
        om.gauge(
            "kube_deployment_metadata_generation",
            "Sequence number representing a specific generation of the desired state.",
            dl,
            generation,
        )
        om.gauge(
            "kube_deployment_status_observed_generation",
            "The generation observed by the deployment controller.",
            dl,
            generation,
        )


# -- Envoy ---------------------------------------------------------------------------------------------------
def envoy(
    om: OpenMetrics,
    clusters: dict[str, dict[int, Series]],
    *,
    gateway_namespace: str,
    gateway_pod: str,
    job: str = "envoy-gateway",
    latency: dict[str, Dist] | None = None,
    uptime_min: float = 9000.0,
) -> None:
    """Upstream request counters by response code and class per cluster (Envoy: no `_total`)."""
    base = {"job": job, "namespace": gateway_namespace, "pod": gateway_pod}
    for cluster, codes in clusters.items():
        cl = {**base, "envoy_cluster_name": cluster}
        classes: dict[int, Series] = {}
        for code, inc in sorted(codes.items()):
            ints = inc.ints()
            classes[code // 100] = classes.get(code // 100, Series([0.0] * len(ints))) + ints
            # an error code seen on an earlier day keeps its count (Envoy creates the stat on first use)
            seen = 40 + stable_int(f"{cluster}/{code}") % 900
            init = (
                float(round(ints[0] * uptime_min))
                if code < 300
                else float(round(ints[0] * uptime_min * 0.3) + seen)
            )
            om.counter(
                "envoy_cluster_upstream_rq",
                "Upstream requests by response code.",
                {**cl, "envoy_response_code": str(code)},
                ints,
                initial=init,
                total_suffix=False,
            )
        for klass, inc in sorted(classes.items()):
            seen = 40 + stable_int(f"{cluster}/{klass}xx") % 900
            init = (
                float(round(inc[0] * uptime_min))
                if klass == 2
                else float(round(inc[0] * uptime_min * 0.3) + seen)
            )
            om.counter(
                "envoy_cluster_upstream_rq_xx",
                "Upstream requests by response code class.",
                {**cl, "envoy_response_code_class": str(klass)},
                inc,
                initial=init,
                total_suffix=False,
            )
        if latency and cluster in latency:
            total = Series([0.0] * len(next(iter(codes.values()))))
            for inc in codes.values():
                total = total + inc
            total = total.ints()
            om.histogram(
                "envoy_cluster_upstream_rq_time",
                "Upstream request time in milliseconds.",
                cl,
                ENVOY_MS,
                total,
                latency[cluster],
                initial_count=float(round(total[0] * uptime_min)),
                le_format=le_plain,
                scale=1000.0,
            )


# -- Sloth SLO recording rules ---------------------------------------------------------------------------------
SLOTH_WINDOWS = {"5m": 5, "30m": 30, "1h": 60, "2h": 120, "6h": 360, "1d": 1440, "3d": 4320, "30d": 43200}


def windowed_ratio(
    bad: Sequence[float], total: Sequence[float], minutes: int, base_bad: float, base_total: float
) -> Series:
    """Error ratio over a trailing window; minutes before the window start use the baseline."""
    out = Series()
    for i in range(len(bad)):
        lo = i - minutes + 1
        pre = max(0, -lo)
        b = sum(bad[max(0, lo) : i + 1]) + pre * base_bad
        t = sum(total[max(0, lo) : i + 1]) + pre * base_total
        out.append(b / t if t else 0.0)
    return out


def sloth(
    om: OpenMetrics,
    clock: Clock,
    *,
    service: str,
    slo: str,
    objective: float,
    bad: Series,
    total: Series,
    extra: Labels | None = None,
    baseline_ratio: float | None = None,
) -> dict[str, Series]:
    """The SLI error ratios per window plus Sloth's meta recordings; returns the ratios."""
    sloth_id = f"{service}-{slo}"
    ident = {"sloth_id": sloth_id, "sloth_service": service, "sloth_slo": slo, **(extra or {})}
    base_total = sum(total[:10]) / 10
    base_bad = base_total * (
        baseline_ratio if baseline_ratio is not None else (sum(bad[:10]) / max(1.0, sum(total[:10])))
    )
    ratios: dict[str, Series] = {}
    for window, minutes in SLOTH_WINDOWS.items():
        ratios[window] = windowed_ratio(bad, total, minutes, base_bad, base_total).map(lambda v: round(v, 8))
        om.gauge(
            f"slo:sli_error:ratio_rate{window}",
            f"Sloth SLI error ratio over {window} (recording rule sloth-slo-sli-recordings-{sloth_id}).",
            {**ident, "sloth_window": window},
            ratios[window],
            digits=8,
        )
    budget = (100 - objective * 100) / 100
    om.gauge("slo:objective:ratio", "Sloth SLO objective (ratio).", ident, flat(clock, objective))
    om.gauge(
        "slo:error_budget:ratio", "Sloth SLO error budget (ratio).", ident, flat(clock, budget), digits=10
    )
    om.gauge("slo:time_period:days", "Sloth SLO time period in days.", ident, flat(clock, 30))
    om.gauge(
        "slo:current_burn_rate:ratio",
        "Sloth SLO current burn rate (5m error ratio / error budget).",
        ident,
        (ratios["5m"] * (1 / budget)).map(lambda v: round(v, 5)),
    )
    om.gauge(
        "slo:period_burn_rate:ratio",
        "Sloth SLO burn rate over the whole SLO period.",
        ident,
        (ratios["30d"] * (1 / budget)).map(lambda v: round(v, 5)),
    )
    om.gauge(
        "slo:period_error_budget_remaining:ratio",
        "Sloth SLO error budget remaining for the period.",
        ident,
        (1 - ratios["30d"] * (1 / budget)).map(lambda v: round(v, 5)),
    )
    om.gauge(
        "sloth_slo_info",
        "Sloth SLO information.",
        {
            **ident,
            "sloth_mode": "cli-gen-prom",
            "sloth_objective": f"{objective * 100:g}",
            "sloth_spec": "prometheus/v1",
            "sloth_version": "v0.11.0",
        },
        flat(clock, 1),
    )
    return ratios


def sloth_budget(objective: float) -> float:
    return (100 - objective * 100) / 100


def sloth_selector(service: str, slo: str) -> str:
    return f'{{sloth_id="{service}-{slo}",sloth_service="{service}",sloth_slo="{slo}"}}'


def sloth_page_expr(service: str, slo: str, objective: float) -> str:
    """Sloth's page alert (14.4x over 5m/1h or 6x over 30m/6h), as Prometheus prints it."""
    sel = sloth_selector(service, slo)
    b = repr(sloth_budget(objective))

    def part(window: str, factor: str) -> str:
        return f"max without (sloth_window) (slo:sli_error:ratio_rate{window}{sel} > ({factor} * {b}))"

    return f"({part('5m', '14.4')} and {part('1h', '14.4')}) or ({part('30m', '6')} and {part('6h', '6')})"


def sloth_page_firing(ratios: dict[str, Series], objective: float) -> list[bool]:
    b = sloth_budget(objective)
    return [
        (ratios["5m"][i] > 14.4 * b and ratios["1h"][i] > 14.4 * b)
        or (ratios["30m"][i] > 6 * b and ratios["6h"][i] > 6 * b)
        for i in range(len(ratios["5m"]))
    ]
