"""What a log cluster is and whether the tools can read it: for `doctor`, in one call that never raises.

It answers what a responder needs before the first incident: which flavour and version answered,
the licence (and so whether `categorize_text` will group the signatures or they will be mined),
which field preset the index matches, and the problems found on the way, in plain lines.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from tools.logs.client import Flavour, LogClient
from tools.logs.fields import PRESETS, choose
from tools.logs.signatures import CATEGORIZE
from tools.logs.tool import FIELD_SETTINGS
from tools.result import describe_error

PLATINUM = frozenset({"platinum", "enterprise", "trial"})
MINED = "signatures are mined with drain3 from the problem lines (a time-spread sample beyond 2,000)"


@dataclass(frozen=True)
class LogsProbe:
    """What the probe found. `error` is set when the cluster could not be read at all; `blocker`
    when it answers but the tools would read no log line from `index` (no such index, no documents,
    fields no preset reads)."""

    flavour: str | None = None  # "elasticsearch" or "opensearch"
    version: str | None = None
    licence: str | None = None
    categorize_text: bool = False
    preset: str | None = None
    problems: list[str] = field(default_factory=list)
    error: str | None = None
    blocker: str | None = None
    documents: int | None = None


def probe_logs(
    url: str,
    *,
    index: str,
    api_key: str | None,
    timeout: float,
    backend: str = "auto",
    fields: str = "auto",
) -> LogsProbe:
    """Ask the cluster at `url` what it is and whether `index` can be read; never raises."""
    try:
        client = LogClient(url, timeout=timeout, api_key=api_key, backend=backend)
    except ValueError as exc:
        return LogsProbe(error=str(exc))
    if fields not in FIELD_SETTINGS:
        return LogsProbe(error=f"logs fields must be one of {', '.join(FIELD_SETTINGS)}, not {fields!r}")
    try:
        return _probe(client, index, fields)
    except Exception as exc:
        return LogsProbe(error=_unreachable(exc))
    finally:
        client.close()


def _probe(client: LogClient, index: str, fields: str) -> LogsProbe:
    server = client.server()
    problems: list[str] = []
    licence: str | None = None
    if server.flavour is Flavour.ELASTICSEARCH:
        try:
            licence = client.licence()
        except Exception as exc:
            problems.append(f"the licence could not be read ({describe_error(exc)}): signatures may be mined")
    categorize = server.flavour is Flavour.ELASTICSEARCH and licence in PLATINUM
    if server.flavour is Flavour.OPENSEARCH:
        problems.append(f"OpenSearch has no {CATEGORIZE}: {MINED}")
    elif licence is not None and not categorize:
        problems.append(f"the {licence} licence refuses {CATEGORIZE}: {MINED}")
    found = LogsProbe(
        flavour=server.flavour.value, version=server.version, licence=licence, categorize_text=categorize
    )
    try:
        count = client.count(index)
    except Exception as exc:
        if "index_not_found" in str(exc):
            return replace(
                found, problems=problems, blocker=f"index {index} does not exist (check LOGS_INDEX)"
            )
        return replace(found, problems=problems, blocker=f"index {index}: {describe_error(exc)}")
    wanted = sorted({n for p in PRESETS.values() for n in p.candidates()})
    try:
        answer = client.field_caps(index, wanted)
    except Exception as exc:
        problems.append(f"the fields of {index} could not be read ({describe_error(exc)}): ECS is assumed")
        return replace(found, problems=problems, documents=count)
    if answer.get("indices") == []:
        return replace(found, problems=problems, documents=0, blocker=f"LOGS_INDEX {index} matches no index")
    if count == 0:
        return replace(found, problems=problems, documents=0, blocker=f"index {index} has no documents")
    chosen, mismatch = choose(dict(answer.get("fields") or {}), fields)
    blocker = None
    if mismatch and fields != "auto":
        other, _ = choose(dict(answer.get("fields") or {}), "auto")
        hint = (
            f": they match {other.preset} (set LOGS_FIELDS={other.preset} or auto)" if other.matched else ""
        )
        blocker = f"LOGS_FIELDS={fields} does not match the fields of {index}{hint}"
    elif mismatch:
        blocker = f"{index}: {mismatch}"
    problems += list(chosen.problems)
    preset = chosen.preset if chosen.matched else None
    return replace(found, preset=preset, problems=problems, documents=count, blocker=blocker)


def _unreachable(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None) or getattr(getattr(exc, "meta", None), "status", None)
    if status in (401, 403):
        return f"unauthorised ({status}): check ELASTICSEARCH_API_KEY or the URL's credentials"
    name = type(exc).__name__
    if name == "UnsupportedProductError":
        return "the server is neither Elasticsearch nor OpenSearch (or LOGS_BACKEND names the wrong one)"
    if isinstance(status, int) and (300 <= status < 400 or status == 404):
        return f"HTTP {status} at the root: not an Elasticsearch or OpenSearch API (check ELASTICSEARCH_URL)"
    return describe_error(exc)
