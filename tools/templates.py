"""What changed between two ReplicaSets' pod templates, said the way a responder reads a rollout:
the image, each command-line flag, each environment variable, each resource limit and request.
"""

from __future__ import annotations

from typing import Any


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
        old_env = {e["name"]: e.get("value") for e in before.get("env") or []}
        new_env = {e["name"]: e.get("value") for e in after.get("env") or []}
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
    return changes
