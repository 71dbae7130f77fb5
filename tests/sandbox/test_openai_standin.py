"""The scripted OpenAI stand-in, driven only through the official `openai` client."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai
import pytest
from openai import OpenAI
from pydantic import ValidationError

from bot.errors import ConfigError
from bot.sandbox.openai import OpenAIStandIn, ScriptedReply, load_script
from bot.sandbox.server import ServerThread

KEY = "sk-sandbox"
MODEL = "sandbox-model"
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "prometheus_query",
            "description": "Run an instant PromQL query",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    }
]
QUESTION: list[Any] = [
    {"role": "system", "content": "You investigate incidents."},
    {"role": "user", "content": "Why is llama-chat slow?"},
]


@contextmanager
def serve(standin: OpenAIStandIn, *, api_key: str = KEY, max_retries: int = 0) -> Iterator[OpenAI]:
    with (
        ServerThread(standin.app, name="openai") as server,
        OpenAI(base_url=server.url + "/v1", api_key=api_key, max_retries=max_retries) as client,
    ):
        yield client


def reply(**fields: Any) -> ScriptedReply:
    return ScriptedReply.model_validate(fields)


def ask(client: OpenAI, messages: list[Any] = QUESTION) -> Any:
    return client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)


def test_two_turn_tool_calling_conversation() -> None:
    standin = OpenAIStandIn(
        [
            reply(
                tool_calls=[
                    {"name": "prometheus_query", "arguments": {"query": "vllm:num_requests_waiting"}}
                ],
                expect={"last_role": "user", "tools_offered": ["prometheus_query"]},
            ),
            reply(
                content="The queue is 40 deep: scale out.",
                expect={"last_role": "tool", "tool_result_contains": "40"},
            ),
        ]
    )
    with serve(standin) as client:
        first = ask(client)
        assert first.choices[0].finish_reason == "tool_calls"
        call = first.choices[0].message.tool_calls[0]
        assert call.id.startswith("call_")
        assert call.type == "function"
        assert call.function.name == "prometheus_query"
        assert json.loads(call.function.arguments) == {"query": "vllm:num_requests_waiting"}

        followup = [
            *QUESTION,
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": '{"value": 40}'},
        ]
        final = ask(client, followup)

    assert final.object == "chat.completion"
    assert final.model == MODEL
    assert final.choices[0].finish_reason == "stop"
    assert final.choices[0].message.role == "assistant"
    assert final.choices[0].message.content == "The queue is 40 deep: scale out."
    assert final.choices[0].message.tool_calls is None
    usage = final.usage
    assert usage is not None and first.usage is not None
    assert usage.prompt_tokens > first.usage.prompt_tokens
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert [len(body["messages"]) for body in standin.requests] == [2, 4]
    assert standin.remaining == 0


@pytest.mark.parametrize(
    ("expect", "named"),
    [
        ({"last_role": "tool"}, "expected last_role: tool, got user"),
        ({"tool_result_contains": "OOMKilled"}, 'expected tool_result_contains: "OOMKilled"'),
        (
            {"tools_offered": ["kubectl_logs"]},
            "expected tools_offered: [kubectl_logs], got [prometheus_query]",
        ),
    ],
)
def test_expectation_violation_is_a_bad_request(expect: dict[str, Any], named: str) -> None:
    standin = OpenAIStandIn([reply(content="never sent", expect=expect)])
    with serve(standin) as client, pytest.raises(openai.BadRequestError) as caught:
        ask(client)
    assert named in caught.value.message
    assert caught.value.code == "sandbox_expectation_failed"


def test_injected_server_error() -> None:
    standin = OpenAIStandIn(
        [reply(error={"status": 500}), reply(error={"status": 503, "message": "overloaded"})]
    )
    with serve(standin) as client:
        with pytest.raises(openai.InternalServerError) as first:
            ask(client)
        with pytest.raises(openai.InternalServerError) as second:
            ask(client)
    assert first.value.status_code == 500
    assert second.value.status_code == 503
    assert second.value.message.endswith("overloaded")
    assert len(standin.requests) == 2


def test_injected_rate_limit_is_retried_by_the_client() -> None:
    standin = OpenAIStandIn(
        [reply(error={"status": 429, "retry_after": 0.05}), reply(content="ok after a wait")]
    )
    with serve(standin, max_retries=2) as client:
        answer = ask(client)
    assert answer.choices[0].message.content == "ok after a wait"
    assert len(standin.requests) == 2


def test_injected_rate_limit_without_retries() -> None:
    standin = OpenAIStandIn([reply(error={"status": 429, "retry_after": 3})])
    with serve(standin) as client, pytest.raises(openai.RateLimitError) as caught:
        ask(client)
    assert caught.value.response.headers["retry-after"] == "3"
    assert caught.value.code == "rate_limit_exceeded"


def test_wrong_api_key() -> None:
    standin = OpenAIStandIn([reply(content="x")])
    with serve(standin, api_key="sk-wrong") as client:
        with pytest.raises(openai.AuthenticationError) as caught:
            ask(client)
        with pytest.raises(openai.AuthenticationError):
            client.models.list()
    assert caught.value.code == "invalid_api_key"
    assert standin.remaining == 1


def test_script_exhausted() -> None:
    standin = OpenAIStandIn([reply(content="only one")])
    with serve(standin) as client:
        ask(client)
        with pytest.raises(openai.BadRequestError) as caught:
            ask(client)
    assert "script is exhausted" in caught.value.message


def test_streaming_is_refused() -> None:
    standin = OpenAIStandIn([reply(content="x")])
    with serve(standin) as client, pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=MODEL, messages=QUESTION, stream=True)
    assert "Streaming is not supported" in caught.value.message
    assert standin.remaining == 1


def test_unknown_model_and_model_list() -> None:
    standin = OpenAIStandIn([reply(content="x")])
    with serve(standin) as client:
        assert [model.id for model in client.models.list()] == [MODEL]
        assert client.models.retrieve(MODEL).owned_by == "sandbox"
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="gpt-4o", messages=QUESTION)


SCRIPT_YAML = """
replies:
  - tool_calls:
      - name: prometheus_query
        arguments: {query: up}
  - content: All targets are up.
    expect: {last_role: tool, tool_result_contains: "1"}
"""


@pytest.mark.parametrize(
    ("filename", "text"),
    [
        ("script.yaml", SCRIPT_YAML),
        (
            "script.json",
            json.dumps(
                [
                    {"tool_calls": [{"name": "prometheus_query", "arguments": {"query": "up"}}]},
                    {
                        "content": "All targets are up.",
                        "expect": {"last_role": "tool", "tool_result_contains": "1"},
                    },
                ]
            ),
        ),
    ],
)
def test_from_file(tmp_path: Path, filename: str, text: str) -> None:
    path = tmp_path / filename
    path.write_text(text)
    standin = OpenAIStandIn.from_file(path, model="scripted")
    with serve(standin) as client:
        first = client.chat.completions.create(model="scripted", messages=QUESTION, tools=TOOLS)
        call = first.choices[0].message.tool_calls[0]
        followup = [
            *QUESTION,
            first.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "up == 1"},
        ]
        final = client.chat.completions.create(model="scripted", messages=followup, tools=TOOLS)
    assert final.choices[0].message.content == "All targets are up."


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"content": "x", "error": {"status": 500}},
        {"tool_calls": []},
        {"error": {"status": 404}},
        {"text": "x"},
    ],
)
def test_script_entries_are_validated(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ScriptedReply.model_validate(fields)


def test_an_empty_script_serves_the_stand_in_with_nothing_to_say(tmp_path: Path) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("")
    assert load_script(path) == []


@pytest.mark.parametrize(
    ("filename", "text", "problem"),
    [
        ("script.yaml", "replies:\n  - {}\n", "needs `content`"),
        ("script.yaml", "replies: [\n", "not a valid LLM script"),
        ("script.json", "[{]", "not a valid LLM script"),
        ("script.txt", "[]", "must end in .yaml"),
        ("script.yaml", "{}\n", "replies: Field required"),
    ],
)
def test_bad_script_files_are_config_errors(tmp_path: Path, filename: str, text: str, problem: str) -> None:
    path = tmp_path / filename
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_script(path)
    assert problem in caught.value.message
    assert str(path) in caught.value.message
