"""Reads of calls and transcripts: the one place that filters by the caller's account and mode.

Every query starts from ``calls_of(principal)``: the principal's user and its
``livemode``, so a test key sees test rows only and another account's or the
other mode's call reads as absent. The principal's user may be a partial User
(a cached credential's): only its primary key is used.

Contact names come from the contacts app's selectors (a named exception of
.importlinter's ``resources-stay-in-their-lane``) as a correlated subquery of the
same statement, so a page with names is still one statement.
"""

from django.db.models import F, QuerySet

from apps.accounts.selectors import sharing_get
from apps.api_v1.public import Listing
from apps.contacts.selectors import contact_name_of
from apps.core.ids import id_pattern, is_id

from .models import CALL_PREFIX, Call, Transcript

CALL_ID_PATTERN = id_pattern(CALL_PREFIX)
# The label of the switch on the sharing screen (templates/settings/sharing.html), for messages naming it.
SHARING_SETTING = "Let connected apps read AI summaries of my calls"


def is_call_id(value) -> bool:
    # Checked before any query: a malformed id (another prefix, a stray byte) never reaches the database.
    return is_id(value, CALL_PREFIX)


def calls_of(principal) -> QuerySet[Call]:
    """The principal's calls in the principal's mode: the base of every read below."""
    return _calls(principal.livemode, user_id=principal.user.pk)


def _calls(livemode: bool, *, user_id) -> QuerySet[Call]:
    # livemode is shape, not a value: Django writes "WHERE livemode" or "WHERE NOT livemode".
    return Call.objects.filter(user_id=user_id, livemode=livemode)


def _with_references(queryset: QuerySet[Call], *, transcripts: bool, contact_names: bool) -> QuerySet[Call]:
    if transcripts:
        # The expanded transcript comes in the same statement (a LEFT JOIN on its unique call_id).
        queryset = queryset.select_related("transcript")
    else:
        # Only the transcript's id, for the unexpanded reference.
        queryset = queryset.annotate(transcript_ref=F("transcript__id"))
    if contact_names:
        queryset = queryset.annotate(contact_name=contact_name_of())
    return queryset


def _listed(
    livemode: bool,
    by_direction: bool,
    by_status: bool,
    transcripts: bool,
    contact_names: bool,
    *,
    user_id,
    direction: str | None = None,
    status: str | None = None,
) -> QuerySet[Call]:
    queryset = _calls(livemode, user_id=user_id)
    if by_direction:
        queryset = queryset.filter(direction=direction)
    if by_status:
        queryset = queryset.filter(status=status)
    return _with_references(queryset, transcripts=transcripts, contact_names=contact_names)


def call_list(
    *,
    principal,
    direction: str | None = None,
    status: str | None = None,
    transcripts: bool = False,
    contact_names: bool = False,
) -> Listing:
    """The principal's calls, filtered; the list pages them newest first (an index serves each filter).

    Any of the caller's calls marks a position, also one the filters leave out.
    """
    account = {"user_id": principal.user.pk}
    filters = {name: value for name, value in (("direction", direction), ("status", status)) if value is not None}
    shape = (principal.livemode, direction is not None, status is not None, transcripts, contact_names)
    every = Listing(_calls, (principal.livemode,), account)
    return Listing(_listed, shape, {**account, **filters}, cursors=every)


def call_get(*, principal, call_id: str, transcripts: bool = False, contact_names: bool = False) -> Call | None:
    """The principal's call by id; None for a malformed id (no query), another account's or mode's, or none."""
    if not is_call_id(call_id):
        return None
    queryset = _with_references(calls_of(principal), transcripts=transcripts, contact_names=contact_names)
    return queryset.filter(pk=call_id).first()


def call_transcript(call: Call) -> Transcript | None:
    """The transcript loaded with ``call`` (``transcripts=True``), or None."""
    try:
        return call.transcript
    except Transcript.DoesNotExist:
        return None


def call_transcript_id(call: Call) -> str | None:
    """The transcript's id however the call was loaded (annotated reference or joined row)."""
    if hasattr(call, "transcript_ref"):
        return call.transcript_ref
    transcript = call_transcript(call)
    return transcript.id if transcript is not None else None


def call_summaries_shared(*, principal) -> bool:
    """The account's call-summaries switch (docs/spec.md 5.13), which gates every read of a transcript."""
    return sharing_get(user=principal.user).call_summaries


def quote_for_confirmation(*, user_id, quote_id: str):
    """The account's quote ``quote_id`` (any mode) with its contact's name (``contact_name``), for the
    page where the user confirms an app's call; None for another account's or none."""
    from .models import Quote

    if not isinstance(quote_id, str) or not quote_id.startswith("quo_"):
        return None
    return Quote.objects.filter(pk=quote_id, user_id=user_id).annotate(contact_name=contact_name_of()).first()


def callback_spend_today(*, user_id, livemode: bool, credential_id: str, now) -> int:
    """What one key's or app's callback calls spent today (UTC; holds while live, charges once ended)."""
    from django.db.models import Sum

    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    spent = (
        Call.objects.filter(user_id=user_id, livemode=livemode, credential_id=credential_id, created__gte=start)
        .exclude(quote_id="")
        .aggregate(total=Sum("spend"))["total"]
    )
    return int(spent or 0)
