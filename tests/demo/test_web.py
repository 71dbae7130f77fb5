"""`incident-bot demo --web` in headless Chromium: the page shows the demo channel as Slack would,
live, and its Approve button goes through the signed `/slack/events` path and changes the object
in the sandbox's cluster (read with the real kubectl), after Slack's confirm dialog."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.demo.support import kubectl_get
from tests.demo.test_cli import bare_env
from tests.support.browser import chromium

pytestmark = pytest.mark.timeout(240)
NODE = "node/ip-10-40-13-88.us-west-2.compute.internal"


def read_until(proc: subprocess.Popen[str], pattern: str, timeout: float = 90) -> re.Match[str]:
    assert proc.stdout is not None
    deadline, seen = time.monotonic() + timeout, []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        if found := re.search(pattern, "".join(seen[-3:]).replace("\n", "")):
            return found
    raise AssertionError(f"no {pattern!r} in: {''.join(seen)}")


@pytest.fixture
def web_demo(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """The demo's page URL and the sandbox's kubeconfig, from the lines the command prints."""
    with subprocess.Popen(
        [sys.executable, "-m", "bot", "demo", "--web", "--port", "0", "--scenario", "gpu-xid79-fell-off-bus"],
        cwd=tmp_path,
        env=bare_env(COLUMNS="400"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as proc:
        try:
            kubeconfig = read_until(proc, r"KUBECONFIG=(\S+)").group(1)
            url = read_until(proc, r"web view: (http://127\.0\.0\.1:\d+)/").group(1)
            yield url, kubeconfig
        finally:
            proc.terminate()
            proc.wait(30)
    # SIGTERM unwinds the sandbox like Ctrl-C: its temporary folders are gone.
    assert not Path(kubeconfig).parent.exists()


def test_the_page_shows_the_channel_and_approve_cordons_the_node(
    web_demo: tuple[str, str], tmp_path: Path
) -> None:
    url, kubeconfig = web_demo
    assert "unschedulable" not in json.dumps(kubectl_get(kubeconfig, NODE, "default")["spec"])
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 1400})
        page.goto(url + "/")
        # The incident's channel is selected; the announcement and the triage are on it, live.
        page.wait_for_selector(".bk-header:has-text('Triage: infrastructure · INF_GPU_XID')", timeout=60_000)
        assert page.locator("#channels a.active").inner_text().startswith("# inc-")
        headers = page.locator(".bk-header").all_inner_texts()
        assert headers[0].startswith("Incident 1: assist-chat") and len(headers) == 2
        assert page.locator(".msg .flag", has_text="pinned").count() == 1
        assert page.locator(".bk-fields >> text=AssistChatAvailabilityBudgetBurn").count() == 1
        assert "Evidence" in page.locator(".messages").inner_text()
        page.wait_for_selector(".thread img.file")  # the chart, in the triage's thread
        assert page.locator(".bookmark", has_text="Runbook").count() == 1
        # The notice in #incidents links the channel.
        page.locator("#channels a", has_text="incidents").last.click()
        assert "Incident 1 (critical)" in page.locator(".messages").inner_text()
        page.locator("#channels a", has_text="inc-").first.click()

        # Approve opens Slack's confirm dialog; nothing changes before it is confirmed.
        approve = page.locator("button[data-action-id='approve-proposal']").first
        approve.click()
        dialog = page.locator("#confirm.open")
        dialog.wait_for()
        assert "Approve cordon_node?" in dialog.inner_text()
        assert not (kubectl_get(kubeconfig, NODE, "default") or {})["spec"].get("unschedulable")
        page.screenshot(path=str(tmp_path / "confirm.png"))
        page.locator("#confirm-yes").click()

        # The post is edited in place: the result, its diff and the Undo button.
        page.wait_for_selector("button[data-action-id='undo-proposal']", timeout=60_000)
        assert "done" in page.locator(".messages").inner_text()
        node = kubectl_get(kubeconfig, NODE, "default")
        assert node is not None and node["spec"]["unschedulable"] is True
        assert node["metadata"]["annotations"]["incident-bot/approved-by"] == "U0DEMO"
        shot = tmp_path / "web-view.png"
        page.screenshot(path=str(shot), full_page=True)
        assert shot.read_bytes()[:4] == b"\x89PNG" and shot.stat().st_size > 50_000

        # Reject on the second proposal (no dialog): the post says who rejected it, nothing runs.
        page.locator("button[data-action-id='reject-proposal'][data-value='2']").click()
        page.wait_for_selector(".messages >> text=Rejected by @you", timeout=30_000)
        assert page.locator("button[data-action-id='approve-proposal']").count() == 0
        assert kubectl_get(kubeconfig, "pod/vllm-qwen25-14b-w9h26lpl2t-xrbjd", "assist-prod") is not None

        # `/incident status` typed in the channel: the bot's answer is shown to the user alone.
        page.locator("#message").fill("/incident status")
        page.locator("#message").press("Enter")
        answer = page.locator(".msg.ephemeral").first
        answer.wait_for(timeout=30_000)
        assert "Only visible to you" in answer.inner_text() and "Incident 1" in answer.inner_text()
        page.locator("#message").fill("/deploy everything")
        page.locator("#message").press("Enter")
        refusal = page.locator("#error >> text=only /incident commands go to the bot")
        refusal.wait_for()
        page.wait_for_timeout(1_500)  # three polls of the page's state later, the refusal is still read
        assert refusal.is_visible()

        # The same Approve clicked again (a stale page): the post has no such button any more.
        triage_ts = page.locator(
            ".messages > .msg:has(button[data-action-id='undo-proposal'])"
        ).get_attribute("data-ts")
        channel = page.locator("#pane").get_attribute("data-channel")
        again = {"channel": channel, "ts": triage_ts, "action_id": "approve-proposal", "value": "1"}
        answer = httpx.post(f"{url}/click", json=again)
        assert answer.status_code == 409 and "no button approve-proposal" in answer.json()["error"]


def test_state_is_not_sent_again_while_nothing_changes(web_demo: tuple[str, str]) -> None:
    url, _ = web_demo
    deadline = time.monotonic() + 60
    while True:
        state = httpx.get(f"{url}/state").json()
        if any("Triage:" in pane for pane in state["panes"].values()) and any(
            "thread" in pane for pane in state["panes"].values()
        ):
            break
        assert time.monotonic() < deadline, state
        time.sleep(0.2)
    time.sleep(1.5)
    latest = httpx.get(f"{url}/state").json()["version"]
    assert httpx.get(f"{url}/state", params={"v": latest}).status_code == 204
    json_body = {"Content-Type": "application/json"}
    assert httpx.post(f"{url}/click", content=b"not json", headers=json_body).status_code == 400
    # a cross-site form post or no-cors fetch (no JSON content type) is refused before any click
    refused = httpx.post(f"{url}/click", content=b'{"channel": "C1"}', headers={"Content-Type": "text/plain"})
    assert refused.status_code == 415
