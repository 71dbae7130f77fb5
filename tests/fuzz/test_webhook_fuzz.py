"""The Alertmanager webhook under fuzzed input: real notifications from the scenario packs, mutated
field by field, and bodies that are not notifications at all. Whatever arrives, the answer is 200,
400 or 401 (never a 5xx, which Alertmanager would retry without end); a refusal says why and
stores nothing; an accepted notification can be read back."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.alertmanager import MAX_BODY_BYTES, parse_payload
from tests.conftest import ALERTMANAGER_TOKEN, ROOT, api_headers
from tests.fuzz.mutations import (
    RAN,
    Served,
    counted,
    deep,
    encode,
    fuzz,
    json_value,
    odd_numbers,
    odd_text,
    refusal,
    serve,
    timestamps,
)
from tests.support.store import totals

# Each test runs its cases against a live app; on a loaded machine that takes longer than most.
pytestmark = pytest.mark.timeout(300)

BASES = [json.loads(p.read_text()) for p in sorted((ROOT / "scenarios").glob("*/alert.json"))]
WEBHOOK = "/webhooks/alertmanager"
GOOD = f"Bearer {ALERTMANAGER_TOKEN}".encode()
# (Authorization header, whether it carries the token)
TOKENS: list[tuple[bytes | None, bool]] = [
    (GOOD, True),
    (f"bearer {ALERTMANAGER_TOKEN}".encode(), True),
    (None, False),
    (b"", False),
    (b"Bearer", False),
    (b"Bearer wrong", False),
    (f"Basic {ALERTMANAGER_TOKEN}".encode(), False),
    (f"Bearer {ALERTMANAGER_TOKEN}x".encode(), False),
    (b"Bearer \xff\xfe", False),
]


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serve(request, tmp_path_factory.mktemp("webhook")) as running:
        yield running


# -- mutations of a real notification --------------------------------------------------------------
def _slots(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside `value` (dict keys and list indexes)."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else []
    for key, child in items:
        yield (*path, key)
        yield from _slots(child, (*path, key))


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        doc = doc[key]
    return doc


@st.composite
def mutated(draw: st.DrawFn) -> Any:
    """A scenario's notification with up to five mutations: a field dropped, retyped, set to odd
    text, odd times, odd numbers, many alerts, shared fingerprints, odd labels, deep nesting."""
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    if draw(st.booleans()):  # a group of its own: opens an incident rather than attaching
        doc["groupKey"] = draw(odd_text)
    for _ in range(draw(st.integers(0, 5))):
        op = draw(
            st.sampled_from(["drop", "retype", "text", "time", "number", "many", "fp", "label", "deep"])
        )
        alerts = doc.get("alerts") if isinstance(doc, dict) else None
        alert = draw(st.sampled_from(alerts)) if isinstance(alerts, list) and alerts else None
        if op in ("drop", "retype", "text", "deep"):
            slots = list(_slots(doc))
            if not slots:
                continue
            path = draw(st.sampled_from(slots))
            parent = _parent(doc, path)
            if op == "drop":
                del parent[path[-1]]
            elif op == "retype":
                parent[path[-1]] = draw(json_value)
            elif op == "text":
                parent[path[-1]] = draw(odd_text)
            else:
                parent[path[-1]] = deep(
                    draw(st.sampled_from([5, 200, 500])), draw(st.sampled_from(["list", "d"]))
                )
        elif op == "time" and isinstance(alert, dict):
            alert[draw(st.sampled_from(["startsAt", "endsAt"]))] = draw(timestamps)
        elif op == "number" and isinstance(doc, dict):
            doc[draw(st.sampled_from(["truncatedAlerts", "version"]))] = draw(odd_numbers)
        elif op == "many" and isinstance(alerts, list) and alerts:
            fresh = draw(st.booleans())
            doc["alerts"] = [
                {**a, "fingerprint": f"{i:016x}"} if fresh and isinstance(a, dict) else a
                for i, a in enumerate(alerts * draw(st.integers(2, 60)))
            ]
        elif op == "fp" and isinstance(alerts, list):
            shared = draw(st.one_of(odd_text, st.just("f2842ee506976c51")))
            for a in alerts:
                if isinstance(a, dict):
                    a["fingerprint"] = shared
        elif op == "label" and isinstance(alert, dict):
            where = draw(st.sampled_from(["alert", "commonLabels", "commonAnnotations", "groupLabels"]))
            target = alert.get("labels") if where == "alert" else doc.get(where)
            if isinstance(target, dict):
                key = draw(st.sampled_from(["alertname", "service", "model", "namespace", "severity", "pod"]))
                target[draw(st.one_of(st.just(key), odd_text))] = draw(odd_text)
    return doc


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """A webhook body: mostly mutated notifications, escaped or raw, sometimes bytes spliced in;
    else JSON that is not an object, random bytes, or very deep nesting."""
    kind = draw(st.sampled_from(["notification"] * 6 + ["json", "bytes", "deep"]))
    if kind == "json":
        return encode(draw(json_value), draw(st.booleans()))
    if kind == "bytes":
        return draw(st.binary(max_size=300))
    if kind == "deep":
        depth = draw(st.sampled_from([100, 1_000, 100_000]))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        return (opener * depth + "1" + closer * depth).encode()
    body = encode(draw(mutated()), draw(st.booleans()))
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(body)))
        body = body[:at] + draw(st.binary(min_size=1, max_size=8)) + body[at:]
    if draw(st.integers(0, 19)) == 0:
        body = body[: draw(st.integers(0, len(body)))]
    return body


def check_webhook(served: Served, body: bytes, auth: bytes | None, authorised: bool) -> None:
    """The properties of one request (see the module's docstring)."""
    headers: dict[str, bytes] = {"Content-Type": b"application/json"}
    if auth is not None:
        headers["Authorization"] = auth
    before = totals(served.db)
    response = served.client.post(WEBHOOK, content=body, headers=headers)
    assert response.status_code in (200, 400, 401), (response.status_code, response.text[:500], body[:300])
    if not authorised:
        assert response.status_code == 401
    if response.status_code != 200:
        refusal(response)
        assert totals(served.db) == before, body[:300]
        return
    answer = response.json()
    assert answer["outcome"] in ("opened", "attached", "ignored")
    if answer["incident_id"] is None:
        assert totals(served.db) == before
        return
    stored = served.client.get(f"/api/incidents/{answer['incident_id']}", headers=api_headers())
    assert stored.status_code == 200, stored.text[:500]
    sent = {a.fingerprint for a in parse_payload(body).alerts}
    assert sent <= {a["fingerprint"] for a in stored.json()["alerts"]}


def _base(**changes: Any) -> bytes:
    doc = copy.deepcopy(BASES[0])
    doc["groupKey"] = f"explicit {sorted(changes)}"
    for key, value in changes.items():
        doc["alerts"][0][key] = value
    return json.dumps(doc).encode()


def test_mutated_notifications_are_stored_or_refused_with_a_reason(served: Served) -> None:
    """Mutated scenario notifications and non-notifications, with the right token."""

    @fuzz(300)
    @given(body=bodies())
    @example(body=b"x" * (MAX_BODY_BYTES + 1))
    @example(body=_base(startsAt="0001-01-01T00:00:00+05:00"))
    @example(body=_base(startsAt="9999-12-31T23:59:59-05:00"))
    @example(body=_base(endsAt="0001-01-01T00:00:00-05:00"))
    @example(body=_base(labels={"alertname": "A" * 201, "service": "s" * 300}))
    @example(body=b'{"version": "4", "truncatedAlerts": ' + b"9" * 5000 + b"}")
    def check(body: bytes) -> None:
        RAN["webhook-body"] += 1
        check_webhook(served, body, GOOD, True)

    with counted("webhook-body", 300):
        check()


def test_the_token_is_checked_before_the_body(served: Served) -> None:
    """Without the token every body is 401 and stores nothing; with it, the same properties hold."""

    @fuzz(100)
    @given(body=bodies(), token=st.sampled_from(TOKENS))
    def check(body: bytes, token: tuple[bytes | None, bool]) -> None:
        RAN["webhook-token"] += 1
        check_webhook(served, body, *token)

    with counted("webhook-token", 100):
        check()
