"""The Deployment controller (apps/v1): a ReplicaSet per template, revisions, and the rollout's status.

On a change of spec.template (the pod-template-hash label aside) or spec.replicas, an unpaused
Deployment gets the ReplicaSet of its template — an owned one whose template is equal (reused: it
takes the next revision and keeps the old one in revision-history, which is what makes
`kubectl rollout undo` work) or a new `<name>-<hash>` — scaled to spec.replicas, the others to 0
at once (no surge pacing), each scaling told by a `ScalingReplicaSet` event as the real controller
tells it ("Scaled up replica set X from 0 to 3"). Its status is recounted from its ReplicaSets
whenever they change, with Available and Progressing as `kubectl rollout status` reads them.
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid
from typing import Any

from bot.sandbox.kubernetes.clock import Clocked
from bot.sandbox.kubernetes.objects import scaled
from bot.sandbox.kubernetes.pods import controller_uid, owner_ref
from bot.sandbox.kubernetes.replicasets import SUFFIX_ALPHABET
from bot.sandbox.kubernetes.resources import RESOURCES, Obj
from bot.sandbox.kubernetes.selectors import selects

_BY_KIND = {res.kind: res for res in RESOURCES}
DEPLOYMENT, RS, EVENT = _BY_KIND["Deployment"], _BY_KIND["ReplicaSet"], _BY_KIND["Event"]
HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX = "deployment.kubernetes.io/max-replicas"
# Annotations a Deployment does not hand down to its ReplicaSets (and `rollout undo` does not take back).
_NOT_COPIED = {
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    HISTORY,
    DESIRED,
    MAX,
    "deprecated.deployment.rollback.to",
}


def pruned(value: Any) -> Any:
    """Without nulls and empty maps or lists, as the server's typed decoding makes them equal."""
    if isinstance(value, dict):
        kept = {key: pruned(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item not in (None, {}, [])}
    if isinstance(value, list):
        return [pruned(item) for item in value]
    return value


def template_key(template: Any) -> Any:
    """A pod template as the controller compares them: pod-template-hash ignored."""
    bare = copy.deepcopy(template or {})
    ((bare.get("metadata") or {}).get("labels") or {}).pop(HASH_LABEL, None)
    return pruned(bare)


def template_hash(template: Any, collisions: int) -> str:
    digest = hashlib.sha256(
        f"{json.dumps(template_key(template), sort_keys=True)}/{collisions}".encode()
    ).digest()
    return "".join(SUFFIX_ALPHABET[byte % len(SUFFIX_ALPHABET)] for byte in digest[:10])


def revision_of(obj: Obj) -> int:
    value = (obj["metadata"].get("annotations") or {}).get(REVISION, "")
    return int(value) if value.isdigit() else 0


def replicas_of(obj: Obj) -> int:
    return int((obj.get("spec") or {}).get("replicas", 1))


def _condition(kind: str, status: str, reason: str, message: str) -> Obj:
    return {"type": kind, "status": status, "reason": reason, "message": message}


class Deployments(Clocked):
    """Rollouts and the Deployment's status, over the ReplicaSets it controls."""

    def _sync_deployment(self, deployment: Obj, before: Obj | None) -> None:
        spec = deployment.get("spec") or {}
        if spec.get("paused"):
            return
        rolled = before is None or (
            template_key((before.get("spec") or {}).get("template")) != template_key(spec.get("template"))
            or replicas_of(before) != replicas_of(deployment)
        )
        if rolled:
            self._roll_out(deployment)
        self._recount(deployment, rolled=rolled)

    def _replicasets(self, deployment: Obj) -> list[Obj]:
        """The ReplicaSets the Deployment controls, orphans its selector matches adopted."""
        meta = deployment["metadata"]
        selector = (deployment.get("spec") or {}).get("selector")
        owned = []
        for rs in self._objects(RS, meta["namespace"]):
            if controller_uid(rs) is None and selector and selects(selector, rs["metadata"].get("labels")):
                rs["metadata"]["ownerReferences"] = [
                    *(rs["metadata"].get("ownerReferences") or []),
                    owner_ref(deployment),
                ]
                rs = self._put(RS, rs) or rs
            if controller_uid(rs) == meta["uid"]:
                owned.append(rs)
        return owned

    def _roll_out(self, deployment: Obj) -> None:
        """The template's ReplicaSet (found or made) scaled up, every other one scaled to 0."""
        meta, spec = deployment["metadata"], deployment.get("spec") or {}
        owned = self._replicasets(deployment)
        key = template_key(spec.get("template"))
        equal = [rs for rs in owned if template_key(rs["spec"].get("template")) == key]
        # FindNewReplicaSet: the oldest of the equal ones, should there be more than one.
        new = min(equal, key=lambda rs: str(rs["metadata"].get("creationTimestamp") or ""), default=None)
        others = [rs for rs in owned if rs is not new]
        revision = max((revision_of(rs) for rs in others), default=0) + 1
        if new is None:
            new = self._new_replicaset(deployment)
        annotations = new["metadata"].setdefault("annotations", {})
        held = revision_of(new)
        if held >= revision:
            revision = held
        else:
            history = [h for h in annotations.get(HISTORY, "").split(",") if h] + (
                [str(held)] if held else []
            )
            if history:
                annotations[HISTORY] = ",".join(history)
            annotations[REVISION] = str(revision)
        wanted = replicas_of(deployment)
        surge = self._max_surge(deployment)
        annotations |= {k: v for k, v in (meta.get("annotations") or {}).items() if k not in _NOT_COPIED}
        annotations |= {DESIRED: str(wanted), MAX: str(wanted + surge)}
        had = int((new.get("spec") or {}).get("replicas") or 0)
        self._save(RS, new | {"spec": new["spec"] | {"replicas": wanted}})
        self._scaled(deployment, new, had, wanted)
        for rs in others:
            if replicas_of(rs) != 0:
                rs_annotations = rs["metadata"].setdefault("annotations", {})
                rs_annotations |= {DESIRED: str(wanted), MAX: str(wanted + surge)}
                self._save(RS, rs | {"spec": rs["spec"] | {"replicas": 0}})
                self._scaled(deployment, rs, replicas_of(rs), 0)
        current = self._find(DEPLOYMENT, meta["namespace"], meta["name"])
        if current is not None:
            current["metadata"].setdefault("annotations", {})[REVISION] = str(revision)
            self._put(DEPLOYMENT, current)

    def _scaled(self, deployment: Obj, rs: Obj, had: int, wanted: int) -> None:
        """The controller's `ScalingReplicaSet` event, a core/v1 Event on the Deployment."""
        if had == wanted:
            return
        meta, way = deployment["metadata"], "up" if wanted > had else "down"
        now = self._stamp()
        regarding = {"kind": "Deployment", "namespace": meta["namespace"], "name": meta["name"]}
        regarding |= {"uid": meta["uid"], "apiVersion": DEPLOYMENT.api_version}
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {
                "name": f"{meta['name']}.{uuid.uuid4().hex[:16]}",
                "namespace": meta["namespace"],
                "uid": str(uuid.uuid4()),
                "creationTimestamp": now,
            },
            "involvedObject": regarding,
            "reason": "ScalingReplicaSet",
            "message": f"Scaled {way} replica set {rs['metadata']['name']} from {had} to {wanted}",
            "source": {"component": "deployment-controller"},
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
            "type": "Normal",
            "reportingComponent": "deployment-controller",
            "reportingInstance": "",
        }
        self._put(EVENT, event)

    def _new_replicaset(self, deployment: Obj) -> Obj:
        meta, spec = deployment["metadata"], deployment["spec"]
        collisions = int((deployment.get("status") or {}).get("collisionCount", 0))
        while True:
            suffix = template_hash(spec.get("template"), collisions)
            name = f"{meta['name']}-{suffix}"
            if self._find(RS, meta["namespace"], name) is None:
                break
            collisions += 1
        template = copy.deepcopy(spec.get("template") or {})
        template.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = suffix
        selector = copy.deepcopy(spec.get("selector") or {})
        selector.setdefault("matchLabels", {})[HASH_LABEL] = suffix
        rs_spec: Obj = {"replicas": 0, "selector": selector, "template": template}
        if spec.get("minReadySeconds"):
            rs_spec["minReadySeconds"] = spec["minReadySeconds"]
        rs_meta = {
            "name": name,
            "namespace": meta["namespace"],
            "uid": str(uuid.uuid4()),
            "creationTimestamp": self._stamp(),
            "generation": 1,
            "labels": dict(template["metadata"]["labels"]),
            "annotations": {},
            "ownerReferences": [owner_ref(deployment)],
        }
        return {
            "apiVersion": RS.api_version,
            "kind": RS.kind,
            "metadata": rs_meta,
            "spec": rs_spec,
            "status": {"replicas": 0},
        }

    def _max_surge(self, deployment: Obj) -> int:
        strategy = (deployment.get("spec") or {}).get("strategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return 0
        surge = (strategy.get("rollingUpdate") or {}).get("maxSurge", "25%")
        return scaled(surge, replicas_of(deployment), round_up=True)

    def _max_unavailable(self, deployment: Obj) -> int:
        strategy = (deployment.get("spec") or {}).get("strategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return 0
        unavailable = (strategy.get("rollingUpdate") or {}).get("maxUnavailable", "25%")
        return scaled(unavailable, replicas_of(deployment), round_up=False)

    def _recount(self, deployment: Obj, *, rolled: bool) -> None:
        """Status from the ReplicaSets as they are now; conditions as the controller sets them."""
        meta = deployment["metadata"]
        current = self._find(DEPLOYMENT, meta["namespace"], meta["name"])
        if current is None:
            return
        owned = self._replicasets(current)
        key = template_key((current.get("spec") or {}).get("template"))
        new = next((rs for rs in owned if template_key(rs["spec"].get("template")) == key), None)

        def total(field: str, sets: list[Obj]) -> int:
            return sum(int((rs.get("status") or {}).get(field, 0)) for rs in sets)

        wanted, available = replicas_of(current), total("availableReplicas", owned)
        counts = {
            "replicas": total("replicas", owned),
            "updatedReplicas": total("replicas", [new] if new else []),
            "readyReplicas": total("readyReplicas", owned),
            "availableReplicas": available,
            "unavailableReplicas": max(sum(replicas_of(rs) for rs in owned) - available, 0),
        }
        before = current.get("status") or {}
        status: Obj = {"observedGeneration": meta.get("generation", 1)}
        status |= {field: count for field, count in counts.items() if count}
        if "collisionCount" in before:
            status["collisionCount"] = before["collisionCount"]
        conditions = [dict(c) for c in before.get("conditions") or []]
        if available >= wanted - self._max_unavailable(current):
            minimum = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
        else:
            minimum = (
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.",
            )
        _set(conditions, _condition("Available", *minimum), self._stamp())
        named = f'ReplicaSet "{new["metadata"]["name"]}"' if new else f'Deployment "{meta["name"]}"'
        progressing = next((c for c in conditions if c.get("type") == "Progressing"), {})
        # A finished rollout is not judged again when a pod comes and goes, as in the real controller.
        settled = not rolled and counts["replicas"] == counts["updatedReplicas"]
        settled = settled and progressing.get("reason") == "NewReplicaSetAvailable"
        if settled:
            pass
        elif counts["updatedReplicas"] == counts["replicas"] == available == wanted:
            done = ("True", "NewReplicaSetAvailable", f"{named} has successfully progressed.")
            _set(conditions, _condition("Progressing", *done), self._stamp())
        elif rolled or _progressed(before, counts):
            moving = ("True", "ReplicaSetUpdated", f"{named} is progressing.")
            _set(conditions, _condition("Progressing", *moving), self._stamp())
        status["conditions"] = conditions
        self._put(DEPLOYMENT, current | {"status": status})


def _progressed(before: Obj, counts: dict[str, int]) -> bool:
    """Any step forward since the last status (kubectl's notion of progress for the deadline)."""
    fields = ("updatedReplicas", "readyReplicas", "availableReplicas")
    if any(counts[field] > int(before.get(field, 0)) for field in fields):
        return True
    old = int(before.get("replicas", 0)) - int(before.get("updatedReplicas", 0))
    return counts["replicas"] - counts["updatedReplicas"] < old


def _set(conditions: list[Obj], wanted: Obj, now: str) -> None:
    """Set a condition: times kept when nothing changes, lastTransitionTime kept while the status holds."""
    found = next((c for c in conditions if c.get("type") == wanted["type"]), None)
    if found is None:
        conditions.append(wanted | {"lastUpdateTime": now, "lastTransitionTime": now})
        return
    if all(found.get(k) == wanted[k] for k in ("status", "reason", "message")):
        return
    transition = found.get("lastTransitionTime", now) if found.get("status") == wanted["status"] else now
    found.clear()
    found |= wanted | {"lastUpdateTime": now, "lastTransitionTime": transition}
