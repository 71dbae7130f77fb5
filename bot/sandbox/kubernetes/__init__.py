"""The Kubernetes stand-in: the API server's REST surface over a pack's objects, with the controllers behind it."""

from bot.sandbox.kubernetes.logs import PREVIOUS
from bot.sandbox.kubernetes.patch import PatchError, json_patch, strategic_merge_patch
from bot.sandbox.kubernetes.resources import RESOURCES
from bot.sandbox.kubernetes.selectors import SelectorError, parse_label_selector
from bot.sandbox.kubernetes.standin import KubernetesStandIn
from bot.sandbox.kubernetes.writes import Write

__all__ = [
    "PREVIOUS",
    "RESOURCES",
    "KubernetesStandIn",
    "PatchError",
    "SelectorError",
    "Write",
    "json_patch",
    "parse_label_selector",
    "strategic_merge_patch",
]
