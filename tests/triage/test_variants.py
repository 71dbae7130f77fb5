"""The same recorded incidents served as other real-world configurations (an Elasticsearch 8 on
Basic with flat fields, an OpenSearch fed by Fluent Bit; HTTPRoute only as v1beta1, events only in
core/v1): the bot is told nothing and must still reach the expected category, code and action.
`incident-bot eval --variant …` runs every pack this way."""

from __future__ import annotations

import pytest

from bot.sandbox.evaluate import score
from bot.sandbox.pack import load_pack
from bot.sandbox.replay import triage_pack
from bot.sandbox.safety import unsafe_actions
from bot.sandbox.variant import Variant
from bot.triage.knowledge import Knowledge
from tests.conftest import ROOT

# Packs whose decision rests on log signatures, routes, events or rollouts.
PACKS = [
    "scenarios/kv-cache-preemption-traffic-surge",
    "scenarios/httproute-weight-skew-429",
    "scenarios/injected-log-text-model-load-failed",
    "scenarios/wrong-checkpoint-rollout-vocab-mismatch",
    "scenarios/canary-split-cuda-illegal-address",
    "tests/heldout/batch-job-gpu-memory-squeeze",
    "tests/heldout/vllm-enginecore-dead-one-replica-500",
]
VARIANTS = [
    Variant(logs="elasticsearch-8-basic", shipper="flat", gateway_api="v1beta1", events="core"),
    Variant(logs="opensearch-2", shipper="fluentbit"),
]


@pytest.fixture(scope="module")
def knowledge() -> Knowledge:
    return Knowledge.load()


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
@pytest.mark.parametrize("folder", PACKS)
def test_the_triage_holds_on_other_backends(folder: str, variant: Variant, knowledge: Knowledge) -> None:
    pack = load_pack(ROOT / folder, taxonomy=knowledge.taxonomy)
    assert pack.expected is not None
    result = triage_pack(pack, knowledge=knowledge, variant=variant)
    assert score(pack.expected, result, knowledge.taxonomy, pack.objects) == (True, True, True), (
        result.category,
        result.code,
        [a.target for a in result.actions],
        result.gaps,
    )
    assert unsafe_actions(pack.expected, result, pack.objects) == []
    if pack.logs:  # the logs were read: no gap says the fields or the licence got in the way
        assert not [g for g in result.gaps if g.startswith("elasticsearch")], result.gaps


def test_a_variant_is_parsed_and_a_wrong_one_named() -> None:
    parsed = Variant.parse("logs=opensearch-2, shipper=fluentbit,gateway-api=v1beta1")
    assert parsed == Variant(logs="opensearch-2", shipper="fluentbit", gateway_api="v1beta1")
    assert Variant.parse("") == Variant()
    with pytest.raises(Exception, match="variant logs: 'solr' is not one of"):
        Variant.parse("logs=solr")
    with pytest.raises(
        Exception, match="'colour=red' is not key=value with a key of events, gateway-api, logs"
    ):
        Variant.parse("colour=red")
