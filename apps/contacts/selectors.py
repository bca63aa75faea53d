"""Reads of the address book: the one place that filters contacts by the caller's account and mode."""

import re
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

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


def _after(cursor: dict, key: str) -> Q:
    return Q(sort_name__gt=cursor["sort_name"]) | Q(sort_name=cursor["sort_name"], **{f"{key}__gt": cursor["id"]})


def _before(cursor: dict, key: str) -> Q:
    return Q(sort_name__lt=cursor["sort_name"]) | Q(sort_name=cursor["sort_name"], **{f"{key}__lt": cursor["id"]})


@dataclass(frozen=True)
class ContactList:
    """The caller's contacts, or those a query finds, in name order: (folded name, id).

    ``page`` reads one page in one statement (plus one for the page's phone
    numbers). Without a query it is a range of contacts_user_mode_name_idx. With
    one, the matches come in name order from one range of contacts_term_prefix_idx
    (the query's longest word, or its digits); the query's other words are checked
    per match with contacts_term_contact_idx; only the page's contacts are read.
    """

    principal: object
    query: search.Query | None = None
    nothing: bool = False  # a query with nothing searchable in it finds nothing

    def queryset(self, *, after: dict | None = None, before: dict | None = None, limit: int) -> QuerySet[Contact]:
        """Up to ``limit`` contacts after ``after`` or before ``before`` (a contact's sort_name and
        id), in the direction of travel (before: nearest first, so descending)."""
        contacts = _account(self.principal)
        order = ("-sort_name", "-id") if before is not None else ("sort_name", "id")
        if self.nothing:
            return contacts.none()
        if self.query is None:
            if after is not None:
                contacts = contacts.filter(_after(after, "id"))
            elif before is not None:
                contacts = contacts.filter(_before(before, "id"))
            return _with_numbers(contacts.order_by(*order)[:limit])
        matches = self._matches()
        if after is not None:
            matches = matches.filter(_after(after, "contact_id"))
        elif before is not None:
            matches = matches.filter(_before(before, "contact_id"))
        term_order = ("-sort_name", "-contact_id") if before is not None else ("sort_name", "contact_id")
        page_ids = matches.order_by(*term_order).values("contact_id").distinct()[:limit]
        return _with_numbers(contacts.filter(id__in=page_ids).order_by(*order))

    def page(self, *, after: dict | None = None, before: dict | None = None, limit: int) -> list[Contact]:
        return list(self.queryset(after=after, before=before, limit=limit))

    def _matches(self) -> QuerySet[ContactSearchTerm]:
        user_id, livemode = self.principal.user.pk, self.principal.livemode
        kind, words = self.query.kind, sorted(self.query.terms, key=len, reverse=True)
        matches = ContactSearchTerm.objects.filter(
            user_id=user_id, livemode=livemode, kind=kind, term__startswith=words[0]
        )
        for word in words[1:]:
            # Every word must start a word of the name (not necessarily another word).
            same_contact = ContactSearchTerm.objects.filter(
                contact_id=OuterRef("contact_id"), kind=kind, term__startswith=word
            )
            matches = matches.filter(Exists(same_contact))
        return matches


def contact_list(*, principal, query: str | None = None) -> ContactList:
    """The caller's contacts, those ``query`` finds when given (apps.contacts.search), in name order.

    An empty ``query`` or one over 100 characters is refused (ApiError invalid_request,
    param query); one with nothing searchable in it ("!!") finds nothing.
    """
    if query is None:
        return ContactList(principal)
    parsed = parse_contact_query(query)
    return ContactList(principal, parsed, nothing=parsed is None)


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
