"""Spend limits and what a call may last (docs/design.md, Phase 3; docs/spec.md 8.5; values in settings).

Per account and mode, over callback calls (those placed from a quote, whatever their
outcome): a daily cap of the account (``CALL_SPEND_LIMIT_DAILY``) and of each key or app
(``CALL_SPEND_LIMIT_CREDENTIAL_DAILY``), at most ``CALLS_PER_NUMBER_HOURLY`` calls to one
number in the last hour, at most ``CALL_DESTINATIONS_DAILY`` numbers a day. A day is the
UTC day, so every daily limit frees up at the same, predictable moment (00:00 UTC). What a
call counts is its ``spend``: its hold while live, its charge once ended.

Everything a quote or a placement checks is read in one statement (``usage_annotations``, on
the rate's row or the quote's; apps/calls/usage.py compiles each once), a placement's after the
balance row is locked.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import BigIntegerField, Count, IntegerField, Min, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from apps.core.errors import ApiError
from apps.core.money import display, to_minor
from apps.core.phones import readable

from .models import LIVE_STATUSES, Call
from .pricing import amount_for, billed_seconds

MAX_DURATION = 4 * 3600  # seconds (docs/design.md: the least of 4 hours and what credit and caps buy)
HOUR = timedelta(hours=1)


def day_start(now: datetime) -> datetime:
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


def _minor(setting: str) -> int:
    return int(to_minor(Decimal(setting), settings.SERVICE_CURRENCY))


def _callbacks(*, user_id, livemode: bool):
    return Call.objects.filter(user_id=user_id, livemode=livemode).exclude(quote_id="").order_by()


def _scalar(queryset, expression, output=None):
    """One aggregate of ``queryset`` as a scalar subquery."""
    output = output if output is not None else BigIntegerField()
    rows = queryset.annotate(_g=Value(1)).values("_g").annotate(value=expression).values("value")
    return Subquery(rows, output_field=output)


def usage_since(now: datetime) -> dict:
    """The moments the limits count from at ``now``, as ``usage_annotations`` takes them."""
    return {"today": day_start(now), "hour_ago": now - HOUR}


def usage_annotations(*, user_id, livemode: bool, credential_id: str, to, today: datetime, hour_ago: datetime) -> dict:
    """Annotations giving what the limits need, for a query of any model (each is a scalar subquery).

    ``to`` is the canonical number being called: a string, or ``OuterRef`` to a column of the
    annotated row (the quote being placed). ``today`` and ``hour_ago`` are ``usage_since(now)``:
    values, not computed here, so that the statement can be compiled once (apps/calls/usage.py)."""
    today_calls = _callbacks(user_id=user_id, livemode=livemode).filter(created__gte=today)
    last_hour = _callbacks(user_id=user_id, livemode=livemode).filter(created__gt=hour_ago, to_number=to)
    live = _callbacks(user_id=user_id, livemode=livemode).filter(status__in=sorted(LIVE_STATUSES))
    zero = Value(0)
    return {
        "spent_today": Coalesce(_scalar(today_calls, Sum("spend")), zero),
        "spent_today_credential": Coalesce(
            _scalar(today_calls.filter(credential_id=credential_id), Sum("spend")), zero
        ),
        "destinations_today": Coalesce(_scalar(today_calls, Count("to_number", distinct=True), IntegerField()), zero),
        "called_today": Coalesce(_scalar(today_calls.filter(to_number=to), Count("id"), IntegerField()), zero),
        "calls_last_hour": Coalesce(_scalar(last_hour, Count("id"), IntegerField()), zero),
        "first_of_last_hour": _scalar(last_hour, Min("created"), Call._meta.get_field("created")),
        "live_callback": Subquery(live.values("id")[:1]),
    }


@dataclass(frozen=True)
class Price:
    per_minute: Decimal  # minor units a minute
    first_seconds: int
    next_seconds: int

    def cost(self, seconds: int) -> int:
        billed = billed_seconds(duration=seconds, first_seconds=self.first_seconds, next_seconds=self.next_seconds)
        return amount_for(billed_duration=billed, per_minute_minor=self.per_minute)

    @property
    def first_increment(self) -> int:
        return self.cost(1)

    def longest_for(self, budget: int) -> int:
        """The longest call (seconds, at most 4 hours) whose cost is at most ``budget``; 0 when not even
        the first increment fits."""
        if self.per_minute <= 0:
            return MAX_DURATION
        if budget < self.first_increment:
            return 0
        affordable = int(Decimal(budget) * 60 / self.per_minute)  # billed seconds whose cost <= budget
        blocks = max(0, (affordable - self.first_seconds) // self.next_seconds)
        return min(MAX_DURATION, self.first_seconds + blocks * self.next_seconds)


def _next_day(now: datetime) -> str:
    return "00:00 UTC"


def _when(moment: datetime) -> str:
    return moment.strftime("%H:%M UTC")


def limits_check(*, usage: dict, to: str, price: Price, now: datetime) -> int:
    """Raise 403 ``spend_limit_exceeded`` naming the limit reached and when it frees up; else return
    what the caps leave for this call (minor units)."""
    currency = settings.SERVICE_CURRENCY
    if usage["calls_last_hour"] >= settings.CALLS_PER_NUMBER_HOURLY:
        frees = usage["first_of_last_hour"] + HOUR if usage["first_of_last_hour"] else now + HOUR
        raise ApiError(
            "spend_limit_exceeded",
            f"At most {settings.CALLS_PER_NUMBER_HOURLY} calls an hour may be placed to {readable(to)}; "
            f"the next one can be placed at {_when(frees)}.",
        )
    if usage["called_today"] == 0 and usage["destinations_today"] >= settings.CALL_DESTINATIONS_DAILY:
        raise ApiError(
            "spend_limit_exceeded",
            f"Calls may be placed to at most {settings.CALL_DESTINATIONS_DAILY} different numbers a day; "
            f"new numbers can be called again after {_next_day(now)}.",
        )
    left_account = _minor(settings.CALL_SPEND_LIMIT_DAILY) - usage["spent_today"]
    left_credential = _minor(settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY) - usage["spent_today_credential"]
    for left, setting, whose in (
        (left_account, settings.CALL_SPEND_LIMIT_DAILY, "the account's daily spend limit"),
        (left_credential, settings.CALL_SPEND_LIMIT_CREDENTIAL_DAILY, "the daily spend limit of this key or app"),
    ):
        if left < price.first_increment:
            limit = display(_minor(setting), currency)
            raise ApiError(
                "spend_limit_exceeded",
                f"Calls have reached {whose} ({limit}); it frees up at {_next_day(now)}.",
            )
    return min(left_account, left_credential)


def credits_check(*, available: int, price: Price) -> None:
    """Raise 402 ``insufficient_credits`` when the available balance does not buy the first increment."""
    if available < price.first_increment:
        currency = settings.SERVICE_CURRENCY
        raise ApiError(
            "insufficient_credits",
            f"The available balance ({display(available, currency)}) is below what the first "
            f"{price.first_seconds} seconds of this call cost ({display(price.first_increment, currency)}). "
            "Add credit, then ask for a new quote.",
        )


def longest_call(*, available: int, caps_left: int, price: Price) -> tuple[int, int]:
    """``(max_duration, max_amount)``: the least of 4 hours and what credit and caps buy, and its cost."""
    seconds = price.longest_for(min(available, caps_left))
    return seconds, price.cost(seconds)
