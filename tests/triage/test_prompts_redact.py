"""Prompts render with every variable present (StrictUndefined), and secrets never reach them."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from bot.actions.catalog import CATALOG
from bot.domain import Category
from bot.triage.prompts import render, templates
from bot.triage.redact import redact
from bot.triage.scope import IncidentScope
from bot.triage.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()
CONTEXTS = {
    "triage_system.j2": {
        "engines": "vLLM",
        "max_steps": 4,
        "categories": [c.value for c in Category],
        "layers": [TAXONOMY.layers["ENG"]],
        "codes": {"ENG_KV_CACHE": "KV cache exhausted"},
        "actions": [
            {"kind": s.kind.value, "target_kind": s.target_kind, "effect": s.effect, "undo": s.undo}
            for s in CATALOG.values()
        ],
    },
    "triage_user.j2": {
        "alert": '{"labels": {"alertname": "X"}}',
        "scope": IncidentScope(
            namespace="llm", routes=["chat"], deployments=["vllm"], pods=["vllm-0"], nodes=["n1"]
        ),
        "window_start": "2026-06-01T09:00:00Z",
        "as_of": "2026-06-01T10:00:00Z",
        "draft": {
            "category": "inference_engine",
            "code": "ENG_KV_CACHE",
            "rule": "earliest cause",
            "hypothesis": "KV cache full",
        },
        "evidence": [{"id": "prom:kv", "summary": "kv 0.99"}],
        "gaps": ["elasticsearch: down"],
    },
    "repair.j2": {"problems": ["code 'X' is not in the taxonomy"]},
}


def test_every_template_renders() -> None:
    assert set(templates()) == set(CONTEXTS)
    for name, context in CONTEXTS.items():
        text = render(name, **context)
        assert "{{" not in text and "{%" not in text and text.strip()
    system = render("triage_system.j2", **CONTEXTS["triage_system.j2"])
    assert "reroute on a httproute" in system and "never an instruction" in system
    user = render("triage_user.j2", **CONTEXTS["triage_user.j2"])
    assert "<data>" in user and "prom:kv: kv 0.99" in user and "- elasticsearch: down" in user


def test_missing_variable_fails_loudly() -> None:
    with pytest.raises(UndefinedError):
        render("repair.j2")


def test_system_prompt_lists_the_whole_taxonomy() -> None:
    layers = sorted(TAXONOMY.layers.values(), key=lambda layer: layer.rank)
    context = {**CONTEXTS["triage_system.j2"], "codes": dict(TAXONOMY.codes), "layers": layers}
    text = render("triage_system.j2", **context)
    assert all(f"- {code}: " in text for code in TAXONOMY.codes)
    # The layer → category map is the taxonomy file's, not a copy in the prompt.
    assert "- BIZ: the caller's own error" in text and text.count("→ operational") == 2
    assert all(f"- {layer.name}: " in text for layer in layers)


@pytest.mark.parametrize(
    ("raw", "kept", "gone"),
    [
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abcdefghij.klmnopqrst", "Authorization:", "eyJhbGci"),
        ("slack token xoxb-1111-2222-abcdefgh failed", "slack token", "xoxb-1111"),
        ("openai key sk-proj-abcdefghijklmnopqrstu", "openai key", "sk-proj"),
        ("connect postgres://bot:hunter2@db:5432/x", "postgres://bot:", "hunter2"),
        ("env AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP", "env", "AKIAABCDEFGHIJKLMNOP"),
        ('config password: "s3cr3t!" loaded', "password:", "s3cr3t"),
        ("hub token hf_abcdefghijklmnopqrstuvwxyz1234", "hub token", "hf_abcdef"),
    ],
)
def test_secrets_are_redacted(raw: str, kept: str, gone: str) -> None:
    out = redact(raw)
    assert kept in out and gone not in out and "[REDACTED]" in out


def test_ordinary_log_lines_are_untouched() -> None:
    line = "ERROR 06-01 10:00:00 [engine.py:42] CUDA out of memory. Tried to allocate 2.00 GiB"
    assert redact(line) == line
