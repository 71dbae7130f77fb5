"""The attribution engine: rule files, the real-wording corpus, precedence, input formats, coverage."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.triage.attribution import Attributor
from bot.triage.attribution_rules import DEFAULT_RULES, rule_files
from bot.triage.coverage import signature, unattributed_report
from bot.triage.lines import attribute_lines
from bot.triage.prefilter import Check, required_sets
from bot.triage.taxonomy import DEFAULT_TAXONOMY, UNATTRIBUTED, Taxonomy, default_taxonomy, load_taxonomy
from tools.xid import XIDS, application_fault

CORPUS = Path(__file__).with_name("error_lines.tsv")


@pytest.fixture(scope="module")
def attributor() -> Attributor:
    return Attributor.load(default_taxonomy())


def _corpus() -> list[tuple[str, str, str]]:
    rows = []
    for raw in CORPUS.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            code, source, line = raw.split("\t", 2)
            rows.append((code, source, line))
    return rows


ROWS = _corpus()
RULES = Attributor.load(default_taxonomy()).rules


# ------------------------------------------------------------------------------ the shipped rules


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_every_example_matches_its_own_rule(rule: object, attributor: Attributor) -> None:
    found = next(r for r in attributor.rules if r.id == getattr(rule, "id", None))
    for example in found.examples:
        assert found.matches(example), f"rule {found.id!r}: example does not match: {example}"
        assert found.matches(example, example.lower() if example.isascii() else None)


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_every_example_is_attributed_to_its_rules_code(rule: object, attributor: Attributor) -> None:
    found = next(r for r in attributor.rules if r.id == getattr(rule, "id", None))
    for example in found.examples:
        got = attributor.attribute(example)
        assert got.code == found.code, (
            f"rule {found.id!r}: example attributed to {got.code} by {got.rule!r} "
            f"(put the specific rule first, or pick a cleaner example): {example}"
        )


def test_check_examples_reports_nothing_for_the_shipped_rules(attributor: Attributor) -> None:
    assert attributor.check_examples() == []


def test_every_layer_has_rules_and_every_rule_code_is_in_the_taxonomy(attributor: Attributor) -> None:
    table = attributor.table
    assert set(table.layers) == {"INF", "DEP", "MOD", "ENG", "GW", "BIZ"}
    assert {r.layer for r in attributor.rules} == set(table.layers)
    assert all(r.code in table.codes for r in attributor.rules)
    assert len({r.id for r in attributor.rules}) == len(attributor.rules)


def test_taxonomy_lookups_and_alias(attributor: Attributor) -> None:
    assert attributor.table.info("INF_GPU_OOM")[:2] == ("INF", "infrastructure")
    layer, category, meaning = attributor.table.info("MOD_INFERENCE_TIMEOUT")  # seed 000's name
    assert (layer, category) == ("ENG", "inference_engine") and meaning
    assert attributor.table.info("BIZ_AUTH").category == "none"
    assert attributor.table.info("GW_ROUTING").category == "operational"
    assert attributor.table.info("DEP_CACHE").category == "infrastructure"
    assert attributor.table.info("MOD_TOKENIZER").category == "model_config"
    assert attributor.table.info(UNATTRIBUTED) == (None, None, "no rule matched the line")
    assert attributor.table.resolve("MOD_INFERENCE_TIMEOUT") == "ENG_TIMEOUT"
    assert [attributor.table.priority(c) for c in ("INF_NCCL", "DEP_CACHE", "ENG_CRASH", "BIZ_AUTH")] == [
        "P1",
        "P2",
        "P2",
        "P3",
    ]
    with pytest.raises(KeyError):
        attributor.table.info("INF_NOPE")


# ------------------------------------------------------------------------------ the corpus


def test_corpus_is_large_and_covers_every_code_and_source(attributor: Attributor) -> None:
    assert len(ROWS) >= 150
    codes = {code for code, _, _ in ROWS}
    assert set(attributor.table.codes) <= codes, sorted(set(attributor.table.codes) - codes)
    assert UNATTRIBUTED in codes
    sources = {source for _, source, _ in ROWS}
    for engine in (
        "vllm",
        "tgi",
        "triton",
        "tensorrt-llm",
        "sglang",
        "pytorch",
        "nccl",
        "kernel",
        "kubernetes",
    ):
        assert engine in sources, engine
    assert {"envoy", "nginx", "redis", "s3", "gcs", "huggingface-hub", "milvus", "qdrant"} <= sources


@pytest.mark.parametrize(
    ("expected", "source", "line"), ROWS, ids=[f"{i:03d}-{r[0]}" for i, r in enumerate(ROWS)]
)
def test_corpus_line_gets_its_expected_code(
    expected: str, source: str, line: str, attributor: Attributor
) -> None:
    got = attributor.attribute(line)
    assert got.code == expected, f"[{source}] {line}\n  -> {got}"


def test_unattributed_share_of_corpus_errors_is_under_ten_percent(attributor: Attributor) -> None:
    errors = [line for code, _, line in ROWS if code != UNATTRIBUTED]
    missed = [line for line in errors if not attributor.attribute(line).attributed]
    share = len(missed) / len(errors)
    assert share < 0.10, f"{share:.1%} of error lines unattributed: {missed[:5]}"
    report = unattributed_report(((line, 1) for line in errors), attributor)
    assert report.share == share and report.within_target


def test_prefilter_never_hides_a_real_match(attributor: Attributor) -> None:
    """The literal prefilter is an optimisation only: wherever a regex matches, its check passes."""
    lines = [line for _, _, line in ROWS] + [e for r in attributor.rules for e in r.examples]
    for rule in attributor.rules:
        for check in (*rule.any_of, *rule.all_of):
            for line in lines:
                if line.isascii() and check.rx.search(line):
                    assert check.search(line, line.lower()), (rule.id, check.rx.pattern, line)


def test_required_literals_are_conservative() -> None:
    def needs(pattern: str) -> frozenset[str] | None:
        return Check.of(re.compile(pattern, re.IGNORECASE)).needs

    assert needs(r"CUDA out of memory") == frozenset({"cuda out of memory"})
    timeout = needs(r"timed? ?out|timeout|deadline exceeded")
    assert timeout is not None
    assert all(
        any(n in text for n in timeout) for text in ("timed out", "time out", "timeout", "deadline exceeded")
    )
    assert needs(r"\bOOMKill(?:ed|ing)\b") == frozenset({"oomkilled", "oomkilling"})
    assert needs(r"\d+/\d+") is None  # nothing literal: always run the regex
    assert needs(r"(?:ab)?cd") is None  # too short to be worth a test


def test_every_literal_set_a_pattern_guarantees_is_required() -> None:
    """A match must hold one member of each set; the most selective set comes first, and an
    everyday word ("failure") never displaces a rarer literal."""
    sets = required_sets(r"\b(?:CUDA|CUBLAS|CUDNN) failure \d+: ")
    assert sets == (frozenset({"cuda", "cublas", "cudnn"}), frozenset({" failure "}))
    assert frozenset({" sh", " cd"}) in required_sets(r"(?-i: [1-5]\d\d \d+ (?:sH|cD)-- )")
    line = "CUBLAS failure 13: CUBLAS_STATUS_EXECUTION_FAILED"
    check = Check.of(re.compile(r"\b(?:CUDA|CUBLAS|CUDNN) failure \d+: ", re.IGNORECASE))
    assert check.search(line, line.lower())
    assert not check.admits(frozenset({"cublas"}))  # " failure " absent: the regex never runs
    assert check.admits(frozenset({"cublas", " failure "}))


# ------------------------------------------------------------------------------ precedence


def test_infrastructure_wins_and_the_other_codes_are_kept(attributor: Attributor) -> None:
    got = attributor.attribute(
        "request cmpl-77 failed: This model's maximum context length is 8192 tokens. However, you requested "
        "120000 tokens; torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 30.00 GiB."
    )
    assert (got.code, got.layer, got.category, got.rule) == (
        "INF_GPU_OOM",
        "INF",
        "infrastructure",
        "gpu-oom",
    )
    assert got.also == ("BIZ_INPUT_TOO_LONG",)
    assert got.priority == "P1"


@pytest.mark.parametrize(
    ("line", "code", "also"),
    [
        (
            "[2026-06-01 09:58:15 TP1] Scheduler hit an exception: RuntimeError: CUDA error: an illegal memory "
            "access was encountered",
            "INF_CUDA_ERROR",
            ("ENG_CRASH",),
        ),
        ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "INF_GPU_XID", ("INF_CUDA_ERROR",)),
        (
            "qdrant_client.http.exceptions.UnexpectedResponse: Unexpected Response: 503 (Service Unavailable) "
            "Raw response content: b'no healthy upstream'",
            "DEP_VECTOR_DB",
            ("GW_UPSTREAM",),
        ),
        (
            'level=error msg="inference timeout after 60s" model=llama-3-70b gpu_util=98%',
            "INF_GPU_OVERLOAD",
            ("ENG_TIMEOUT",),
        ),
        (
            'level=error msg="inference timeout after 60s" model=llama-3-70b gpu_util=41%',
            "ENG_TIMEOUT",
            (),
        ),
        (
            "E0601 09:58:12.331220 1 model_repository_manager.cc:1307] Poll failed for model directory 'llama': "
            "failed to open text file for read /models/llama/config.pbtxt: No such file or directory",
            "INF_DISK",  # "model not found": files absent is storage, not the model
            ("MOD_LOAD_FAILED",),
        ),
    ],
)
def test_compound_lines(line: str, code: str, also: tuple[str, ...], attributor: Attributor) -> None:
    got = attributor.attribute(line)
    assert (got.code, got.also) == (code, also)


def test_plain_success_and_info_lines_are_not_over_attributed(attributor: Attributor) -> None:
    for line in (
        'INFO:     10.42.0.7:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
        '[2026-06-01T09:57:00.100Z] "POST /v1/completions HTTP/1.1" 200 - 1834 20481 5120 5119 "10.42.0.7" "-"',
        "INFO 06-01 09:57:00 [metrics.py:455] Running: 31 reqs, GPU KV cache usage: 99.1%, CPU KV cache usage: 0.0%.",
        "",
    ):
        got = attributor.attribute(line)
        assert got == attributor.attribute("nothing to see here")
        assert (got.code, got.layer, got.category, got.rule, got.also) == (UNATTRIBUTED, None, None, None, ())


def test_explicit_code_stamped_by_the_service_is_believed(attributor: Attributor) -> None:
    got = attributor.attribute('{"error.code": "MOD_OUTPUT_FORMAT_ERROR", "msg": "bad answer"}')
    assert (got.code, got.rule) == ("MOD_OUTPUT_FORMAT", "explicit-code")
    assert attributor.attribute("error_code=NOT_A_CODE failed").code == UNATTRIBUTED


def test_huge_and_non_ascii_messages(attributor: Attributor) -> None:
    traceback = "Traceback (most recent call last):\n" + '  File "x.py", line 1, in f\n' * 20_000
    assert (
        attributor.attribute(traceback + "torch.OutOfMemoryError: CUDA out of memory.").code == "INF_GPU_OOM"
    )
    assert attributor.attribute("推理失败\uff1aCUDA out of memory\uff08GPU 0\uff09").code == "INF_GPU_OOM"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_explicit_priority_then_file_order_within_a_layer(tmp_path: Path) -> None:
    rules = _write(
        tmp_path,
        "rules.yaml",
        """rules:
  - id: generic-crash
    code: ENG_CRASH
    patterns: ['engine failed']
    examples: ['engine failed']
  - id: queue
    code: ENG_QUEUE_FULL
    patterns: ['queue']
    examples: ['queue']
  - id: slow
    code: ENG_TIMEOUT
    priority: P1
    patterns: ['slow']
    examples: ['slow']
""",
    )
    at = Attributor.load(default_taxonomy(), rules)
    first = at.attribute("engine failed: queue")
    assert (first.code, first.also, first.priority) == ("ENG_CRASH", ("ENG_QUEUE_FULL",), "P2")
    second = at.attribute("engine failed: queue slow")
    assert (second.code, second.rule, second.priority) == ("ENG_TIMEOUT", "slow", "P1")
    assert second.also == ("ENG_CRASH", "ENG_QUEUE_FULL")


def test_all_and_any_lists_and_alias_codes(tmp_path: Path) -> None:
    rules = _write(
        tmp_path,
        "rules.yaml",
        """rules:
  - id: both
    code: MOD_INFERENCE_TIMEOUT
    any: ['deadline', 'too slow']
    all: ['model', 'exceeded']
    examples: ['model deadline exceeded']
""",
    )
    at = Attributor.load(default_taxonomy(), rules)
    assert at.attribute("model deadline exceeded").code == "ENG_TIMEOUT"
    assert at.attribute("model too slow, exceeded").code == "ENG_TIMEOUT"
    assert at.attribute("model deadline").code == UNATTRIBUTED
    assert at.attribute("deadline exceeded").code == UNATTRIBUTED


def test_a_rule_tries_the_patterns_its_literals_admit_and_those_with_none(tmp_path: Path) -> None:
    """A rule's patterns are tried through their literals: one whose literals are unknown is tried
    on every line, one that needs two literals only where both are, and the answers are those of
    trying every pattern."""
    rules = _write(
        tmp_path,
        "rules.yaml",
        r"""rules:
  - id: mixed
    code: ENG_CRASH
    patterns:
      - '^\w{2,4} \d+$'
      - 'engine (?:died|crashed) after \d+ steps'
      - 'worker \w+ lost'
      - 'lost'
    examples: ['abc 123']
""",
    )
    at = Attributor.load(default_taxonomy(), rules)
    (rule,) = at.rules
    always, by_literal, _ = rule.any_index
    assert always == (0,) and rule.any_of[1].also  # pattern 1 needs "engine " and more
    assert all(n in by_literal[lit] for n, c in enumerate(rule.any_of) for lit in c.needs or ())
    lines = {
        "abc 123": True,  # no literal: tried on every line
        "engine died after 5 steps": True,
        "engine crashed after 12 steps": True,
        "engine crashed": False,  # holds one literal set of pattern 1, not the other
        "engine steps died": False,
        "worker w-1 lost": True,  # pattern 2 fails (w-1 is no \w+), 3 matches
        "the worker is fine": False,
        "": False,
    }
    for line, expected in lines.items():
        brute = any(c.rx.search(line) for c in rule.any_of)
        assert brute == expected, line
        assert (at.attribute(line).code == "ENG_CRASH") == expected, line


# ------------------------------------------------------------------------------ invalid files

VALID_RULE = """  - id: ok
    code: INF_GPU_OOM
    patterns: ['CUDA out of memory']
    examples: ['CUDA out of memory']
"""


def _load_error(tmp_path: Path, rules_text: str, taxonomy: Taxonomy | None = None) -> str:
    path = _write(tmp_path, "rules.yaml", rules_text)
    with pytest.raises(ConfigError) as err:
        Attributor.load(taxonomy or default_taxonomy(), path)
    return err.value.message


def test_invalid_regex_names_file_line_rule_and_pattern(tmp_path: Path) -> None:
    message = _load_error(
        tmp_path,
        "rules:\n"
        + VALID_RULE
        + """  - id: broken
    code: ENG_CRASH
    patterns:
      - 'EngineDeadError'
      - 'Engine(Core'
    examples: ['EngineDeadError']
""",
    )
    assert (
        f"{tmp_path / 'rules.yaml'}:10: rules[1].patterns[1]: rule 'broken': invalid regex 'Engine(Core'"
        in message
    )


def test_unknown_code_names_the_rule_and_suggests(tmp_path: Path) -> None:
    message = _load_error(
        tmp_path,
        "rules:\n"
        + VALID_RULE
        + """  - id: typo
    code: INF_GPU_OMM
    patterns: ['x+y']
    examples: ['x+y']
""",
    )
    assert f"{tmp_path / 'rules.yaml'}:7: rules[1].code: rule 'typo': unknown code 'INF_GPU_OMM'" in message
    assert "did you mean 'INF_GPU_OOM'" in message


def test_missing_field_names_file_line_field_and_rule(tmp_path: Path) -> None:
    message = _load_error(
        tmp_path,
        "rules:\n"
        + VALID_RULE
        + """  - id: no-code
    patterns: ['abc']
    examples: ['abc']
""",
    )
    assert f"{tmp_path / 'rules.yaml'}:6: rules[1].code: Field required (rule 'no-code')" in message


@pytest.mark.parametrize(
    ("rule", "needle"),
    [
        ("  - id: a\n    code: ENG_CRASH\n    patterns: ['abc']\n", "rules[0].examples: Field required"),
        (
            "  - id: a\n    code: ENG_CRASH\n    examples: ['abc']\n",
            "rule 'a': needs `patterns` (or `any`) or `all`",
        ),
        (
            "  - id: a\n    code: ENG_CRASH\n    patterns: ['x?']\n    examples: ['x']\n",
            "matches an empty line",
        ),
        (
            "  - id: a\n    code: ENG_CRASH\n    patterns: ['a']\n    any: ['b']\n    examples: ['a']\n",
            "`patterns` and `any` are synonyms",
        ),
        (
            "  - id: a\n    code: ENG_CRASH\n    patterns: ['a']\n    priority: P0\n    examples: ['a']\n",
            "priority",
        ),
        ("  - id: Bad Id\n    code: ENG_CRASH\n    patterns: ['a']\n    examples: ['a']\n", "rules[0].id"),
        ("  - id: a\n    code: ENG_CRASH\n    pattern: ['a']\n    examples: ['a']\n", "rules[0].pattern"),
        (
            "  - id: a\n    code: UNATTRIBUTED\n    patterns: ['abc']\n    examples: ['abc']\n",
            "cannot attribute",
        ),
        (VALID_RULE + VALID_RULE, "rules[1].id: rule 'ok': id is used by an earlier rule"),
    ],
)
def test_other_invalid_rules(tmp_path: Path, rule: str, needle: str) -> None:
    assert needle in _load_error(tmp_path, "rules:\n" + rule)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the attribution rules"):
        Attributor.load(default_taxonomy(), tmp_path / "missing.yaml")
    assert "rules.yaml:2: not valid YAML" in _load_error(tmp_path, "rules:\n\t- id: a\n")
    assert "must be a mapping" in _load_error(tmp_path, "- just a list\n")


def test_invalid_taxonomy(tmp_path: Path) -> None:
    taxonomy = _write(
        tmp_path,
        "taxonomy.yaml",
        """layers:
  INF: {category: infrastructure, priority: P1, rank: 1}
  ENG: {category: inference_engine, priority: P2, rank: 1}
codes:
  INF_GPU_OOM: GPU memory exhausted
  XYZ_THING: a code of no layer
aliases:
  OLD_NAME: INF_GPU_OMM
""",
    )
    with pytest.raises(ConfigError) as err:
        load_taxonomy(taxonomy)
    message = err.value.message
    assert f"{taxonomy}:3: layers.ENG.rank: rank 1 is already used by layer 'INF'" in message
    assert f"{taxonomy}:6: codes.XYZ_THING: code 'XYZ_THING' has no declared layer 'XYZ'" in message
    assert f"{taxonomy}:8: aliases.OLD_NAME: alias 'OLD_NAME' points to unknown code 'INF_GPU_OMM'" in message
    bad_category = _write(
        tmp_path, "t2.yaml", "layers:\n  INF: {category: hardware, priority: P1, rank: 1}\n"
    )
    with pytest.raises(ConfigError, match=r"t2.yaml:2: layers.INF.category"):
        load_taxonomy(bad_category)


def test_shipped_files_are_the_defaults() -> None:
    assert DEFAULT_RULES.name == "attribution" and len(rule_files(DEFAULT_RULES)) == 6
    assert DEFAULT_TAXONOMY.name == "taxonomy.yaml" and DEFAULT_TAXONOMY.is_file()


# ------------------------------------------------------------------------------ attribute_lines


def test_attribute_lines_reads_json_lines_and_plain_lines_in_order(attributor: Attributor) -> None:
    lines = [
        json.dumps(
            {"@timestamp": "2026-06-01T09:58:02Z", "message": "torch.OutOfMemoryError: CUDA out of memory."}
        ),
        "\n",
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=python3, GPU has fallen off the bus.\n",
        json.dumps({"message": "request failed", "error": {"type": "redis.exceptions.TimeoutError"}}),
        json.dumps({"message": "request failed", "error.message": "Timeout reading from socket"}),
        json.dumps({"log": "Warning  Evicted  pod/x  The node was low on resource: memory."}),
        '{"not": "a log record"}',
        "{not json: CrashLoopBackOff",
        "   ",
        'INFO:     10.0.0.1:1 - "GET /health HTTP/1.1" 200 OK',
        json.dumps(
            {
                "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens "
                "... torch.OutOfMemoryError: CUDA out of memory."
            }
        ),
    ]
    out = list(attribute_lines(lines, attributor))
    assert [o["code"] for o in out] == [
        "INF_GPU_OOM",
        "INF_GPU_XID",
        "DEP_CACHE",
        "DEP_CACHE",
        "INF_POD_EVICTED",
        UNATTRIBUTED,
        "ENG_CRASH",
        UNATTRIBUTED,
        "INF_GPU_OOM",
    ]
    assert out[0] == {
        "code": "INF_GPU_OOM",
        "layer": "INF",
        "category": "infrastructure",
        "rule": "gpu-oom",
        "stage": "rule",
    }
    assert out[5] == {"code": UNATTRIBUTED, "layer": None, "category": None, "rule": None, "stage": "none"}
    assert out[-1]["also"] == ["BIZ_INPUT_TOO_LONG"]
    assert all(json.loads(json.dumps(o)) == o for o in out)


def test_attribute_lines_uses_the_ecs_error_code(attributor: Attributor) -> None:
    line = json.dumps({"message": "generation failed", "error": {"code": "INF_GPU_OOM"}})
    (out,) = attribute_lines([line], attributor)
    assert (out["code"], out["rule"]) == ("INF_GPU_OOM", "explicit-code")


# ------------------------------------------------------------------------------ unattributed report


def test_signature_strips_variable_parts() -> None:
    a = signature(
        "2026-06-01T09:58:02.118Z worker req-7f3a9c on 10.42.3.17:8000 failed reading "
        "/var/lib/models/llama/shard-00012.bin: handle 0x7f3c2a1b trace 4f1c2a9e-7b3d-4e8f-9a6b-1c2d3e4f5a6b after 37 s"
    )
    b = signature(
        "2026-06-02T11:01:44.903Z worker req-0b1c22 on 10.42.9.2:8000 failed reading "
        "/var/lib/models/qwen/shard-00001.bin: handle 0xdeadbeef trace 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d after 4 s"
    )
    assert a == b
    assert a == "<ts> worker <id> on <ip> failed reading <path>: handle <hex> trace <uuid> after <n> s"
    assert signature("pod vllm-llama-7d9f8c6b5-x2k9z  lost   lease  request_id=a1b2c3") == (
        "pod vllm-llama-<id> lost lease request_id=<id>"
    )
    assert signature("commit 9f2c1e7a3b4d5e6f shard ab12cd34ef56 ok") == "commit <hex> shard <hex> ok"


def test_unattributed_report_counts_volume_and_ranks_signatures(attributor: Attributor) -> None:
    messages = [
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", 50),
        ("ERROR: inference failed for req-1a2b3c after 31 s", 20),
        ("ERROR: inference failed for req-9z8y7x after 4 s", 15),
        ("unknown failure in shard 3", 5),
        ("unknown failure in shard 7", 5),
        ("Warning  Evicted  pod/x  The node was low on resource: memory.", 5),
        ("ignored", 0),
    ]
    report = unattributed_report(messages, attributor, top=2)
    assert (report.total, report.unattributed) == (100, 45)
    assert report.share == pytest.approx(0.45)
    assert not report.within_target
    assert [(s.signature, s.count) for s in report.top] == [
        ("ERROR: inference failed for <id> after <n> s", 35),
        ("unknown failure in shard <n>", 10),
    ]
    assert report.top[0].example == "ERROR: inference failed for req-1a2b3c after 31 s"
    assert report.render().startswith("unattributed: 45/100 (45.0%, target < 10%)")
    empty = unattributed_report([], attributor)
    assert (empty.total, empty.share, empty.top, empty.within_target) == (0, 0.0, (), True)


@pytest.mark.parametrize("xid", sorted(XIDS))
def test_kernel_xid_lines_follow_nvidias_catalogue(xid: int, attributor: Attributor) -> None:
    """The attribution rules and tools/xid.py agree: an application-fault Xid is a CUDA error of the
    process (restart it), every other one a fault of the card (isolate it)."""
    for line in (
        f"NVRM: Xid (PCI:0000:3b:00): {xid}, pid=4121, name=python3, {XIDS[xid].meaning}",
        f"kernel: [1234.5] NVRM: Xid (PCI:0000:ca:00): {xid}, pid='<unknown>', name=<unknown>, details",
    ):
        expected = "INF_CUDA_ERROR" if application_fault(xid) else "INF_GPU_XID"
        assert attributor.attribute(line).code == expected, line


def test_the_literal_index_never_changes_an_answer(attributor: Attributor) -> None:
    """The automaton and the per-rule gates only skip work: every line gets the codes that trying
    every regex of every rule gives, in any script: a line with non-ASCII text in it, or with the
    characters re.IGNORECASE matches to ASCII letters (dotted capital i, long s, the Kelvin sign)."""
    real = Path(__file__).with_name("corpus") / "real_lines.tsv"
    lines = [line for _, _, line in ROWS] + [
        row.split("\t")[4] for row in real.read_text(encoding="utf-8").splitlines() if row and row[0] != "#"
    ]
    lines += [f"错误: {line}" for line in lines[::3]]
    lines += [
        line.upper().replace("I", "\u0130").replace("S", "\u017f").replace("K", "\u212a")
        for line in lines[::5]
    ]
    for line in lines:
        brute = {
            r.code
            for r in attributor.rules
            if (not r.any_of or any(c.rx.search(line) for c in r.any_of))
            and all(c.rx.search(line) for c in r.all_of)
        }
        got = attributor.attribute(line)
        if got.rule == "explicit-code":
            continue
        assert {got.code, *got.also} - {UNATTRIBUTED} == brute, line


def test_weekly_report_groups_unattributed_lines_into_templates_per_week(attributor: Attributor) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.triage.coverage import weekly_report

    start = datetime(2026, 6, 1, tzinfo=UTC)
    lines = [
        (f"frobnicator {n} failed to sprocket 0x{n:04x} on shard-{n}", start + timedelta(minutes=30 * n))
        for n in range(28)
    ]
    lines += [("gizmo quux rejected", start), ("torch.OutOfMemoryError: CUDA out of memory.", start)]
    lines += [('INFO:     10.0.0.1:1 - "GET /health HTTP/1.1" 200 OK', start)]  # not an error line
    report = weekly_report(lines, attributor, hint=lambda example: f"hint for {example[:5]}")
    assert report.total == 30 and report.by_stage == {"none": 29, "rule": 1} and report.not_errors == 1
    assert report.span == timedelta(hours=13, minutes=30)  # under a day: counted as one day
    first, second = report.templates
    assert first.count == 28 and first.per_week == pytest.approx(28 * 7) and first.flagged
    assert "frobnicator" in first.template and first.example == lines[0][0] and first.hint == "hint for frobn"
    assert second.count == 1 and second.flagged  # 1 a day is 7 a week
    untimed = weekly_report([(m, None) for m, _ in lines], attributor)
    assert untimed.span is None and untimed.templates[1].per_week == 1 and not untimed.templates[1].flagged
    text = untimed.render()
    assert "no timestamps: the input is counted as one week" in text and "⚑" in text
    assert "left out: 1 lines that report no failure" in text and "closest code" not in text
    assert "closest code: hint for frobn" in report.render()


def test_a_literal_no_ascii_line_can_hold_rules_its_regex_out_of_ascii_lines() -> None:
    """A pattern written in another script ("余额不足") never runs on an ASCII line; a character that
    case-insensitively matches an ASCII letter (the long s matches "s") is not such a literal."""
    from bot.triage.prefilter import ASCII_ALIKE

    alike = {chr(c) for c in range(128, 0x10000) if re.match("(?i:[a-z])", chr(c))}
    assert alike == set(ASCII_ALIKE)
    check = Check.of(re.compile("余额不足|账户已欠费", re.IGNORECASE))
    assert check.needs == frozenset({"余额不足", "账户已欠费"})
    assert not check.admits(frozenset({"error"}))
    assert Check.of(re.compile("\u017fervice down", re.IGNORECASE)).needs is None  # matches "service down"
