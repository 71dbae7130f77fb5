"""`triage --pack`, `eval` and `attribute`: the triage and the attribution on recorded incidents."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from bot.cli.app import JsonFlag, VariantOption, app, fail, settings
from bot.errors import BotError


@app.command()
def triage(
    pack: Annotated[Path, typer.Option("--pack", help="Scenario pack directory.")],
    as_json: JsonFlag = False,
    llm_script: Annotated[
        Path | None,
        typer.Option(
            "--llm-script", help="Add the LLM review, played by the OpenAI stand-in from this script."
        ),
    ] = None,
    variant: VariantOption = "",
) -> None:
    """Triage a pack through the production path: its alert into intake, the worker triaging
    against the pack's backends (real Prometheus, local API stand-ins), the stored triage printed."""
    from bot.sandbox.openai import load_script
    from bot.sandbox.pack import load_pack
    from bot.sandbox.replay import triage_pack
    from bot.sandbox.variant import Variant
    from bot.triage.knowledge import Knowledge

    try:
        knowledge = Knowledge.from_settings(settings())  # the data files the settings name
        script = load_script(llm_script) if llm_script else None
        served = Variant.parse(variant)
        result = triage_pack(
            load_pack(pack, with_expected=False), llm_script=script, knowledge=knowledge, variant=served
        )
    except BotError as exc:
        fail(exc)
    if as_json:
        typer.echo(json.dumps(result.public(), indent=2))
        return
    from bot.triage.text import render

    typer.echo(render(result))


@app.command("eval")
def eval_packs(
    root: Annotated[Path, typer.Argument(help="Directory holding packs (searched recursively).")],
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the scores as JSON here.")
    ] = None,
    variant: VariantOption = "",
) -> None:
    """Triage every pack with an expected.yaml; print per-pack pass/fail and totals (exit 0)."""
    from bot.sandbox.evaluate import evaluate, table, totals
    from bot.sandbox.variant import Variant
    from bot.triage.knowledge import Knowledge

    try:
        scores = evaluate(root, Knowledge.from_settings(settings()), Variant.parse(variant))
    except BotError as exc:
        fail(exc)
    typer.echo(table(scores))
    if json_file is not None:
        json_file.write_text(
            json.dumps({"packs": [s.public() for s in scores], "totals": totals(scores)}, indent=2)
        )


@app.command()
def attribute(
    file: Annotated[
        Path | None, typer.Argument(help="JSON Lines with `message` (or plain lines); default stdin.")
    ] = None,
    report: Annotated[
        bool,
        typer.Option(
            "--report",
            help="Then print to stderr the share each stage answered and the unattributed lines grouped "
            "into Drain templates, by count, flagging those above 5 a week.",
        ),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Add `explain` to each object: the rule and pattern that matched, or the learned "
            "stage's probabilities (code and layer), thresholds and nearest labelled lines.",
        ),
    ] = False,
) -> None:
    """Attribute each error line to a taxonomy code; one JSON object per input line.

    Rules answer first (stage `rule`, or `explicit` when the line carries its own code); a line no
    rule matches goes to the learned stage (stage `model`, with its `confidence`), which answers only
    when the code and its layer are above their calibrated thresholds; otherwise the code is
    UNATTRIBUTED (stage `none`).
    """
    from bot.triage.coverage import weekly_report
    from bot.triage.explain import explain as explain_one
    from bot.triage.knowledge import Knowledge
    from bot.triage.lines import read_line

    try:
        attributor = Knowledge.from_settings(settings()).attributor
    except BotError as exc:
        fail(exc)
    lines = [
        line.strip() for line in (file.read_text(encoding="utf-8") if file else sys.stdin.read()).splitlines()
    ]
    lines = [line for line in lines if line]
    records = [read_line(line) for line in lines]
    for message, _ in records:
        got = attributor.attribute(message)
        answer = got.as_dict()
        if explain:
            answer["explain"] = explain_one(attributor, message, got)
        typer.echo(json.dumps(answer))
    if report:
        model = attributor.model
        hint = None
        if model is not None:

            def hint(text: str) -> str:
                guess = model.best(text)
                check = ""
                if model.neighbour_similarity >= 0:
                    rare = model.rare_neighbour(text)
                    check = f"; nearest by rare features: {rare.code} ({rare.similarity:.2f})" if rare else ""
                return (
                    f"{guess.code} (learned stage, p={guess.probability:.2f}, layer {guess.layer_probability:.2f};"
                    f" its thresholds {model.threshold:.2f}, layer {model.layer_threshold:.2f}{check})"
                )

        typer.echo(weekly_report(records, attributor, hint).render(), err=True)
