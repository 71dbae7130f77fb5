"""`incident-bot runbooks check`: every problem of every runbook at once, FILE:LINE: field: message,
exit 1; a good folder passes with a summary; start-up refuses the same front-matter problems."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.triage.runbook_check import SECTIONS
from bot.triage.runbooks import DEFAULT_DIR, RunbookCatalog, read_folder
from bot.triage.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()
BODY = "# T\n\n## Symptoms\n\ns\n\n## Confirm\n\nc\n\n## First moves\n\nf\n\n## Do not\n\nd\n\n## Then\n\nt\n"


def check(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The real command, as a process, with a clean environment (no RUNBOOKS_DIR of the caller)."""
    base = {"PATH": "/usr/bin", "DATABASE_URL": f"sqlite:///{tmp_path / 'bot.db'}"}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        env={**base, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
    )


def book(folder: Path, name: str, front: str, body: str = BODY) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(f"---\n{front}---\n{body}")
    return path


def test_the_bundled_runbooks_pass_and_cover_every_code(tmp_path: Path) -> None:
    result = check(tmp_path, "runbooks", "check", "--coverage")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # no problem, and no code without a runbook of its own
    count = len([p for p in DEFAULT_DIR.glob("*.md") if p.name != "README.md"])
    codes = len(TAXONOMY.codes)
    assert result.stdout.strip() == (
        f"{DEFAULT_DIR}: {count} runbooks ok; they name {codes} of the taxonomy's {codes} codes "
        "and the UNATTRIBUTED fallback; categories matched: none"
    )


def broken_folder(tmp_path: Path) -> tuple[Path, list[str]]:
    """Runbooks with one or several mistakes each, and the exact problem lines they must yield."""
    d = tmp_path / "runbooks"
    book(
        d,
        "kv",
        "id: kv\ntitle: KV\nmatches:\n  codes: [ENG_KV_CACH, ENG_CRASH]\n  categories: [inference_engine]\n"
        "owner: me\nactions:\n  - kind: delete_node\n    target: node/{node}\n"
        "  - kind: cordon_node\n    target: deployment/{deployment}\n"
        "  - kind: reroute\n    target: httproute/{route}\n    when: sometimes\n",
        body="# KV\n\n## Symptoms\n\n## Confirm\n\n## First moves\n\n## Do not\n",
    )
    book(
        d,
        "gpu",
        "id: gpu\ntitle: G\nmatches:\n  codes: [INF_GPU_XID, ENG_CRASH]\n  categories: [infrastructure]\n",
    )
    book(d, "cat", "id: cat\ntitle: C\nmatches: {categories: [infra]}\n", body="\n\n")
    book(d, "named", "id: other\ntitle: N\nmatches: {codes: [INF_DISK]}\n")
    book(d, "timeout", "id: timeout\ntitle: T\nmatches: {codes: [ENG_TIMEOUT]}\npriority: 5\n")
    book(
        d,
        "timeout-alias",
        "id: timeout-alias\ntitle: T\nmatches: {codes: [MOD_INFERENCE_TIMEOUT]}\npriority: 5\n",
    )
    book(d, "engine-a", "id: engine-a\ntitle: E\nmatches: {categories: [inference_engine]}\n")
    book(d, "engine-b", "id: engine-b\ntitle: E\nmatches: {categories: [inference_engine]}\npriority: 0\n")
    book(d, "yaml", "id: yaml\ntitle: [unclosed\n")
    book(d, "listed", "- id: listed\n")
    (d / "plain.md").write_text("# No front matter\n")
    (d / "README.md").write_text("not a runbook, not checked\n")
    options = "'infrastructure', 'model_config', 'inference_engine' or 'operational'"
    conditions = (
        "'always', 'rollout', 'config_rollout', 'single_node', 'single_pod', 'multi_backend_route', "
        "'fleet_healthy' or 'hardware_fault'"
    )
    kinds = "'reroute', 'restart_pod', 'cordon_node', 'rollback_deployment' or 'add_replica'"
    sections = "Symptoms, Confirm, First moves, Do not, Then"
    expected = [
        f"{d}/cat.md:4: matches.categories[0]: Input should be {options}",
        f"{d}/cat.md:5: body: empty; a runbook's body has the sections {sections}",
        f"{d}/engine-b.md:4: matches.categories[0]: inference_engine is also matched by engine-a.md at the "
        "same priority 0, so engine-b would never be chosen; give one of them a higher priority",
        f"{d}/gpu.md:5: matches.codes[1]: ENG_CRASH is of category inference_engine, not of infrastructure",
        f"{d}/kv.md:5: matches.codes[0]: 'ENG_KV_CACH' is not a taxonomy code (did you mean 'ENG_KV_CACHE'?)",
        f"{d}/kv.md:7: owner: Extra inputs are not permitted",
        f"{d}/kv.md:9: actions[0].kind: Input should be {kinds}",
        f"{d}/kv.md:11: actions[1]: cordon_node acts on a node, not a deployment",
        f"{d}/kv.md:15: actions[2].when: Input should be {conditions}",
        f"{d}/kv.md:17: body: lacks '## Then' (every runbook has {sections}: runbooks/README.md)",
        f"{d}/listed.md:2: front matter: must be a mapping of fields (id, title, matches...), not a list",
        f"{d}/named.md:2: id: 'other' must equal the file name 'named'",
        f"{d}/plain.md:1: front matter: a runbook starts with YAML front matter between '---' lines",
        f"{d}/timeout.md:4: matches.codes[0]: ENG_TIMEOUT is also matched by timeout-alias.md at the same "
        "priority 5, so timeout would never be chosen; give one of them a higher priority",
        f"{d}/yaml.md:3: front matter: not valid YAML: expected ',' or ']', but got '<stream end>'",
    ]
    return d, expected


def test_every_mistake_of_every_file_is_reported_with_its_line(tmp_path: Path) -> None:
    folder, expected = broken_folder(tmp_path)
    result = check(tmp_path, "runbooks", "check", str(folder))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        *expected,
        f"{len(expected)} problems in 9 of 11 runbook files of {folder}",
    ]


def test_the_folder_defaults_to_runbooks_dir(tmp_path: Path) -> None:
    folder, expected = broken_folder(tmp_path)
    result = check(tmp_path, "runbooks", "check", env={"RUNBOOKS_DIR": str(folder)})
    assert result.returncode == 1 and result.stderr.splitlines()[: len(expected)] == expected


def test_start_up_refuses_the_same_front_matter_problems(tmp_path: Path) -> None:
    """One validator: `config check` (as `serve`) stops on every front-matter problem the check
    reports; a tie and the body's sections are the check's own (start-up took them, and still does)."""
    folder, expected = broken_folder(tmp_path)
    result = check(tmp_path, "config", "check", env={"RUNBOOKS_DIR": str(folder)})
    assert result.returncode == 2
    front = [line for line in expected if ": body: " not in line and "at the same priority" not in line]
    assert result.stderr.splitlines() == [f"error: invalid runbooks ({len(front)} problems)"] + [
        f"  {line}" for line in front
    ]


def test_a_good_custom_folder_passes_and_coverage_names_what_each_code_gets(tmp_path: Path) -> None:
    d = tmp_path / "mine"
    action = "actions:\n  - {kind: cordon_node, target: 'node/{node}', when: hardware_fault}\n"
    book(
        d,
        "xid",
        "id: xid\ntitle: X\nmatches: {codes: [INF_GPU_XID, INF_DISK_IO_ERROR]}\npriority: 10\n" + action,
    )
    book(d, "xid-low", "id: xid-low\ntitle: X\nmatches: {codes: [INF_GPU_XID]}\npriority: 1\n")
    book(d, "infra", "id: infra\ntitle: I\nmatches: {categories: [infrastructure]}\n")
    book(d, "fallback", "id: fallback\ntitle: F\nmatches: {codes: [UNATTRIBUTED]}\n")
    result = check(tmp_path, "runbooks", "check", str(d), "--coverage")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"{d}: 4 runbooks ok; they name 2 of the taxonomy's {len(TAXONOMY.codes)} codes and the UNATTRIBUTED "
        f"fallback; categories matched: infrastructure; {len(TAXONOMY.codes) - 2} codes have no runbook of "
        "their own (--coverage lists them)"
    )
    warnings = dict(line.removeprefix("warning: ").split(": ", 1) for line in result.stderr.splitlines())
    assert set(warnings) == set(TAXONOMY.codes) - {"INF_GPU_XID", "INF_DISK"}
    assert warnings["INF_NCCL"] == "no runbook names this infrastructure code; its incidents get infra.md"
    assert (
        warnings["ENG_CRASH"] == "no runbook names this inference_engine code; its incidents get fallback.md"
    )
    # what the coverage says is what the engine picks
    books, problems = read_folder(d, TAXONOMY)
    catalog = RunbookCatalog(books)
    assert problems == []
    for code, said in warnings.items():
        chosen = catalog.match(code, TAXONOMY.category_of(code).value)
        assert chosen is not None and said.endswith(f"get {chosen.path.name}"), code
    assert catalog.match("INF_GPU_XID", "infrastructure").id == "xid"  # type: ignore[union-attr]
    assert catalog.match("INF_DISK", "infrastructure").id == "xid"  # type: ignore[union-attr]  # by its alias


def test_the_fallback_is_the_highest_priority_unattributed_runbook(tmp_path: Path) -> None:
    d = tmp_path / "fb"
    book(d, "a-fallback", "id: a-fallback\ntitle: A\nmatches: {codes: [UNATTRIBUTED]}\n")
    book(d, "b-fallback", "id: b-fallback\ntitle: B\nmatches: {codes: [UNATTRIBUTED]}\npriority: 3\n")
    catalog = RunbookCatalog.load(d, TAXONOMY)
    assert catalog.match("NOT_A_CODE", None).id == "b-fallback"  # type: ignore[union-attr]
    assert catalog.match("UNATTRIBUTED", None).id == "b-fallback"  # type: ignore[union-attr]


def test_the_sections_checked_are_the_ones_runbooks_readme_states() -> None:
    """The check enforces only what runbooks/README.md tells an author, and every bundled body has them."""
    readme = (DEFAULT_DIR / "README.md").read_text()
    assert all(f"`## {name}`" in readme for name in SECTIONS)
    assert "runbooks check" in readme
