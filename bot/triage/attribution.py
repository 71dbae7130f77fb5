"""Attribution: one error line → one code of the failure taxonomy, or UNATTRIBUTED.

"inference failed" says nothing about who should look; a layered code (INF_GPU_OOM, DEP_CACHE,
BIZ_INPUT_TOO_LONG …) points at the dashboard and the team (seed 000). The taxonomy and the
rules are data (rules/taxonomy.yaml, rules/attribution.yaml) that users extend, so both are
validated at start-up with errors naming the file, the line and the field. Patterns are compiled
once; attributing a line is a pass of precompiled regexes (thousands of lines per second).

When several rules match one line the infrastructure cause wins (INF > DEP > MOD > ENG > GW > BIZ),
then a rule's explicit priority, then file order; the other codes are kept in `also`.
UNATTRIBUTED is an answer, not a guess: the weekly report of frequent unattributed messages is
how rules get added (the share must stay under 10% of error volume).
"""

from __future__ import annotations

import difflib
import importlib
import json
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from bot.errors import ConfigError
from bot.yamlpos import compose, describe, dotted, line_of

RULES_DIR = Path(__file__).with_name("rules")
DEFAULT_RULES = RULES_DIR / "attribution.yaml"
DEFAULT_TAXONOMY = RULES_DIR / "taxonomy.yaml"

UNATTRIBUTED = "UNATTRIBUTED"
COVERAGE_TARGET = 0.10  # seed 000: unattributed errors must stay under 10% of error volume
PRIORITY_ORDER: dict[str, int] = {"P1": 1, "P2": 2, "P3": 3}
# Tracebacks put the exception last and banners first: scan both ends of a huge message, not all
# of it, so that one pathological line cannot stall a batch.
SCAN_LIMIT = 16_384

Category = Literal["infrastructure", "model_config", "inference_engine", "operational", "none"]
Priority = Literal["P1", "P2", "P3"]

_CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
_LAYER = re.compile(r"^[A-Z][A-Z0-9]*$")
# A service that already stamps its error code (seed 000: error.code on the span) is believed.
_EXPLICIT = re.compile(
    r"""(?:\berror[._-]?code|\berr_code|\bcode)["']?\s*[:=]\s*["']?([A-Z][A-Z0-9]*_[A-Z0-9_]+)\b"""
)
EXPLICIT_RULE = "explicit-code"


# ------------------------------------------------------------------------------ file schemas


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _LayerSpec(_Strict):
    meaning: str = ""
    category: Category
    priority: Priority
    rank: int = Field(ge=1, description="precedence when several layers match a line: lowest wins")


class _TaxonomyFile(_Strict):
    layers: dict[str, _LayerSpec] = Field(min_length=1)
    codes: dict[str, str] = Field(min_length=1)
    aliases: dict[str, str] = Field(default_factory=dict)


class _RuleSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9._-]*$")
    code: str = Field(min_length=1)
    patterns: list[str] | None = Field(default=None, min_length=1)
    any_: list[str] | None = Field(default=None, alias="any", min_length=1)
    all_: list[str] | None = Field(default=None, alias="all", min_length=1)
    engines: list[str] = Field(default_factory=list)
    priority: Priority | None = None
    examples: list[str] = Field(min_length=1)


class _RulesFile(_Strict):
    rules: list[_RuleSpec] = Field(min_length=1)


# ------------------------------------------------------------------------------ taxonomy


class CodeInfo(NamedTuple):
    """What the classifier needs to know about a code."""

    layer: str | None
    category: str | None
    meaning: str


@dataclass(frozen=True)
class Layer:
    """One layer of the taxonomy (the code prefix)."""

    name: str
    meaning: str
    category: str
    priority: str
    rank: int


@dataclass(frozen=True)
class Taxonomy:
    """Layers, codes and aliases, validated; lookups accept aliases."""

    layers: Mapping[str, Layer]
    codes: Mapping[str, str]  # code -> meaning
    aliases: Mapping[str, str]  # alias -> code

    def resolve(self, code: str) -> str:
        """The canonical code (an alias resolved); KeyError when unknown."""
        canonical = self.aliases.get(code, code)
        if canonical != UNATTRIBUTED and canonical not in self.codes:
            raise KeyError(code)
        return canonical

    def layer_of(self, code: str) -> Layer:
        return self.layers[self.resolve(code).split("_", 1)[0]]

    def info(self, code: str) -> CodeInfo:
        """(layer, category, meaning) of a code or alias; UNATTRIBUTED has no layer."""
        canonical = self.resolve(code)
        if canonical == UNATTRIBUTED:
            return CodeInfo(None, None, "no rule matched the line")
        layer = self.layer_of(canonical)
        return CodeInfo(layer.name, layer.category, self.codes[canonical])

    def priority(self, code: str) -> str | None:
        """Default paging priority of the code's layer (P1 pages now, P3 never)."""
        canonical = self.resolve(code)
        return None if canonical == UNATTRIBUTED else self.layer_of(canonical).priority

    def known(self) -> list[str]:
        return sorted([*self.codes, *self.aliases])


def load_taxonomy(path: Path = DEFAULT_TAXONOMY) -> Taxonomy:
    """Read and validate the taxonomy file."""
    text, data = _read_yaml(path, "taxonomy")
    root = compose(text)
    try:
        spec = _TaxonomyFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError("invalid taxonomy\n  " + "\n  ".join(describe(exc, str(path), root))) from exc
    problems: list[str] = []

    def bad(loc: tuple[Any, ...], message: str) -> None:
        problems.append(f"{path}:{line_of(root, loc)}: {dotted(loc)}: {message}")

    ranks: dict[int, str] = {}
    for name, layer in spec.layers.items():
        if not _LAYER.match(name):
            bad(("layers", name), f"layer {name!r} must be upper case letters and digits")
        if layer.rank in ranks:
            bad(("layers", name, "rank"), f"rank {layer.rank} is already used by layer {ranks[layer.rank]!r}")
        ranks.setdefault(layer.rank, name)
    for code in spec.codes:
        if not _CODE.match(code):
            bad(("codes", code), f"code {code!r} must look like LAYER_NAME (upper case, underscores)")
        elif code.split("_", 1)[0] not in spec.layers:
            bad(("codes", code), f"code {code!r} has no declared layer {code.split('_', 1)[0]!r}")
    if UNATTRIBUTED in spec.codes or UNATTRIBUTED in spec.aliases:
        bad(("codes",), f"{UNATTRIBUTED} is built in and cannot be declared")
    for alias, target in spec.aliases.items():
        if alias in spec.codes:
            bad(("aliases", alias), f"alias {alias!r} is also declared as a code")
        if target not in spec.codes:
            bad(
                ("aliases", alias),
                f"alias {alias!r} points to unknown code {target!r}{_hint(target, spec.codes)}",
            )
    if problems:
        raise ConfigError("invalid taxonomy\n  " + "\n  ".join(problems))
    layers = {
        name: Layer(name, layer.meaning, layer.category, layer.priority, layer.rank)
        for name, layer in spec.layers.items()
    }
    return Taxonomy(layers=layers, codes=dict(spec.codes), aliases=dict(spec.aliases))


# ------------------------------------------------------------------------------ rules


@dataclass(frozen=True)
class Check:
    """One compiled pattern, with lower-case strings one of which every match contains.

    Searching ~150 case-insensitive regexes one by one costs ~0.5 ms a line; a substring test on
    the lowered line rules most of them out for a fraction of that, and never changes the answer."""

    rx: re.Pattern[str]
    needs: frozenset[str] | None  # None: nothing known, always run the regex

    def search(self, text: str, folded: str | None = None) -> bool:
        """Whether the pattern is found; `folded` is the lowered text when it is ASCII."""
        if folded is not None and self.needs is not None and not any(n in folded for n in self.needs):
            return False
        return self.rx.search(text) is not None


@dataclass(frozen=True)
class Rule:
    """A compiled rule: matches when one `any` pattern and every `all` pattern is found."""

    id: str
    code: str
    layer: str
    priority: str  # effective paging priority: the rule's own, else its layer's
    explicit_priority: bool
    index: int
    any_of: tuple[Check, ...]
    all_of: tuple[Check, ...]
    engines: tuple[str, ...]
    examples: tuple[str, ...]

    def matches(self, text: str, folded: str | None = None) -> bool:
        if self.any_of and not any(c.search(text, folded) for c in self.any_of):
            return False
        return all(c.search(text, folded) for c in self.all_of)


def required_literals(pattern: str) -> frozenset[str] | None:
    """Lower-case strings one of which every match of `pattern` contains, from its parse tree;
    None when the pattern offers nothing useful (the regex then always runs)."""
    try:
        parser: Any = importlib.import_module("re._parser")
        consts: Any = importlib.import_module("re._constants")
        found = _needs(list(parser.parse(pattern, re.IGNORECASE)), consts)
    except Exception:  # private module: any surprise only disables the prefilter
        return None
    if not found or min(len(s) for s in found) < MIN_LITERAL:
        return None
    return found


MIN_LITERAL = 3


def _needs(items: list[Any], c: Any) -> frozenset[str] | None:
    """Best required-literal set of a sequence of parsed items (longest shortest member)."""
    options: list[frozenset[str]] = []
    run: list[str] = []

    def flush() -> None:
        text = "".join(run).lower()
        if text and text.isascii():
            options.append(frozenset({text}))
        run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        inner: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            inner = _needs(list(av[3]), c)
        elif op is c.BRANCH:
            alternatives = [_needs(list(branch), c) for branch in av[1]]
            if alternatives and all(alternatives):
                inner = frozenset().union(*[a for a in alternatives if a])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
            inner = _needs(list(av[2]), c)
        elif op is getattr(c, "ATOMIC_GROUP", None):
            inner = _needs(list(av), c)
        if inner:
            options.append(inner)
    flush()
    if not options:
        return None
    return max(options, key=lambda s: (min(len(x) for x in s), -len(s)))


def _compile_rules(path: Path, taxonomy: Taxonomy) -> list[Rule]:
    text, data = _read_yaml(path, "attribution rules")
    root = compose(text)
    try:
        spec = _RulesFile.model_validate(data)
    except ValidationError as exc:
        lines = describe(exc, str(path), root)
        raw = data.get("rules") if isinstance(data, dict) else None
        for n, err in enumerate(exc.errors()):
            rule_id = _raw_rule_id(raw, err["loc"])
            if rule_id:
                lines[n] += f" (rule {rule_id!r})"
        raise ConfigError("invalid attribution rules\n  " + "\n  ".join(lines)) from exc

    problems: list[str] = []

    def bad(loc: tuple[Any, ...], rule_id: str, message: str) -> None:
        problems.append(f"{path}:{line_of(root, loc)}: {dotted(loc)}: rule {rule_id!r}: {message}")

    rules: list[Rule] = []
    seen: set[str] = set()
    for i, r in enumerate(spec.rules):
        if r.id in seen:
            bad(("rules", i, "id"), r.id, "id is used by an earlier rule")
        seen.add(r.id)
        try:
            code = taxonomy.resolve(r.code)
        except KeyError:
            bad(("rules", i, "code"), r.id, f"unknown code {r.code!r}{_hint(r.code, taxonomy.known())}")
            continue
        if code == UNATTRIBUTED:
            bad(("rules", i, "code"), r.id, f"a rule cannot attribute {UNATTRIBUTED}")
            continue
        if r.patterns is not None and r.any_ is not None:
            bad(("rules", i, "any"), r.id, "`patterns` and `any` are synonyms: use one of them")
        if r.patterns is None and r.any_ is None and r.all_ is None:
            bad(("rules", i), r.id, "needs `patterns` (or `any`) or `all`")
            continue
        compiled: dict[str, list[Check]] = {}
        for field, patterns in (("patterns", r.patterns), ("any", r.any_), ("all", r.all_)):
            for j, pattern in enumerate(patterns or []):
                try:
                    rx = re.compile(pattern, re.IGNORECASE)
                except re.error as exc:
                    bad(("rules", i, field, j), r.id, f"invalid regex {pattern!r}: {exc}")
                    continue
                if rx.search("") is not None:
                    bad(
                        ("rules", i, field, j),
                        r.id,
                        f"pattern {pattern!r} matches an empty line, so every line",
                    )
                    continue
                compiled.setdefault(field, []).append(Check(rx, required_literals(pattern)))
        layer = taxonomy.layer_of(code)
        rules.append(
            Rule(
                id=r.id,
                code=code,
                layer=layer.name,
                priority=r.priority or layer.priority,
                explicit_priority=r.priority is not None,
                index=i,
                any_of=tuple(compiled.get("patterns", []) + compiled.get("any", [])),
                all_of=tuple(compiled.get("all", [])),
                engines=tuple(r.engines),
                examples=tuple(r.examples),
            )
        )
    if problems:
        raise ConfigError("invalid attribution rules\n  " + "\n  ".join(problems))
    return rules


# ------------------------------------------------------------------------------ attribution


@dataclass(frozen=True)
class Attribution:
    """The code of one line, with the other codes that matched (lower precedence) in `also`."""

    code: str
    layer: str | None
    category: str | None
    rule: str | None
    also: tuple[str, ...] = ()
    priority: str | None = None  # paging priority: the rule's override, else its layer's

    @property
    def attributed(self) -> bool:
        return self.code != UNATTRIBUTED

    def as_dict(self) -> dict[str, object]:
        """The `attribute` command's object: code, layer, category, rule (+ also when any)."""
        out: dict[str, object] = {
            "code": self.code,
            "layer": self.layer,
            "category": self.category,
            "rule": self.rule,
        }
        if self.also:
            out["also"] = list(self.also)
        return out


NOT_ATTRIBUTED = Attribution(UNATTRIBUTED, None, None, None)


class Attributor:
    """Attributes error lines with the compiled rules of one taxonomy."""

    def __init__(self, taxonomy: Taxonomy, rules: list[Rule]) -> None:
        self.table = taxonomy
        self.rules: tuple[Rule, ...] = tuple(rules)
        self._ranked = tuple(sorted(rules, key=self._rank))

    @classmethod
    def load(cls, rules: Path = DEFAULT_RULES, taxonomy: Path = DEFAULT_TAXONOMY) -> Attributor:
        """Read, validate and compile both files; ConfigError names file, line and field."""
        table = load_taxonomy(taxonomy)
        return cls(table, _compile_rules(rules, table))

    def _rank(self, rule: Rule) -> tuple[int, int, int]:
        return (self.table.layers[rule.layer].rank, PRIORITY_ORDER[rule.priority], rule.index)

    def taxonomy(self, code: str) -> CodeInfo:
        """(layer, category, meaning) of a code or alias; KeyError when unknown."""
        return self.table.info(code)

    def attribute(self, message: str) -> Attribution:
        """The highest-precedence code among the rules that match, or UNATTRIBUTED."""
        text = (
            message
            if len(message) <= SCAN_LIMIT
            else f"{message[: SCAN_LIMIT // 2]}\n{message[-SCAN_LIMIT // 2 :]}"
        )
        winner: tuple[tuple[int, int, int], str, str, str] | None = None  # rank, code, rule, priority
        codes: list[str] = []
        explicit = self._explicit(text)
        if explicit is not None:
            layer = self.table.layer_of(explicit)
            winner = (
                (layer.rank, PRIORITY_ORDER[layer.priority], -1),
                explicit,
                EXPLICIT_RULE,
                layer.priority,
            )
            codes.append(explicit)
        folded = text.lower() if text.isascii() else None
        for rule in self._ranked:  # already in precedence order: the first match is the best rule
            if rule.code in codes or not rule.matches(text, folded):
                continue
            rank = self._rank(rule)
            if winner is None or rank < winner[0]:
                winner = (rank, rule.code, rule.id, rule.priority)
            codes.append(rule.code)
        if winner is None:
            return NOT_ATTRIBUTED
        _, code, rule_id, priority = winner
        info = self.table.info(code)
        also = tuple(c for c in codes if c != code)
        return Attribution(code, info.layer, info.category, rule_id, also, priority)

    def _explicit(self, text: str) -> str | None:
        for m in _EXPLICIT.finditer(text):
            try:
                code = self.table.resolve(m.group(1))
            except KeyError:
                continue
            if code != UNATTRIBUTED:
                return code
        return None

    def check_examples(self) -> list[str]:
        """Every example that does not match its own rule (run by the tests and `--check`)."""
        return [
            f"rule {rule.id!r}: example does not match: {example!r}"
            for rule in self.rules
            for example in rule.examples
            if not rule.matches(example)
        ]


def _message_of(line: str) -> str:
    """The text to attribute in one input line: a JSON object's message fields, else the line."""
    if not line.startswith("{"):
        return line
    try:
        obj: Any = json.loads(line)
    except ValueError:
        return line
    if not isinstance(obj, dict):
        return line
    nested = obj.get("error")
    error: dict[str, Any] = nested if isinstance(nested, dict) else {}
    parts: list[str] = []
    for value in (
        obj.get("message", obj.get("msg", obj.get("log"))),
        obj.get("error.type", error.get("type")),
        obj.get("error.message", error.get("message")),
    ):
        if isinstance(value, str) and value.strip() and value not in parts:
            parts.append(value)
    code = obj.get("error.code", error.get("code"))
    if isinstance(code, str) and code:
        parts.append(f"error.code={code}")
    return " | ".join(parts) if parts else line


def attribute_lines(lines: Iterable[str], attributor: Attributor) -> Iterator[dict[str, object]]:
    """One attribution object per non-blank input line (JSON Lines with `message`, or plain text)."""
    for raw in lines:
        line = raw.strip()
        if line:
            yield attributor.attribute(_message_of(line)).as_dict()


# ------------------------------------------------------------------------------ coverage report

_SIGNATURE_SUBS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<ts>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<ts>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>)]+", re.I), "<url>"),
    (re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b(?:[0-9a-f]{1,4}:){3,7}[0-9a-f]{1,4}\b", re.I), "<ip>"),
    (re.compile(r"(?<![\w.])(?:~|\.{1,2})?(?:/[\w.@%+=~-]+){2,}/?"), "<path>"),
    (re.compile(r"-[a-z0-9]{8,10}-[a-z0-9]{5}\b"), "-<id>"),  # Deployment pod suffix
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b[0-9a-f]{8,}\b", re.I), "<hex>"),
    (
        re.compile(
            r"\b((?:request|req|trace|span|correlation)[_-]?id)([\"']?\s*[:=]\s*[\"']?)[\w.:-]+", re.I
        ),
        r"\1\2<id>",
    ),
    (re.compile(r"\b(?:req|cmpl|chatcmpl|run|job)-[\w-]+", re.I), "<id>"),
    (re.compile(r"\b(?=[a-z0-9]*\d[a-z0-9]*\d[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-z0-9]{8,}\b", re.I), "<id>"),
    (re.compile(r"(?<![A-Za-z_<])\d+(?:\.\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
)
SIGNATURE_LENGTH = 200


def signature(message: str) -> str:
    """The message with its variable parts (times, numbers, hex, ids, uuids, paths, IPs) replaced."""
    out = message
    for pattern, replacement in _SIGNATURE_SUBS:
        out = pattern.sub(replacement, out)
    return out.strip()[:SIGNATURE_LENGTH]


@dataclass(frozen=True)
class Signature:
    """A frequent unattributed message shape, with how often it occurred and one real example."""

    signature: str
    count: int
    example: str


@dataclass(frozen=True)
class UnattributedReport:
    """How much error volume the rules leave unattributed, and what to write rules for next."""

    total: int
    unattributed: int
    top: tuple[Signature, ...]

    @property
    def share(self) -> float:
        return self.unattributed / self.total if self.total else 0.0

    @property
    def within_target(self) -> bool:
        return self.share < COVERAGE_TARGET

    def render(self) -> str:
        head = f"unattributed: {self.unattributed}/{self.total} ({self.share:.1%}, target < {COVERAGE_TARGET:.0%})"
        return "\n".join([head, *(f"{s.count:>8}  {s.signature}" for s in self.top)])


def unattributed_report(
    messages: Iterable[tuple[str, int]], attributor: Attributor, top: int = 10
) -> UnattributedReport:
    """Share of error volume left UNATTRIBUTED and its most frequent signatures, from (message, count)."""
    total = unattributed = 0
    verdicts: dict[str, bool] = {}
    groups: dict[str, list[Any]] = {}  # signature -> [count, example]
    for message, count in messages:
        if count <= 0:
            continue
        total += count
        if message not in verdicts:
            verdicts[message] = attributor.attribute(message).attributed
        if verdicts[message]:
            continue
        unattributed += count
        group = groups.setdefault(signature(message), [0, message])
        group[0] += count
    ranked = sorted(groups.items(), key=lambda kv: (-kv[1][0], kv[0]))[: max(top, 0)]
    return UnattributedReport(
        total=total,
        unattributed=unattributed,
        top=tuple(Signature(sig, int(count), str(example)) for sig, (count, example) in ranked),
    )


# ------------------------------------------------------------------------------ helpers


def _read_yaml(path: Path, what: str) -> tuple[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ConfigError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}:1: the {what} must be a mapping")
    return text, data


def _raw_rule_id(raw: Any, loc: tuple[Any, ...]) -> str | None:
    """The `id` of the rule a validation error points into, when it has a usable one."""
    if not isinstance(raw, list) or len(loc) < 2 or loc[0] != "rules" or not isinstance(loc[1], int):
        return None
    if loc[1] >= len(raw) or not isinstance(raw[loc[1]], dict):
        return None
    rule_id = raw[loc[1]].get("id")
    return rule_id if isinstance(rule_id, str) and rule_id else None


def _hint(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


# ------------------------------------------------------------------------------ command line


def _bench(attributor: Attributor, n: int) -> str:
    """Lines per second over the rules' examples mixed with lines that match nothing."""
    noise = [
        'INFO:     10.42.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        "INFO 06-01 09:57:00 [metrics.py:455] Avg prompt throughput: 1024.3 tokens/s, Avg generation "
        "throughput: 812.9 tokens/s, Running: 31 reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: "
        "71.2%, CPU KV cache usage: 0.0%.",
        "[2026-06-01 09:57:01 TP0] Decode batch. #running-req: 12, #token: 5012, token usage: 0.35, "
        "gen throughput (token/s): 1200.00, #queue-req: 0",
    ]
    sample = [e for r in attributor.rules for e in r.examples] + noise * 20
    lines = (sample * (n // len(sample) + 1))[:n]
    start = time.perf_counter()
    for line in lines:
        attributor.attribute(line)
    elapsed = time.perf_counter() - start
    return f"{n} lines in {elapsed:.3f}s: {n / elapsed:,.0f} lines/s ({len(attributor.rules)} rules)"


def main(argv: list[str] | None = None) -> int:
    """`python -m bot.triage.attribution [--check | --bench N | FILE]`: attribute, check or time."""
    args = sys.argv[1:] if argv is None else argv
    try:
        attributor = Attributor.load()
    except ConfigError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    if args[:1] == ["--check"]:
        failures = attributor.check_examples()
        print("\n".join(failures) or f"{len(attributor.rules)} rules: every example matches its rule")
        return 1 if failures else 0
    if args[:1] == ["--bench"]:
        print(_bench(attributor, int(args[1]) if len(args) > 1 else 20_000))
        return 0
    stream = open(args[0], encoding="utf-8") if args else sys.stdin  # noqa: SIM115
    with stream:
        for obj in attribute_lines(stream, attributor):
            print(json.dumps(obj))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
