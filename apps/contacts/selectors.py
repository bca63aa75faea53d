"""Reads of the address book: the one place that filters contacts by the caller's account and mode."""

import re

from django.db.models import Prefetch, QuerySet

from apps.core.errors import ApiError

from . import search
from .models import CONTACT_ID_PREFIX, Contact, ContactPhoneNumber, ContactSearchTerm

# Checked before any query: a malformed id (a stray byte, another prefix) never reaches the database.
_CONTACT_ID = re.compile(re.escape(CONTACT_ID_PREFIX) + r"[0-9A-Za-z]{1,28}")


def is_contact_id(value) -> bool:
    return isinstance(value, str) and _CONTACT_ID.fullmatch(value) is not None


def _account(principal) -> QuerySet[Contact]:
    # principal.user may be a partial User (credential cache): filter by its key only.
    return Contact.objects.filter(user_id=principal.user.pk, livemode=principal.livemode)


def _with_numbers(contacts: QuerySet[Contact]) -> QuerySet[Contact]:
    return contacts.prefetch_related(
        Prefetch("phone_numbers", queryset=ContactPhoneNumber.objects.order_by("position", "id"))
    )


def contact_list(*, principal, query: str | None = None) -> QuerySet[Contact]:
    """The caller's contacts, those ``query`` finds when given (apps.contacts.search), phone numbers
    prefetched. Unordered: the list orders by name (apps.contacts.pagination).

    An empty ``query`` or one over 100 characters is refused (ApiError invalid_request,
    param query); one with nothing searchable in it ("!!") finds nothing.
    """
    contacts = _account(principal)
    if query is not None:
        parsed = parse_contact_query(query)
        if parsed is None:
            return contacts.none()
        terms = ContactSearchTerm.objects.filter(user_id=principal.user.pk, livemode=principal.livemode)
        for value in parsed.terms:
            # One range scan of contacts_term_prefix_idx per query word; every word must match.
            matching = terms.filter(kind=parsed.kind, term__startswith=value).values("contact_id")
            contacts = contacts.filter(id__in=matching)
    return _with_numbers(contacts)


def parse_contact_query(query: str) -> search.Query | None:
    if not query:
        raise ApiError("invalid_request", "query must not be empty; leave it out to list every contact.", param="query")
    if len(query) > search.MAX_QUERY_LENGTH:
        raise ApiError("invalid_request", "query must be at most 100 characters.", param="query")
    return search.parse_query(query)


def contact_get(*, principal, contact_id: str) -> Contact | None:
    """The caller's contact, phone numbers prefetched; None for a malformed id (no query is
    sent), another account's contact or the other mode's: all read as absent."""
    if not is_contact_id(contact_id):
        return None
    return _with_numbers(_account(principal).filter(pk=contact_id)).first()


def contact_for_cursor(*, principal, contact_id: str) -> dict | None:
    """The list position (sort key and id) of one of the caller's contacts, for a cursor."""
    if not is_contact_id(contact_id):
        return None
    return _account(principal).filter(pk=contact_id).values("sort_name", "id").first()
