"""The one statement a quote reads and the one a placement reads, each compiled once (apps/core/sql.py).

A quote reads the rate of the number, the caller IDs, the balance, what is held and what the
limits count (``limits.usage_annotations``) in one statement: the rate's row, annotated. A
placement reads its quote with the same annotations, after the balance row is locked. Built
and compiled by the ORM on every request, either statement took more of the worker than all the
rest of the request; compiled once per process, thread and database, each request only sends
its values.
"""

from datetime import datetime

from django.db.models import OuterRef, QuerySet, Subquery

from apps.billing.holds import balance_amount_expression, held_amount_expression
from apps.core.sql import CompiledQuery
from apps.numbers.selectors import caller_ids_in_mode
from apps.rates.selectors import longest_prefix, prefix_candidates

from .limits import usage_annotations, usage_since
from .models import Quote


def _account(user_id, livemode: bool) -> dict:
    return {
        "balance_amount": balance_amount_expression(user_id=user_id, livemode=livemode),
        "held": held_amount_expression(user_id=user_id, livemode=livemode),
    }


def _quote_reads(
    livemode: bool, chosen: bool, *, user_id, credential_id, to, today, hour_ago, caller_id=None, **prefixes
) -> QuerySet:
    caller_ids = caller_ids_in_mode(user_id=user_id, livemode=livemode)
    numbers = {"your_number": Subquery(caller_ids.filter(is_default=True).values("number")[:1])}
    if chosen:
        numbers["chosen_caller_id"] = Subquery(caller_ids.filter(pk=caller_id).values("number")[:1])
    usage = usage_annotations(
        user_id=user_id, livemode=livemode, credential_id=credential_id, to=to, today=today, hour_ago=hour_ago
    )
    return longest_prefix(**prefixes).annotate(**numbers, **_account(user_id, livemode), **usage)


def _placement_reads(livemode: bool, *, quote_id, user_id, credential_id, today, hour_ago) -> QuerySet[Quote]:
    usage = usage_annotations(
        user_id=user_id,
        livemode=livemode,
        credential_id=credential_id,
        # The number of the quote being placed (the outer row): F() here would name the counted
        # call's own number, and every call would count as a call to this one.
        to=OuterRef("to_number"),
        today=today,
        hour_ago=hour_ago,
    )
    quotes = Quote.objects.filter(pk=quote_id, user_id=user_id, livemode=livemode).order_by()
    return quotes.annotate(**_account(user_id, livemode), **usage)[:1]


QUOTE_READS = CompiledQuery(_quote_reads)
PLACEMENT_READS = CompiledQuery(_placement_reads)


def quote_reads(*, principal, number: str, caller_id: str | None, now: datetime):
    """The rate of ``number`` annotated with ``your_number`` (the default caller ID's number, or
    None), ``chosen_caller_id`` (``caller_id``'s number or None; only when one is asked for), the
    balance, what is held and what the limits count; None when no prefix of the deck prices it."""
    prefixes = prefix_candidates(number)
    if not prefixes:
        return None
    chosen = {"caller_id": caller_id} if caller_id else {}
    return QUOTE_READS.first(
        principal.livemode,
        bool(caller_id),
        user_id=principal.user.pk,
        credential_id=principal.credential_id,
        to=number,
        **usage_since(now),
        **chosen,
        **prefixes,
    )


def placement_reads(*, principal, quote_id: str, now: datetime) -> Quote | None:
    """The principal's quote ``quote_id`` with the balance, what is held and what the limits count."""
    return PLACEMENT_READS.first(
        principal.livemode,
        quote_id=quote_id,
        user_id=principal.user.pk,
        credential_id=principal.credential_id,
        **usage_since(now),
    )
