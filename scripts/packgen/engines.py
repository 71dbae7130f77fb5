"""Log lines of the serving engines in their own words, driven by a pod's `Replica`.

Periodic stats lines (vLLM's `Engine 000: Avg prompt throughput ...`, vLLM 0.6's
`metrics.py` line, SGLang's `Decode batch.` line), start-up sequences, and the access-line
formats each engine's HTTP server writes.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from .fleet import Member
from .logs import LEVEL, Source, ecs, glog, sglang_line, tgi_line, uvicorn_access, vllm_line, vllm_v0_line
from .pack import Pack

API = "APIServer pid=1"


def src_of(m: Member, service: str | None = None) -> Source:
    return Source(
        service=service or m.app or m.rep.service,
        namespace=m.rep.namespace,
        pod=m.name,
        node=m.node.name,
        container=m.rep.container,
    )


def vllm_access(proc: str | None = API) -> Callable[[datetime, int, str], str]:
    def line(_: datetime, code: int, client: str) -> str:
        return uvicorn_access(client, "POST", "/v1/chat/completions", code, proc)

    return line


def vllm_stats(
    pack: Pack, m: Member, *, every: int = 1, v0: bool = False, alive: list[bool] | None = None
) -> None:
    """vLLM's periodic stats line (one of the six per minute), for minutes the engine runs."""
    r, c, src = m.rep, pack.clock, src_of(m)
    pt, gt = r.prompt_tokens(), r.gen_tokens()
    for i in range(1, c.n):
        if not r.present[i] or (alive is not None and not alive[i]) or i % every:
            continue
        ts = c.at(i) - timedelta(seconds=pack.rng.randint(2, 9), microseconds=pack.rng.randint(0, 999_999))
        prompt, gen = pt[i] / 60.0, gt[i] / 60.0
        if v0:
            msg = (
                f"Avg prompt throughput: {prompt:.1f} tokens/s, Avg generation throughput: {gen:.1f} tokens/s, "
                f"Running: {int(r.running[i])} reqs, Swapped: 0 reqs, Pending: {int(r.waiting[i])} reqs, "
                f"GPU KV cache usage: {r.kv[i] * 100:.1f}%, CPU KV cache usage: 0.0%."
            )
            line = vllm_v0_line(ts, "INFO", "metrics.py:351", msg)
        else:
            msg = (
                f"Engine 000: Avg prompt throughput: {prompt:.1f} tokens/s, Avg generation throughput: "
                f"{gen:.1f} tokens/s, Running: {int(r.running[i])} reqs, Waiting: {int(r.waiting[i])} reqs, "
                f"GPU KV cache usage: {r.kv[i] * 100:.1f}%, Prefix cache hit rate: {r.prefix_hit * 100:.1f}%"
            )
            line = vllm_line(ts, "INFO", "loggers.py:123", msg)
        pack.logs.add(
            ecs(
                ts, line, src, level="info", logger="vllm.engine.metrics" if v0 else "vllm.v1.metrics.loggers"
            )
        )


def vllm_startup(
    pack: Pack,
    m: Member,
    *,
    version: str,
    model_path: str,
    served: str,
    non_default: str,
    engine_config: str,
    weights_gib: float = 27.59,
    kv_gib: float = 43.12,
    kv_tokens: int = 235_504,
    max_len: int = 16384,
    start: datetime | None = None,
    engine_pid: int = 233,
) -> datetime:
    """The start-up sequence of a vLLM 0.10/0.11 pod; returns when the server listens."""
    src = src_of(m)
    t = (start or m.created) + timedelta(seconds=6.3)
    ec = (
        f"EngineCore_0 pid={engine_pid}" if version.startswith("0.10") else f"EngineCore_DP0 pid={engine_pid}"
    )
    steps: list[tuple[float, str | None, str, str, str]] = [
        (0.0, API, "INFO", "api_server.py:1805", f"vLLM API server version {version}"),
        (0.1, API, "INFO", "utils.py:326", f"non-default args: {non_default}"),
        (7.9, API, "INFO", "config.py:726", "Resolved architecture: " + engine_config.split("|")[0]),
        (0.4, API, "INFO", "config.py:1767", "Using max model len " + str(max_len)),
        (2.6, ec, "INFO", "core.py:654", "Waiting for init message from front-end."),
        (
            0.1,
            ec,
            "INFO",
            "core.py:71",
            f"Initializing a V1 LLM engine (v{version}) with config: {engine_config.split('|')[1]}",
        ),
        (3.2, ec, "INFO", "gpu_model_runner.py:1953", f"Starting to load model {model_path}..."),
        (9.8, ec, "INFO", "default_loader.py:262", f"Loading weights took {weights_gib * 0.36:.2f} seconds"),
        (
            0.7,
            ec,
            "INFO",
            "gpu_model_runner.py:2007",
            f"Model loading took {weights_gib:.4f} GiB and {weights_gib * 0.38:.6f} seconds",
        ),
        (6.4, ec, "INFO", "gpu_worker.py:276", f"Available KV cache memory: {kv_gib:.2f} GiB"),
        (0.2, ec, "INFO", "kv_cache_utils.py:849", f"GPU KV cache size: {kv_tokens:,} tokens"),
        (
            0.0,
            ec,
            "INFO",
            "kv_cache_utils.py:853",
            f"Maximum concurrency for {max_len:,} tokens per request: {kv_tokens / max_len:.2f}x",
        ),
        (18.1, ec, "INFO", "gpu_model_runner.py:2708", "Graph capturing finished in 18 secs, took 0.54 GiB"),
        (
            0.3,
            ec,
            "INFO",
            "core.py:214",
            "init engine (profile, create kv cache, warmup model) took 41.39 seconds",
        ),
        (
            0.6,
            API,
            "INFO",
            "loggers.py:142",
            f"Engine 000: vllm cache_config_info with initialization after num_gpu_blocks is: {kv_tokens // 16}",
        ),
        (0.1, API, "INFO", "api_server.py:1611", "Supported_tasks: ['generate']"),
        (0.2, API, "INFO", "api_server.py:1880", "Starting vLLM API server 0 on http://0.0.0.0:8000"),
    ]
    for delay, proc, level, where, msg in steps:
        t += timedelta(seconds=delay)
        pack.logs.add(ecs(t, vllm_line(t, level, where, msg, proc), src, level=LEVEL[level]))
    for msg in (
        "Started server process [1]",
        "Waiting for application startup.",
        "Application startup complete.",
    ):
        t += timedelta(milliseconds=40)
        pack.logs.add(ecs(t, f"({API}) INFO:     {msg}", src, level="info"))
    return t


def vllm_line_doc(
    pack: Pack,
    m: Member,
    ts: datetime,
    level: str,
    where: str,
    msg: str,
    *,
    proc: str | None = API,
    error_type: str | None = None,
    error_message: str | None = None,
    stack: str | None = None,
) -> None:
    pack.logs.add(
        ecs(
            ts,
            vllm_line(ts, level, where, msg, proc),
            src_of(m),
            level=LEVEL[level],
            error_type=error_type,
            error_message=error_message,
            stack=stack,
        )
    )


# -- SGLang ---------------------------------------------------------------------------------------------------
def sglang_access() -> Callable[[datetime, int, str], str]:
    def line(ts: datetime, code: int, client: str) -> str:
        return sglang_line(ts, uvicorn_access(client, "POST", "/v1/chat/completions", code))

    return line


def sglang_stats(pack: Pack, m: Member, *, max_total_tokens: int, every: int = 1) -> None:
    r, c, src = m.rep, pack.clock, src_of(m)
    gt = r.gen_tokens()
    for i in range(1, c.n):
        if not r.present[i] or i % every:
            continue
        ts = c.at(i) - timedelta(seconds=pack.rng.randint(3, 40))
        used = int(r.kv[i] * max_total_tokens)
        msg = (
            f"Decode batch. #running-req: {int(r.running[i])}, #token: {used}, token usage: {r.kv[i]:.2f}, "
            f"cuda graph: True, gen throughput (token/s): {gt[i] / 60.0:.2f}, #queue-req: {int(r.waiting[i])}, "
        )
        pack.logs.add(ecs(ts, sglang_line(ts, msg, tp=0), src, level="info"))
        if pack.rng.random() < 0.5:
            ts2 = ts + timedelta(seconds=pack.rng.uniform(1, 15))
            new_tok = pack.rng.randint(600, 4200)
            msg2 = (
                f"Prefill batch. #new-seq: 1, #new-token: {new_tok}, #cached-token: {int(new_tok * r.prefix_hit)}, "
                f"token usage: {r.kv[i]:.2f}, #running-req: {int(r.running[i])}, #queue-req: {int(r.waiting[i])}, "
            )
            pack.logs.add(ecs(ts2, sglang_line(ts2, msg2, tp=0), src, level="info"))


# -- TGI ------------------------------------------------------------------------------------------------------
def tgi_success_line(
    ts: datetime, *, max_new: int, total_s: float, queue_s: float, tokens: int, seed: str
) -> str:
    inference = max(0.001, total_s - queue_s - 0.0004)
    per_tok = inference / max(1, tokens)
    span = (
        f"chat_completions{{parameters=GenerateParameters {{ best_of: None, temperature: Some(0.2), "
        f"repetition_penalty: None, frequency_penalty: None, top_k: None, top_p: Some(0.95), typical_p: None, "
        f"do_sample: true, max_new_tokens: Some({max_new}), return_full_text: None, stop: [], truncate: None, "
        f"watermark: false, details: true, decoder_input_details: false, seed: None, top_n_tokens: None, "
        f'grammar: None, adapter_id: None }} total_time="{total_s:.6f}s" validation_time="412.7µs" '
        f'queue_time="{queue_s * 1000:.3f}ms" inference_time="{inference:.6f}s" '
        f'time_per_token="{per_tok * 1000:.6f}ms" seed="{seed}"}}'
    )
    return tgi_line(ts, "INFO", "text_generation_router::server", "router/src/server.rs:637", "Success", span)


# -- Triton ---------------------------------------------------------------------------------------------------
def triton(ts: datetime, sev: str, where: str, msg: str) -> str:
    return glog(ts, sev, where, msg)
