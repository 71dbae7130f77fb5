"""The Kubernetes stand-in's rules for objects: normalising loaded ones and checking writes to them.

Loaded objects become plain JSON as the server returns it (RFC 3339 timestamps, quantities as
strings, string-only labels and annotations). Writes are checked as the API server checks them:
`dryRun` values, an object's identity (no renaming, moving or retyping), delete preconditions and
grace periods, with the same `Status` codes and messages.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from typing import Any

from starlette.datastructures import QueryParams

from bot.sandbox.kubernetes.patch import decode_json
from bot.sandbox.kubernetes.resources import ApiFailure, Obj, Resource, status_details

_QUANTITY_MAPS = frozenset(
    {"capacity", "allocatable", "limits", "requests", "allocatedResources", "hard", "used"}
)
_OPTIONS = {"PATCH": "PatchOptions", "PUT": "UpdateOptions", "DELETE": "DeleteOptions"}


# --- write helpers ---------------------------------------------------------------------------------


def is_dry_run(method: str, query: QueryParams, body: bytes) -> bool:
    """`dryRun=All` or nothing; any other value is refused as the real server refuses it: 422 Invalid."""
    values = query.getlist("dryRun")
    if method in ("DELETE", "POST") and body.strip():
        options = decode_json(body)
        if method == "POST" and isinstance(options, dict):
            options = options.get("deleteOptions")  # an Eviction carries the delete's options
        if isinstance(options, dict):
            values += options.get("dryRun") or []
    if any(value != "All" for value in values):
        shown = "[]string{" + ", ".join(json.dumps(value) for value in values) + "}"
        kind = _OPTIONS.get(method, "CreateOptions")
        raise ApiFailure(
            422,
            f'{kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: {shown}: supported values: "All"',
        )
    return bool(values)


def check_identity(res: Resource, stored: Obj, candidate: Obj) -> None:
    """A write may not rename, move or retype the object it addresses (400, as the server answers)."""
    meta, before = candidate["metadata"], stored["metadata"]
    kind, api_version = candidate.get("kind", res.kind), candidate.get("apiVersion", res.api_version)
    if (kind, api_version) != (res.kind, res.api_version):
        raise ApiFailure(
            400, f"{api_version} {kind} does not match the {res.api_version} {res.kind} addressed"
        )
    if meta.get("name", before["name"]) != before["name"]:
        name, url_name = meta.get("name"), before["name"]
        raise ApiFailure(
            400, f"the name of the object ({name}) does not match the name on the URL ({url_name})"
        )
    if res.namespaced and meta.get("namespace", before.get("namespace")) != before.get("namespace"):
        raise ApiFailure(
            400, "the namespace of the provided object does not match the namespace sent on the request"
        )


def check_preconditions(res: Resource, stored: Obj, preconditions: Mapping[str, Any]) -> None:
    meta = stored["metadata"]
    for field, label in (("uid", "UID"), ("resourceVersion", "ResourceVersion")):
        wanted = preconditions.get(field)
        if wanted is not None and wanted != meta.get(field):
            have = meta.get(field)
            message = (
                f"Precondition failed: {label} in precondition: {wanted}, {label} in object meta: {have}"
            )
            raise ApiFailure(409, message, details=status_details(res, meta["name"]))


def grace_period(pod: Obj, query: QueryParams, options: Mapping[str, Any]) -> int:
    given = query.get("gracePeriodSeconds", options.get("gracePeriodSeconds"))
    if given is None:
        return int((pod.get("spec") or {}).get("terminationGracePeriodSeconds", 30))
    try:
        return max(int(given), 0)
    except ValueError as exc:
        raise ApiFailure(400, f"gracePeriodSeconds: invalid value {given!r}") from exc


def mark_terminating(pod: Obj, grace: int, now: datetime) -> None:
    if grace > 0:
        pod["metadata"]["deletionTimestamp"] = rfc3339(now + timedelta(seconds=grace))
        pod["metadata"]["deletionGracePeriodSeconds"] = grace


def spec_part(obj: Obj) -> Obj:
    return {key: value for key, value in obj.items() if key not in ("metadata", "status")}


def without_nulls(value: Any) -> Any:
    """A built-in object as the server's typed decoding keeps it: a null field is no field.

    kubectl sends `creationTimestamp: null` in every pod template it writes (Go's encoding), a
    Python client does not; on a real cluster both are the same object, so they are here too.
    """
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def scaled(value: Any, total: int, *, round_up: bool) -> int:
    """An IntOrString (3, "25%") against a total, as maxSurge, maxUnavailable and minAvailable read."""
    if isinstance(value, str) and value.endswith("%"):
        share = total * float(value[:-1]) / 100
        return math.ceil(share) if round_up else math.floor(share)
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


# --- normalisation of loaded objects ---------------------------------------------------------------


def rfc3339(moment: datetime) -> str:
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def jsonable(value: Any, parent: str = "") -> Any:
    """Plain JSON as the server would return it: YAML timestamps as RFC 3339, quantities as strings."""
    if isinstance(value, datetime):
        return rfc3339(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {
            str(k): _quantity(v) if parent in _QUANTITY_MAPS else jsonable(v, str(k))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [jsonable(item, parent) for item in value]
    return value


def _quantity(value: Any) -> Any:
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else jsonable(value)


def check_string_maps(res: Resource, meta: Mapping[str, Any]) -> None:
    """Labels and annotations are string maps; the real server would have refused anything else."""
    for field in ("labels", "annotations"):
        for key, value in (meta.get(field) or {}).items():
            if not isinstance(value, str):
                raise ValueError(
                    f"{res.kind} {meta.get('name')}: metadata.{field}.{key} must be a string: {value!r}"
                )
