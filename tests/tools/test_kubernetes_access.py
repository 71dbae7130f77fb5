"""What the bot may do, asked of the cluster (SelfSubjectAccessReview, SelfSubjectReview), through
the official client against the stand-in enforcing a read-only and a full token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import kubernetes.client
import pytest
from kubernetes.client.exceptions import ApiException

from bot.sandbox.kubernetes import KubernetesStandIn
from bot.sandbox.kubernetes.apis import AccessPolicy, AccessRule, ServedApis, read_only
from bot.sandbox.pack import Pack
from bot.sandbox.server import ServerThread
from tools.kube_access import (
    ACTION_CHECKS,
    READ_CHECKS,
    AccessCheck,
    Identity,
    check_access,
    for_namespace,
    whoami,
)
from tools.kubernetes import KubeTool, Topology, api_client

NS = "support-bot"
READER = "system:serviceaccount:incident-bot:incident-bot"
WRITER = "system:serviceaccount:incident-bot:incident-bot-actions"
WRITES = {"patch", "create", "delete", "update"}


@pytest.fixture
def url(example: Pack) -> Iterator[str]:
    access = {"read": read_only(READER), "write": AccessPolicy(WRITER, (AccessRule(("*",)),))}
    standin = KubernetesStandIn(example.objects, apis=ServedApis(access=access))
    with ServerThread(standin.app) as server:
        yield server.url
        standin.close()


def client(url: str, token: str) -> Any:
    return api_client(url, token=token)


def test_a_read_only_token_may_read_everything_the_tools_read(url: str) -> None:
    api = client(url, "read")
    results = check_access(api, for_namespace(READ_CHECKS, NS), timeout=5)
    assert [r.check for r in results] == for_namespace(READ_CHECKS, NS)
    assert all(r.allowed is True for r in results), [str(r.check) for r in results if not r.allowed]
    assert "RBAC: allowed" in results[0].reason
    topo = KubeTool(api).topology(NS)
    assert isinstance(topo, Topology) and topo.gaps == []  # its reads are really allowed
    api.close()


def test_a_read_only_token_may_not_write_what_the_actions_write(url: str) -> None:
    api = client(url, "read")
    results = check_access(api, for_namespace(ACTION_CHECKS, NS), timeout=5)
    refused = {str(r.check) for r in results if r.allowed is False}
    assert refused == {str(c) for c in for_namespace(ACTION_CHECKS, NS) if c.verb in WRITES}
    assert "patch nodes cluster-wide" in refused and f"create pods/eviction in {NS}" in refused
    # and the cluster refuses the write itself with the API server's own words
    node = next(iter(KubeTool(api).topology(NS).nodes))["metadata"]["name"]  # type: ignore[union-attr]
    with pytest.raises(ApiException) as denied:
        kubernetes.client.CoreV1Api(api).patch_node(node, {"spec": {"unschedulable": True}})
    status = json.loads(denied.value.body)
    assert (denied.value.status, status["reason"]) == (403, "Forbidden")
    assert status["message"] == (
        f'nodes "{node}" is forbidden: User "{READER}" cannot patch resource "nodes" '
        'in API group "" at the cluster scope'
    )
    api.close()


def test_the_actions_token_may_do_what_the_actions_do(url: str) -> None:
    api = client(url, "write")
    results = check_access(api, for_namespace(ACTION_CHECKS, NS), timeout=5)
    assert all(r.allowed for r in results)
    api.close()


def test_whoami_names_the_tokens_user(url: str) -> None:
    api = client(url, "read")
    me = whoami(api, timeout=5)
    assert isinstance(me, Identity) and me.username == READER and "system:authenticated" in me.groups
    api.close()


def test_an_unknown_token_is_unauthorized_and_no_answer_is_not_a_denial(url: str) -> None:
    api = client(url, "stolen")
    [result] = check_access(api, [AccessCheck("list", "pods", namespace=NS)], timeout=5)
    assert result.allowed is None and "401" in result.reason
    assert not isinstance(whoami(api, timeout=5), Identity)
    api.close()
