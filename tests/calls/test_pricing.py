"""The billing rule (docs/design.md, Phase 2), against cases worked by hand.

billed_duration: 0 when duration is 0; else first_seconds, plus next_seconds
for each started block after that. amount: billed_duration / 60 x per_minute,
rounded up to a whole minor unit, once per call. Null before answer; while in
progress, the cost so far.
"""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from apps.calls.pricing import Usage, amount_for, billed_seconds, call_usage

NOW = datetime(2026, 3, 3, 14, 2, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("duration", "first", "nxt", "billed"),
    [
        (0, 60, 60, 0),  # no talk, nothing billed
        (1, 60, 60, 60),  # one second: the whole first block
        (60, 60, 60, 60),  # exactly first_seconds
        (61, 60, 60, 120),  # first + 1: one started block more
        (119, 60, 60, 120),
        (120, 60, 60, 120),
        (121, 60, 60, 180),
        (3601, 60, 60, 3660),
        (1, 30, 6, 30),
        (30, 30, 6, 30),
        (31, 30, 6, 36),
        (36, 30, 6, 36),
        (37, 30, 6, 42),
        (100, 30, 6, 102),  # 30 + 12 blocks of 6 (70 s started 12 blocks)
        (1, 1, 1, 1),
        (59, 1, 1, 59),
        (86_400, 60, 1, 86_400),
        (1_000_000, 60, 60, 1_000_020),  # large: 16,667 minutes billed
    ],
)
def test_billed_duration(duration, first, nxt, billed):
    assert billed_seconds(duration=duration, first_seconds=first, next_seconds=nxt) == billed


@pytest.mark.parametrize(
    ("billed", "per_minute", "amount"),
    [
        (0, "4.5", 0),
        (60, "4.5", 5),  # 4.5 cents, rounded up
        (120, "4.5", 9),  # exactly 9: never rounded past a whole unit
        (3660, "4.5", 275),  # 274.5 -> 275
        (36_060, "4.5", 2705),  # 2704.5 -> 2705
        (1, "7", 1),  # 0.1166... -> 1
        (59, "7", 7),  # 6.8833... -> 7
        (60, "7", 7),
        (61, "7", 8),  # 7.1166... -> 8
        (60, "0.35", 1),  # sub-cent rate: 0.35 -> 1
        (600, "0.35", 4),  # 3.5 -> 4
        (6000, "0.35", 35),  # 35 exactly
        (600, "0.5", 5),  # rounded once per call: per second it would be 600 x 1
        (1, "0.001", 1),  # any charge at all is at least one minor unit
        (30, "1.2", 1),  # 0.6 -> 1
        (102, "1.2", 3),  # 2.04 -> 3
        (60, "0", 0),  # a free call
        (1_000_020, "12.123456789", 202_062),  # 202061.654... -> 202062
    ],
)
def test_amount_rounds_up_once_per_call(billed, per_minute, amount):
    assert amount_for(billed_duration=billed, per_minute_minor=Decimal(per_minute)) == amount


def test_a_division_that_lands_on_a_whole_unit_is_not_rounded_past_it():
    # 3 s at 20 cents a minute is exactly 1 cent; 1 s at 60 cents a minute exactly 1.
    assert amount_for(billed_duration=3, per_minute_minor=Decimal("20")) == 1
    assert amount_for(billed_duration=1, per_minute_minor=Decimal("60")) == 1


@pytest.mark.parametrize("bad", [{"duration": -1}, {"first_seconds": 0}, {"next_seconds": 0}])
def test_impossible_inputs_are_refused(bad):
    args = {"duration": 10, "first_seconds": 60, "next_seconds": 60, **bad}
    with pytest.raises(ValueError):
        billed_seconds(**args)


def usage(**overrides):
    args = {
        "answered_at": NOW - timedelta(minutes=5),
        "ended_at": NOW - timedelta(minutes=3),
        "duration": 88,
        "per_minute_minor": Decimal("4.5"),
        "first_seconds": 60,
        "next_seconds": 60,
        "now": NOW,
    }
    args.update(overrides)
    return call_usage(**args)


def test_an_unanswered_call_has_no_amount():
    assert usage(answered_at=None, ended_at=None, duration=None) == Usage(0, 0, None)
    assert usage(answered_at=None, ended_at=NOW, duration=0) == Usage(0, 0, None)


def test_an_ended_call_bills_its_stored_duration():
    assert usage() == Usage(duration=88, billed_duration=120, amount=9)


def test_an_ended_call_without_a_stored_duration_bills_answer_to_end():
    assert usage(duration=None) == Usage(duration=120, billed_duration=120, amount=9)


def test_an_answered_call_of_zero_seconds_costs_zero():
    assert usage(duration=0) == Usage(0, 0, 0)


def test_a_live_call_costs_so_far_from_answer_to_now():
    live = usage(answered_at=NOW - timedelta(seconds=125), ended_at=None, duration=None)
    assert live == Usage(duration=125, billed_duration=180, amount=14)  # 13.5 -> 14


def test_a_live_call_answered_in_the_future_reads_zero_not_negative():
    assert usage(answered_at=NOW + timedelta(seconds=3), ended_at=None, duration=None) == Usage(0, 0, 0)
