"""The incident API under fuzzed input: write bodies near the schema and far from it, ids that do
not exist or do not fit a BIGINT, odd query strings, wrong tokens. Never a 5xx; a 4xx says why; a
refused write changes no row (a refused action decision writes only its audit entry)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlalchemy import select

from bot.domain import Category, Severity
from bot.store.models import ActionProposalRow, TimelineEventRow
from tests.conftest import API_TOKEN, api_headers
from tests.fuzz.mutations import (
    RAN,
    Served,
    counted,
    deep,
    encode,
    fuzz,
    json_value,
    odd_text,
    refusal,
    serve,
    snapshot,
)

# Each test runs its cases against a live app; on a loaded machine that takes longer than most.
pytestmark = pytest.mark.timeout(300)

WRITES = ["ack", "severity", "category", "notes", "triage", "resolve"]
DECISIONS = ["approve", "reject", "undo"]
HUGE = [2**31, 2**63 - 1, 2**63, 2**64, 10**30]
# Field names of every write body, so that generated bodies often get past the JSON and reach the schema.
FIELDS = ["actor", "title", "severity", "category", "text", "reason", "code", "service", "model", "namespace"]


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The app with three incidents (open, acknowledged, resolved) and one proposal to decide on."""
    with serve(request, tmp_path_factory.mktemp("api")) as running:
        ids = []
        for title in ("open", "acknowledged", "resolved"):
            made = running.client.post(
                "/api/incidents", json={"actor": "U0SEED", "title": title}, headers=api_headers()
            )
            assert made.status_code == 200, made.text
            ids.append(made.json()["id"])
        for verb, body in (("ack", {}), ("resolve", {"reason": "seeded"})):
            done = running.client.post(
                f"/api/incidents/{ids[1 if verb == 'ack' else 2]}/{verb}",
                json={"actor": "U0SEED", **body},
                headers=api_headers(),
            )
            assert done.status_code == 200, done.text
        with running.db.transaction() as session:
            session.add(
                ActionProposalRow(
                    incident_id=ids[0],
                    kind="cordon_node",
                    target="node/gpu-node-1",
                    created_at=datetime.now(UTC),
                )
            )
        yield running


def seeded(served: Served) -> list[int]:
    with served.db.reader() as session:
        return [int(i) for i in session.scalars(select(ActionProposalRow.id))]


ids = st.one_of(st.integers(1, 4), st.integers(0, 10**6), st.sampled_from(HUGE))
field_values = st.one_of(
    odd_text,
    json_value,
    st.sampled_from([s.value for s in Severity] + [c.value for c in Category] + ["U0APPROVE", "U0SEED"]),
)
near_schema = st.dictionaries(st.sampled_from(FIELDS) | odd_text, field_values, max_size=5)


@st.composite
def bodies(draw: st.DrawFn) -> bytes:
    """Mostly JSON objects near the write bodies' schema; else any JSON, bytes, or deep nesting."""
    kind = draw(st.sampled_from(["near"] * 5 + ["json", "bytes", "deep"]))
    if kind == "near":
        return encode(draw(near_schema), draw(st.booleans()))
    if kind == "json":
        return encode(draw(json_value), draw(st.booleans()))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if draw(st.booleans()):
        return b"[" * 100_000 + b"]" * 100_000
    return encode({"actor": deep(draw(st.sampled_from([10, 500])), "list")}, True)


LONG_SERVICE = b'{"actor": "U1", "title": "t", "service": "' + b"s" * 300 + b'"}'
LONG_NUMBER = b'{"actor": "U1", "title": ' + b"9" * 5000 + b"}"
tokens = st.sampled_from([API_TOKEN, API_TOKEN, API_TOKEN, None, "wrong"])


def headers_for(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Content-Type": "application/json"} if token else {}


def check_answer(response: httpx.Response, authorised: bool) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:500])
    if not authorised:
        assert response.status_code == 401
    if response.status_code >= 400:
        refusal(response)
    else:
        assert isinstance(response.json(), dict)


def only_refusals_audited(served: Served, before: dict[str, object], after: dict[str, object]) -> None:
    """A refused decision may add `action_refused` timeline entries (the audit) and nothing else."""
    changed = {k for k in before if before[k] != after[k]}
    assert changed <= {"timeline_events", "timeline_events#"}, changed
    with served.db.reader() as session:
        kinds = session.scalars(
            select(TimelineEventRow.kind)
            .order_by(TimelineEventRow.id.desc())
            .limit(int(str(after["timeline_events"])) - int(str(before["timeline_events"])))
        ).all()
    assert set(kinds) <= {"action_refused"}, kinds


def test_writes_answer_4xx_with_a_reason_and_change_nothing_when_refused(served: Served) -> None:
    """Every incident write endpoint, with fuzzed bodies, ids and tokens."""

    @fuzz(250)
    @given(verb=st.sampled_from([*WRITES, "declare"]), incident=ids, body=bodies(), token=tokens)
    @example(verb="ack", incident=2**63, body=b'{"actor": "U1"}', token=API_TOKEN)
    @example(verb="notes", incident=10**30, body=b'{"actor": "U1", "text": "t"}', token=API_TOKEN)
    @example(verb="declare", incident=0, body=LONG_SERVICE, token=API_TOKEN)
    @example(verb="declare", incident=0, body=LONG_NUMBER, token=API_TOKEN)
    @example(verb="ack", incident=1, body=b"[" * 100_000, token=API_TOKEN)
    def check(verb: str, incident: int, body: bytes, token: str | None) -> None:
        RAN["api-write"] += 1
        path = "/api/incidents" if verb == "declare" else f"/api/incidents/{incident}/{verb}"
        before = snapshot(served.db)
        response = served.client.post(path, content=body, headers=headers_for(token))
        check_answer(response, token == API_TOKEN)
        if response.status_code >= 400:
            assert snapshot(served.db) == before, (path, body[:200], response.text)

    with counted("api-write", 250):
        check()


def test_action_decisions_are_refused_with_a_reason(served: Served) -> None:
    """approve / reject / undo by people who are not approvers, on proposals that exist or not."""

    @fuzz(150)
    @given(verb=st.sampled_from(DECISIONS), proposal=ids, body=bodies(), token=tokens, mine=st.booleans())
    @example(verb="approve", proposal=2**63, body=b'{"actor": "U1"}', token=API_TOKEN, mine=False)
    def check(verb: str, proposal: int, body: bytes, token: str | None, mine: bool) -> None:
        RAN["api-decision"] += 1
        if mine:
            proposal = seeded(served)[0]
        before = snapshot(served.db)
        response = served.client.post(
            f"/api/actions/{proposal}/{verb}", content=body, headers=headers_for(token)
        )
        check_answer(response, token == API_TOKEN)
        assert response.status_code != 200 or b"U0APPROVE" in body, response.text
        if response.status_code >= 400:
            only_refusals_audited(served, before, snapshot(served.db))

    with counted("api-decision", 150):
        check()


def query_path(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    incident = draw(ids)
    which = draw(st.sampled_from(["list", "get", "actions", "postmortem"]))
    # What a URL can carry: no lone surrogates (httpx encodes UTF-8) and a bounded length.
    text = odd_text.map(lambda t: t.encode("utf-8", "surrogatepass").decode("utf-8", "replace")[:2000])
    params = draw(st.dictionaries(st.sampled_from(["status", "format"]) | text, text, max_size=3))
    path = {
        "list": "/api/incidents",
        "get": f"/api/incidents/{incident}",
        "actions": f"/api/incidents/{incident}/actions",
        "postmortem": f"/api/incidents/{incident}/postmortem",
    }[which]
    return path, params


def test_reads_with_odd_ids_and_query_strings_never_fail_with_5xx(served: Served) -> None:
    """GETs change nothing and answer a 2xx, or a 4xx with a reason; paths that are not ids are 404."""

    @fuzz(150)
    @given(
        data=st.data(), token=tokens, raw=st.sampled_from(["", "?status=%ff%fe", "?format=%00", "?status"])
    )
    def check(data: st.DataObject, token: str | None, raw: str) -> None:
        RAN["api-read"] += 1
        path, params = query_path(data.draw)
        before = snapshot(served.db)
        response = served.client.get(path + raw, params=params or None, headers=headers_for(token))
        check_answer(response, token == API_TOKEN)
        after = snapshot(served.db)
        if path.endswith("/postmortem"):  # the first read of a resolved incident's draft stores it
            for state in (before, after):
                state.pop("postmortems"), state.pop("postmortems#")
        assert after == before, path

    with counted("api-read", 150):
        check()
        for odd in ("-1", "abc", "1e3", "%00", "1.5", "%F0%9F%98%80"):
            response = served.client.get(f"/api/incidents/{odd}", headers=api_headers())
            assert response.status_code == 404 and response.text, (odd, response.text)
            response = served.client.post(
                f"/api/incidents/{odd}/ack", json={"actor": "U1"}, headers=api_headers()
            )
            assert response.status_code == 404 and response.text, (odd, response.text)
            RAN["api-read"] += 2
