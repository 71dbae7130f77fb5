"""Documents, field types, dates and the query DSL of the Elasticsearch stand-in.

Kept apart from the HTTP layer so that aggregations reuse exactly the field model and query matching
that searches use. Scores are simple and deterministic (matched terms times boost), not BM25: tests
assert on which documents match and in what sorted order, not on relevance numbers.
"""

from __future__ import annotations

import calendar
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from fnmatch import fnmatchcase
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

Json = dict[str, Any]
NODE_ID = "c3RhbmRpbi1ub2RlLTA"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
DEFAULT_DATE_FORMAT = "strict_date_optional_time||epoch_millis"


class EsError(Exception):
    """An error as Elasticsearch reports it; shard-level ones are wrapped the way a failed search is."""

    def __init__(
        self, status: int, kind: str, reason: str, *, shard_level: bool = False, details: Json | None = None
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.kind = kind
        self.reason = reason
        self.shard_level = shard_level
        self.extra = details or {}
        self.index: str | None = None

    def cause(self) -> Json:
        return {"type": self.kind, "reason": self.reason, **self.extra}

    def body(self) -> Json:
        cause = self.cause()
        if not self.shard_level:
            return {"error": {"root_cause": [cause], **cause}, "status": self.status}
        failure = {"shard": 0, "index": self.index, "node": NODE_ID, "reason": cause}
        error = {
            "root_cause": [cause],
            "type": "search_phase_execution_exception",
            "reason": "all shards failed",
            "phase": "query",
            "grouped": True,
            "failed_shards": [failure],
            "caused_by": cause,
        }
        return {"error": error, "status": self.status}


def parsing_error(reason: str) -> EsError:
    return EsError(400, "parsing_exception", reason)


def shard_error(kind: str, reason: str) -> EsError:
    return EsError(400, kind, reason, shard_level=True)


def index_not_found(name: str) -> EsError:
    where = {"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_", "index": name}
    return EsError(404, "index_not_found_exception", f"no such index [{name}]", details=where)


def fielddata_error(field: str, index: str | None) -> EsError:
    """The error a real cluster gives when a text field is sorted or aggregated."""
    return shard_error(
        "illegal_argument_exception",
        f"Fielddata is disabled on [{field}] in [{index}]. Text fields are not optimised for operations that "
        "require per-document field data like aggregations and sorting, so these operations are disabled "
        f"by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{field}] in "
        "order to load field data by uninverting the inverted index. Note that this can use significant memory.",
    )


# ---------------------------------------------------------------------------------------------- dates

_MATH_STEP = re.compile(r"([+-])(\d+)([yMwdhHms])|/([yMwdhHms])")
_DATE_ONLY = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_LIKE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:Z|[+-]\d{2}:?\d{2})?")
_STEPS = {"w": timedelta(weeks=1), "d": timedelta(days=1), "h": timedelta(hours=1), "H": timedelta(hours=1)}
_STEPS |= {"m": timedelta(minutes=1), "s": timedelta(seconds=1)}


def to_millis(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(milliseconds=1)


def from_millis(millis: int, zone: tzinfo = UTC) -> datetime:
    return (EPOCH + timedelta(milliseconds=millis)).astimezone(zone)


def parse_zone(name: str) -> tzinfo:
    """A `time_zone` parameter: `UTC`, an offset such as `+02:00`, or an IANA name."""
    if name in ("Z", "UTC", "utc", "GMT"):
        return UTC
    offset = re.fullmatch(r"([+-])(\d{2}):?(\d{2})", name)
    if offset:
        delta = timedelta(hours=int(offset[2]), minutes=int(offset[3]))
        return timezone(-delta if offset[1] == "-" else delta)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise EsError(400, "illegal_argument_exception", f"Unknown time-zone ID: {name}") from exc


def add_months(moment: datetime, months: int) -> datetime:
    total = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(total, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def shift(moment: datetime, amount: int, unit: str) -> datetime:
    """Move by calendar units: y, q (quarter), M, w, d, h/H, m, s."""
    months = {"y": 12, "q": 3, "M": 1}.get(unit)
    if months is not None:
        return add_months(moment, amount * months)
    return moment + amount * _STEPS[unit]


def floor_moment(moment: datetime, unit: str) -> datetime:
    """The start of the calendar unit `moment` falls in, in its own time zone."""
    if unit in ("h", "H"):
        return moment.replace(minute=0, second=0, microsecond=0)
    if unit == "m":
        return moment.replace(second=0, microsecond=0)
    if unit == "s":
        return moment.replace(microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "w":
        return day - timedelta(days=day.weekday())
    first_month = {"y": 1, "q": (moment.month - 1) // 3 * 3 + 1, "M": moment.month}.get(unit)
    return day if first_month is None else day.replace(month=first_month, day=1)


def parse_date(value: Any, *, now: datetime, round_up: bool = False, zone: tzinfo = UTC) -> int:
    """Epoch millis of an ISO-8601 string, an epoch_millis number or date math (`now-15m`, `now-1h/m`).

    `round_up` is how a real cluster treats `gt`/`lte` bounds: rounding and missing date parts go to
    the end of the unit instead of its start.
    """
    if isinstance(value, bool) or value is None:
        raise ValueError(f"cannot parse [{value}] as a date")
    if isinstance(value, int | float):
        return int(value)
    text = str(value).strip()
    if text.startswith("now"):
        return to_millis(_apply_math(now.astimezone(zone), text[3:], round_up))
    base, _, steps = text.partition("||")
    if re.fullmatch(r"-?\d+", base):
        anchor = from_millis(int(base), zone)
    else:
        anchor = _parse_iso(base, zone)
        if not steps and round_up and _DATE_ONLY.fullmatch(base):
            return to_millis(anchor + timedelta(days=1)) - 1
    return to_millis(_apply_math(anchor, steps, round_up))


def _parse_iso(text: str, zone: tzinfo) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"failed to parse date [{text}]") from exc
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def _apply_math(moment: datetime, steps: str, round_up: bool) -> datetime:
    position = 0
    while position < len(steps):
        step = _MATH_STEP.match(steps, position)
        if step is None:
            raise ValueError(f"invalid date math [{steps}]")
        sign, amount, unit, rounding = step.groups()
        if rounding:
            start = floor_moment(moment, rounding)
            moment = shift(start, 1, rounding) - timedelta(milliseconds=1) if round_up else start
        else:
            moment = shift(moment, int(amount) * (-1 if sign == "-" else 1), unit)
        position = step.end()
    return moment


def date_formatter(pattern: str | None, zone: tzinfo = UTC) -> Callable[[int], str]:
    """How `key_as_string`/`value_as_string` print: ISO with millis by default, or a simple Java pattern."""
    if pattern is None or pattern.split("||")[0] in ("strict_date_optional_time", "date_optional_time"):
        return lambda millis: _iso(from_millis(millis, zone))
    if pattern.split("||")[0] == "epoch_millis":
        return str
    java = re.compile(r"'[^']*'|yyyy|yy|MM|dd|HH|mm|ss|SSS|XXX|.")
    codes = {"yyyy": "%Y", "yy": "%y", "MM": "%m", "dd": "%d", "HH": "%H", "mm": "%M", "ss": "%S"}
    parts = java.findall(pattern.split("||")[0])

    def render(millis: int) -> str:
        moment = from_millis(millis, zone)
        out = []
        for part in parts:
            if part == "SSS":
                out.append(f"{moment.microsecond // 1000:03d}")
            elif part == "XXX":
                out.append(_iso(moment)[23:])
            elif part in codes:
                out.append(moment.strftime(codes[part]))
            else:
                out.append(part.strip("'") if part.startswith("'") else part)
        return "".join(out)

    return render


def _iso(moment: datetime) -> str:
    offset = moment.utcoffset() or timedelta(0)
    suffix = "Z" if not offset else moment.strftime("%z")[:3] + ":" + moment.strftime("%z")[3:]
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}" + suffix


def format_millis(millis: int) -> str:
    return _iso(from_millis(millis))


# ------------------------------------------------------------------------------------- field model

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

    def __init__(self) -> None:
        self.fields: dict[str, Field] = {}

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
            if path not in self.fields:
                self.fields[path] = Field(path, _dynamic_type(path, values[0]), path)

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


# --------------------------------------------------------------------------------------- query DSL

Matcher = Callable[[Document], float | None]
Builder = Callable[[Any, "QueryContext"], Matcher]
MATCH_ALL: Json = {"match_all": {}}


@dataclass(frozen=True)
class QueryContext:
    mapping: IndexMapping
    index: str
    now: datetime


def compile_query(query: Any, ctx: QueryContext) -> Matcher:
    """A function giving a document's score, or None when the document does not match."""
    if not isinstance(query, dict) or not query:
        raise parsing_error("query malformed, empty clause found" if query == {} else "query malformed")
    if len(query) > 1:
        raise parsing_error(
            f"[{next(iter(query))}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]"
        )
    ((kind, spec),) = query.items()
    builder = _BUILDERS.get(kind)
    if builder is None:
        raise parsing_error(f"unknown query [{kind}]")
    return builder(spec, ctx)


def _never(_: Document) -> float | None:
    return None


def _boost(options: Mapping[str, Any]) -> float:
    return float(options.get("boost", 1.0))


def _field_options(kind: str, spec: Any, value_key: str | None) -> tuple[str, Json]:
    """Split `{"field": value}` or `{"field": {value_key: value, ...}}` into the field and its options."""
    if not isinstance(spec, dict):
        raise parsing_error(f"[{kind}] query malformed, no start_object after query name")
    names = [key for key in spec if key not in ("boost", "_name")]
    if not names:
        raise parsing_error(f"[{kind}] query requires a field name")
    if len(names) > 1:
        raise parsing_error(
            f"[{kind}] query doesn't support multiple fields, found [{names[0]}] and [{names[1]}]"
        )
    name = names[0]
    raw = spec[name]
    options: Json = dict(raw) if isinstance(raw, dict) else {value_key or "value": raw}
    if "boost" in spec:
        options.setdefault("boost", spec["boost"])
    if value_key and value_key not in options:
        raise parsing_error(f"[{kind}] query on [{name}] requires [{value_key}]")
    return name, options


def _query_value(field: Field, value: Any, ctx: QueryContext) -> Any:
    if field.kind == "text":
        return str(value)
    try:
        return coerce(field, value, now=ctx.now)
    except ValueError as exc:
        raise shard_error("query_shard_exception", f"failed to create query: {exc}") from exc


def _equals(field: Field, wanted: set[Any], boost: float, insensitive: bool = False) -> Matcher:
    if insensitive:
        wanted = {str(value).lower() for value in wanted}
    if field.kind == "text":
        return lambda doc: (
            boost if any(t in wanted for ts in doc.tokens.get(field.name, ()) for t in ts) else None
        )

    def match(doc: Document) -> float | None:
        values = doc.values.get(field.name, ())
        return boost if any((str(v).lower() if insensitive else v) in wanted for v in values) else None

    return match


def _term(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("term", spec, "value")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    value = _query_value(field, options["value"], ctx)
    return _equals(field, {value}, _boost(options), bool(options.get("case_insensitive", False)))


def _terms(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict):
        raise parsing_error("[terms] query malformed, no start_object after query name")
    names = [key for key in spec if key not in ("boost", "_name")]
    if len(names) != 1 or not isinstance(spec[names[0]], list):
        raise parsing_error("[terms] query requires exactly one field with an array of values")
    field = ctx.mapping.fields.get(names[0])
    if field is None:
        return _never
    return _equals(field, {_query_value(field, v, ctx) for v in spec[names[0]]}, _boost(spec))


def _match(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("match", spec, "query")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    boost = _boost(options)
    if field.kind != "text":
        return _equals(field, {_query_value(field, options["query"], ctx)}, boost)
    terms = set(analyze(str(options["query"])))
    operator_name = str(options.get("operator", "or")).lower()
    if operator_name not in ("or", "and"):
        raise parsing_error(f"[match] unknown operator [{operator_name}]")
    default = len(terms) if operator_name == "and" else 1
    required = max(1, minimum_should_match(options.get("minimum_should_match"), len(terms), default))

    def match(doc: Document) -> float | None:
        present = {token for tokens in doc.tokens.get(field.name, ()) for token in tokens}
        found = len(terms & present)
        return boost * found if found >= required else None

    return match


def _match_phrase(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("match_phrase", spec, "query")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    boost = _boost(options)
    if field.kind != "text":
        return _equals(field, {_query_value(field, options["query"], ctx)}, boost)
    phrase = analyze(str(options["query"]))
    slop = int(options.get("slop", 0))
    return lambda doc: (
        boost if any(_has_phrase(t, phrase, slop) for t in doc.tokens.get(field.name, ())) else None
    )


def _has_phrase(tokens: list[str], phrase: list[str], slop: int) -> bool:
    """The phrase in order, with at most `slop` other tokens in between (earliest matches minimise gaps)."""
    if not phrase:
        return False
    for start, token in enumerate(tokens):
        if token != phrase[0]:
            continue
        position, gaps = start, 0
        for term in phrase[1:]:
            following = next((i for i in range(position + 1, len(tokens)) if tokens[i] == term), None)
            if following is None:
                break
            gaps += following - position - 1
            position = following
        else:
            if gaps <= slop:
                return True
    return False


_RANGE_OPS = {"gt": operator.gt, "gte": operator.ge, "lt": operator.lt, "lte": operator.le}
_RANGE_KEYS = {*_RANGE_OPS, "from", "to", "include_lower", "include_upper", "format", "time_zone", "boost"}


def _range(spec: Any, ctx: QueryContext) -> Matcher:
    name, options = _field_options("range", spec, None)
    unknown = set(options) - _RANGE_KEYS
    if unknown:
        raise parsing_error(f"[range] query does not support [{sorted(unknown)[0]}]")
    field = ctx.mapping.fields.get(name)
    if field is None:
        return _never
    bounds = [
        (op, _range_bound(field, options, key, value, ctx)) for key, op, value in _range_limits(options)
    ]
    boost = _boost(options)

    def match(doc: Document) -> float | None:
        values = sortable_values(doc, field)
        return boost if any(all(op(v, bound) for op, bound in bounds) for v in values) else None

    return match


def _range_limits(options: Json) -> list[tuple[str, Callable[[Any, Any], bool], Any]]:
    limits = [(key, op, options[key]) for key, op in _RANGE_OPS.items() if options.get(key) is not None]
    if options.get("from") is not None:
        key = "gte" if options.get("include_lower", True) else "gt"
        limits.append((key, _RANGE_OPS[key], options["from"]))
    if options.get("to") is not None:
        key = "lte" if options.get("include_upper", True) else "lt"
        limits.append((key, _RANGE_OPS[key], options["to"]))
    return limits


def _range_bound(field: Field, options: Json, key: str, value: Any, ctx: QueryContext) -> Any:
    if field.kind in ("text", "keyword"):
        return str(value)
    if field.kind == "number":
        return _query_value(Field(field.name, "double", field.source), value, ctx)
    if field.kind != "date":
        return _query_value(field, value, ctx)
    zone = parse_zone(str(options.get("time_zone", "UTC")))
    pattern = str(options.get("format", DEFAULT_DATE_FORMAT))
    try:
        if pattern == "epoch_second":
            return int(float(value) * 1000)
        return parse_date(value, now=ctx.now, round_up=key in ("gt", "lte"), zone=zone)
    except ValueError as exc:
        reason = f"failed to parse date field [{value}] with format [{pattern}]: [{exc}]"
        raise shard_error("parse_exception", reason) from exc


def sortable_values(doc: Document, field: Field) -> list[Any]:
    """Doc values as sorting and aggregations see them; a text field's are its tokens."""
    if field.kind == "text":
        return [token for tokens in doc.tokens.get(field.name, ()) for token in tokens]
    return doc.values.get(field.name, [])


def _exists(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict) or not isinstance(spec.get("field"), str):
        raise parsing_error("[exists] must be provided with a [field]")
    pattern: str = spec["field"]
    boost = _boost(spec)

    def present(path: str) -> bool:
        return fnmatchcase(path, pattern) or path.startswith(pattern + ".")

    return lambda doc: boost if any(present(path) for path in doc.values) else None


def _string_query(kind: str, alias: str, make: Callable[[str, bool], Callable[[str], bool]]) -> Builder:
    """prefix/wildcard/regexp: test whole keyword values, or single tokens of a text field."""

    def build(spec: Any, ctx: QueryContext) -> Matcher:
        name, options = _field_options(kind, spec, None)
        value = options.get("value", options.get(alias))
        if value is None:
            raise parsing_error(f"[{kind}] query on [{name}] requires [value]")
        field = ctx.mapping.fields.get(name)
        if field is None:
            return _never
        test = make(str(value), bool(options.get("case_insensitive", False)))
        boost = _boost(options)
        if field.kind == "text":
            return lambda doc: (
                boost if any(test(t) for ts in doc.tokens.get(field.name, ()) for t in ts) else None
            )
        return lambda doc: boost if any(test(str(v)) for v in doc.values.get(field.name, ())) else None

    return build


def _prefix_test(value: str, insensitive: bool) -> Callable[[str], bool]:
    if insensitive:
        return lambda candidate: candidate.lower().startswith(value.lower())
    return lambda candidate: candidate.startswith(value)


def _wildcard_test(value: str, insensitive: bool) -> Callable[[str], bool]:
    parts = re.split(r"(\\.|[*?])", value)
    pattern = "".join(
        ".*" if p == "*" else "." if p == "?" else re.escape(p[-1:] if p.startswith("\\") else p)
        for p in parts
    )
    compiled = re.compile(pattern, re.IGNORECASE if insensitive else 0)
    return lambda candidate: compiled.fullmatch(candidate) is not None


def _regexp_test(value: str, insensitive: bool) -> Callable[[str], bool]:
    compiled = re.compile(value, re.IGNORECASE if insensitive else 0)
    return lambda candidate: compiled.fullmatch(candidate) is not None


def _ids(spec: Any, _: QueryContext) -> Matcher:
    if not isinstance(spec, dict) or not isinstance(spec.get("values"), list):
        raise parsing_error("[ids] query requires [values]")
    wanted = {str(value) for value in spec["values"]}
    boost = _boost(spec)
    return lambda doc: boost if doc.id in wanted else None


def _match_all(spec: Any, _: QueryContext) -> Matcher:
    boost = _boost(spec or {})
    return lambda _doc: boost


def _match_none(_spec: Any, _: QueryContext) -> Matcher:
    return _never


def _constant_score(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict) or "filter" not in spec:
        raise parsing_error("[constant_score] requires a 'filter' element")
    inner = compile_query(spec["filter"], ctx)
    boost = _boost(spec)
    return lambda doc: boost if inner(doc) is not None else None


_BOOL_KEYS = {
    "must",
    "filter",
    "should",
    "must_not",
    "minimum_should_match",
    "boost",
    "_name",
    "adjust_pure_negative",
}


def _bool(spec: Any, ctx: QueryContext) -> Matcher:
    if not isinstance(spec, dict):
        raise parsing_error("[bool] query malformed, no start_object after query name")
    unknown = set(spec) - _BOOL_KEYS
    if unknown:
        raise parsing_error(f"[bool] query does not support [{sorted(unknown)[0]}]")
    clauses = {
        key: [compile_query(q, ctx) for q in _as_list(spec.get(key))]
        for key in ("must", "filter", "should", "must_not")
    }
    must, filters, should, must_not = (
        clauses["must"],
        clauses["filter"],
        clauses["should"],
        clauses["must_not"],
    )
    if not any(clauses.values()):
        return _match_all(spec, ctx)
    default = 0 if must or filters or not should else 1
    required = minimum_should_match(spec.get("minimum_should_match"), len(should), default)
    boost = _boost(spec)

    def match(doc: Document) -> float | None:
        if any(f(doc) is None for f in filters) or any(n(doc) is not None for n in must_not):
            return None
        score = 0.0
        for clause in must:
            part = clause(doc)
            if part is None:
                return None
            score += part
        matched = [part for part in (clause(doc) for clause in should) if part is not None]
        return (score + sum(matched)) * boost if len(matched) >= required else None

    return match


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def minimum_should_match(spec: Any, count: int, default: int) -> int:
    """`minimum_should_match` as an absolute count: 2, -1, "75%", "-25%"."""
    if spec is None:
        return default
    text = str(spec).strip()
    try:
        if text.endswith("%"):
            percent = int(text[:-1])
            part = math.floor(count * abs(percent) / 100)
            result = part if percent >= 0 else count - part
        else:
            number = int(text)
            result = number if number >= 0 else count + number
    except ValueError as exc:
        raise parsing_error(f"unsupported minimum_should_match [{spec}]") from exc
    return max(0, result)


_BUILDERS: dict[str, Builder] = {
    "match_all": _match_all,
    "match_none": _match_none,
    "bool": _bool,
    "constant_score": _constant_score,
    "term": _term,
    "terms": _terms,
    "match": _match,
    "match_phrase": _match_phrase,
    "range": _range,
    "exists": _exists,
    "prefix": _string_query("prefix", "value", _prefix_test),
    "wildcard": _string_query("wildcard", "wildcard", _wildcard_test),
    "regexp": _string_query("regexp", "value", _regexp_test),
    "ids": _ids,
}
