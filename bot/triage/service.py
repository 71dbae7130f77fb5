"""Triage entry points: a pack through the sandbox (CLI `triage`, `eval`), or live backends.

One path for all of them: the same tools, the same graph; only where the backends are differs.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from openai import OpenAI

from bot.sandbox.openai import ScriptedReply
from bot.sandbox.pack import Pack
from bot.sandbox.up import Sandbox
from bot.triage.attribution import Attributor
from bot.triage.gather import Backends
from bot.triage.graph import TriageDeps, TriageState, build_graph, run
from bot.triage.llm import Limits, LlmReviewer
from bot.triage.model import TriageResult
from bot.triage.runbooks import DEFAULT_DIR, RunbookCatalog
from bot.triage.taxonomy import meaning
from tools.elasticsearch import LogTool
from tools.elasticsearch import connect as es_connect
from tools.gpu import GpuTool
from tools.kubernetes import KubeTool, api_client
from tools.prometheus import PrometheusTool
from tools.prometheus import connect as prom_connect
from tools.result import DEFAULT_TIMEOUT
from tools.signals import DEFAULT_CATALOG, load_catalog


@dataclass
class Knowledge:
    """The data files the triage reasons with, loaded (and validated) once."""

    attributor: Attributor
    runbooks: RunbookCatalog

    @classmethod
    def load(cls, *, runbooks: Path = DEFAULT_DIR) -> Knowledge:
        return cls(attributor=Attributor.load(), runbooks=RunbookCatalog.load(runbooks))


def sandbox_backends(
    sandbox: Sandbox, *, timeout: float = DEFAULT_TIMEOUT, signals: Path = DEFAULT_CATALOG
) -> tuple[Backends, Callable[[], None]]:
    """Tools pointed at a running sandbox through the official clients; returns a closer too."""
    prom = None
    if "prometheus" in sandbox.urls:
        prom = PrometheusTool(
            prom_connect(sandbox.urls["prometheus"], timeout=timeout),
            load_catalog(signals),
            link_base=sandbox.urls["prometheus"],
            timeout=timeout,
        )
    es = es_connect(sandbox.urls["elasticsearch"], timeout=timeout)
    api = api_client(sandbox.urls["kubernetes"])
    backends = Backends(
        prometheus=prom,
        logs=LogTool(es, index=sandbox.pack.meta.logs_index, timeout=timeout),
        kube=KubeTool(api, timeout=timeout),
        gpu=GpuTool(sandbox.nvml, timeout=timeout) if sandbox.nvml else None,
    )

    def close() -> None:
        es.close()
        api.close()  # type: ignore[no-untyped-call]

    return backends, close


def triage_pack(
    pack: Pack,
    knowledge: Knowledge,
    *,
    llm_script: list[ScriptedReply] | None = None,
    llm_limits: Limits | None = None,
) -> TriageResult:
    """Serve the pack, triage its alert as of its `as_of`, stop everything again.

    With `llm_script`, the LLM review runs against the sandbox's OpenAI stand-in playing it.
    """
    started = time.perf_counter()
    with Sandbox(pack, llm_script=llm_script or []) as sandbox:
        ready = time.perf_counter()
        result = triage_in_sandbox(sandbox, knowledge, llm=llm_script is not None, llm_limits=llm_limits)
    return result.model_copy(
        update={"timings_ms": {**result.timings_ms, "sandbox_start": round((ready - started) * 1000, 1)}}
    )


def triage_in_sandbox(
    sandbox: Sandbox, knowledge: Knowledge, *, llm: bool = False, llm_limits: Limits | None = None
) -> TriageResult:
    """Triage the sandbox's pack through the official clients (with the stand-in LLM when `llm`)."""
    started = time.perf_counter()
    pack = sandbox.pack
    backends, close = sandbox_backends(sandbox)
    reviewer = None
    client: OpenAI | None = None
    if llm:
        client = OpenAI(
            base_url=sandbox.env["OPENAI_BASE_URL"], api_key=sandbox.env["OPENAI_API_KEY"], max_retries=0
        )
        reviewer = LlmReviewer(
            client,
            model=sandbox.env["OPENAI_MODEL"],
            runbooks=knowledge.runbooks,
            backends=backends,
            limits=llm_limits,
        )
    try:
        deps = TriageDeps(
            backends=backends,
            attributor=knowledge.attributor,
            runbooks=knowledge.runbooks,
            meaning=meaning,
            reviewer=reviewer,
        )
        state = TriageState(alert=pack.alert, as_of=pack.meta.as_of, namespace=pack.meta.namespace)
        result = run(build_graph(deps), state, thread_id=f"pack:{pack.name}")
    finally:
        close()
        if client is not None:
            client.close()
    total = round((time.perf_counter() - started) * 1000, 1)
    return result.model_copy(update={"timings_ms": {**result.timings_ms, "total": total}})
