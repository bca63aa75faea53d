"""What a call costs (docs/design.md, Phase 2): the one place the billing rule is computed.

A call's ``billed_duration`` is 0 when its ``duration`` is 0; otherwise the
rate's ``first_seconds``, plus ``next_seconds`` for each started block after
that. Its ``amount`` is ``billed_duration / 60 x per_minute``, rounded up to a
whole minor unit once per call (never per block, so sub-cent rates are not
inflated block by block). A call that was never answered has no amount (null);
while it is in progress, the amount is the cost so far, from the seconds since
it was answered.

The REST serializer, the MCP tools and the demo ledger all read these
functions, so the amount a user sees and the amount charged cannot drift.
"""

from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_CEILING, Decimal, localcontext

from apps.core.money import ceil_minor


def billed_seconds(*, duration: int, first_seconds: int, next_seconds: int) -> int:
    """Seconds billed for ``duration`` seconds of talk under a first/next increment."""
    if duration < 0:
        raise ValueError("duration is never negative")
    if first_seconds < 1 or next_seconds < 1:
        raise ValueError("billing increments are at least one second")
    if duration == 0:
        return 0
    if duration <= first_seconds:
        return first_seconds
    started_blocks = -(-(duration - first_seconds) // next_seconds)  # ceiling division, integers only
    return first_seconds + started_blocks * next_seconds


def amount_for(*, billed_duration: int, per_minute_minor: Decimal) -> int:
    """Whole minor units for ``billed_duration`` seconds at ``per_minute_minor`` (minor units a minute)."""
    if billed_duration < 0 or per_minute_minor < 0:
        raise ValueError("billed seconds and rates are never negative")
    with localcontext() as ctx:
        # The division may not terminate (1 s at 7 cents is 0.1166...): round it up at
        # 60 digits, far below a minor unit, so that ceiling it stays the exact ceiling.
        ctx.prec = 60
        ctx.rounding = ROUND_CEILING
        exact_or_above = Decimal(billed_duration) * Decimal(per_minute_minor) / 60
    return ceil_minor(exact_or_above)


@dataclass(frozen=True)
class Usage:
    """Talk time and its cost at one moment: final for an ended call, so far for a live one."""

    duration: int
    billed_duration: int
    amount: int | None


def elapsed_seconds(*, since: datetime, now: datetime) -> int:
    """Whole seconds from ``since`` to ``now``; a clock that runs behind reads as 0, never negative."""
    return max(0, int((now - since).total_seconds()))


def call_usage(
    *,
    answered_at: datetime | None,
    ended_at: datetime | None,
    duration: int | None,
    per_minute_minor: Decimal,
    first_seconds: int,
    next_seconds: int,
    now: datetime,
) -> Usage:
    """The usage of a call as stored, at ``now``.

    Never answered: no talk time and no amount. Answered and not ended: the
    seconds so far and their cost. Ended: the stored duration (the telephony
    core's measure), else the time from answer to end.
    """
    if answered_at is None:
        return Usage(duration=0, billed_duration=0, amount=None)
    if ended_at is None:
        talked = elapsed_seconds(since=answered_at, now=now)
    elif duration is not None:
        talked = duration
    else:
        talked = elapsed_seconds(since=answered_at, now=ended_at)
    billed = billed_seconds(duration=talked, first_seconds=first_seconds, next_seconds=next_seconds)
    return Usage(
        duration=talked,
        billed_duration=billed,
        amount=amount_for(billed_duration=billed, per_minute_minor=per_minute_minor),
    )


def usage_of(call, now: datetime) -> Usage:
    """``call_usage`` of a stored call (its answer and end, duration and rate) at ``now``."""
    return call_usage(
        answered_at=call.answered_at,
        ended_at=call.ended_at,
        duration=call.duration,
        per_minute_minor=call.per_minute_amount_decimal,
        first_seconds=call.first_seconds,
        next_seconds=call.next_seconds,
        now=now,
    )
