"""One namespace, three models: the chat model's revision bump changes its chat template; tool calls break.

`hr-benefits-ai` serves a chat LLM (vLLM 0.10.2, Qwen3-8B, hermes tool parser), an embedding
model (vLLM 0.10.1.1 pooling runner, multilingual-e5-large-instruct) and a CPU reranker (TEI 1.8,
bge-reranker-v2-m3), each with its own Deployment, Service and HTTPRoute. At 15:47:30 the chat
Deployment rolls out revision 7, which only moves `--revision` / `--tokenizer-revision` to a newer
hub commit whose `tokenizer_config.json` carries a different chat template. Every request still
answers 200, but from the minute the new pods take traffic the model's tool calls stop parsing
(`hermes_tool_parser.py ... Error in extracting tool call from response.` with
`json.decoder.JSONDecodeError`) and the assistant's tool-call validity SLO (Pyrra) pages. Two
decoys share the namespace: the embedding service rejects over-long inputs with 400 ("This model's
maximum context length is 512 tokens ...") at the same steady rate as every day, and the reranker
was rolled out 26 minutes before the chat model with nothing but new resource requests and a
quieter `RUST_LOG`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from .. import exporters as ex
from .. import k8s
from ..common import CLIENTS, threshold_alert
from ..engines import src_of, vllm_access, vllm_line_doc, vllm_startup, vllm_stats
from ..fleet import Fleet, rebalance
from ..logs import Source, ecs, envoy_gateway_access, tgi_line, uvicorn_access
from ..pack import Pack
from ..series import Series, flat, iso, noisy
from ..traffic import Replica, gpu_idle, node_timeline
from .p16_canary_split_cuda_illegal_address import ExtPack

NAME = "multi-model-namespace-chat-template"
ENGINE = "vLLM 0.10.2 (chat) + vLLM 0.10.1.1 pooling (embeddings) + TEI 1.8 CPU (reranker), Envoy Gateway"
NS = "hr-benefits-ai"
CHAT = "benefits-chat"
EMBED = "multilingual-e5-large-instruct"
OLD_SHA = "9c925d64d72725edaf899c6cb9c377fd0709d9c5"
NEW_SHA = "b968826d9c46dd6066d109eabc6255188de91218"
DRIVER = "550.90.07"
GKE: dict[str, Any] = dict(
    kernel="6.6.72+",
    os_image="Container-Optimized OS from Google",
    kubelet_version="v1.32.2-gke.1297002",
    runtime="containerd://1.7.24",
    driver=DRIVER,
)
GW_NS = "envoy-gateway-system"
GW_POD = "envoy-hr-benefits-ai-benefits-gw-3c1d7a52-5f8b9c6d4-t7vqm"
PROM = "http://prometheus-k8s.monitoring.svc:9090"
AM = "http://alertmanager-main.monitoring.svc:9093"


def pyrra_windows() -> dict[str, int]:
    """Pyrra's burn-rate windows for a 30-day objective."""
    return {"5m": 5, "30m": 30, "1h": 60, "2h": 120, "6h": 360, "1d": 1440, "4d": 5760}


def vllm_pooling(om: Any, r: Replica) -> None:
    """What a vLLM pooling (embedding) server exports that a story needs: no token-generation series."""
    lab = ex.scrape_labels(r, engine="0")
    p, rs = r.present, r.resets
    om.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", lab, r.running, p)
    om.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", lab, r.waiting, p)
    om.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", lab, r.kv, p)
    pt = (r.ok() * r.prompt_len).ints()
    om.counter(
        "vllm:prompt_tokens",
        "Number of prefill tokens processed.",
        lab,
        pt,
        present=p,
        resets=rs,
        initial=float(round(pt[0] * r.uptime_min)),
    )
    om.counter(
        "vllm:request_success",
        "Count of successfully processed requests.",
        {**lab, "finished_reason": "stop"},
        r.ok(),
        present=p,
        resets=rs,
        initial=float(round(r.ok()[0] * r.uptime_min)),
    )
    ex.http_requests(om, r, handler="/v1/embeddings")


def tei(om: Any, reps: list[Replica]) -> None:
    """Text Embeddings Inference router counters (metrics-exporter-prometheus: no `_total`)."""
    for r in reps:
        lab = ex.scrape_labels(r, model=False)
        p = r.present
        om.gauge("te_queue_size", "te_queue_size", lab, r.waiting, p)
        for name in ("te_request_count", "te_request_success"):
            om.counter(
                name,
                name,
                {**lab, "method": "batch"},
                r.ok(),
                present=p,
                resets=r.resets,
                initial=float(round(r.ok()[0] * r.uptime_min)) if 0 not in r.resets and r.present[0] else 0.0,
                total_suffix=False,
            )
    ex.up(om, reps)


def build() -> Pack:
    p = ExtPack(
        NAME,
        as_of="2026-09-22T16:18:00Z",
        namespace=NS,
        seed=1818,
        description=(
            "Benefits assistant: employees report that plan look-ups and enrolment actions stopped working; "
            "dashboards show no errors on the chat model."
        ),
    )
    c, rng = p.clock, p.rng
    t_rerank = p.t("15:21:05")
    t_chat = p.t("15:47:30")

    # --- nodes: three 1-GPU A100 nodes for chat, one L4 node for embeddings, two CPU nodes -------------
    def gke_gpu(name: str, ip: str, product: str, itype: str, pool: str) -> tuple[k8s.Node, list[Any]]:
        return p.gpu_node(
            name,
            ip=ip,
            zone="europe-west1-c",
            instance_type=itype,
            product=product,
            count=1,
            pod_cidr=f"10.96.{ip.split('.')[3]}.0/24",
            cpu=12 if "a2" in itype else 8,
            memory_mi=174_080 if "a2" in itype else 32_768,
            labels={
                "cloud.google.com/gke-nodepool": pool,
                "cloud.google.com/gke-accelerator": "nvidia-a100-80gb" if "a2" in itype else "nvidia-l4",
                "cloud.google.com/gke-gpu-driver-version": "default",
            },
            taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
            **GKE,
        )

    u1, u2, u3 = (
        gke_gpu(
            f"gke-hrb-prod-a2u-pool-7f3d18b0-{s}",
            f"10.132.0.{n}",
            "NVIDIA A100-SXM4-80GB",
            "a2-ultragpu-1g",
            "a2u-pool",
        )
        for s, n in (("4xqz", 21), ("9kbd", 22), ("m2tw", 27))
    )
    l1 = gke_gpu("gke-hrb-prod-g2-pool-4c2a9e71-h8vn", "10.132.0.31", "NVIDIA L4", "g2-standard-8", "g2-pool")
    cpu = [
        k8s.Node(
            name=name,
            internal_ip=ip,
            zone="europe-west1-c",
            instance_type="n2-standard-16",
            cpu=16,
            memory_mi=65_536,
            uid=k8s.new_uid(rng),
            pod_cidr=f"10.96.{ip.split('.')[3]}.0/24",
            labels={"cloud.google.com/gke-nodepool": "default-pool"},
            **GKE,
        )
        for name, ip in (
            ("gke-hrb-prod-default-pool-1b6e0f3a-2c7p", "10.132.0.11"),
            ("gke-hrb-prod-default-pool-1b6e0f3a-q5jd", "10.132.0.12"),
        )
    ]
    gpu_nodes = {n.name: (n, d) for n, d in (u1, u2, u3, l1)}

    # --- the chat model: revision 6 -> 7 moves the hub revision --------------------------------------
    def chat_args(sha: str) -> list[str]:
        return [
            "--model",
            "Qwen/Qwen3-8B",
            "--revision",
            sha,
            "--tokenizer-revision",
            sha,
            "--served-model-name",
            CHAT,
            "--max-model-len",
            "32768",
            "--gpu-memory-utilization",
            "0.90",
            "--enable-auto-tool-choice",
            "--tool-call-parser",
            "hermes",
            "--enable-prefix-caching",
            "--download-dir",
            "/data/hf",
        ]

    env = [
        {"name": "HF_HOME", "value": "/data/hf"},
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf-token", "key": "token"}}},
    ]
    rev6 = p.revision(
        6,
        p.ago(days=23),
        "vllm/vllm-openai:v0.10.2",
        chat_args(OLD_SHA),
        env=env,
        change_cause="qwen3-8b pinned to 9c925d6 (BEN-188)",
    )
    rev7 = p.revision(
        7,
        t_chat,
        "vllm/vllm-openai:v0.10.2",
        chat_args(NEW_SHA),
        env=env,
        replicas=2,
        change_cause="bump Qwen3-8B to latest hub revision b968826 (BEN-231)",
    )
    chat = k8s.Workload(
        name="vllm-qwen3-8b-chat",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={"app.kubernetes.io/name": "benefits-chat", "app.kubernetes.io/part-of": "benefits-assistant"},
        revisions=[rev6, rev7],
        pods=[],
        created=p.ago(days=88),
        replicas=2,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 3},
        startup={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10, "failureThreshold": 60},
        uid=k8s.new_uid(rng),
        memory="60Gi",
        memory_limit="80Gi",
        cpu="10",
        volumes=[{"name": "hf", "persistentVolumeClaim": {"claimName": "hf-cache-chat"}}],
        volume_mounts=[{"name": "hf", "mountPath": "/data/hf"}],
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-a100-80gb"},
        cluster_ip="34.118.230.71",
        generation=9,
    )
    cfleet = Fleet(p, chat, job=f"{NS}/vllm", model=CHAT, service="")
    load: dict[str, Any] = dict(
        prompt_len=3100, gen_len=160, ttft=0.21, itl=0.014, kv=0.22, util=52, fb_used=73_800
    )
    sched = [(t_chat, p.t("15:49:38")), (p.t("15:49:42"), p.t("15:51:49"))]
    olds, news = [], []
    for j, (node, ip) in enumerate(((u1, "10.96.21.14"), (u2, "10.96.22.9"))):
        olds.append(
            cfleet.add(
                rev6,
                node[0],
                [node[1][0]],
                ip,
                created=rev6.created + timedelta(minutes=4 * j + 2),
                deleted=sched[j][1] + timedelta(seconds=4),
                rpm=150,
                **load,
            )
        )
    for j, (node, ip) in enumerate(((u3, "10.96.27.40"), (u1, "10.96.21.77"))):
        created, ready = sched[j]
        news.append(
            cfleet.add(
                rev7, node[0], [node[1][0]], ip, created=created, ready_after=ready - created, rpm=150, **load
            )
        )
    rebalance(cfleet, noisy(flat(c, 300.0), rng, 0.04))
    for g in cfleet.gpu_series():  # A100 SXM4 80GB: 400 W TDP
        g.power = Series(
            round(u * 3.1 + 62, 3) if u > 0 else pw for u, pw in zip(g.util, g.power, strict=True)
        )
    for m in news:  # broken tool calls end early: slightly shorter answers
        m.rep.gen_len = m.rep.gen_len * 0.86
        m.rep.derive_e2e()

    # --- embeddings: the caller error that is always there ----------------------------------------------
    erev = p.revision(
        3,
        p.ago(days=41),
        "vllm/vllm-openai:v0.10.1.1",
        [
            "--model",
            "intfloat/multilingual-e5-large-instruct",
            "--runner",
            "pooling",
            "--served-model-name",
            EMBED,
            "--max-model-len",
            "512",
            "--gpu-memory-utilization",
            "0.85",
            "--download-dir",
            "/data/hf",
        ],
        env=env[:1],
        replicas=1,
        change_cause="e5-large-instruct on vLLM pooling runner",
    )
    embed = k8s.Workload(
        name="vllm-me5-embed",
        namespace=NS,
        container="vllm",
        port=8000,
        labels={
            "app.kubernetes.io/name": "benefits-embed",
            "app.kubernetes.io/part-of": "benefits-assistant",
        },
        revisions=[erev],
        pods=[],
        created=p.ago(days=120),
        replicas=1,
        readiness={"httpGet": {"path": "/health", "port": 8000}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        memory="16Gi",
        memory_limit="24Gi",
        cpu="6",
        volumes=[{"name": "hf", "persistentVolumeClaim": {"claimName": "hf-cache-embed"}}],
        volume_mounts=[{"name": "hf", "mountPath": "/data/hf"}],
        node_selector={"cloud.google.com/gke-accelerator": "nvidia-l4"},
        cluster_ip="34.118.230.90",
    )
    efleet = Fleet(p, embed, job=f"{NS}/vllm", model=EMBED, service="")
    em = efleet.add(
        erev,
        l1[0],
        [l1[1][0]],
        "10.96.31.12",
        rpm=880,
        prompt_len=240,
        gen_len=1,
        ttft=0.02,
        itl=0.001,
        kv=0.02,
        util=31,
        fb_used=19_400,
    )
    for g in em.gpus:  # L4: 72 W board power
        g.power = noisy(g.util * 0.9 + 17, rng, 0.03).map(lambda v: round(min(v, 72.0), 3))
    em.rep.codes[400] = Series(float(max(0, round(v * 0.043 + rng.gauss(0, 2)))) for v in em.rep.codes[200])
    em.rep.codes[200] = em.rep.codes[200] - em.rep.codes[400]

    # --- reranker on CPU: a harmless rollout (resources and log level) ----------------------------------
    rr_img = "ghcr.io/huggingface/text-embeddings-inference:cpu-1.8"
    rr_args = [
        "--model-id",
        "BAAI/bge-reranker-v2-m3",
        "--port",
        "8080",
        "--max-client-batch-size",
        "64",
        "--huggingface-hub-cache",
        "/data/hf",
    ]
    rrev4 = p.revision(
        4,
        p.ago(days=17),
        rr_img,
        rr_args,
        env=[{"name": "RUST_LOG", "value": "info,text_embeddings_backend=debug"}],
        change_cause="bge-reranker-v2-m3 on TEI cpu-1.8",
    )
    rrev5 = p.revision(
        5,
        t_rerank,
        rr_img,
        rr_args,
        env=[{"name": "RUST_LOG", "value": "info"}],
        replicas=1,
        change_cause="reranker: requests 6->8 CPU, 6Gi->8Gi; RUST_LOG=info (BEN-229)",
    )
    rerank = k8s.Workload(
        name="tei-bge-reranker",
        namespace=NS,
        container="tei",
        port=8080,
        labels={
            "app.kubernetes.io/name": "benefits-rerank",
            "app.kubernetes.io/part-of": "benefits-assistant",
        },
        revisions=[rrev4, rrev5],
        pods=[],
        created=p.ago(days=64),
        replicas=1,
        gpus=0,
        cpu="8",
        memory="8Gi",
        memory_limit="10Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10},
        uid=k8s.new_uid(rng),
        cluster_ip="34.118.230.104",
        generation=7,
    )
    rfleet = Fleet(p, rerank, job=f"{NS}/tei", model="bge-reranker-v2-m3", service="")
    r_old = rfleet.add(
        rrev4,
        cpu[0],
        [],
        "10.96.11.51",
        created=rrev4.created + timedelta(minutes=1),
        deleted=p.t("15:22:16"),
        rpm=260,
    )
    r_new = rfleet.add(
        rrev5, cpu[1], [], "10.96.12.38", created=t_rerank, ready_after=timedelta(seconds=64), rpm=260
    )
    rebalance(rfleet, noisy(flat(c, 260.0), rng, 0.05))
    for m in (r_old, r_new):
        m.rep.waiting = Series(float(rng.randint(0, 3)) for _ in range(c.n))

    # --- the assistant API and what it sees in the answers --------------------------------------------
    api_rev = p.revision(
        31,
        p.ago(days=2, hours=5),
        "europe-west1-docker.pkg.dev/hrb-prod/apps/benefits-assistant-api:2.31.4",
        ["uvicorn", "app.main:app", "--host", "0.0.0.0", "--port", "8080"],
        replicas=2,
    )
    api = k8s.Workload(
        name="benefits-assistant-api",
        namespace=NS,
        container="api",
        port=8080,
        labels={
            "app.kubernetes.io/name": "benefits-assistant-api",
            "app.kubernetes.io/part-of": "benefits-assistant",
        },
        revisions=[api_rev],
        pods=[],
        created=p.ago(days=200),
        replicas=2,
        gpus=0,
        cpu="1",
        memory="1Gi",
        memory_limit="2Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 5},
        uid=k8s.new_uid(rng),
        cluster_ip="34.118.230.12",
    )
    afleet = Fleet(p, api, job="benefits-assistant-api", model="-", service="benefits-assistant-api")
    api_pods = [afleet.add(api_rev, cpu[j], [], f"10.96.{11 + j}.{90 + j}", rpm=150) for j in range(2)]
    idx_rev = p.revision(
        8,
        p.ago(days=9),
        "europe-west1-docker.pkg.dev/hrb-prod/apps/policy-doc-indexer:1.4.0",
        ["python", "-m", "indexer.worker"],
        replicas=1,
    )
    indexer = k8s.Workload(
        name="policy-doc-indexer",
        namespace=NS,
        container="worker",
        port=8080,
        labels={"app.kubernetes.io/name": "policy-doc-indexer"},
        revisions=[idx_rev],
        pods=[],
        created=p.ago(days=150),
        replicas=1,
        gpus=0,
        cpu="2",
        memory="2Gi",
        memory_limit="4Gi",
        tolerations=[],
        uid=k8s.new_uid(rng),
        cluster_ip="34.118.230.33",
    )
    ifleet = Fleet(p, indexer, job="policy-doc-indexer", model="-", service="")
    idx_pod = ifleet.add(idx_rev, cpu[1], [], "10.96.12.61", rpm=1)

    share_new = Series(
        sum(m.rep.codes[200][i] for m in news) / max(1.0, sum(m.rep.codes[200][i] for m in cfleet.members))
        for i in range(c.n)
    )
    answers = Series(sum(m.rep.codes[200][i] for m in cfleet.members) for i in range(c.n))
    tool_turns = (answers * 0.36).ints()
    broken = Series(
        tool_turns[i] * (0.004 + 0.6 * share_new[i]) * rng.uniform(0.9, 1.1) for i in range(c.n)
    ).ints()
    unparsed = (broken * 0.7).ints()
    invalid_json = broken - unparsed
    valid = tool_turns - broken

    # --- metrics -------------------------------------------------------------------------------------
    ex.vllm(p.om, cfleet.replicas(), itl=False)
    vllm_pooling(p.om, em.rep)
    ex.up(p.om, [em.rep])
    tei(p.om, rfleet.replicas())
    ex.dcgm(p.om, [*cfleet.gpu_series(), *em.gpus], driver=DRIVER)
    ex.ksm_pods(p.om, [*cfleet.timelines(), em.timeline])
    ex.ksm_nodes(
        p.om, [node_timeline(c, n, gpus=1, internal_ip=nd.internal_ip) for n, (nd, _) in gpu_nodes.items()]
    )
    k_chat = c.idx(t_chat)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=chat.name,
        spec=flat(c, 2),
        available=cfleet.ready_count().minimum(2),
        updated=Series(float(sum(1 for m in news if m.timeline.exists[i])) for i in range(c.n)),
        generation=Series(8.0 if i < k_chat else 9.0 for i in range(c.n)),
    )
    k_rr = c.idx(t_rerank)
    ex.ksm_deployment(
        p.om,
        namespace=NS,
        name=rerank.name,
        spec=flat(c, 1),
        available=rfleet.ready_count().minimum(1),
        updated=Series(1.0 if i >= k_rr else 0.0 for i in range(c.n)),
        generation=Series(6.0 if i < k_rr else 7.0 for i in range(c.n)),
    )
    ex.ksm_deployment(p.om, namespace=NS, name=embed.name, spec=flat(c, 1), available=flat(c, 1))
    clusters = {
        f"httproute/{NS}/benefits-chat/rule/0": cfleet.codes(),
        f"httproute/{NS}/benefits-embed/rule/0": efleet.codes(),
        f"httproute/{NS}/benefits-rerank/rule/0": rfleet.codes(),
    }
    ex.envoy(p.om, clusters, gateway_namespace=GW_NS, gateway_pod=GW_POD, job=f"{GW_NS}/envoy-proxy")
    for j, ap in enumerate(api_pods):
        lab = {
            "instance": f"{ap.ip}:8080",
            "job": "benefits-assistant-api",
            "namespace": NS,
            "pod": ap.name,
            "service": "benefits-assistant-api",
            "upstream_model": CHAT,
        }
        half = 0.5 + (0.02 if j else -0.02)
        for outcome, inc in (
            ("valid", valid),
            ("invalid_json", invalid_json),
            ("unparsed_tool_call", unparsed),
        ):
            part = (inc * half).ints()
            p.om.counter(
                "assistant_tool_calls",
                "Tool calls expected from the LLM, by outcome of parsing and schema validation.",
                {**lab, "outcome": outcome},
                part,
                initial=float(
                    round(
                        tool_turns[0]
                        * half
                        * 26_000
                        * {"valid": 0.996, "invalid_json": 0.0012}.get(outcome, 0.0028)
                    )
                ),
            )
    # Pyrra ratio SLO on tool-call validity: recording rules <metric>:burnrate<window>
    slo = "benefits-chat-tool-calls"
    sel = {"job": "benefits-assistant-api", "namespace": NS, "slo": slo}
    base_total = sum(tool_turns[:10]) / 10
    base_bad = sum(broken[:10]) / 10
    ratios: dict[str, Series] = {}
    for window, minutes in pyrra_windows().items():
        ratios[window] = ex.windowed_ratio(broken, tool_turns, minutes, base_bad, base_total).map(
            lambda v: round(v, 8)
        )
        p.om.gauge(
            f"assistant_tool_calls:burnrate{window}",
            f"Pyrra recording rule (slo {slo}, {window}).",
            sel,
            ratios[window],
            digits=8,
        )
    p.om.gauge("pyrra_objective", "Pyrra objective of the SLO.", {"slo": slo}, flat(c, 0.995))
    p.om.gauge("pyrra_window", "Pyrra window of the SLO in seconds.", {"slo": slo}, flat(c, 2_592_000))
    factor = 14
    s_sel = ",".join(f'{k}="{v}"' for k, v in sel.items())
    expr = (
        f"assistant_tool_calls:burnrate5m{{{s_sel}}} > ({factor} * (1-0.995)) and "
        f"assistant_tool_calls:burnrate1h{{{s_sel}}} > ({factor} * (1-0.995))"
    )
    limit = factor * (1 - 0.995)
    threshold_alert(
        p,
        expr=expr,
        condition=[ratios["5m"][i] > limit and ratios["1h"][i] > limit for i in range(c.n)],
        value=ratios["5m"],
        for_minutes=2,
        labels={
            "alertname": "ErrorBudgetBurn",
            "exhaustion": "2d",
            "job": "benefits-assistant-api",
            "long": "1h",
            "namespace": NS,
            "severity": "critical",
            "short": "5m",
            "slo": slo,
            "team": "benefits-ml",
        },
        summary="benefits-chat tool-call validity SLO is burning its error budget",
        description=f"More than {limit:.0%} of the tool calls expected from {CHAT} over 5m and 1h could not be parsed "
        "or failed schema validation (objective 99.5%, 30d).",
        prometheus=PROM,
        alertmanager=AM,
        value_format="{:.4g}",
        runbook="https://runbooks.hrb.example.org/slo/benefits-chat-tool-calls",
        route='{}/{severity="critical"}',
        group_by=("alertname", "slo"),
    )

    # --- logs --------------------------------------------------------------------------------------------
    for m in cfleet.members:
        vllm_stats(p, m, every=3)
        p.access_logs(m.rep, src_of(m), vllm_access(), clients=["10.96.11.4", "10.96.12.7"], every=4)
    non_default = (
        f"{{'model': 'Qwen/Qwen3-8B', 'revision': '{NEW_SHA}', 'tokenizer_revision': '{NEW_SHA}', "
        f"'served_model_name': ['{CHAT}'], 'max_model_len': 32768, 'gpu_memory_utilization': 0.9, "
        "'enable_prefix_caching': True, 'enable_auto_tool_choice': True, 'tool_call_parser': 'hermes', "
        "'download_dir': '/data/hf'}"
    )
    engine_cfg = (
        "Qwen3ForCausalLM|model='Qwen/Qwen3-8B', speculative_config=None, tokenizer='Qwen/Qwen3-8B', "
        f"skip_tokenizer_init=False, tokenizer_mode=auto, revision={NEW_SHA}, tokenizer_revision={NEW_SHA}, "
        "trust_remote_code=False, dtype=torch.bfloat16, max_seq_len=32768, download_dir='/data/hf', load_format=auto, "
        f"tensor_parallel_size=1, pipeline_parallel_size=1, quantization=None, served_model_name={CHAT}, "
        "enable_prefix_caching=True, chunked_prefill_enabled=True"
    )
    for m in news:
        t = m.created + timedelta(seconds=8)
        for n_f, (fname, size) in enumerate(
            (("tokenizer_config.json", "9.73k"), ("generation_config.json", "239"), ("config.json", "728"))
        ):  # huggingface_hub's progress bars (stderr)
            tf = t - timedelta(seconds=3 - 0.4 * n_f)
            p.logs.add(
                ecs(
                    tf,
                    f"{fname}: 100%|██████████| {size}/{size} [00:00<00:00, {rng.uniform(8, 60):.1f}MB/s]",
                    src_of(m),
                    level="info",
                )
            )
        done = vllm_startup(
            p,
            m,
            version="0.10.2",
            model_path="Qwen/Qwen3-8B",
            served=CHAT,
            non_default=non_default,
            engine_config=engine_cfg,
            weights_gib=15.27,
            kv_gib=52.4,
            kv_tokens=381_536,
            max_len=32768,
            start=t,
        )
        ready_at = next(r for cr, r in sched if cr == m.created)
        first = max(done, ready_at) + timedelta(seconds=rng.uniform(0.5, 3))
        vllm_line_doc(
            p,
            m,
            first,
            "INFO",
            "chat_utils.py:470",
            "Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` to override this.",  # noqa: E501
        )
        vllm_line_doc(
            p,
            m,
            first + timedelta(milliseconds=3),
            "INFO",
            "serving_chat.py:139",
            "Using default chat sampling params from model: {'temperature': 0.6, 'top_k': 20, 'top_p': 0.95}",
        )
    bad_outputs = [
        (
            "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
            "<tool_call>\n{'name': 'lookup_plan', 'arguments': {'plan_id': 'PPO-2'}}\n</tool_call>",
        ),
        (
            "Expecting value: line 1 column 1 (char 0)",
            '<tool_call>\nlookup_dependents(employee_id="E-20417")\n</tool_call>',
        ),
        (
            "Extra data: line 1 column 78 (char 77)",
            '<tool_call>\n{"name": "start_enrolment", "arguments": {"plan_id": "HSA-1"}} {"name": "confirm"}\n</tool_call>',  # noqa: E501
        ),
    ]
    for m in news:
        for i in range(c.n - 1):
            if not m.rep.present[i + 1] or m.rep.codes[200][i + 1] <= 0:
                continue
            ready_at = next(r for cr, r in sched if cr == m.created)
            for _ in range(2):
                ts = p.ids.within(c.at(i), max(0.0, min(59.0, (ready_at - c.at(i)).total_seconds() + 2)))
                err, _raw = rng.choice(bad_outputs)
                trace = (
                    "Traceback (most recent call last):\n"
                    '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py", '  # noqa: E501
                    "line 98, in extract_tool_calls\n"
                    "    raw_function_calls = [\n"
                    '  File "/usr/local/lib/python3.12/dist-packages/vllm/entrypoints/openai/tool_parsers/hermes_tool_parser.py", '  # noqa: E501
                    "line 99, in <listcomp>\n"
                    "    json.loads(match[0] if match[0] else match[1])\n"
                    f"json.decoder.JSONDecodeError: {err}"
                )
                vllm_line_doc(
                    p,
                    m,
                    ts,
                    "ERROR",
                    "hermes_tool_parser.py:136",
                    "Error in extracting tool call from response.",
                    error_type="json.decoder.JSONDecodeError",
                    error_message=err,
                    stack=trace,
                )
    api_src = [Source("benefits-assistant-api", NS, ap.name, ap.node.name, "api") for ap in api_pods]
    for i in range(1, c.n - 1):
        n_bad = int(broken[i + 1])
        for j in range(min(3, n_bad)):
            ts = p.ids.within(c.at(i))
            err, raw = rng.choice(bad_outputs)
            conv = p.ids.hex(12)
            if j % 2:
                msg = (
                    f"WARNING app.tools: model returned tool markup but no tool_calls (finish_reason=stop) "
                    f"conversation={conv} content={raw[:60]!r}"
                )
                p.logs.add(ecs(ts, msg, api_src[j % 2], level="warn"))
            else:
                msg = f"WARNING app.tools: tool call arguments are not valid JSON: {err} conversation={conv}"
                p.logs.add(
                    ecs(
                        ts,
                        msg,
                        api_src[j % 2],
                        level="warn",
                        error_type="json.decoder.JSONDecodeError",
                        error_message=err,
                    )
                )
        if i % 2 == 0:
            ts = p.ids.within(c.at(i))
            p.logs.add(
                ecs(
                    ts,
                    uvicorn_access(p.ids.client("10.96"), "POST", "/api/v2/assist", 200),
                    api_src[i % 4 // 2],
                    level="info",
                    status=200,
                )
            )
    # embeddings: steady 400s from the indexer (same rate all day) and ordinary access lines
    esrc = src_of(em)
    isrc = Source("policy-doc-indexer", NS, idx_pod.name, idx_pod.node.name, "worker")
    for i in range(c.n - 1):
        minute = c.at(i)
        n400 = int(em.rep.codes[400][i + 1])
        for _ in range(min(2, n400)):
            ts = p.ids.within(minute)
            asked = rng.randint(520, 1400)
            p.logs.add(
                ecs(
                    ts,
                    uvicorn_access(
                        f"{idx_pod.ip}:{rng.randint(33000, 60999)}",
                        "POST",
                        "/v1/embeddings",
                        400,
                        "APIServer pid=1",
                    ),
                    esrc,
                    level="info",
                    status=400,
                )
            )
            msg = (
                f"WARNING indexer.embed: chunk rejected (400): This model's maximum context length is 512 tokens. However, "  # noqa: E501
                f"you requested {asked} tokens in the input for embedding generation. Please reduce the length of the input. "  # noqa: E501
                f"doc=policy-{rng.randint(1000, 9999)}.pdf chunk={rng.randint(1, 60)}"
            )
            p.logs.add(ecs(ts + timedelta(milliseconds=4), msg, isrc, level="warn", status=400))
        if i % 4 == 0:
            ts = p.ids.within(minute)
            p.logs.add(
                ecs(
                    ts,
                    uvicorn_access(
                        f"{api_pods[i % 2].ip}:{rng.randint(33000, 60999)}",
                        "POST",
                        "/v1/embeddings",
                        200,
                        "APIServer pid=1",
                    ),
                    esrc,
                    level="info",
                    status=200,
                )
            )
    # reranker: TEI's tracing lines; the debug lines of text_embeddings_backend stop with the new revision
    for m in (r_old, r_new):
        src = src_of(m)
        for i in range(c.n - 1):
            if not m.rep.present[i + 1] or i % 2:
                continue
            ts = p.ids.within(c.at(i))
            tt = rng.uniform(38, 160)
            span = (
                f'rerank{{total_time="{tt:.6f}ms" tokenization_time="{tt * 0.08:.6f}ms" queue_time="{tt * 0.05:.6f}ms" '
                f'inference_time="{tt * 0.85:.6f}ms"}}'
            )
            p.logs.add(
                ecs(
                    ts,
                    tgi_line(
                        ts,
                        "INFO",
                        "text_embeddings_router::http::server",
                        "router/src/http/server.rs:458",
                        "Success",
                        span,
                    ),
                    src,
                    level="info",
                )
            )
            if m is r_old:
                ts2 = ts - timedelta(milliseconds=int(tt))
                p.logs.add(
                    ecs(
                        ts2,
                        tgi_line(
                            ts2,
                            "DEBUG",
                            "text_embeddings_backend_candle",
                            "backends/candle/src/lib.rs:531",
                            f"Batch of {rng.randint(8, 64)} pairs",
                        ),
                        src,
                        level="debug",
                    )
                )
    for delay, level, target, where, msg in (
        (
            1.2,
            "INFO",
            "text_embeddings_router",
            "router/src/main.rs:189",
            'Args { model_id: "BAA*/***-********-*2-m3", revision: None, tokenization_workers: None, dtype: None, pooling: None, max_concurrent_requests: 512, max_batch_tokens: 16384, max_batch_requests: None, max_client_batch_size: 64, auto_truncate: false, default_prompt_name: None, default_prompt: None, hf_api_token: None, hf_token: None, hostname: "0.0.0.0", port: 8080, uds_path: "/tmp/text-embeddings-inference-server", huggingface_hub_cache: Some("/data/hf"), payload_limit: 2000000, api_key: None, json_output: false, disable_spans: false, otlp_endpoint: None, otlp_service_name: "text-embeddings-inference.server", prometheus_port: 9000, cors_allow_origin: None }',  # noqa: E501
        ),
        (
            2.9,
            "INFO",
            "text_embeddings_router",
            "router/src/lib.rs:208",
            "Maximum number of tokens per request: 8192",
        ),
        (
            0.1,
            "INFO",
            "text_embeddings_core::tokenization",
            "core/src/tokenization.rs:38",
            "Starting 8 tokenization workers",
        ),
        (6.4, "INFO", "text_embeddings_router", "router/src/lib.rs:250", "Starting model backend"),
        (31.7, "INFO", "text_embeddings_router", "router/src/lib.rs:283", "Warming up model"),
        (
            4.8,
            "INFO",
            "text_embeddings_router::http::server",
            "router/src/http/server.rs:1812",
            "Starting HTTP server: 0.0.0.0:8080",
        ),
        (0.0, "INFO", "text_embeddings_router::http::server", "router/src/http/server.rs:1813", "Ready"),
    ):
        t_rerank = t_rerank + timedelta(seconds=delay)
        p.logs.add(ecs(t_rerank, tgi_line(t_rerank, level, target, where, msg), src_of(r_new), level="info"))
    # the gateway
    gw = Source("envoy", GW_NS, GW_POD, cpu[0].name, "envoy")
    for i in range(c.n - 1):
        minute = c.at(i)
        for route, fl, path in (
            ("benefits-chat", cfleet, "/v1/chat/completions"),
            ("benefits-embed", efleet, "/v1/embeddings"),
            ("benefits-rerank", rfleet, "/rerank"),
        ):
            if i % 3:
                continue
            serving = [m for m in fl.members if m.rep.present[i + 1] and m.rep.codes[200][i + 1] > 0]
            if not serving:
                continue
            m = rng.choice(serving)
            ts = p.ids.within(minute)
            line = envoy_gateway_access(
                ts,
                path=path,
                status=200,
                duration_ms=int(1000 * m.rep.e2e.median[i + 1] * rng.uniform(0.6, 1.6)),
                upstream=f"{m.ip}:{m.rep.port}",
                cluster=f"httproute/{NS}/{route}/rule/0",
                route=f"httproute/{NS}/{route}/rule/0/match/0/benefits_hrb_example_org",
                authority="benefits.hrb.example.org",
                client=p.ids.ip("10.132"),
                user_agent=rng.choice(CLIENTS),
                request_id=p.ids.request_id(),
            )
            p.logs.add(ecs(ts, line, gw, level="info", status=200))
    # another team on the same cluster
    pa_rev = p.revision(
        14,
        p.ago(days=11),
        "europe-west1-docker.pkg.dev/hrb-prod/people/attrition-model-api:0.19.2",
        ["gunicorn", "app:server", "-w", "4"],
        replicas=1,
    )
    pa = k8s.Workload(
        name="attrition-model-api",
        namespace="people-analytics",
        container="api",
        port=8000,
        labels={"app": "attrition-model-api"},
        revisions=[pa_rev],
        pods=[],
        created=p.ago(days=300),
        replicas=1,
        gpus=0,
        cpu="2",
        memory="4Gi",
        memory_limit="6Gi",
        tolerations=[],
        readiness={"httpGet": {"path": "/ready", "port": 8000}, "periodSeconds": 10},
        liveness={"httpGet": {"path": "/live", "port": 8000}, "periodSeconds": 10, "timeoutSeconds": 1},
        uid=k8s.new_uid(rng),
        service_account="default",
        cluster_ip="34.118.231.5",
    )
    pfleet = Fleet(p, pa, job="people-analytics/api", model="-", service="")
    pa_pod = pfleet.add(pa_rev, cpu[0], [], "10.96.11.120", rpm=20)
    psrc = Source("attrition-model-api", "people-analytics", pa_pod.name, cpu[0].name, "api")
    for i in range(2, c.n - 1, 5):
        ts = p.ids.within(c.at(i))
        p.logs.add(
            ecs(
                ts,
                f"[{iso(ts)}] [ERROR] app.features: BigQuery job bqjob_r{p.ids.hex(12)} exceeded rate limits: "
                "Exceeded rate limits: too many table update operations for this table",
                psrc,
                level="error",
            )
        )

    # --- events ------------------------------------------------------------------------------------------
    ev: list[dict[str, Any]] = []
    old_rs, new_rs = f"{chat.name}-{rev6.hash}", f"{chat.name}-{rev7.hash}"
    for j, (created, ready) in enumerate(sched):
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Deployment",
                name=chat.name,
                uid=chat.uid,
                reason="ScalingReplicaSet",
                message=f"Scaled up replica set {new_rs} from {j} to {j + 1}",
                first=created,
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
        ev.append(
            k8s.event(
                namespace=NS,
                kind="Deployment",
                name=chat.name,
                uid=chat.uid,
                reason="ScalingReplicaSet",
                message=f"Scaled down replica set {old_rs} from {2 - j} to {1 - j}",
                first=ready + timedelta(seconds=4),
                warning=False,
                component="deployment-controller",
                api_version="apps/v1",
            )
        )
    for m in news:
        host = m.node.name
        ev += [
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Scheduled",
                message=f"Successfully assigned {NS}/{m.name} to {host}",
                first=m.created + timedelta(milliseconds=40),
                warning=False,
                component="default-scheduler",
            ),
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Pulled",
                message='Container image "vllm/vllm-openai:v0.10.2" already present on machine',
                first=m.created + timedelta(seconds=2),
                warning=False,
                host=host,
                field_path="spec.containers{vllm}",
            ),
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Started",
                message="Started container vllm",
                first=m.created + timedelta(seconds=3),
                warning=False,
                host=host,
                field_path="spec.containers{vllm}",
            ),
            k8s.event(
                namespace=NS,
                kind="Pod",
                name=m.name,
                uid=m.uid,
                reason="Unhealthy",
                message=f'Startup probe failed: Get "http://{m.ip}:8000/health": dial tcp {m.ip}:8000: connect: connection refused',  # noqa: E501
                first=m.created + timedelta(seconds=13),
                last=m.created + timedelta(seconds=113),
                count=11,
                host=host,
                field_path="spec.containers{vllm}",
            ),
        ]
    rr_old_rs, rr_new_rs = f"{rerank.name}-{rrev4.hash}", f"{rerank.name}-{rrev5.hash}"
    ev += [
        k8s.event(
            namespace=NS,
            kind="Deployment",
            name=rerank.name,
            uid=rerank.uid,
            reason="ScalingReplicaSet",
            message=f"Scaled up replica set {rr_new_rs} from 0 to 1",
            first=p.t("15:21:05"),
            warning=False,
            component="deployment-controller",
            api_version="apps/v1",
        ),
        k8s.event(
            namespace=NS,
            kind="Deployment",
            name=rerank.name,
            uid=rerank.uid,
            reason="ScalingReplicaSet",
            message=f"Scaled down replica set {rr_old_rs} from 1 to 0",
            first=p.t("15:22:12"),
            warning=False,
            component="deployment-controller",
            api_version="apps/v1",
        ),
        k8s.event(
            namespace="people-analytics",
            kind="Pod",
            name=pa_pod.name,
            uid=pa_pod.uid,
            reason="Unhealthy",
            message=f'Liveness probe failed: Get "http://{pa_pod.ip}:8000/live": context deadline exceeded '
            "(Client.Timeout exceeded while awaiting headers)",
            first=p.ago(days=6, hours=2),
            last=p.ago(minutes=9),
            count=143,
            host=cpu[0].name,
            field_path="spec.containers{api}",
        ),
        k8s.event(
            namespace="kube-system",
            kind="Pod",
            name="fluentbit-gke-8kz2d",
            uid=k8s.new_uid(rng),
            reason="Unhealthy",
            message="Liveness probe failed: HTTP probe failed with statuscode: 500",
            first=p.ago(days=3, hours=7),
            last=p.ago(minutes=31, seconds=20),
            count=27,
            host=cpu[1].name,
            field_path="spec.containers{fluentbit}",
        ),
        k8s.event(
            namespace=NS,
            kind="HorizontalPodAutoscaler",
            name="vllm-me5-embed",
            uid=k8s.new_uid(rng),
            reason="FailedGetPodsMetric",
            message="failed to get pods metric value: unable to get metric "
            "vllm_num_requests_waiting: no metrics returned from custom metrics API",
            first=p.ago(days=12),
            last=p.ago(minutes=1, seconds=48),
            count=1871,
            component="horizontal-pod-autoscaler",
            api_version="autoscaling/v2",
        ),
    ]

    # --- objects -----------------------------------------------------------------------------------------
    for m in [*olds, r_old]:
        m.info = None
    p.objects.extend(cfleet.objects())
    p.objects.extend(efleet.objects())
    robjs = rfleet.objects()
    for o in robjs:  # revision 4 ran with the smaller requests; only revision 5 has the new ones
        if o["kind"] == "ReplicaSet" and o["metadata"]["name"] == rr_old_rs:
            cont = o["spec"]["template"]["spec"]["containers"][0]
            cont["resources"] = {"limits": {"memory": "8Gi"}, "requests": {"cpu": "6", "memory": "6Gi"}}
    p.objects.extend(robjs)
    for name, svc, port in (
        ("benefits-chat", chat.name, 8000),
        ("benefits-embed", embed.name, 8000),
        ("benefits-rerank", rerank.name, 8080),
    ):
        p.objects.append(
            k8s.httproute(
                name=name,
                namespace=NS,
                gateway="benefits-gw",
                gateway_namespace=NS,
                hostnames=["benefits.hrb.example.org"],
                backends=[(svc, port, 1)],
                created=p.ago(days=88),
                path={
                    "benefits-chat": "/v1/chat",
                    "benefits-embed": "/v1/embeddings",
                    "benefits-rerank": "/rerank",
                }[name],
            )
        )
    p.objects.extend(afleet.objects())
    p.objects.extend(ifleet.objects())
    p.objects.extend(pfleet.objects())
    p.objects.extend(n.object(p.as_of) for n, _ in gpu_nodes.values())
    p.objects.extend(n.object(p.as_of) for n in cpu)
    p.objects.extend(ev)
    live_gpus = [g for m in news for g in m.gpus] + list(em.gpus)
    used = {(g.dev.node, g.dev.index): g for g in live_gpus}
    p.record_gpus(
        [
            used.get((d.node, d.index)) or gpu_idle(c, rng, d)
            for _, (_, devs) in gpu_nodes.items()
            for d in devs
        ]
    )

    p.expect("model_config", "MOD_TOKENIZER", ("rollback_deployment", f"deployment/{chat.name}"))
    p.forbidden = [
        ("rollback_deployment", f"deployment/{rerank.name}"),
        ("rollback_deployment", f"deployment/{embed.name}"),
        ("restart_pod", f"pod/{em.name}"),
        ("restart_pod", f"pod/{r_new.name}"),
        ("reroute", "httproute/benefits-embed"),
        ("reroute", "httproute/benefits-rerank"),
        ("add_replica", f"deployment/{embed.name}"),
    ]
    p.scope = [
        f"deployment/{chat.name}",
        *[f"pod/{m.name}" for m in news],
        f"node/{u3[0].name}",
        f"node/{u1[0].name}",
        "httproute/benefits-chat",
    ]
    p.notes["onset"] = iso(sched[0][1])
    return p
