"""What changed between two ReplicaSets' pod templates, said the way a responder reads a rollout:
the image, each command-line flag, each environment variable, each resource limit and request,
containers added or removed, and the template's own annotations and labels — a
`kubectl rollout restart` changes nothing but the `kubectl.kubernetes.io/restartedAt` annotation,
and is said as a restart, not as "no template change".
"""

from __future__ import annotations

import json
from typing import Any

RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
HASH_LABEL = "pod-template-hash"  # the controller's own label: it differs between any two ReplicaSets


def flags(args: list[str]) -> dict[str, str]:
    """`--a 1 --b --c=2` → {"--a": "1", "--b": "", "--c": "2"}; positional words keyed by position."""
    flags: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = str(args[i])
        if arg.startswith("-"):
            if "=" in arg:
                key, value = arg.split("=", 1)
                flags[key] = value
            elif i + 1 < len(args) and not str(args[i + 1]).startswith("-"):
                flags[arg] = str(args[i + 1])
                i += 1
            else:
                flags[arg] = ""
        else:
            flags[f"arg{i}"] = arg
        i += 1
    return flags


def template_diff(old_rs: dict[str, Any], new_rs: dict[str, Any]) -> list[str]:
    """What changed between two ReplicaSets' pod templates: image, args, env, resources. The first
    container is the engine's; a sidecar's changes are prefixed `container <name>: `."""

    def containers(rs: dict[str, Any]) -> dict[str, dict[str, Any]]:
        spec = ((rs.get("spec") or {}).get("template") or {}).get("spec") or {}
        return {c["name"]: c for c in spec.get("containers") or []}

    changes: list[str] = []
    old, new = containers(old_rs), containers(new_rs)
    main = next(iter(new), None)
    for name, after in new.items():
        before = old.get(name)
        if before is None:
            changes.append(f"container {name} added")
            continue
        start = len(changes)
        if before.get("image") != after.get("image"):
            changes.append(f"image {before.get('image')} → {after.get('image')}")
        old_flags = flags([*(before.get("command") or []), *(before.get("args") or [])])
        new_flags = flags([*(after.get("command") or []), *(after.get("args") or [])])
        for key in sorted(set(old_flags) | set(new_flags)):
            if key not in new_flags:
                changes.append(f"{key} removed" + (f" (was {old_flags[key]})" if old_flags[key] else ""))
            elif key not in old_flags:
                changes.append(f"{key} added" + (f" {new_flags[key]}" if new_flags[key] else ""))
            elif old_flags[key] != new_flags[key]:
                changes.append(f"{key} {old_flags[key]} → {new_flags[key]}")
        old_env = {e["name"]: _env_value(e) for e in before.get("env") or []}
        new_env = {e["name"]: _env_value(e) for e in after.get("env") or []}
        for key in sorted(set(old_env) | set(new_env)):
            if old_env.get(key) != new_env.get(key):
                changes.append(f"env {key} {old_env.get(key)} → {new_env.get(key)}")
        for kind in ("limits", "requests"):
            before_res = (before.get("resources") or {}).get(kind) or {}
            after_res = (after.get("resources") or {}).get(kind) or {}
            for key in sorted(set(before_res) | set(after_res)):
                if str(before_res.get(key)) != str(after_res.get(key)):
                    changes.append(f"{kind}.{key} {before_res.get(key)} → {after_res.get(key)}")
        if name != main:  # a sidecar's change is said as such: it is not the engine's
            changes[start:] = [f"container {name}: {c}" for c in changes[start:]]
    changes += [f"container {name} removed" for name in old if name not in new]
    return changes + metadata_diff(old_rs, new_rs)


def metadata_diff(old_rs: dict[str, Any], new_rs: dict[str, Any]) -> list[str]:
    """The template's annotations and labels that changed (pod-template-hash aside); a changed
    `restartedAt` is said as the restart it is."""

    def meta(rs: dict[str, Any], field: str) -> dict[str, str]:
        template = ((rs.get("spec") or {}).get("template") or {}).get("metadata") or {}
        found = {str(k): str(v) for k, v in (template.get(field) or {}).items()}
        found.pop(HASH_LABEL, None)
        return found

    changes: list[str] = []
    for field, word in (("annotations", "annotation"), ("labels", "label")):
        old, new = meta(old_rs, field), meta(new_rs, field)
        for key in sorted(set(old) | set(new)):
            if old.get(key) == new.get(key):
                continue
            if key == RESTARTED_AT and key in new:
                changes.insert(0, f"restart (kubectl rollout restart at {new[key]})")
            elif key not in new:
                changes.append(f"template {word} {key} removed (was {old[key]})")
            elif key not in old:
                changes.append(f"template {word} {key} added {new[key]}")
            else:
                changes.append(f"template {word} {key} {old[key]} → {new[key]}")
    return changes


def _env_value(entry: dict[str, Any]) -> str | None:
    """An env entry's value as text: its literal, or where it comes from (a ConfigMap, a Secret key)."""
    if "valueFrom" in entry:
        return json.dumps(entry["valueFrom"], sort_keys=True)
    value = entry.get("value")
    return None if value is None else str(value)
