"""An OpenAI-compatible chat-completions stand-in that plays a scripted conversation.

The bot's LLM agent must be testable without a model: the stand-in answers `POST /v1/chat/completions`
with the next reply of a script (a tool call, a final answer, or an injected failure), in the exact
wire format the official `openai` client parses. A reply may also say what it expects the agent to
have sent (`expect`); when the agent deviates, the stand-in answers 400 naming the expectation, so a
test fails where the conversation went wrong instead of several turns later.

    standin = OpenAIStandIn([ScriptedReply(tool_calls=[...]), ScriptedReply(content="Root cause: ...")])
    with ServerThread(standin.app) as server:
        client = OpenAI(base_url=server.url + "/v1", api_key="sk-sandbox")
"""

from __future__ import annotations

import hmac
import json
import math
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, Self

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bot.errors import ConfigError, validation_reasons

Role = Literal["system", "developer", "user", "assistant", "tool"]
CHARS_PER_TOKEN = 4


class ScriptedToolCall(BaseModel):
    """One function call the scripted assistant makes; `arguments` is sent as a JSON string."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class Expectation(BaseModel):
    """Checks on the request a reply answers; each one that fails is named in the 400 answer."""

    model_config = ConfigDict(extra="forbid")

    last_role: Role | None = None
    tool_result_contains: str | None = None
    tools_offered: list[str] | None = None

    def violations(self, request: ChatRequest) -> list[str]:
        checks = (self._last_role(request), self._tool_result(request), self._tools(request))
        return [problem for problem in checks if problem]

    def _last_role(self, request: ChatRequest) -> str | None:
        actual = request.messages[-1].get("role")
        if self.last_role is None or actual == self.last_role:
            return None
        return f"expected last_role: {self.last_role}, got {actual}"

    def _tool_result(self, request: ChatRequest) -> str | None:
        needle = self.tool_result_contains
        if needle is None:
            return None
        results = request.trailing_tool_results()
        if any(needle in result for result in results):
            return None
        shown = ", ".join(json.dumps(_preview(result), ensure_ascii=False) for result in results) or "none"
        return f"expected tool_result_contains: {json.dumps(needle)}, got tool results: [{shown}]"

    def _tools(self, request: ChatRequest) -> str | None:
        if self.tools_offered is None:
            return None
        offered = request.tool_names()
        if set(self.tools_offered) <= set(offered):
            return None
        return f"expected tools_offered: [{', '.join(self.tools_offered)}], got [{', '.join(offered)}]"


class InjectedError(BaseModel):
    """A failure the stand-in answers instead of a completion, to test the agent's retry and fallback."""

    model_config = ConfigDict(extra="forbid")

    status: Literal[429, 500, 503]
    message: str | None = None
    retry_after: float | None = Field(default=None, ge=0)

    def response(self, model: str) -> Response:
        kind, code, default = _INJECTED[self.status]
        headers = {}
        if self.retry_after is not None:
            headers = {
                "retry-after": f"{self.retry_after:g}",
                "retry-after-ms": str(round(self.retry_after * 1000)),
            }
        message = self.message or default.format(model=model)
        return _error(self.status, message, kind=kind, code=code, headers=headers)


_INJECTED: dict[int, tuple[str, str | None, str]] = {
    429: (
        "requests",
        "rate_limit_exceeded",
        "Rate limit reached for {model} (injected by the sandbox script).",
    ),
    500: (
        "server_error",
        None,
        "The server had an error while processing your request (injected by the sandbox).",
    ),
    503: (
        "server_error",
        "service_unavailable",
        "The server is overloaded (injected by the sandbox script).",
    ),
}


class ScriptedReply(BaseModel):
    """One turn of the script: assistant `content`, `tool_calls` (or both), or an injected `error`."""

    model_config = ConfigDict(extra="forbid")

    content: str | None = None
    tool_calls: list[ScriptedToolCall] | None = None
    expect: Expectation | None = None
    error: InjectedError | None = None

    @model_validator(mode="after")
    def _one_outcome(self) -> Self:
        answers = self.content is not None or bool(self.tool_calls)
        if self.error is not None and (answers or self.tool_calls is not None):
            raise ValueError("a reply with `error` cannot also carry content or tool_calls")
        if self.error is None and not answers:
            raise ValueError("a reply needs `content`, non-empty `tool_calls`, or `error`")
        return self


class _ScriptFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    replies: list[ScriptedReply]


class ChatRequest(BaseModel):
    """The parts of a chat-completions request the stand-in reads; the rest is kept but ignored."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    stream: bool | None = False

    def tool_names(self) -> list[str]:
        functions = [tool.get("function") for tool in self.tools]
        return [str(function.get("name", "")) for function in functions if isinstance(function, dict)]

    def trailing_tool_results(self) -> list[str]:
        """The tool messages answering the latest assistant turn (the run at the end of the list)."""
        results: list[str] = []
        for message in reversed(self.messages):
            if message.get("role") != "tool":
                break
            results.append(_text(message.get("content")))
        return results[::-1]

    def prompt_chars(self) -> int:
        chars = sum(len(_text(message.get("content"))) for message in self.messages)
        chars += sum(len(json.dumps(message.get("tool_calls") or [])) for message in self.messages)
        return chars + (len(json.dumps(self.tools)) if self.tools else 0)


class OpenAIStandIn:
    """Serves `/v1/chat/completions` and `/v1/models`, consuming `script` one reply per request."""

    def __init__(
        self, script: Sequence[ScriptedReply], *, api_key: str = "sk-sandbox", model: str = "sandbox-model"
    ) -> None:
        self.script = list(script)
        self.api_key = api_key
        self.model = model
        self.requests: list[dict[str, Any]] = []
        # Called with each chat completion's body once it is answered, before the answer goes out:
        # tests use it to act at a precise step, e.g. stop the client mid-conversation.
        self.after_reply: Callable[[dict[str, Any]], None] | None = None
        self._next = 0
        self._lock = threading.Lock()
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat_completions, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/models/{model:path}", self._model, methods=["GET"]),
            ]
        )

    @classmethod
    def from_file(
        cls, path: Path, *, api_key: str = "sk-sandbox", model: str = "sandbox-model"
    ) -> OpenAIStandIn:
        """A stand-in playing the script in `path` (see `load_script`)."""
        return cls(load_script(path), api_key=api_key, model=model)

    @property
    def remaining(self) -> int:
        """Replies not yet played; 0 at the end of a conversation that went as scripted."""
        with self._lock:
            return len(self.script) - self._next

    # -- routes ------------------------------------------------------------------------------

    async def _chat_completions(self, request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return _error(400, "We could not parse the JSON body of your request.")
        if isinstance(body, dict):
            with self._lock:
                self.requests.append(body)
        if not self._authorized(request):
            return _auth_error()
        if not isinstance(body, dict):
            return _error(400, "The request body must be a JSON object.")
        try:
            chat = ChatRequest.model_validate(body)
        except ValidationError as exc:
            first = exc.errors()[0]
            param = ".".join(str(part) for part in first["loc"])
            return _error(400, f"Invalid value for '{param}': {first['msg']}", param=param)
        answer = self._play(chat)
        hook = self.after_reply
        if hook is not None:
            hook(body)
        return answer

    def _play(self, chat: ChatRequest) -> Response:
        if chat.stream:
            message = "Streaming is not supported by the sandbox stand-in; call with stream=false."
            return _error(400, message, param="stream")
        if chat.model != self.model:
            message = f"The model `{chat.model}` does not exist; the sandbox serves `{self.model}`."
            return _error(404, message, param="model", code="model_not_found")
        turn, reply = self._take()
        if reply is None:
            message = f"The sandbox script is exhausted: all {len(self.script)} scripted replies were used."
            return _error(400, message, code="sandbox_script_exhausted")
        problems = reply.expect.violations(chat) if reply.expect else []
        if problems:
            message = f"Sandbox script reply #{turn} " + "; ".join(problems)
            return _error(400, message, code="sandbox_expectation_failed")
        if reply.error is not None:
            return reply.error.response(self.model)
        return JSONResponse(self._completion(chat, reply))

    def _take(self) -> tuple[int, ScriptedReply | None]:
        with self._lock:
            turn = self._next + 1
            if self._next >= len(self.script):
                return turn, None
            self._next += 1
            return turn, self.script[turn - 1]

    async def _models(self, request: Request) -> Response:
        if not self._authorized(request):
            return _auth_error()
        return JSONResponse({"object": "list", "data": [self._model_card()]})

    async def _model(self, request: Request) -> Response:
        if not self._authorized(request):
            return _auth_error()
        if request.path_params["model"] != self.model:
            return _error(
                404, f"The model `{request.path_params['model']}` does not exist.", code="model_not_found"
            )
        return JSONResponse(self._model_card())

    # -- bodies ------------------------------------------------------------------------------

    def _authorized(self, request: Request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            given.strip().encode(), self.api_key.encode()
        )

    def _model_card(self) -> dict[str, Any]:
        return {"id": self.model, "object": "model", "created": 0, "owned_by": "sandbox"}

    def _completion(self, chat: ChatRequest, reply: ScriptedReply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
        completion_chars = len(reply.content or "")
        if reply.tool_calls:
            message["tool_calls"] = [_tool_call(call) for call in reply.tool_calls]
            completion_chars += sum(len(call["function"]["arguments"]) for call in message["tool_calls"])
        prompt_tokens = _tokens(chat.prompt_chars())
        completion_tokens = _tokens(completion_chars)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "system_fingerprint": "fp_sandbox",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def load_script(path: Path) -> list[ScriptedReply]:
    """Replies from YAML or JSON: a list of replies, or a mapping with a `replies` list.

    Raises ConfigError naming the file and the first problem, so `sandbox up` can report it.
    """
    suffix = path.suffix.lower()
    if suffix not in (".yaml", ".yml", ".json"):
        raise ConfigError(f"{path}: an LLM script must end in .yaml, .yml or .json")
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if suffix == ".json" else yaml.safe_load(text)
        data = [] if data is None else data  # an empty file: the stand-in runs, with nothing to say
        script = _ScriptFile.model_validate({"replies": data} if isinstance(data, list) else data)
    except ValidationError as exc:
        reasons = "; ".join(validation_reasons(exc, limit=3))
        raise ConfigError(
            f"{path}: not a valid LLM script (a list of replies, or replies: [...]): {reasons}"
        ) from exc
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not a valid LLM script: {exc}") from exc
    return script.replies


def _tool_call(call: ScriptedToolCall) -> dict[str, Any]:
    return {
        "id": f"call_{uuid.uuid4().hex[:24]}",
        "type": "function",
        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
    }


def _tokens(chars: int) -> int:
    """A rough count (about four characters a token), enough for usage accounting in tests."""
    return max(1, math.ceil(chars / CHARS_PER_TOKEN))


def _text(content: object) -> str:
    """Message content as text: a string, or the text parts of a content-part list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def _preview(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _error(
    status: int,
    message: str,
    *,
    kind: str = "invalid_request_error",
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    """An error in OpenAI's shape, which the client turns into the matching exception class."""
    body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
    return JSONResponse(body, status_code=status, headers=headers)


def _auth_error() -> JSONResponse:
    return _error(401, "Incorrect API key provided.", code="invalid_api_key")
