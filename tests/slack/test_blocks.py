"""Every message the bot builds is valid Block Kit: built with slack_sdk's models (their own
checks run on `to_dict`) and passed through the stand-in's checks of Slack's limits, for real
triages and for the worst that data can do (long hypotheses, forty evidence items, markup)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bot.announce import Announcement, DashboardLink
from bot.domain import (
    ActionProposal,
    Category,
    IncidentSummary,
    ProposedAction,
    StoredTriage,
    TriageResult,
)
from bot.sandbox.slack.blocks import check_blocks, check_view
from bot.slack.blocks.announcement import announcement_blocks
from bot.slack.blocks.notices import resolve_modal, resolved_blocks
from bot.slack.blocks.progress import ProgressView
from bot.slack.blocks.triage import MAX_ACTIONS, triage_blocks
from bot.triage.progress import ProgressEvent
from tests.slack.test_names import incident

AT = datetime(2026, 6, 16, 18, 51, tzinfo=UTC)
HOSTILE = "<!channel> *bold* <https://evil.example|click me> & ```code``` " * 40


def as_dicts(blocks: list[Any]) -> list[dict[str, Any]]:
    return [b.to_dict() for b in blocks]


def mrkdwn(node: Any) -> list[str]:
    """Every mrkdwn text of the blocks (plain_text is never parsed for mentions or links)."""
    if isinstance(node, dict):
        own = [str(node["text"])] if node.get("type") == "mrkdwn" else []
        return own + [t for value in node.values() for t in mrkdwn(value)]
    if isinstance(node, list):
        return [t for item in node for t in mrkdwn(item)]
    return []


def announcement(**changes: Any) -> Announcement:
    values: dict[str, Any] = {
        "incident_id": 42,
        "title": "TTFT burning on support",
        "severity": "critical",
        "alertname": "SupportBotTTFTHigh",
        "service": "vllm-llama31-8b-support",
        "model": "llama-3.1-8b",
        "namespace": "support-bot",
        "query": "histogram_quantile(0.95, sum by (le) (rate(vllm:time_per_output_token_seconds_bucket"
        '{namespace="support-bot"}[5m]))) > 0.08',
        "value": "0.141",
        "started_at": AT,
        "dashboards": [DashboardLink(title="vLLM engine", url="https://grafana.example/d/vllm?from=1&to=2")],
        "responders": ["U0ANA", "S0ONCALL", "sre@example.com"],
        "runbook": DashboardLink(title="Runbook", url="https://wiki.example/llm"),
    }
    values.update(changes)
    return Announcement.model_validate(values)


def stored(**changes: Any) -> StoredTriage:
    result: dict[str, Any] = {
        "incident": IncidentSummary(),
        "category": Category.INFERENCE_ENGINE,
        "code": "ENG_KV_CACHE",
        "layer": "ENG",
        "hypothesis": "ENG_KV_CACHE: KV-cache pressure on pod vllm-0 since 18:52:00Z.",
        "confidence": 0.83,
        "evidence": [
            {
                "id": "prom:kv",
                "source": "prometheus",
                "summary": "kv_cache_usage = 0.99",
                "link": "https://prom/graph?x",
            },
            {
                "id": "k8s:rollout:x",
                "source": "kubernetes",
                "summary": "rolled out",
                "link": "kubectl rollout history",
            },
        ],
        "blast_radius": "3 of 3 replicas",
        "actions": [],
        "runbook": "runbooks/kv-cache-exhaustion.md",
        "gaps": ["gpu: no agent on node gpu-node-1: DaemonSet pod missing or not ready"],
    }
    result.update(changes)
    return StoredTriage(
        incident_id=42, run=1, created_at=AT, posted_at=None, result=TriageResult.model_validate(result)
    )


def proposals(n: int) -> list[ActionProposal]:
    action = ProposedAction(
        kind="add_replica", target="deployment/vllm", undo="scale back", rationale="more cache"
    )
    return [
        ActionProposal(id=i, incident_id=42, run=1, position=i, action=action, status="proposed")
        for i in range(n)
    ]


def test_the_announcement_is_valid_and_says_what_fired() -> None:
    blocks = as_dicts(announcement_blocks(announcement()))
    assert check_blocks(blocks) == []
    text = str(blocks)
    assert "histogram_quantile(0.95" in text and "`0.141`" in text
    assert "<@U0ANA>" in text and "<!subteam^S0ONCALL>" in text and "sre@example.com" in text
    assert "<https://grafana.example/d/vllm?from=1&to=2|vLLM engine>" in text and "Runbook" in text


def test_the_triage_post_has_tag_code_evidence_gaps_and_buttons() -> None:
    blocks = as_dicts(
        triage_blocks(incident(), stored(), proposals(2), runbook_url="https://git/runbooks/x.md")
    )
    assert check_blocks(blocks) == []
    assert blocks[0]["text"]["text"] == "Triage: inference_engine · ENG_KV_CACHE"
    text = str(blocks)
    assert (
        "`inference_engine`" in text
        and "83%" in text
        and "<https://prom/graph?x|kv_cache_usage = 0.99>" in text
    )
    assert "rolled out" in text and "<kubectl" not in text  # a command is not made a link
    assert "`kubectl rollout history`" in text  # but shown, to copy
    assert "Not seen: gpu: no agent on node gpu-node-1" in text
    buttons = [e for b in blocks if b["type"] == "actions" for e in b["elements"]]
    assert [(b["action_id"], b["value"]) for b in buttons] == [
        ("approve-proposal", "0"),
        ("reject-proposal", "0"),
        ("approve-proposal", "1"),
        ("reject-proposal", "1"),
    ]
    assert buttons[0]["style"] == "primary" and buttons[0]["confirm"]["confirm"]["text"] == "Approve"


def test_hostile_and_huge_data_is_escaped_and_cut_never_refused() -> None:
    many = [{"id": f"e{i}", "source": "elasticsearch", "summary": HOSTILE, "link": None} for i in range(40)]
    triage = stored(hypothesis=HOSTILE * 3, evidence=many, blast_radius=HOSTILE, gaps=[HOSTILE] * 5)
    blocks = as_dicts(triage_blocks(incident(title=HOSTILE), triage, proposals(12)))
    assert check_blocks(blocks) == [] and len(blocks) <= 50
    text = " ".join(mrkdwn(blocks))
    assert "<!channel>" not in text and "&lt;!channel&gt;" in text  # data never pings anyone
    assert "<https://evil.example" not in text
    assert "and 32 more" in text  # eight shown, the rest counted
    ann = as_dicts(announcement_blocks(announcement(title=HOSTILE, query=HOSTILE * 5, value=HOSTILE)))
    assert check_blocks(ann) == [] and "<!channel>" not in " ".join(mrkdwn(ann))


def test_progress_the_resolved_notice_and_the_modal_are_valid() -> None:
    view = ProgressView(run=2)
    view.add(ProgressEvent(step="gather", tool="prometheus", ms=120.0))
    view.add(ProgressEvent(step="gather", tool="logs", gaps=["elasticsearch: refused"]))
    view.add(ProgressEvent(step="gather"))
    progress = as_dicts(view.blocks())
    assert check_blocks(progress) == [] and "*prometheus* 120 ms" in str(progress)
    assert "elasticsearch: refused" in str(progress) and "attribute" in str(progress)
    assert check_blocks(as_dicts(resolved_blocks(incident()))) == []
    modal = resolve_modal(incident(title=HOSTILE), channel_id="C1").to_dict()
    assert check_view(modal) == [] and modal["callback_id"] == "incident-resolve-modal"


@pytest.mark.parametrize("n", [0, 1, 5, 9])
def test_any_number_of_proposals_fits(n: int) -> None:
    blocks = as_dicts(triage_blocks(incident(), stored(), proposals(n)))
    assert check_blocks(blocks) == []
    assert sum(b["type"] == "actions" for b in blocks) == min(n, MAX_ACTIONS)


def test_evidence_keeps_whole_lines_so_no_link_is_left_open() -> None:
    """Eight evidence items with long Prometheus links overflow a section: the ones that do not fit
    are counted, never cut in the middle of `<url|label>` (Slack would show that raw)."""
    from bot.slack.blocks.text import SECTION
    from bot.slack.blocks.triage import evidence_section

    url = "http://prometheus:9090/graph?g0.expr=" + "histogram_quantile%280.99%2C+sum+by+%28le%29" * 12
    evidence = [
        {
            "source": "prometheus",
            "summary": f"ttft_p99 [pod={n}] = 19.3 s; > 2x baseline since 10:2{n}Z",
            "link": url,
        }
        for n in range(8)
    ]
    text = evidence_section(evidence).text.text  # type: ignore[union-attr]
    assert len(text) <= SECTION
    body, _, more = text.partition("\n… and ")
    assert body.count("<http") == body.count(">") and body.endswith("Z>")
    shown = body.count("<http")
    assert 0 < shown < 8 and more.startswith(f"{8 - shown} more")
