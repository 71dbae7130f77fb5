"""How a write changes a stored object: the PATCH formats, PUT bodies, the scale view, the cordon taint.

The three PATCH formats the API server accepts without server-side apply: JSON merge patch (RFC 7386),
JSON Patch (RFC 6902) and the strategic merge patch of built-in kinds, the latter reduced to what
kubectl and the Python client send: maps merge, lists named in MERGE_KEYS merge item by item, every
other list is replaced, and the `$patch`, `$retainKeys`, `$deleteFromPrimitiveList` and
`$setElementOrder` directives are understood.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
_UNKNOWN_FORMAT = "the body of the request was in an unknown format - accepted media types include: "

# List fields of built-in kinds that carry `patchStrategy: merge`, and the item key they merge on.
MERGE_KEYS: dict[str, str] = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
    "imagePullSecrets": "name",
    "resourceClaims": "name",
    "conditions": "type",
    "hostAliases": "ip",
    "ownerReferences": "uid",
    "ports": "containerPort",  # Service ports merge on "port"; see _merge_key
}
# Primitive lists with `patchStrategy: merge`: the patch's values are added, not substituted.
MERGE_PRIMITIVES = frozenset({"finalizers"})

_INDEX = re.compile(r"0|[1-9][0-9]*")


class PatchError(ValueError):
    """A write the server refuses: 400 unreadable, 415 wrong content type, 422 cannot be applied."""

    def __init__(self, message: str, *, code: int = 422) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: objects merge recursively, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def apply_patch(stored: dict[str, Any], media: str, body: bytes, *, builtin: bool) -> dict[str, Any]:
    """The object a PATCH asks for; custom resources refuse strategic merge patch (415), as CRDs do."""
    accepted = [JSON_PATCH, MERGE_PATCH, *([STRATEGIC_PATCH] if builtin else [])]
    if media not in accepted:
        raise PatchError(_UNKNOWN_FORMAT + ", ".join(accepted), code=415)
    patch = decode_json(body)
    if media == JSON_PATCH:
        result = json_patch(stored, patch)
    elif media == MERGE_PATCH:
        result = merge_patch(stored, patch)
    else:
        result = strategic_merge_patch(stored, patch)
    if not isinstance(result, dict) or not isinstance(result.get("metadata"), dict):
        raise PatchError(f"the patched object is not an object with metadata: {json.dumps(result)[:200]}")
    return result


def replacement(kind: str, media: str, body: bytes) -> dict[str, Any]:
    """The object a PUT carries; without a Content-Type the server reads JSON (the client sends none)."""
    if media not in ("", "application/json"):
        raise PatchError(_UNKNOWN_FORMAT + "application/json", code=415)
    obj = decode_json(body)
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        raise PatchError(f"the body must be a {kind} object with metadata", code=400)
    return obj


def decode_json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise PatchError(f"error decoding request body: {exc}", code=400) from exc


def scale_of(obj: Mapping[str, Any]) -> dict[str, Any]:
    """The autoscaling/v1 Scale view of a workload."""
    meta, spec = obj["metadata"], obj.get("spec") or {}
    keep = ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {key: meta[key] for key in keep if key in meta},
        "spec": {"replicas": spec.get("replicas", 1)},
        "status": {
            "replicas": (obj.get("status") or {}).get("replicas", 0),
            "selector": selector_text(spec.get("selector") or {}),
        },
    }


def selector_text(selector: Mapping[str, Any]) -> str:
    """A LabelSelector object in the string form Scale.status.selector carries."""
    terms = [f"{key}={value}" for key, value in sorted((selector.get("matchLabels") or {}).items())]
    for expr in selector.get("matchExpressions") or []:
        op, key, values = expr.get("operator"), expr.get("key"), ",".join(expr.get("values") or [])
        shown = {"In": f"{key} in ({values})", "NotIn": f"{key} notin ({values})", "DoesNotExist": f"!{key}"}
        terms.append(shown.get(op, str(key)))
    return ",".join(terms)


def sync_cordon_taint(node: dict[str, Any], stored: Mapping[str, Any], now: str) -> None:
    """Keep the unschedulable taint in step with spec.unschedulable, as the node controller does."""
    spec = node.get("spec")
    if not isinstance(spec, dict):
        return
    taints = [t for t in spec.get("taints") or [] if t.get("key") != UNSCHEDULABLE_TAINT]
    if spec.get("unschedulable"):
        before = (stored.get("spec") or {}).get("taints") or []
        kept = next((t for t in before if t.get("key") == UNSCHEDULABLE_TAINT), None)
        taints.append(kept or {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule", "timeAdded": now})
    if taints:
        spec["taints"] = taints
    else:
        spec.pop("taints", None)


# --- strategic merge patch -------------------------------------------------------------------------

_DELETE = object()  # a map patched with `$patch: delete` disappears from its parent


def strategic_merge_patch(target: dict[str, Any], patch: Any) -> dict[str, Any]:
    """Apply a strategic merge patch to a built-in object."""
    if not isinstance(patch, dict):
        raise PatchError("strategic merge patch body must be a JSON object", code=400)
    merged = _merge_map(target, patch)
    return {} if merged is _DELETE else merged


def _merge_map(target: dict[str, Any], patch: dict[str, Any]) -> Any:
    directive = patch.get("$patch")
    if directive == "delete":
        return _DELETE
    if directive == "replace":
        return _clean(patch)
    if directive is not None:
        raise PatchError(f"unknown patch directive {directive!r}", code=400)
    result = copy.deepcopy(target)
    for key, value in patch.items():
        if key.startswith("$"):
            continue
        if value is None:
            result.pop(key, None)
            continue
        merged = _merge_value(key, result.get(key), value)
        if merged is _DELETE:
            result.pop(key, None)
        else:
            result[key] = merged
    _apply_list_deletions(result, patch)
    if "$retainKeys" in patch:
        keep = set(patch["$retainKeys"] or [])
        result = {key: value for key, value in result.items() if key in keep}
    return result


def _merge_value(key: str, current: Any, value: Any) -> Any:
    if isinstance(value, dict):
        return _merge_map(current if isinstance(current, dict) else {}, value)
    if isinstance(value, list) and key in MERGE_PRIMITIVES:
        return [*(current or []), *(item for item in value if item not in (current or []))]
    if isinstance(value, list) and key in MERGE_KEYS:
        return _merge_list(
            current if isinstance(current, list) else [], value, _merge_key(key, current, value)
        )
    return _clean(value)


def _merge_key(field: str, current: Any, patch: list[Any]) -> str:
    if field == "ports":
        items = [*(current or []), *patch]
        if not any(isinstance(item, dict) and "containerPort" in item for item in items):
            return "port"
    return MERGE_KEYS[field]


def _merge_list(current: list[Any], patch: list[Any], key: str) -> list[Any]:
    if any(isinstance(item, dict) and item.get("$patch") == "replace" for item in patch):
        return [
            _clean(item) for item in patch if not (isinstance(item, dict) and item.get("$patch") == "replace")
        ]
    result = copy.deepcopy(current)
    for item in patch:
        if not isinstance(item, dict) or key not in item:
            raise PatchError(f"map: {item} does not contain declared merge key: {key}")
        found = next(
            (i for i, have in enumerate(result) if isinstance(have, dict) and have.get(key) == item[key]),
            None,
        )
        if item.get("$patch") == "delete":
            if found is not None:
                del result[found]
            continue
        clean = {k: v for k, v in item.items() if k != "$patch"}
        base = result[found] if found is not None else {}
        merged = _merge_map(base, clean)
        if found is None:
            result.append(merged)
        else:
            result[found] = merged
    return result


def _apply_list_deletions(result: dict[str, Any], patch: dict[str, Any]) -> None:
    for key, values in patch.items():
        field = key.removeprefix("$deleteFromPrimitiveList/")
        if field != key and isinstance(result.get(field), list):
            result[field] = [item for item in result[field] if item not in (values or [])]


def _clean(value: Any) -> Any:
    """A copy of a patch value without directive keys, for parts that replace rather than merge."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


# --- JSON Patch ------------------------------------------------------------------------------------


def json_patch(document: Any, operations: Any) -> Any:
    """RFC 6902 add, remove, replace, move, copy and test, applied in order to a copy."""
    if not isinstance(operations, list):
        raise PatchError("json patch body must be a JSON array of operations", code=400)
    result = copy.deepcopy(document)
    for operation in operations:
        result = _operate(result, operation)
    return result


def _operate(doc: Any, operation: Any) -> Any:
    if not isinstance(operation, dict) or not isinstance(operation.get("path"), str):
        raise PatchError(f"invalid JSON patch operation: {operation!r}")
    op, path = operation.get("op"), operation["path"]
    tokens = pointer_tokens(path)
    if op in ("add", "replace", "test") and "value" not in operation:
        raise PatchError(f"{op} operation at {path} has no value")
    if op == "add":
        return _add(doc, tokens, copy.deepcopy(operation["value"]))
    if op == "remove":
        return _remove(doc, tokens, path)
    if op == "replace":
        _get(doc, tokens, path)
        value = copy.deepcopy(operation["value"])
        return _add(_remove(doc, tokens, path), tokens, value) if tokens else value
    if op == "test":
        if not same_json(_get(doc, tokens, path), operation["value"]):
            raise PatchError(f"testing value {path} failed: test failed")
        return doc
    if op in ("move", "copy"):
        source = operation.get("from")
        if not isinstance(source, str):
            raise PatchError(f"{op} operation at {path} has no from")
        value = copy.deepcopy(_get(doc, pointer_tokens(source), source))
        if op == "move":
            doc = _remove(doc, pointer_tokens(source), source)
        return _add(doc, tokens, value)
    raise PatchError(f"Unexpected kind: {op}")


def pointer_tokens(pointer: str) -> list[str]:
    """RFC 6901: '' is the whole document; '~1' is '/', '~0' is '~'."""
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError(f"JSON pointer must start with '/': {pointer!r}")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def _index(items: list[Any], token: str, path: str, *, append: bool) -> int:
    if append and token == "-":
        return len(items)
    if not _INDEX.fullmatch(token) or int(token) > len(items) - (0 if append else 1):
        raise PatchError(f"doc is missing path: {path}: index {token} out of range")
    return int(token)


def _get(doc: Any, tokens: list[str], path: str) -> Any:
    node = doc
    for token in tokens:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, path, append=False)]
        else:
            raise PatchError(f"doc is missing path: {path}")
    return node


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    path = "/" + "/".join(tokens)
    parent, last = _get(doc, tokens[:-1], path), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, path, append=True), value)
    else:
        raise PatchError(f"doc is missing path: {path}")
    return doc


def _remove(doc: Any, tokens: list[str], path: str) -> Any:
    if not tokens:
        raise PatchError("cannot remove the whole document")
    parent, last = _get(doc, tokens[:-1], path), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        del parent[last]
    elif isinstance(parent, list):
        del parent[_index(parent, last, path, append=False)]
    else:
        raise PatchError(f"doc is missing path: {path}")
    return doc


def same_json(left: Any, right: Any) -> bool:
    """JSON equality: 1 equals 1.0, but true is not 1 and key order does not matter."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same_json(a, b) for a, b in zip(left, right, strict=True))
    return type(left) is type(right) and bool(left == right)
