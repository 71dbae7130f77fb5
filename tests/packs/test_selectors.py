"""What a PromQL expression reads (bot.packs.selectors), parsed by the Prometheus grammar."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.packs.selectors import LOOKBACK_DELTA, SelectorError, reads
from tools.signals import load_catalog


def test_selectors_come_without_their_modifiers_and_the_reach_adds_ranges_and_offsets() -> None:
    got = reads(
        'max_over_time((a{x=~"p\\\\.q"} or b offset 1h)[10m:1m] offset 5m)'
        ' / on() group_left sum(rate(c{y!="z"}[5m]))'
    )
    assert got.selectors == ('a{x=~"p\\\\.q"}', "b", 'c{y!="z"}')
    # the subquery's 10m and 5m offset on top of b's own hour, then the instant lookback
    assert got.reach == timedelta(minutes=75) + LOOKBACK_DELTA


def test_a_name_given_as_a_matcher_is_kept_and_a_plain_selector_reads_only_the_lookback() -> None:
    got = reads('{__name__=~"DCGM_FI_.+",Hostname="n1"}')
    assert got.selectors == ('{__name__=~"DCGM_FI_.+",Hostname="n1"}',)
    assert got.reach == LOOKBACK_DELTA


def test_every_shipped_catalog_query_parses() -> None:
    catalog = load_catalog()
    for signal in catalog.signals.values():
        for template in signal.queries.values():
            query = template.replace("$window", "3600s").replace("$", "x")
            assert reads(query).selectors, f"{signal.name}: {query}"


def test_what_is_not_promql_is_an_error_naming_the_query() -> None:
    with pytest.raises(SelectorError, match="rate\\(x\\["):
        reads("rate(x[")
