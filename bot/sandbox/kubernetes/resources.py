"""What the Kubernetes stand-in serves and how it names it: the resource table, discovery and `Status` errors.

`RESOURCES` lists the modelled types with the API conventions that differ between them (group,
scope, status subresource, generation, scale); kinds it lacks are served as custom resources
(`generic`); pods also take the `eviction` subresource (a policy/v1 Eviction, create only). The
discovery endpoints (`/version`, `/api`, `/apis`, ...) are answered from the types served, and
`ApiFailure` with its helpers builds the `Status` errors that name a type as the real server does
(`deployments.apps "web" not found`). Kept apart so routing, reads, writes, controllers and logs
all agree on one table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

Obj = dict[str, Any]

GATEWAY = "gateway.networking.k8s.io"
VERSION = {
    "major": "1",
    "minor": "33",
    "gitVersion": "v1.33.1",
    "gitCommit": "8adc0f041b8e7ad1d30e29cc59c6ae7a15e19828",
    "gitTreeState": "clean",
    "buildDate": "2025-05-15T08:19:08Z",
    "goVersion": "go1.24.2",
    "compiler": "gc",
    "platform": "linux/amd64",
}
_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
}


@dataclass(frozen=True)
class Resource:
    """One served resource type and the API conventions that differ between types."""

    kind: str
    plural: str
    group: str = ""
    version: str = "v1"
    namespaced: bool = True
    builtin: bool = True  # strategic merge patch applies; custom resources refuse it
    has_status: bool = True  # status is a subresource, so writes to the object leave it alone
    generation: bool = False  # metadata.generation counts changes outside metadata and status
    scalable: bool = False
    short_names: tuple[str, ...] = ()
    stored_as: str = ""  # another type's group_resource whose objects this one serves, converted
    verbs: tuple[str, ...] = ()  # only these (a review is create-only); empty: the usual ones

    @property
    def stored(self) -> str:
        """The key of the objects it serves: its own, or the type it is a view of (events.k8s.io)."""
        return self.stored_as or self.group_resource

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def group_resource(self) -> str:
        """As error messages name it: `pods`, `deployments.apps`."""
        return f"{self.plural}.{self.group}" if self.group else self.plural


RESOURCES = (
    Resource("Pod", "pods", short_names=("po",)),
    Resource("Node", "nodes", namespaced=False, short_names=("no",)),
    Resource("Namespace", "namespaces", namespaced=False, short_names=("ns",)),
    Resource("Event", "events", has_status=False, short_names=("ev",)),
    Resource("Service", "services", short_names=("svc",)),
    Resource("ConfigMap", "configmaps", has_status=False, short_names=("cm",)),
    Resource("Deployment", "deployments", "apps", generation=True, scalable=True, short_names=("deploy",)),
    Resource("ReplicaSet", "replicasets", "apps", generation=True, scalable=True, short_names=("rs",)),
    Resource("StatefulSet", "statefulsets", "apps", generation=True, scalable=True, short_names=("sts",)),
    Resource("DaemonSet", "daemonsets", "apps", generation=True, short_names=("ds",)),
    Resource("HTTPRoute", "httproutes", GATEWAY, builtin=False, generation=True),
    Resource("Ingress", "ingresses", "networking.k8s.io", generation=True, short_names=("ing",)),
    Resource("PodDisruptionBudget", "poddisruptionbudgets", "policy", generation=True, short_names=("pdb",)),
    Resource(
        "HorizontalPodAutoscaler",
        "horizontalpodautoscalers",
        "autoscaling",
        "v2",
        generation=True,
        short_names=("hpa",),
    ),
)
SCALE = Resource("Scale", "scale", "autoscaling")


class ApiFailure(Exception):
    """An error the server answers with a `Status` object."""

    def __init__(self, code: int, message: str, *, details: Obj | None = None, plain: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details
        self.plain = plain  # answered as Go's http.NotFound does: text, no Status

    def response(self) -> Response:
        if self.plain:
            return PlainTextResponse(self.message + "\n", status_code=self.code)
        return JSONResponse(self.status(), status_code=self.code)

    def status(self) -> Obj:
        body: Obj = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure"}
        body |= {
            "message": self.message,
            "reason": _REASONS.get(self.code, "InternalError"),
            "code": self.code,
        }
        return body | ({"details": self.details} if self.details is not None else {})


def status_details(res: Resource, name: str) -> Obj:
    return {"name": name, "kind": res.plural} | ({"group": res.group} if res.group else {})


def not_found(res: Resource, name: str) -> ApiFailure:
    return ApiFailure(404, f'{res.group_resource} "{name}" not found', details=status_details(res, name))


def no_route() -> ApiFailure:
    return ApiFailure(404, "the server could not find the requested resource", details={})


def not_served() -> ApiFailure:
    """A group or version the server does not serve: its mux ends in Go's `http.NotFound`."""
    return ApiFailure(404, "404 page not found", plain=True)


def conflict(res: Resource, name: str) -> ApiFailure:
    message = (
        f'Operation cannot be fulfilled on {res.group_resource} "{name}": the object has been modified; '
        "please apply your changes to the latest version and try again"
    )
    return ApiFailure(409, message, details=status_details(res, name))


class Discovery:
    """The discovery endpoints, answered from the types served; the stand-in routes them to these methods.

    `_served` is `RESOURCES` plus the kinds the loaded objects brought that the table lacks.
    """

    _served: list[Resource]

    # --- discovery ---------------------------------------------------------------------------------

    async def _version(self, request: Request) -> Response:
        return JSONResponse(VERSION)

    async def _core_versions(self, request: Request) -> Response:
        address = {"clientCIDR": "0.0.0.0/0", "serverAddress": request.url.netloc}
        return JSONResponse(
            {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": [address]}
        )

    async def _core_resources(self, request: Request) -> Response:
        return JSONResponse(_resource_list(self._served, "", "v1"))

    async def _groups(self, request: Request) -> Response:
        named = dict.fromkeys(r.group for r in self._served if r.group)
        groups = [_group_doc(self._served, group) for group in named]
        return JSONResponse({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})

    async def _group(self, request: Request) -> Response:
        group = request.path_params["group"]
        if not any(r.group == group for r in self._served):
            return not_served().response()
        return JSONResponse({"kind": "APIGroup", "apiVersion": "v1", **_group_doc(self._served, group)})

    async def _group_resources(self, request: Request) -> Response:
        group, version = request.path_params["group"], request.path_params["version"]
        if not any(r.group == group and r.version == version for r in self._served):
            return not_served().response()
        return JSONResponse(_resource_list(self._served, group, version))


# --- discovery documents ---------------------------------------------------------------------------


def _resource_list(served: list[Resource], group: str, version: str) -> Obj:
    entries: list[Obj] = []
    for res in (r for r in served if (r.group, r.version) == (group, version)):
        verbs = list(res.verbs) or ["delete", "get", "list", "patch", "update", "watch"]
        names = {"name": res.plural, "singularName": res.kind.lower(), "shortNames": list(res.short_names)}
        entries.append(names | {"namespaced": res.namespaced, "kind": res.kind, "verbs": verbs})
        if res.kind == "Pod":
            sub = {"singularName": "", "namespaced": True}
            entries.append({"name": "pods/log", **sub, "kind": "Pod", "verbs": ["get"]})
            eviction = {"group": "policy", "version": "v1", "kind": "Eviction", "verbs": ["create"]}
            entries.append({"name": "pods/eviction", **sub, **eviction})
        if res.scalable:
            scale = {
                "group": "autoscaling",
                "version": "v1",
                "kind": "Scale",
                "verbs": ["get", "patch", "update"],
            }
            entries.append({"name": f"{res.plural}/scale", "singularName": "", "namespaced": True} | scale)
    group_version = f"{group}/{version}" if group else version
    return {
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": group_version,
        "resources": entries,
    }


def _group_doc(served: list[Resource], group: str) -> Obj:
    in_group = dict.fromkeys(r.version for r in served if r.group == group)
    versions = [{"groupVersion": f"{group}/{version}", "version": version} for version in in_group]
    return {"name": group, "versions": versions, "preferredVersion": versions[0]}
