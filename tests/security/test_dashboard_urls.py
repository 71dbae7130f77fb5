"""Dashboard links are filled from alert labels: a label value chooses what the dashboard shows,
never where the link leads. Hypothesis throws hostile values (hosts, `@`, `../`, `#`, `?x=`, `%2F`,
whitespace, `javascript:`) at the templates; the scheme, the host and the literal path stay the
template's, and each value comes back whole when its place in the URL is decoded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.announce import build_announcement
from bot.config import BotConfig, Dashboard, Service
from bot.domain import Incident, IncidentDetail, IncidentStatus, Severity

TEMPLATES = [
    "https://grafana.example/d/vllm/engine?var-ns={namespace}&var-svc={service}&from={from_ms}&to={to_ms}",
    "https://grafana.example/d/{service}/by-service?var-model={model}",
    "http://kibana.internal:5601/app/discover#/?_g=(time:(from:'{from_iso}',to:'{to_iso}'))&q={alertname}",
    "https://grafana.example/explore/{namespace}/{service}/{model}",
]
HOSTILE = st.sampled_from(
    [
        "evil.com/",
        "@evil.com",
        "user@evil.com:443",
        "../../admin",
        "..",
        ".",
        "#frag",
        "?x=1&admin=true",
        "%2F%2Fevil.com",
        "%2e%2e",
        " spaced out\tand\nnewlined",
        "javascript:alert(1)",
        "//evil.com",
        "\\\\evil.com",
        "a/b?c#d@e:f",
    ]
)
VALUES = st.one_of(HOSTILE, st.text(max_size=40), st.builds("".join, st.lists(HOSTILE, max_size=3)))


def literal_path(template: str) -> str:
    """The template's path up to its first placeholder: what no value may change."""
    head = template.split("{", 1)[0]
    return urlsplit(head).path


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(template=st.sampled_from(TEMPLATES), namespace=VALUES, service=VALUES, model=VALUES, name=VALUES)
def test_label_values_never_move_a_dashboard_link(
    template: str, namespace: str, service: str, model: str, name: str
) -> None:
    board = Dashboard(title="board", url=template)
    url = board.render(
        namespace=namespace,
        service=service,
        model=model,
        alertname=name,
        incident_id="7",
        from_ms="1",
        to_ms="2",
        from_iso="2026-06-01T09:00:00Z",
        to_iso="2026-06-01T10:00:00Z",
    )
    got, want = urlsplit(url), urlsplit(template.split("{", 1)[0])
    assert (got.scheme, got.netloc) == (want.scheme, want.netloc), url
    assert got.path.startswith(literal_path(template)), url
    assert not any(c.isspace() for c in url), url
    # No segment a browser would resolve as `.` or `..` (WHATWG counts %2e as a dot).
    segments = [unquote(s).lower() for s in got.path.split("/")]
    assert "." not in segments and ".." not in segments, url
    if template.startswith("https://grafana.example/d/vllm/"):
        # Each value is one query parameter, whole: it cannot add parameters or a fragment.
        query = parse_qs(got.query, keep_blank_values=True)
        assert set(query) == {"var-ns", "var-svc", "from", "to"} and got.fragment == "", url
        assert query["var-ns"] == [namespace if namespace.strip(".") else ""], url


@pytest.mark.parametrize(
    "template",
    ["https://{namespace}.grafana.example/d", "https://grafana.example{service}/d", "{service}://g/d"],
)
def test_a_placeholder_in_the_scheme_or_host_is_refused_at_load(template: str) -> None:
    with pytest.raises(ValidationError):
        Dashboard(title="board", url=template)


def test_the_announcement_links_stay_on_the_configured_host() -> None:
    """End to end through the announcement: hostile labels stored on an incident."""
    now = datetime(2026, 6, 1, 10, tzinfo=UTC)
    incident = Incident(
        id=3,
        title="p95 latency",
        status=IncidentStatus.OPEN,
        severity=Severity.MAJOR,
        category=None,
        group_key=None,
        service="svc",
        model="@evil.com/x",
        namespace="../../evil.com?x=",
        alertname="#<!channel>",
        query=None,
        value=None,
        started_at=now - timedelta(minutes=5),
        opened_at=now,
        acknowledged_at=None,
        acknowledged_by=None,
        resolved_at=None,
        resolved_by=None,
        resolution=None,
        labels={},
    )
    config = BotConfig(
        services=[Service(name="svc", dashboards=[Dashboard(title="t", url=TEMPLATES[3])])],
        dashboards=[Dashboard(title="g", url=TEMPLATES[0])],
    )
    detail = IncidentDetail(incident=incident, alerts=[], timeline=[])
    links = build_announcement(detail, config, now=now).dashboards
    assert [urlsplit(link.url).netloc for link in links] == ["grafana.example", "grafana.example"]
    explore = urlsplit(links[1].url).path
    assert explore.startswith("/explore/") and explore.count("/") == 4, explore
