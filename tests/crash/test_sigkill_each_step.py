"""`incident-bot serve` SIGKILLed at each step of an incident, started again: the work finishes once.

One alert of the KV-cache surge pack, its triage proposing one more replica, an approval through the
API. The process is killed from the outside (a stand-in's hook, while the bot's request is in it)
after intake, mid-triage, right after Slack created the channel, between the approval and the
apply, mid-apply (the scale write landed) and mid-verify. The new process picks the dead worker's
job up once its lease has run out; then there must be one channel, one announcement and one triage
post, one write to the cluster, and the timeline of an uninterrupted run, each step in it once.

The six bots run side by side (each on its own database and stand-ins), so that the six lease waits
overlap and the module takes about one lease instead of six.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import pytest
from starlette.requests import Request
from starlette.responses import Response

from bot.sandbox.openai import ScriptedReply
from bot.sandbox.up import Sandbox
from tests.crash.conftest import LEASE_SECONDS, CrashBot, Tripwire, crash_bot

pytestmark = pytest.mark.timeout(480)

DEPLOYMENT = "/apis/apps/v1/namespaces/support-bot/deployments/vllm-llama31-8b-support"
# The timeline of the incident run without a crash: opened, announced, triaged with one proposal
# (previewed), approved, planned (dry run), written and verified.
TIMELINE = Counter(
    [
        "opened",
        "alert_firing",
        "channel_created",
        "announced",
        "action_proposed",
        "triaged",
        "action_dry_run",
        "triage_posted",
        "action_approved",
        "action_dry_run",
        "action_executed",
        "action_verified",
    ]
)
SLOW = LEASE_SECONDS + 120  # a dead worker's job waits out its lease, then a loaded machine runs it
KV = "prom:kv_cache_usage:vllm:pod=vllm-llama31-8b-support-wjlzdcvg4h-gn466"
VERDICT = {
    "category": "inference_engine",
    "code": "ENG_KV_CACHE",
    "layer": "ENG",
    "hypothesis": "A traffic surge filled the KV cache of every replica and vLLM started preempting "
    "sequences; the replicas are healthy but out of cache.",
    "confidence": 0.86,
    "evidence_ids": [KV],
    "claims": [
        {"text": "KV cache at 99.2% on vllm-llama31-8b-support-wjlzdcvg4h-gn466", "evidence_ids": [KV]}
    ],
    "actions": [
        {"kind": "add_replica", "target": "deployment/vllm-llama31-8b-support", "rationale": "More cache"}
    ],
}
# The review asks for a metric (the bot dies while it runs the tool), then answers.
LLM_SCRIPT = [
    ScriptedReply.model_validate(
        {"tool_calls": [{"name": "promql", "arguments": {"query": "max(vllm:gpu_cache_usage_perc)"}}]}
    ),
    ScriptedReply.model_validate({"content": json.dumps(VERDICT)}),
]


@dataclass(frozen=True)
class Killed:
    """What the dead process had left: its timeline, its writes to the cluster, its recorded channel."""

    kinds: list[str]
    writes: int
    channel_id: str | None


@dataclass(frozen=True)
class Run:
    """What a scenario leaves to check: its incident, its proposal, the job the dead worker held."""

    incident_id: int
    proposal_id: int
    replicas_before: int
    crashed_job: str | None  # None: the process died with no job claimed
    killed: Killed


def left_by_the_dead(bot: CrashBot, incident_id: int) -> Killed:
    channel = bot.store.chat.channel(incident_id)
    return Killed(
        kinds=bot.kinds(incident_id),
        writes=len([w for w in bot.kube.writes if not w.dry_run]),
        channel_id=channel.channel_id if channel else None,
    )


def replicas(bot: CrashBot) -> int:
    answer = httpx.get(bot.env["KUBERNETES_API_URL"] + DEPLOYMENT, timeout=10)
    return int(answer.json()["spec"]["replicas"])


def posted(bot: CrashBot, incident_id: int, timeout: float) -> int:
    """Wait until the triage is posted and nothing else runs; the one proposal's id."""
    bot.until(lambda: "triage_posted" in bot.kinds(incident_id), "the triage post", timeout)
    bot.until(lambda: all(s != "running" for _, s, _ in bot.jobs()), "an idle queue", 30)
    [proposal] = bot.proposals(incident_id)
    assert proposal.action.kind.value == "add_replica" and proposal.status == "proposed"
    return proposal.id


def done(bot: CrashBot, proposal_id: int, timeout: float) -> None:
    bot.until(
        lambda: bot.store.actions.get(proposal_id).status in {"done", "failed", "refused"},
        "the action",
        timeout,
    )
    bot.until(lambda: all(s != "running" for _, s, _ in bot.jobs()), "an idle queue", 30)


def approved_then_killed(bot: CrashBot, tripwire: Tripwire, arm: Callable[[Tripwire], None]) -> Run:
    """Triage and post without a crash; the tripwire armed, approve; started again after the kill."""
    bot.start()
    incident = bot.alert(bot.alert_body)
    proposal = posted(bot, incident, 120)
    before = replicas(bot)
    assert bot.proc is not None
    arm(tripwire)
    tripwire.proc = bot.proc
    bot.approve(proposal)
    bot.note("approved")
    bot.killed(tripwire)
    killed = left_by_the_dead(bot, incident)
    bot.start()
    done(bot, proposal, SLOW)
    return Run(incident, proposal, before, "incident.act", killed)


def after_intake(bot: CrashBot) -> Run:
    """The webhook is answered by a process with no worker: killed with both jobs queued, none run."""
    bot.start(worker_threads=0)
    incident = bot.alert(bot.alert_body)
    assert bot.jobs() == [("incident.announce", "queued", 0), ("incident.triage", "queued", 0)]
    bot.kill()
    killed = left_by_the_dead(bot, incident)
    bot.start()
    proposal = posted(bot, incident, 120)
    before = replicas(bot)
    bot.approve(proposal)
    done(bot, proposal, 60)
    return Run(incident, proposal, before, None, killed)


def killed_at(bot: CrashBot, tripwire: Tripwire, job: str) -> Run:
    """Killed by a tripwire armed from the start, before anything was approved."""
    bot.start(tripwire=tripwire)
    incident = bot.alert(bot.alert_body)
    bot.killed(tripwire)
    killed = left_by_the_dead(bot, incident)
    bot.start()
    proposal = posted(bot, incident, SLOW)
    before = replicas(bot)
    bot.approve(proposal)
    done(bot, proposal, 60)
    return Run(incident, proposal, before, job, killed)


def mid_triage(bot: CrashBot) -> Run:
    tripwire = Tripwire(lambda body: True)
    bot.openai.after_reply = tripwire
    return killed_at(bot, tripwire, "incident.triage")


def channel_created(bot: CrashBot) -> Run:
    tripwire = Tripwire(lambda call: call.method == "conversations.create" and call.error is None)
    bot.slack.after_call = tripwire
    return killed_at(bot, tripwire, "incident.announce")


def before_apply(bot: CrashBot) -> Run:
    """Killed once the act job has said "approved, applying" on the proposal's message."""
    tripwire = Tripwire(lambda call: call.method == "chat.update")

    def arm(wire: Tripwire) -> None:
        bot.slack.after_call = wire

    return approved_then_killed(bot, tripwire, arm)


def is_write(request: Request) -> bool:
    return request.method == "PATCH" and "dryRun" not in request.query_params


def mid_apply(bot: CrashBot) -> Run:
    """Killed while the scale write is in the API server: it lands, the bot never hears back."""
    tripwire = Tripwire(lambda request, answer: is_write(request) and answer.status_code == 200)

    def arm(wire: Tripwire) -> None:
        bot.kube.after_request = wire

    return approved_then_killed(bot, tripwire, arm)


def mid_verify(bot: CrashBot) -> Run:
    """Killed on the first read of the deployment after the write: the verify is under way."""
    wrote: list[bool] = []

    def reading_after_write(request: Request, answer: Response) -> bool:
        if is_write(request):
            wrote.append(True)
            return False
        return bool(wrote) and request.method == "GET" and request.url.path == DEPLOYMENT

    tripwire = Tripwire(reading_after_write)

    def arm(wire: Tripwire) -> None:
        bot.kube.after_request = wire

    return approved_then_killed(bot, tripwire, arm)


SCENARIOS: dict[str, Callable[[CrashBot], Run]] = {
    "after_intake": after_intake,
    "mid_triage": mid_triage,
    "after_the_channel_was_created": channel_created,
    "between_approval_and_apply": before_apply,
    "mid_apply": mid_apply,
    "mid_verify": mid_verify,
}


@pytest.fixture(scope="module")
def runs(
    request: pytest.FixtureRequest, sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, tuple[CrashBot, Future[Run]]]]:
    """Every scenario started at once, each on a bot of its own."""
    chosen = {item.name.removeprefix("test_killed_") for item in request.session.items}
    bots = {
        name: crash_bot(
            sandbox, tmp_path_factory.mktemp(name), llm_script=LLM_SCRIPT if name == "mid_triage" else None
        )
        for name in SCENARIOS
        if name in chosen
    }
    with ThreadPoolExecutor(len(SCENARIOS), thread_name_prefix="crash") as pool:
        started = {name: (bot, pool.submit(SCENARIOS[name], bot)) for name, bot in bots.items()}
        try:
            yield started
        finally:
            for _bot, future in started.values():
                future.cancel()
    for bot in bots.values():
        bot.close()


def check_once(bot: CrashBot, run: Run) -> None:
    """One channel, one announcement and one triage post, one write, the whole timeline once."""
    proposal = bot.store.actions.get(run.proposal_id)
    assert proposal.status == "done" and proposal.outcome.get("verified") is True, proposal.outcome
    kinds = bot.kinds(run.incident_id)
    assert Counter(kinds) == TIMELINE, kinds
    assert kinds.index("announced") < kinds.index("triage_posted") < kinds.index("action_approved")
    created = [c for c in bot.slack.calls_to("conversations.create") if c.error is None]
    assert len(created) == 1
    [channel] = [c for c in bot.slack.channels.values() if c.name.startswith("inc-")]
    assert bot.store.chat.channel(run.incident_id).channel_id == channel.id  # type: ignore[union-attr]
    tops = [m.text for m in channel.messages if m.thread_ts is None]
    assert len(tops) == 2, tops
    assert tops[0].startswith(f"Incident {run.incident_id} (")  # the announcement
    assert tops[1].startswith(f"Incident {run.incident_id} triage:")
    assert len([m for m in channel.messages if m.thread_ts is not None]) == 1  # the triage's chart
    assert len(channel.bookmarks) == 2 and len(channel.pins) == 1 and channel.members == ["UBOT", "U0ANA"]
    writes = [w for w in bot.kube.writes if not w.dry_run]
    assert [(w.verb, w.path) for w in writes] == [("PATCH", DEPLOYMENT + "/scale")]
    assert replicas(bot) == run.replicas_before + 1
    jobs = bot.jobs()
    assert all(status == "done" for kind, status, _ in jobs if kind != "incident.expire_proposal"), jobs
    assert [kind for kind, _, _ in jobs].count("incident.act") == 1
    retried = [kind for kind, _, attempts in jobs if attempts > 1]
    assert retried == ([run.crashed_job] if run.crashed_job else []), jobs


def outcome(runs: dict[str, tuple[CrashBot, Future[Run]]], name: str) -> tuple[CrashBot, Run]:
    bot, future = runs[name]
    run = future.result(timeout=SLOW + 240)
    print(name, bot.steps)  # where the time went, shown with -s
    return bot, run


def executed(bot: CrashBot, run: Run) -> str:
    [entry] = [e.text for e in bot.timeline(run.incident_id) if e.kind.value == "action_executed"]
    return entry


def test_killed_after_intake(runs: dict[str, tuple[CrashBot, Future[Run]]]) -> None:
    """The jobs the webhook queued are run by the next process, as if nothing had happened."""
    bot, run = outcome(runs, "after_intake")
    assert run.killed == Killed(kinds=["opened", "alert_firing"], writes=0, channel_id=None)
    check_once(bot, run)


def test_killed_mid_triage(runs: dict[str, tuple[CrashBot, Future[Run]]]) -> None:
    """The triage is run again to one stored result, its LLM review asked again (once more)."""
    bot, run = outcome(runs, "mid_triage")
    assert "announced" in run.killed.kinds and "triaged" not in run.killed.kinds
    check_once(bot, run)
    assert len(bot.openai.requests) == 2 and bot.openai.remaining == 0
    stored = bot.store.incidents.triage(run.incident_id)
    assert stored is not None and stored.result.engine == "llm"


def test_killed_after_the_channel_was_created(runs: dict[str, tuple[CrashBot, Future[Run]]]) -> None:
    """The channel Slack made for the dead process is found and adopted, not made twice."""
    bot, run = outcome(runs, "after_the_channel_was_created")
    assert run.killed == Killed(kinds=["opened", "alert_firing"], writes=0, channel_id=None)
    check_once(bot, run)
    assert bot.store.chat.channel(run.incident_id).attempts == 2  # type: ignore[union-attr]
    assert [c.method for c in bot.slack.calls].count("users.conversations") == 1


def test_killed_between_approval_and_apply(runs: dict[str, tuple[CrashBot, Future[Run]]]) -> None:
    """Approved, nothing planned or written yet: the next process plans, writes and verifies it."""
    bot, run = outcome(runs, "between_approval_and_apply")
    assert run.killed.kinds[-1] == "action_approved" and run.killed.writes == 0
    check_once(bot, run)
    assert executed(bot, run).endswith("(applied)")


def test_killed_mid_apply(runs: dict[str, tuple[CrashBot, Future[Run]]]) -> None:
    """The write landed but was never answered: the retry finds it applied and does not write again."""
    bot, run = outcome(runs, "mid_apply")
    assert run.killed.kinds[-1] == "action_dry_run" and run.killed.writes == 1
    check_once(bot, run)
    assert "already applied by an earlier attempt" in executed(bot, run)


def test_killed_mid_verify(runs: dict[str, tuple[CrashBot, Future[Run]]]) -> None:
    """The dead process's write and its timeline entry stand: the retry only verifies, once."""
    bot, run = outcome(runs, "mid_verify")
    assert run.killed.kinds[-1] == "action_executed" and run.killed.writes == 1
    check_once(bot, run)
    assert executed(bot, run).endswith("(applied)")
