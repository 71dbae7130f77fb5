"""What the deployment tests read: the rendered kustomization, the Dockerfile, the bot's own
command line parsing an argument list the way `incident-bot` would, and what the rendered RBAC
objects let a service account do."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import typer.main
import yaml
from dockerfile_parse import DockerfileParser

from bot.cli import app

ROOT = Path(__file__).resolve().parents[2]
KUBERNETES = ROOT / "deploy" / "kubernetes"
DOCKERFILE = ROOT / "Dockerfile"
Doc = dict[str, Any]
Grant = tuple[str, str, str]  # (apiGroup, resource or non-resource URL, verb)


def kustomize(folder: Path = KUBERNETES) -> list[dict[str, Any]]:
    """The objects `kubectl kustomize` renders from the folder (offline: no cluster is asked)."""
    kubectl = shutil.which("kubectl")
    assert kubectl is not None, "kubectl comes with Debian's kubernetes-client (scripts/test.sh installs it)"
    result = subprocess.run(
        [kubectl, "kustomize", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"KUBECONFIG": "/dev/null", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def dockerfile() -> DockerfileParser:
    return DockerfileParser(str(DOCKERFILE))


def last(instruction: str) -> str:
    """The value of the Dockerfile's last INSTRUCTION (USER, WORKDIR…): the one the container gets."""
    values = [i["value"].strip() for i in dockerfile().structure if i["instruction"] == instruction]
    assert values, f"the Dockerfile has no {instruction}"
    return values[-1]


def command_params(args: list[str]) -> dict[str, Any]:
    """The parameters `incident-bot ARGS` gives its subcommand; an unknown option fails here."""
    group = typer.main.get_command(app)
    assert isinstance(group, typer.main.TyperGroup)
    command = group.commands[args[0]]
    with command.make_context(args[0], list(args[1:])) as ctx:
        return dict(ctx.params)


def roles_of(docs: list[Doc], namespace: str, account: str) -> set[tuple[str, str | None, str]]:
    """(kind, namespace, name) of each role a rendered binding gives the service account: bound to
    it by name, as its user name, or to a group every service account of its namespace is in."""
    return {role for _, role in bound_roles(docs, namespace, account)}


def bound_roles(
    docs: list[Doc], namespace: str, account: str
) -> set[tuple[str | None, tuple[str, str | None, str]]]:
    """Each role the account holds with where it holds it: the binding's namespace (a RoleBinding
    grants its role there only) or None for everywhere (a ClusterRoleBinding)."""
    user = f"system:serviceaccount:{namespace}:{account}"
    groups = {"system:authenticated", "system:serviceaccounts", f"system:serviceaccounts:{namespace}"}
    found = set()
    for binding in docs:
        if binding["kind"] not in ("ClusterRoleBinding", "RoleBinding"):
            continue
        where = binding["metadata"].get("namespace")
        for s in binding.get("subjects") or []:
            if (
                (
                    s["kind"] == "ServiceAccount"
                    and (s["name"], s.get("namespace", where)) == (account, namespace)
                )
                or (s["kind"] == "User" and s["name"] == user)
                or (s["kind"] == "Group" and s["name"] in groups)
            ):
                ref = binding["roleRef"]
                scope = where if binding["kind"] == "RoleBinding" else None
                found.add((scope, (ref["kind"], where if ref["kind"] == "Role" else None, ref["name"])))
    return found


def grants_of(docs: list[Doc], roles: set[tuple[str, str | None, str]]) -> set[Grant]:
    """Everything the roles' rules grant. A role bound but not rendered, or one aggregated from
    others, fails: what it grants cannot be read from the manifests."""
    grants: set[Grant] = set()
    for kind, where, name in roles:
        found = [
            d
            for d in docs
            if (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]) == (kind, where, name)
        ]
        assert len(found) == 1, f"{kind} {name}: bound, {len(found)} rendered"
        assert "aggregationRule" not in found[0], f"{kind} {name}: its rules come from other roles"
        for rule in found[0].get("rules") or []:
            targets = [(g, r) for g in rule.get("apiGroups", []) for r in rule.get("resources", [])]
            targets += [("", url) for url in rule.get("nonResourceURLs", [])]
            grants |= {(g, r, v) for g, r in targets for v in rule["verbs"]}
    return grants
