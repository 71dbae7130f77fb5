"""The writes the executors make, and the reads they check them by, through the official client.

Every call answers plain JSON (the server's own words, `_preload_content=False`), every write
carries `fieldManager=incident-bot` and can be a server-side dry run (`dryRun=All`), and a refusal
becomes a `KubeError` with the status code, reason and causes the API server sent. JSON Patch on a
custom resource needs the content type spelled out: the client labels a list body merge-patch,
and rewrites a dict body to strategic merge, which CRDs refuse.
"""

from __future__ import annotations

import json
from typing import Any

import kubernetes.client as k8s
from kubernetes.client.exceptions import ApiException
from urllib3.exceptions import HTTPError

FIELD_MANAGER = "incident-bot"
JSON_PATCH = "application/json-patch+json"
GATEWAY = "gateway.networking.k8s.io"
ROUTE_VERSIONS = ("v1", "v1beta1")  # v1beta1 alone on clusters with Gateway API before v1.0
Obj = dict[str, Any]


class KubeError(Exception):
    """The API server refused a call, or could not be reached (status 0)."""

    def __init__(self, status: int, reason: str, message: str, causes: list[Obj] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.reason = reason
        self.message = message
        self.causes = causes or []

    @classmethod
    def of(cls, exc: ApiException | HTTPError | OSError) -> KubeError:
        if not isinstance(exc, ApiException):
            return cls(0, "Unreachable", f"the Kubernetes API could not be reached: {exc}")
        try:
            status = json.loads(exc.body or "{}")
        except ValueError:
            status = {}
        details = status.get("details") or {}
        message = str(status.get("message") or exc.reason or "")
        return cls(
            int(exc.status or 0),
            str(status.get("reason") or exc.reason or ""),
            message,
            details.get("causes"),
        )


def _dry(dry_run: bool) -> dict[str, Any]:
    return {"dry_run": "All"} if dry_run else {}


class KubeActions:
    """Reads and writes for the action executors; one per process, on its own `ApiClient`."""

    def __init__(self, api: k8s.ApiClient, *, timeout: float = 10.0) -> None:
        self.api = api
        self._core = k8s.CoreV1Api(api)
        self._apps = k8s.AppsV1Api(api)
        self._custom = k8s.CustomObjectsApi(api)
        self._autoscaling = k8s.AutoscalingV2Api(api)
        self._policy = k8s.PolicyV1Api(api)
        self._timeout = timeout
        self._route_version: dict[tuple[str, str], str] = {}  # the version each route was read in

    def _json(self, call: Any, *args: Any, **kwargs: Any) -> Obj:
        try:
            response = call(*args, _preload_content=False, _request_timeout=self._timeout, **kwargs)
        except (ApiException, HTTPError, OSError) as exc:
            raise KubeError.of(exc) from exc
        body = response.data
        return json.loads(body) if body else {}

    # -- reads ---------------------------------------------------------------------------------
    def route(self, namespace: str, name: str) -> Obj:
        """The HTTPRoute in v1, else in v1beta1 (an unserved version and a missing route both answer
        404: the first version's refusal is the one raised when neither has it)."""
        first: KubeError | None = None
        for version in ROUTE_VERSIONS:
            get = self._custom.get_namespaced_custom_object
            try:
                found = self._json(get, GATEWAY, version, namespace, "httproutes", name)
            except KubeError as exc:
                if exc.status != 404:
                    raise
                first = first or exc
                continue
            self._route_version[(namespace, name)] = version
            return found
        assert first is not None
        raise first

    def pod(self, namespace: str, name: str) -> Obj:
        return self._json(self._core.read_namespaced_pod, name, namespace)

    def pods(self, namespace: str, selector: str | None = None) -> list[Obj]:
        listed = self._json(self._core.list_namespaced_pod, namespace, label_selector=selector or "")
        return list(listed.get("items") or [])

    def service(self, namespace: str, name: str) -> Obj:
        return self._json(self._core.read_namespaced_service, name, namespace)

    def replicaset(self, namespace: str, name: str) -> Obj:
        return self._json(self._apps.read_namespaced_replica_set, name, namespace)

    def node(self, name: str) -> Obj:
        return self._json(self._core.read_node, name)

    def deployment(self, namespace: str, name: str) -> Obj:
        return self._json(self._apps.read_namespaced_deployment, name, namespace)

    def replicasets(self, namespace: str, selector: str) -> list[Obj]:
        listed = self._json(self._apps.list_namespaced_replica_set, namespace, label_selector=selector)
        return list(listed.get("items") or [])

    def scale(self, namespace: str, name: str) -> Obj:
        return self._json(self._apps.read_namespaced_deployment_scale, name, namespace)

    def hpas(self, namespace: str) -> list[Obj]:
        listed = self._json(self._autoscaling.list_namespaced_horizontal_pod_autoscaler, namespace)
        return list(listed.get("items") or [])

    def pdbs(self, namespace: str) -> list[Obj]:
        listed = self._json(self._policy.list_namespaced_pod_disruption_budget, namespace)
        return list(listed.get("items") or [])

    # -- writes --------------------------------------------------------------------------------
    def patch_route(self, namespace: str, name: str, ops: list[Obj], *, dry_run: bool) -> Obj:
        return self._json(
            self._custom.patch_namespaced_custom_object,
            GATEWAY,
            self._route_version.get((namespace, name), ROUTE_VERSIONS[0]),
            namespace,
            "httproutes",
            name,
            ops,
            field_manager=FIELD_MANAGER,
            _content_type=JSON_PATCH,
            **_dry(dry_run),
        )

    def patch_node(self, name: str, body: Obj | list[Obj], *, dry_run: bool) -> Obj:
        return self._json(self._core.patch_node, name, body, field_manager=FIELD_MANAGER, **_dry(dry_run))

    def patch_deployment(self, namespace: str, name: str, ops: list[Obj], *, dry_run: bool) -> Obj:
        return self._json(
            self._apps.patch_namespaced_deployment,
            name,
            namespace,
            ops,
            field_manager=FIELD_MANAGER,
            **_dry(dry_run),
        )

    def patch_scale(self, namespace: str, name: str, ops: list[Obj], *, dry_run: bool) -> Obj:
        return self._json(
            self._apps.patch_namespaced_deployment_scale,
            name,
            namespace,
            ops,
            field_manager=FIELD_MANAGER,
            **_dry(dry_run),
        )

    def patch_hpa(self, namespace: str, name: str, ops: list[Obj], *, dry_run: bool) -> Obj:
        return self._json(
            self._autoscaling.patch_namespaced_horizontal_pod_autoscaler,
            name,
            namespace,
            ops,
            field_manager=FIELD_MANAGER,
            **_dry(dry_run),
        )

    def evict(self, namespace: str, pod: str, uid: str, *, dry_run: bool) -> Obj:
        """Evict one pod (the eviction API keeps to its PodDisruptionBudget), only if it is still `uid`."""
        options = k8s.V1DeleteOptions(
            preconditions=k8s.V1Preconditions(uid=uid), dry_run=["All"] if dry_run else None
        )
        body = k8s.V1Eviction(
            metadata=k8s.V1ObjectMeta(name=pod, namespace=namespace), delete_options=options
        )
        return self._json(
            self._core.create_namespaced_pod_eviction,
            pod,
            namespace,
            body,
            field_manager=FIELD_MANAGER,
            **_dry(dry_run),
        )

    def delete_pod(self, namespace: str, pod: str, uid: str, *, dry_run: bool) -> Obj:
        """Delete one pod, bypassing its disruption budget: only ever after a second approval."""
        options = k8s.V1DeleteOptions(preconditions=k8s.V1Preconditions(uid=uid))
        return self._json(self._core.delete_namespaced_pod, pod, namespace, body=options, **_dry(dry_run))

    def close(self) -> None:
        self.api.close()  # type: ignore[no-untyped-call]
