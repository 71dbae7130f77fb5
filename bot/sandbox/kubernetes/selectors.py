"""What a list request returns: label and field selectors as the API server parses them, and paging.

Kept apart from the stand-in so the grammar (and its error messages) can be read and tested on its own.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.sandbox.kubernetes.patch import selector_text

# Field labels each kind accepts besides metadata.name and metadata.namespace, with the value the
# server compares when the field is absent (booleans print as "false", strings as "").
FIELD_LABELS: dict[str, dict[str, tuple[str, str]]] = {
    "Pod": {
        "spec.nodeName": ("spec.nodeName", ""),
        "spec.restartPolicy": ("spec.restartPolicy", ""),
        "spec.schedulerName": ("spec.schedulerName", ""),
        "spec.serviceAccountName": ("spec.serviceAccountName", ""),
        "spec.hostNetwork": ("spec.hostNetwork", "false"),
        "status.phase": ("status.phase", ""),
        "status.podIP": ("status.podIP", ""),
        "status.nominatedNodeName": ("status.nominatedNodeName", ""),
    },
    "Event": {
        "involvedObject.kind": ("involvedObject.kind", ""),
        "involvedObject.namespace": ("involvedObject.namespace", ""),
        "involvedObject.name": ("involvedObject.name", ""),
        "involvedObject.uid": ("involvedObject.uid", ""),
        "involvedObject.apiVersion": ("involvedObject.apiVersion", ""),
        "involvedObject.resourceVersion": ("involvedObject.resourceVersion", ""),
        "involvedObject.fieldPath": ("involvedObject.fieldPath", ""),
        "reason": ("reason", ""),
        "reportingComponent": ("reportingComponent", ""),
        "source": ("source.component", ""),
        "type": ("type", ""),
    },
    "Node": {"spec.unschedulable": ("spec.unschedulable", "false")},
    "Namespace": {"status.phase": ("status.phase", "")},
    "ReplicaSet": {"status.replicas": ("status.replicas", "0")},
}
COMMON_FIELDS: dict[str, tuple[str, str]] = {
    "metadata.name": ("metadata.name", ""),
    "metadata.namespace": ("metadata.namespace", ""),
}

_KEY = re.compile(r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
_SET = re.compile(r"^(?P<key>\S+)\s+(?P<op>in|notin)\s*\((?P<values>[^()]*)\)$")
_BINARY = re.compile(r"^(?P<key>[^\s!=<>]+)\s*(?P<op>==|=|!=|<|>)\s*(?P<value>\S*)$")


class SelectorError(ValueError):
    """A selector the server would answer with 400 BadRequest."""


Labels = Mapping[str, str]


@dataclass(frozen=True)
class Requirement:
    """One comma-separated term of a label selector."""

    key: str
    op: str  # "=", "!=", "in", "notin", "exists", "!", "<", ">"
    values: tuple[str, ...] = ()

    def matches(self, labels: Labels) -> bool:
        return _OPS[self.op](self, labels)


def _eq(req: Requirement, labels: Labels) -> bool:
    return req.key in labels and labels[req.key] in req.values


def _neq(req: Requirement, labels: Labels) -> bool:
    return req.key not in labels or labels[req.key] not in req.values


def _compare(req: Requirement, labels: Labels) -> bool:
    try:
        have = int(labels[req.key])
    except (KeyError, ValueError):
        return False
    want = int(req.values[0])
    return have > want if req.op == ">" else have < want


_OPS: dict[str, Callable[[Requirement, Labels], bool]] = {
    "=": _eq,
    "in": _eq,
    "!=": _neq,
    "notin": _neq,
    "exists": lambda req, labels: req.key in labels,
    "!": lambda req, labels: req.key not in labels,
    "<": _compare,
    ">": _compare,
}


@dataclass(frozen=True)
class LabelSelector:
    """All requirements must hold (comma means AND); the empty selector matches everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Labels | None) -> bool:
        return all(req.matches(labels or {}) for req in self.requirements)


def selects(selector: Mapping[str, Any] | None, labels: Labels | None) -> bool:
    """A LabelSelector object (matchLabels, matchExpressions) against labels; a missing one selects nothing."""
    if selector is None:
        return False
    return parse_label_selector(selector_text(selector)).matches(labels or {})


def parse_label_selector(text: str) -> LabelSelector:
    """Parse `a=b,c!=d,e in (f,g),h notin (i),j,!k,l>3` as labels.Parse does."""
    return LabelSelector(tuple(_requirement(term.strip()) for term in _split_terms(text) if term.strip()))


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not inside an `in (...)` value set."""
    terms, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            terms.append(text[start:index])
            start = index + 1
        if depth < 0 or depth > 1:
            raise SelectorError(f"unable to parse requirement: unbalanced parentheses in {text!r}")
    if depth:
        raise SelectorError(f"unable to parse requirement: unbalanced parentheses in {text!r}")
    return [*terms, text[start:]]


def _requirement(term: str) -> Requirement:
    if term.startswith("!"):
        return Requirement(_key(term[1:].strip(), term), "!")
    if found := _SET.match(term):
        values = tuple(value.strip() for value in found["values"].split(","))
        if values == ("",):
            raise SelectorError(f"for 'in', 'notin' operators, values set can't be empty: {term!r}")
        return Requirement(_key(found["key"], term), found["op"], tuple(_value(v, term) for v in values))
    if found := _BINARY.match(term):
        op = "=" if found["op"] == "==" else found["op"]
        value = _value(found["value"], term)
        if op in ("<", ">") and not re.fullmatch(r"-?\d+", value):
            raise SelectorError(
                f"unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an integer: {term!r}"
            )
        return Requirement(_key(found["key"], term), op, (value,))
    return Requirement(_key(term, term), "exists")


def _key(key: str, term: str) -> str:
    if not _KEY.match(key) or len(key.rpartition("/")[2]) > 63:
        raise SelectorError(f"unable to parse requirement: invalid label key {key!r} in {term!r}")
    return key


def _value(value: str, term: str) -> str:
    if not _VALUE.match(value) or len(value) > 63:
        raise SelectorError(f"unable to parse requirement: invalid label value {value!r} in {term!r}")
    return value


@dataclass(frozen=True)
class FieldTerm:
    """`path=value` or `path!=value` over a field the kind exposes for selection."""

    path: str
    default: str
    value: str
    negate: bool

    def matches(self, obj: Mapping[str, Any]) -> bool:
        return (field_value(obj, self.path, self.default) == self.value) != self.negate


@dataclass(frozen=True)
class FieldSelector:
    terms: tuple[FieldTerm, ...] = ()

    def matches(self, obj: Mapping[str, Any]) -> bool:
        return all(term.matches(obj) for term in self.terms)


def parse_field_selector(
    text: str, kind: str, labels: Mapping[str, tuple[str, str]] | None = None
) -> FieldSelector:
    """Parse `a=b,c!=d`; labels the kind does not index fail like the server: 'field label not
    supported'. `labels` replaces the kind's own (another group's view of it: events.k8s.io)."""
    allowed = {**COMMON_FIELDS, **(FIELD_LABELS.get(kind, {}) if labels is None else labels)}
    terms: list[FieldTerm] = []
    for raw in text.split(","):
        term = raw.strip()
        if not term:
            continue
        label, op, value = _field_parts(term)
        if label not in allowed:
            raise SelectorError(f"field label not supported: {label}")
        path, default = allowed[label]
        terms.append(FieldTerm(path, default, value, op == "!="))
    return FieldSelector(tuple(terms))


def _field_parts(term: str) -> tuple[str, str, str]:
    for op in ("!=", "==", "="):
        label, found, value = term.partition(op)
        if found:
            return label.strip(), op, value.strip()
    raise SelectorError(f"invalid selector: '{term}'; can't understand '{term}'")


def field_value(obj: Mapping[str, Any], path: str, default: str = "") -> str:
    """The dotted path's value as the server prints it for field selection."""
    node: Any = obj
    for part in path.split("."):
        node = node.get(part) if isinstance(node, Mapping) else None
    if node is None:
        return default
    if isinstance(node, bool):
        return "true" if node else "false"
    return str(node)


def page(items: list[Any], limit: int | None, token: str | None) -> tuple[list[Any], dict[str, Any]]:
    """`limit`/`continue`: a page of items and the list metadata (an opaque token holding the next offset)."""
    start = 0
    if token:
        try:
            start = int(json.loads(base64.urlsafe_b64decode(token))["start"])
        except (ValueError, KeyError, TypeError) as exc:
            raise SelectorError("continue key is not valid") from exc
    if not limit or limit <= 0:
        return items[start:], {}
    left = len(items) - start - limit
    if left <= 0:
        return items[start:], {}
    following = base64.urlsafe_b64encode(json.dumps({"start": start + limit}).encode()).decode()
    return items[start : start + limit], {"continue": following, "remainingItemCount": left}
