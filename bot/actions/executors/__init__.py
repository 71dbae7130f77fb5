"""One executor per catalog kind; `executor_for` is the only way to get one."""

from __future__ import annotations

from bot.actions.catalog import ActionKind
from bot.actions.executors.add_replica import AddReplica
from bot.actions.executors.base import Executor, Limits, Refused
from bot.actions.executors.cordon import CordonNode
from bot.actions.executors.reroute import Reroute
from bot.actions.executors.restart_pod import Blocked, RestartPod
from bot.actions.executors.rollback import RollbackDeployment
from bot.actions.kube import KubeActions

EXECUTORS: dict[ActionKind, type[Reroute | RestartPod | CordonNode | RollbackDeployment | AddReplica]] = {
    ActionKind.REROUTE: Reroute,
    ActionKind.RESTART_POD: RestartPod,
    ActionKind.CORDON_NODE: CordonNode,
    ActionKind.ROLLBACK_DEPLOYMENT: RollbackDeployment,
    ActionKind.ADD_REPLICA: AddReplica,
}


def executor_for(kind: ActionKind, kube: KubeActions, limits: Limits) -> Executor:
    return EXECUTORS[kind](kube, limits)


__all__ = ["Blocked", "Executor", "Limits", "Refused", "executor_for"]
