"""Runbooks: every taxonomy code has one; front matter is validated; actions resolve to real targets."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from bot.actions.catalog import CATALOG, ActionKind
from bot.errors import ConfigError
from bot.triage.runbooks import DEFAULT_DIR, ActionContext, Condition, RunbookCatalog, load_runbook
from bot.triage.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()
CONDITIONS = [c for c in get_args(Condition) if c != "always"]


def test_every_code_has_a_runbook_and_its_actions_resolve_safely() -> None:
    catalog = RunbookCatalog.load(DEFAULT_DIR, TAXONOMY)
    for code in [*TAXONOMY.codes, "UNATTRIBUTED"]:
        book = catalog.match(code, None)
        assert book is not None, code
        assert code in book.meta.matches.codes or code == "UNATTRIBUTED", (code, book.id)
    everything = ActionContext(
        targets={"node": "n", "pod": "p", "deployment": "d", "route": "r"},
        **{flag: True for flag in CONDITIONS},
    )
    for book in catalog.runbooks:
        assert book.body.strip(), book.id
        resolved = RunbookCatalog.resolve(book, everything)
        assert len(resolved) == len({(a.kind, a.target) for a in book.meta.actions}), book.id
        for action in resolved:
            assert action.target.split("/")[0] == CATALOG[action.kind].target_kind, (book.id, action)
            assert action.undo.strip() and action.rationale.strip(), (book.id, action.kind)
        for action in book.meta.actions:
            # A node is cordoned only when the fault is the node's, one replica restarted only when
            # it alone fails: never on every replica, never on a node merely hosting the incident.
            if action.kind is ActionKind.CORDON_NODE:
                assert action.when in {"single_node", "hardware_fault"}, book.id
            if action.kind is ActionKind.RESTART_POD:
                assert action.when == "single_pod", book.id


def write(tmp_path: Path, name: str, front: str) -> Path:
    path = tmp_path / f"{name}.md"
    path.write_text(f"---\n{front}---\n# body\n")
    return path


HEAD = "id: x\ntitle: t\nmatches: {codes: [ENG_KV_CACHE]}\n"


def action(kind: str, target: str) -> str:
    return f"actions:\n  - kind: {kind}\n    target: '{target}'\n"


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        (HEAD + action("delete_deployment", "deployment/{deployment}"), "x.md:6: actions[0].kind"),
        (HEAD + action("cordon_node", "deployment/{deployment}"), "cordon_node acts on a node"),
        (HEAD + action("reroute", "httproute/{gateway}"), "unknown placeholder {gateway}"),
        (
            "id: x\ntitle: t\nmatches: {codes: [kv]}\n",
            "x.md:4: matches.codes[0]: 'kv' is not a taxonomy code",
        ),
        (
            "id: x\ntitle: t\nmatches:\n  codes:\n    - ENG_KV_CACHE\n    - ENG_KV_CACH\n",
            "x.md:7: matches.codes[1]: 'ENG_KV_CACH' is not a taxonomy code (did you mean 'ENG_KV_CACHE'?)",
        ),
        ("id: x\ntitle: t\nmatches: {}\n", "at least one code or category"),
        ("id: y\ntitle: t\nmatches: {codes: [ENG_KV_CACHE]}\n", "x.md:2: id: 'y' must equal the file name"),
        ("id: x\ntitle: [unclosed\n", "x.md:3: front matter: not valid YAML"),
    ],
)
def test_invalid_front_matter_names_file_line_field(tmp_path: Path, front: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_runbook(write(tmp_path, "x", front), TAXONOMY)
    assert expected in info.value.message and "x.md" in info.value.message


def test_actions_resolve_only_with_targets_and_conditions(tmp_path: Path) -> None:
    front = (
        "id: x\ntitle: t\nmatches: {codes: [INF_GPU_XID]}\nactions:\n"
        "  - {kind: cordon_node, target: 'node/{node}', when: single_node}\n"
        "  - {kind: rollback_deployment, target: 'deployment/{deployment}', when: rollout}\n"
        "  - {kind: restart_pod, target: 'pod/{pod}'}\n"
    )
    book = load_runbook(write(tmp_path, "x", front), TAXONOMY)
    ctx = ActionContext(targets={"node": "gpu-node-3", "deployment": "vllm"}, single_node=True)
    resolved = RunbookCatalog.resolve(book, ctx)
    assert [(a.kind.value, a.target) for a in resolved] == [("cordon_node", "node/gpu-node-3")]
    assert resolved[0].undo == "uncordon the node (kubectl uncordon)"
