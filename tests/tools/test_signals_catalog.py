"""The catalog file: families declared, query keys tied to them, errors that name file and line."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tools.signals import CatalogError, Scope, family_of, load_catalog

SIGNAL = """
signals:
  kv:
    description: KV-cache usage
    layer: ENG
    threshold: {mode: absolute, direction: above, value: 0.9}
    queries:
      vllm: max(vllm:kv_cache_usage_perc{namespace="$ns"})
"""
FAMILIES = """
families:
  vllm:
    kind: engine
    probe: '{__name__=~"vllm:.+"}'
    images: [vllm-openai]
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "signals.yaml"
    path.write_text(text)
    return path


def test_the_shipped_catalog_declares_every_family_it_reads() -> None:
    catalog = load_catalog()
    keys = {key for signal in catalog.signals.values() for key in signal.queries}
    assert {family_of(k) for k in keys} <= set(catalog.families)
    engines = {f.name for f in catalog.families.values() if f.kind == "engine"}
    gateways = {f.name for f in catalog.families.values() if f.kind == "gateway"}
    assert engines == {"vllm", "sglang", "tgi", "triton"}
    assert gateways == {"envoy-gateway", "istio", "contour", "ingress-nginx", "kserve"}
    assert catalog.families["dcgm"].kind == "gpu"


def test_a_query_key_of_no_declared_family_names_its_line(tmp_path: Path) -> None:
    text = FAMILIES + SIGNAL + "      vllm_old: max(vllm:gpu_cache_usage_perc)\n"
    path = write(tmp_path, text)
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "vllm_old:" in row)
    assert (
        f"{path}:{line}: signals.kv.queries.vllm_old: 'vllm_old' is not a family of the catalog (vllm)"
        in str(caught.value)
    )


def test_a_variant_belongs_to_its_family_and_older_catalogs_load(tmp_path: Path) -> None:
    catalog = load_catalog(write(tmp_path, FAMILIES + SIGNAL.replace("      vllm: ", "      vllm.v1: ")))
    family = catalog.family("vllm.v1")
    assert family is not None and family.name == "vllm"
    older = load_catalog(write(tmp_path, SIGNAL.replace("      vllm: ", "      anything_goes: ")))
    assert older.families == {} and older.family("anything_goes") is None


def test_a_probe_must_be_a_selector(tmp_path: Path) -> None:
    path = write(tmp_path, FAMILIES.replace("'{__name__=~\"vllm:.+\"}'", "count(vllm:x)") + SIGNAL)
    with pytest.raises(CatalogError) as caught:
        load_catalog(path)
    assert f"{path}:5: families.vllm.probe: String should match pattern" in str(caught.value)  # line 5: probe


def test_expected_engines_come_from_the_images() -> None:
    catalog = load_catalog()
    assert [f.name for f in catalog.expected(["docker.io/vllm/vllm-openai:v0.10.2"])] == ["vllm"]
    assert [f.name for f in catalog.expected(["ghcr.io/huggingface/text-generation-inference:3.0"])] == [
        "tgi"
    ]
    # TEI is not TGI, and an image that runs no engine expects none.
    assert (
        catalog.expected(["ghcr.io/huggingface/text-embeddings-inference:1.5", "envoyproxy/envoy:v1.31"])
        == []
    )


def test_window_placeholder_is_the_window_length() -> None:
    scope = Scope(namespace="ns", nodes=["n1"])
    assert scope.render('changes(X{Hostname=~"$nodes"}[$window])', window=timedelta(minutes=95)) == (
        'changes(X{Hostname=~"n1"}[5700s])'
    )
    assert scope.render("changes(X[$window])") == "changes(X[3600s])"
