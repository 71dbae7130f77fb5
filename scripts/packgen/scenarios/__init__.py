"""One module per scenario; each exposes `NAME` and `build() -> Pack`."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

MODULES = [
    "p01_gpu_xid79",
    "p02_cuda_oom_max_num_seqs",
    "p03_kv_cache_surge",
    "p04_wrong_checkpoint",
    "p05_fp8_quality_regression",
    "p06_tgi_chat_template_drift",
    "p07_node_not_ready",
    "p08_route_weight_skew",
    "p09_input_too_long",
    "p10_rag_qdrant_timeouts",
    "p11_sglang_long_generation_408",
    "p12_triton_slow_engine_load",
]


def all_scenarios() -> list[ModuleType]:
    return [import_module(f"{__name__}.{m}") for m in MODULES]
