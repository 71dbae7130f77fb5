"""Field types and documents of the Elasticsearch stand-in: what a stored document looks like.

An index's mapping types each field (explicitly at index creation, otherwise by ECS-style dynamic
mapping), and a document is its `_source` plus, per mapped field, values normalised the way doc values
are (numbers, epoch-millis dates, booleans, strings) and the tokens of text fields. Queries, sorting and
aggregations all read documents through this one model, so they see the same values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

from bot.sandbox.elasticsearch.dates import EPOCH, parse_date
from bot.sandbox.elasticsearch.errors import EsError, Json

# ------------------------------------------------------------------------------------- field model

_DATE_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?")
TEXT_FIELDS = frozenset({"message", "error.message", "error.stack_trace"})
INTEGER_TYPES = frozenset({"long", "integer", "short", "byte", "unsigned_long"})
_NUMBER_TYPES = INTEGER_TYPES | {"double", "float", "half_float", "scaled_float"}
_KINDS = {
    "text": "text",
    "match_only_text": "text",
    "date": "date",
    "date_nanos": "date",
    "boolean": "boolean",
}
_KINDS |= {name: "number" for name in _NUMBER_TYPES}
_KINDS |= {
    name: "keyword" for name in ("keyword", "constant_keyword", "wildcard", "ip", "version", "flattened")
}
_WORD = re.compile("\\w+(?:['\u2019.]\\w+)*")


def analyze(text: str) -> list[str]:
    """Tokens as the `standard` analyzer gives them: runs of word characters, lowercased."""
    return [token.lower() for token in _WORD.findall(text)]


@dataclass(frozen=True)
class Field:
    """One mapped field; `source` is the `_source` path its values come from (differs for multi-fields)."""

    name: str
    es_type: str
    source: str
    fielddata: bool = False

    @property
    def kind(self) -> str:
        return _KINDS.get(self.es_type, "keyword")


class IndexMapping:
    """Field types of one index: explicit ones from index creation, the rest learned as dynamic mapping."""

    def __init__(self, *, strings: str = "ecs") -> None:
        self.fields: dict[str, Field] = {}
        self.strings = strings  # "ecs": keyword, as ECS templates map them; "default": text + .keyword

    def add_properties(self, properties: Any, prefix: str = "") -> None:
        if not isinstance(properties, dict):
            raise EsError(400, "mapper_parsing_exception", "[properties] must be an object")
        for name, spec in properties.items():
            path = f"{prefix}{name}"
            if not isinstance(spec, dict):
                raise EsError(400, "mapper_parsing_exception", f"Expected map for property [{path}]")
            es_type = spec.get("type", "object")
            if es_type in ("object", "nested"):
                self.add_properties(spec.get("properties", {}), f"{path}.")
                continue
            if es_type not in _KINDS:
                raise EsError(
                    400,
                    "mapper_parsing_exception",
                    f"No handler for type [{es_type}] declared on field [{name}]",
                )
            self.fields[path] = Field(path, es_type, path, bool(spec.get("fielddata", False)))
            for sub, sub_spec in spec.get("fields", {}).items():
                self.fields[f"{path}.{sub}"] = Field(f"{path}.{sub}", sub_spec.get("type", "keyword"), path)

    def learn(self, flat: Mapping[str, list[Any]]) -> None:
        """Map fields seen for the first time, the way ECS/Filebeat templates would type them."""
        for path, values in flat.items():
            if path in self.fields:
                continue
            es_type = _dynamic_type(path, values[0])
            if self.strings == "default" and es_type in ("keyword", "text"):  # no index template
                self.fields[path] = Field(path, "text", path)
                self.fields[f"{path}.keyword"] = Field(f"{path}.keyword", "keyword", path)
            else:
                self.fields[path] = Field(path, es_type, path)

    def to_json(self) -> Json:
        properties: Json = {}
        for field in self.fields.values():
            if field.source != field.name:
                continue
            node = properties
            *parents, leaf = field.name.split(".")
            for parent in parents:
                node = node.setdefault(parent, {"properties": {}}).setdefault("properties", {})
            node[leaf] = {"type": field.es_type}
        for field in self.fields.values():
            if field.source != field.name and field.source in self.fields:
                leaf_spec = _find_property(properties, field.source)
                leaf_spec.setdefault("fields", {})[field.name[len(field.source) + 1 :]] = {
                    "type": field.es_type
                }
        return {"properties": properties}


def _find_property(properties: Json, path: str) -> Json:
    *parents, leaf = path.split(".")
    node = properties
    for parent in parents:
        node = node[parent]["properties"]
    found: Json = node[leaf]
    return found


def _dynamic_type(path: str, value: Any) -> str:
    if path == "@timestamp":
        return "date"
    if path in TEXT_FIELDS:
        return "text"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str) and _DATE_LIKE.fullmatch(value):
        return "date"
    return "keyword"


def resolve_field(name: str, mappings: list[IndexMapping]) -> Field | None:
    """The field as the first index that maps it types it (multi-index searches)."""
    return next((m.fields[name] for m in mappings if name in m.fields), None)


# --------------------------------------------------------------------------------------- documents


@dataclass
class Document:
    """A stored document: its `_source` plus values per field, normalised the way doc values are."""

    index: str
    id: str
    source: Json
    version: int
    seq_no: int
    values: dict[str, list[Any]]
    tokens: dict[str, list[list[str]]]


class Hit(NamedTuple):
    doc: Document
    score: float


def flatten(source: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Leaf values by dotted path; nested objects and already-dotted keys give the same paths."""
    flat: dict[str, list[Any]] = {}

    def walk(value: Any, path: str) -> None:
        if isinstance(value, Mapping):
            for key, item in value.items():
                walk(item, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list):
            for item in value:
                walk(item, path)
        elif value is not None:
            flat.setdefault(path, []).append(value)

    walk(source, "")
    return flat


def build_document(
    index: str, mapping: IndexMapping, doc_id: str, source: Json, version: int, seq_no: int
) -> Document:
    flat = flatten(source)
    mapping.learn(flat)
    values: dict[str, list[Any]] = {}
    tokens: dict[str, list[list[str]]] = {}
    for field in mapping.fields.values():
        raw = flat.get(field.source)
        if not raw:
            continue
        values[field.name] = _normalize(field, raw, doc_id)
        if field.kind == "text":
            tokens[field.name] = [analyze(value) for value in values[field.name]]
    return Document(index, doc_id, source, version, seq_no, values, tokens)


def _normalize(field: Field, raw: list[Any], doc_id: str) -> list[Any]:
    try:
        return [coerce(field, value) for value in raw]
    except ValueError as exc:
        raise EsError(
            400,
            "document_parsing_exception",
            f"failed to parse field [{field.name}] of type [{field.es_type}] in document with id '{doc_id}'. "
            f"Preview of field's value: '{raw[0]}'",
        ) from exc


def coerce(field: Field, value: Any, *, now: datetime = EPOCH, round_up: bool = False) -> Any:
    """A value as the field stores it: text/keyword strings, numbers, epoch-millis dates, booleans."""
    kind = field.kind
    if kind == "number":
        if isinstance(value, bool):
            raise ValueError("boolean is not a number")
        number = float(value)
        return int(number) if field.es_type in INTEGER_TYPES else number
    if kind == "date":
        return parse_date(value, now=now, round_up=round_up)
    if kind == "boolean":
        if value in (True, "true"):
            return True
        if value in (False, "false", ""):
            return False
        raise ValueError(f"cannot parse [{value}] as a boolean")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def sortable_values(doc: Document, field: Field) -> list[Any]:
    """Doc values as sorting and aggregations see them; a text field's are its tokens."""
    if field.kind == "text":
        return [token for tokens in doc.tokens.get(field.name, ()) for token in tokens]
    return doc.values.get(field.name, [])
