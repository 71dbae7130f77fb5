"""Channel names follow Slack's rules whatever the template and the incident hold."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.domain import Incident, IncidentStatus, Severity
from bot.slack.names import MAX_NAME, candidates, channel_name

ALLOWED = set("abcdefghijklmnopqrstuvwxyz0123456789-_")


def incident(**changes: object) -> Incident:
    values: dict[str, object] = {
        "id": 42,
        "title": "TTFT burning",
        "status": IncidentStatus.OPEN,
        "severity": Severity.CRITICAL,
        "category": None,
        "group_key": None,
        "service": "vLLM Llama-3.1 8B / Support",
        "model": None,
        "namespace": None,
        "alertname": "SupportBotTTFTHigh",
        "query": None,
        "value": None,
        "started_at": datetime(2026, 6, 16, 18, 51, tzinfo=UTC),
        "opened_at": datetime(2026, 6, 16, 18, 52, tzinfo=UTC),
        "acknowledged_at": None,
        "acknowledged_by": None,
        "resolved_at": None,
        "resolved_by": None,
        "resolution": None,
        "labels": {},
    }
    values.update(changes)
    return Incident.model_validate(values)


def test_default_template_lowercases_and_replaces_what_slack_refuses() -> None:
    assert (
        channel_name("inc-{date}-{service}-{id}", incident()) == "inc-20260616-vllm-llama-3-1-8b-support-42"
    )


@pytest.mark.parametrize(
    ("template", "changes", "expected"),
    [
        ("inc-{date}-{service}-{id}", {"service": None}, "inc-20260616-supportbotttfthigh-42"),
        ("inc-{date}-{service}-{id}", {"service": None, "alertname": None}, "inc-20260616-ttft-burning-42"),
        ("{severity}_{alertname}", {}, "critical_supportbotttfthigh"),
        ("INC {id}!!", {}, "inc-42"),
        ("---", {}, "inc-42"),
    ],
)
def test_templates_and_missing_names(template: str, changes: dict[str, object], expected: str) -> None:
    assert channel_name(template, incident(**changes)) == expected


def test_long_names_are_cut_to_80_keeping_the_id() -> None:
    name = channel_name("inc-{date}-{service}-{id}", incident(service="x" * 200))
    assert len(name) == MAX_NAME and name.endswith("-42") and set(name) <= ALLOWED


def test_taken_names_get_numbered_suffixes_within_the_limit() -> None:
    long = channel_name("inc-{date}-{service}-{id}", incident(service="y" * 200))
    names = candidates(long, tries=3)
    assert names[0] == long and [n[-2:] for n in names[1:]] == ["-2", "-3"]
    assert all(len(n) <= MAX_NAME and set(n) <= ALLOWED for n in names)
