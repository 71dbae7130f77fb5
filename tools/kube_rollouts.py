"""Rollouts read by revision, the way the Deployment controller numbers them — rollbacks included.

The controller gives a Deployment's current ReplicaSet the highest `deployment.kubernetes.io/revision`
(max of the others + 1, `SetNewReplicaSetAnnotations` in pkg/controller/deployment). A rollback
(`kubectl rollout undo`, the bot's own `rollback_deployment`, any write that puts an old template
back) makes no new ReplicaSet: the controller finds the owned one whose template equals the new one
(`FindNewReplicaSet`), moves its revision to max+1 and keeps the old number in
`deployment.kubernetes.io/revision-history`. Its `creationTimestamp` stays the old one, so ordering
ReplicaSets by creation, or dating a rollout by it, misses every rollback. Here the revision orders
them, and a ReplicaSet that holds the newest revision while it has a history, or while it is older
than one below it, is a rollback, dated by when it became active again (`activated_at`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tools.events import event_times
from tools.result import Evidence, Source, Window, parse_time
from tools.templates import template_diff

REVISION = "deployment.kubernetes.io/revision"
HISTORY = "deployment.kubernetes.io/revision-history"
CHANGE_CAUSE = "kubernetes.io/change-cause"
SCALING = "ScalingReplicaSet"
Obj = dict[str, Any]


def annotations_of(obj: Obj) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def revision(rs: Obj) -> int:
    value = annotations_of(rs).get(REVISION, "")
    return int(value) if value.isdigit() else 0


def history(rs: Obj) -> list[int]:
    """The revisions the ReplicaSet held before (oldest first), as the controller keeps them."""
    return [int(h) for h in annotations_of(rs).get(HISTORY, "").split(",") if h.strip().isdigit()]


def owned_by(obj: Obj, owner: Obj) -> bool:
    """Whether `owner` is one of the object's owners: by uid where both carry one, else by kind and name."""
    meta = owner.get("metadata") or {}
    uid, name, kind = meta.get("uid"), meta.get("name"), owner.get("kind")
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if kind and ref.get("kind") not in (kind, None):
            continue
        if uid and ref.get("uid"):
            if ref.get("uid") == uid:
                return True
        elif ref.get("name") == name:
            return True
    return False


def by_revision(deployment: Obj, replicasets: Iterable[Obj]) -> list[Obj]:
    """The Deployment's ReplicaSets, lowest revision first (creation time breaks ties)."""
    owner = {"kind": "Deployment", **deployment}
    owned = [rs for rs in replicasets if owned_by(rs, owner)]
    return sorted(owned, key=lambda rs: (revision(rs), str(rs["metadata"].get("creationTimestamp") or "")))


def is_rollback(newest: Obj, older: Sequence[Obj]) -> bool:
    """Reused rather than made: it held a revision before, or it is older than a ReplicaSet below it."""
    if history(newest):
        return True
    born = parse_time(newest["metadata"].get("creationTimestamp"))
    return born is not None and any(
        (t := parse_time(rs["metadata"].get("creationTimestamp"))) is not None and t > born for rs in older
    )


@dataclass(frozen=True)
class Activation:
    """When a reused ReplicaSet became the Deployment's current one, and what says so."""

    at: datetime
    source: str
    exact: bool  # False: an upper bound (the moment is at or before `at`)


def activated_at(deployment: Obj, rs: Obj, previous: Obj | None, events: Iterable[Obj]) -> Activation | None:
    """When a rolled-back ReplicaSet became active again. A reused ReplicaSet carries no timestamp
    of its own for that, so the sources are, in order of trust:

    1. the controller's `ScalingReplicaSet` event "Scaled up replica set <rs> ..." on the
       Deployment: the moment it started scaling it up (exact; events live about an hour);
    2. the Deployment's managedFields: the last write of `spec.template` (the undo's own request;
       exact, unless the same manager wrote its fields again since);
    3. the Deployment's `Progressing` condition naming the ReplicaSet (reason ReplicaSetUpdated or
       NewReplicaSetAvailable): its lastUpdateTime is the last progress or the completion, so the
       rollback happened at or before it (an upper bound).

    Each must be after the previous ReplicaSet was created (it was replaced, so it existed). None
    when nothing dates it: such a rollback cannot be placed in the window, and is not reported.
    """
    floor = parse_time((previous or {}).get("metadata", {}).get("creationTimestamp"))
    name, dep_name = rs["metadata"]["name"], deployment["metadata"]["name"]

    def after(moment: datetime | None) -> datetime | None:
        return moment if moment is not None and (floor is None or moment >= floor) else None

    scaled = [
        # A series repeats the message of the first scale-up, long ago: its first time after the
        # previous ReplicaSet appeared, else its last.
        after(first) or after(last)
        for e in events
        if e.get("reason") == SCALING
        and str((e.get("regarding") or e.get("involvedObject") or {}).get("name")) == dep_name
        and f"Scaled up replica set {name} " in str(e.get("note") or e.get("message") or "") + " "
        for first, last in [event_times(e)]
    ]
    if dated := [t for t in scaled if t is not None]:
        return Activation(min(dated), f"event {SCALING}", exact=True)
    writes = [
        after(parse_time(m.get("time")))
        for m in (deployment.get("metadata") or {}).get("managedFields") or []
        if m.get("subresource") != "status"
        and "f:template" in ((m.get("fieldsV1") or {}).get("f:spec") or {})
    ]
    if written := [t for t in writes if t is not None]:
        return Activation(max(written), "managedFields spec.template", exact=True)
    for cond in (deployment.get("status") or {}).get("conditions") or []:
        stamp = after(parse_time(cond.get("lastUpdateTime")))
        if cond.get("type") == "Progressing" and f'"{name}"' in str(cond.get("message", "")) and stamp:
            return Activation(stamp, f"Progressing condition ({cond.get('reason')})", exact=False)
    return None


def rollout_evidence(
    deployment: Obj, replicasets: Iterable[Obj], window: Window, *, namespace: str, events: Iterable[Obj] = ()
) -> Evidence | None:
    """The Deployment's latest rollout or rollback if it became active inside the window, with what
    changed against the template it replaced."""
    name = deployment["metadata"]["name"]
    owned = by_revision(deployment, replicasets)
    if not owned:
        return None
    newest, older = owned[-1], owned[:-1]
    previous = older[-1] if older else None
    rollback = bool(older) and is_rollback(newest, older)
    created = parse_time(newest["metadata"].get("creationTimestamp"))
    if rollback:
        activation = activated_at(deployment, newest, previous, events)
        if activation is None:
            return None
        at, exact, source = activation.at, activation.exact, activation.source
    elif created is None:
        return None
    else:
        at, exact, source = created, True, "creationTimestamp"
    if not (window.start <= at <= window.as_of):
        return None
    changes = template_diff(previous, newest) if previous else ["first revision"]
    rev = str(revision(newest) or "?")
    when = f"{'at' if exact else 'by'} {at:%H:%M:%S}Z"
    if rollback:
        past = ",".join(str(h) for h in history(newest)) or "?"
        first = f"{created:%Y-%m-%d %H:%M}Z" if created else "unknown"
        summary = (
            f"deployment/{name} rolled back {when} to revision {rev} "
            f"(template of {newest['metadata']['name']}, revision {past} before, first created {first})"
        )
    else:
        summary = f"deployment/{name} rolled out revision {rev} {when}"
    summary += f": {'; '.join(changes)}" if changes else " (no template change)"
    if cause := annotations_of(newest).get(CHANGE_CAUSE):
        summary += f" (change-cause: {cause})"
    return Evidence(
        id=f"k8s:rollout:{namespace}/{name}:{rev}",
        source=Source.KUBERNETES,
        query=f"GET /apis/apps/v1/namespaces/{namespace}/replicasets (owner deployment/{name})",
        summary=summary,
        value=int(rev) if rev.isdigit() else rev,
        at=at,
        onset=at,
        link=f"kubectl -n {namespace} rollout history deployment/{name} --revision={rev}",
        labels={
            "kind": "rollout",
            "deployment": name,
            "replicaset": newest["metadata"]["name"],
            "previous_replicaset": previous["metadata"]["name"] if previous else "",
            "changes": " | ".join(changes),
            "revision": rev,
            "rollback": str(rollback).lower(),
            "dated_by": source,
            **({"revision_history": ",".join(map(str, history(newest)))} if rollback else {}),
        },
    )
