"""Reads of the address book: the one place that filters contacts by the caller's account and mode."""

import json
from dataclasses import dataclass

from django.db.models import BooleanField, CharField, Expression, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Value

from apps.core.errors import ApiError
from apps.core.ids import is_id
from apps.core.sql import CompiledQuery

from . import search
from .models import CONTACT_ID_PREFIX, Contact, ContactPhoneNumber, ContactSearchTerm


def is_contact_id(value) -> bool:
    # Checked before any query: a malformed id (a stray byte, another prefix) never reaches the database.
    return is_id(value, CONTACT_ID_PREFIX)


def _account(principal) -> QuerySet[Contact]:
    # principal.user may be a partial User (credential cache): filter by its key only.
    return Contact.objects.filter(user_id=principal.user.pk, livemode=principal.livemode)


# Where a read leaves a contact's phone numbers, in the contact's order: a plain list, which the
# serializer reads without building the related manager's queryset for each contact.
LISTED_NUMBERS = "listed_phone_numbers"
NUMBERS_IN_ORDER = Prefetch(
    "phone_numbers", queryset=ContactPhoneNumber.objects.order_by("position", "id"), to_attr=LISTED_NUMBERS
)


def _with_numbers(contacts: QuerySet[Contact]) -> QuerySet[Contact]:
    return contacts.prefetch_related(NUMBERS_IN_ORDER)


def _after(sort_name, last_id, key: str) -> Q:
    return Q(sort_name__gt=sort_name) | Q(sort_name=sort_name, **{f"{key}__gt": last_id})


def _before(sort_name, last_id, key: str) -> Q:
    return Q(sort_name__lt=sort_name) | Q(sort_name=sort_name, **{f"{key}__lt": last_id})


class EveryWordStarts(Expression):
    """True when each word of ``words`` (a JSON array of strings, one parameter) starts a term of
    ``kind`` of the contact in ``contact``: one correlated subquery whatever the number of words, so
    the statement and its plan are the same for one word and for eight.

    Built as one ``EXISTS`` per word, a query of many words made PostgreSQL's planning time explode
    (seconds for forty words). Each word is compared with ``substr``, never with ``LIKE``, so that no
    character of it is a pattern; the terms of one contact are few (contacts_term_contact_idx).
    """

    output_field = BooleanField()

    def __init__(self, contact, kind, words):
        super().__init__()
        self.contact, self.kind, self.words = contact, kind, words

    def get_source_expressions(self):
        return [self.contact, self.kind, self.words]

    def set_source_expressions(self, expressions):
        self.contact, self.kind, self.words = expressions

    def _sql(self, compiler, connection, words_table: str, fence: str = ""):
        contact, contact_params = compiler.compile(self.contact)
        kind, kind_params = compiler.compile(self.kind)
        words, words_params = compiler.compile(self.words)
        quote = connection.ops.quote_name
        terms = quote(ContactSearchTerm._meta.db_table)
        column = {name: quote(ContactSearchTerm._meta.get_field(name).column) for name in ("contact", "kind", "term")}
        # Identifiers come from the model's _meta, quoted; every value is a parameter.
        sql = (
            f"NOT EXISTS (SELECT 1 FROM {words_table.format(words=words)} WHERE NOT EXISTS ("  # noqa: S608
            f"SELECT 1 FROM {terms} every_word WHERE every_word.{column['contact']} = {contact} "
            f"AND every_word.{column['kind']} = {kind} "
            f"AND substr(every_word.{column['term']}, 1, length(word.value)) = word.value){fence})"
        )
        return sql, (*words_params, *contact_params, *kind_params)

    def as_sql(self, compiler, connection):
        return self._sql(compiler, connection, "json_each({words}) word")

    def as_postgresql(self, compiler, connection):
        # OFFSET 0 keeps the check a filter of each match. Pulled up into an anti-join, its guess of
        # a hundred words made the planner sort every match of the first word before the check, and
        # so read them with a sequential scan rather than the prefix index.
        return self._sql(
            compiler, connection, "jsonb_array_elements_text(({words})::jsonb) AS word(value)", fence=" OFFSET 0"
        )


def _page(
    livemode: bool,
    kind: str | None,
    travel: str,
    limit: int,
    *,
    user_id,
    sort_name: str | None = None,
    last_id: str | None = None,
    first_word: str | None = None,
    other_words: str | None = None,
) -> QuerySet[Contact]:
    """Up to ``limit`` of an account's contacts in name order, those the words find when ``kind`` is
    given (``first_word``, the longest, and ``other_words``, a JSON array of the rest), from a
    position (``travel``: "first", or "after"/"before" the contact ``sort_name``, ``last_id``;
    before: nearest first, so descending).

    ``livemode``, the kind, the direction and the limit are its shape (they change the SQL); the
    account, the words and the position are values (apps/core/sql.py): the number of words is not
    part of the shape. The first word reaches the SQL as given (``Value``): PostgreSQL escapes it
    and still plans a range of the prefix index.
    """
    contacts = Contact.objects.filter(user_id=user_id, livemode=livemode)
    order = ("-sort_name", "-id") if travel == "before" else ("sort_name", "id")
    if kind is None:
        if travel == "after":
            contacts = contacts.filter(_after(sort_name, last_id, "id"))
        elif travel == "before":
            contacts = contacts.filter(_before(sort_name, last_id, "id"))
        return contacts.order_by(*order)[:limit]
    matches = ContactSearchTerm.objects.filter(
        user_id=user_id, livemode=livemode, kind=kind, term__startswith=Value(first_word)
    ).filter(EveryWordStarts(F("contact_id"), Value(kind), Value(other_words)))
    if travel == "after":
        matches = matches.filter(_after(sort_name, last_id, "contact_id"))
    elif travel == "before":
        matches = matches.filter(_before(sort_name, last_id, "contact_id"))
    term_order = ("-sort_name", "-contact_id") if travel == "before" else ("sort_name", "contact_id")
    page_ids = matches.order_by(*term_order).values("contact_id").distinct()[:limit]
    return contacts.filter(id__in=page_ids).order_by(*order)


PAGE = CompiledQuery(_page)


@dataclass(frozen=True)
class ContactList:
    """The caller's contacts, or those a query finds, in name order: (folded name, id).

    ``page`` reads one page in one statement (plus one for the page's phone
    numbers). Without a query it is a range of contacts_user_mode_name_idx. With
    one, the matches come in name order from one range of contacts_term_prefix_idx
    (the query's longest word, or its digits); the query's other words (at most
    seven: search.MAX_QUERY_WORDS) are checked per match with contacts_term_contact_idx
    by one subquery (``EveryWordStarts``); only the page's contacts are read.
    """

    principal: object
    query: search.Query | None = None
    nothing: bool = False  # a query with nothing searchable in it finds nothing

    def _statement(self, after: dict | None, before: dict | None, limit: int) -> tuple[tuple, dict]:
        travel, position = ("after", after) if after is not None else ("before", before) if before else ("first", {})
        values = {"user_id": self.principal.user.pk}
        if position:
            values |= {"sort_name": position["sort_name"], "last_id": position["id"]}
        kind = None
        if self.query is not None:
            kind = self.query.kind
            first, *others = sorted(self.query.terms, key=len, reverse=True)
            values |= {"first_word": first, "other_words": json.dumps(others)}
        return (self.principal.livemode, kind, travel, limit), values

    def queryset(self, *, after: dict | None = None, before: dict | None = None, limit: int) -> QuerySet[Contact]:
        """Up to ``limit`` contacts after ``after`` or before ``before`` (a contact's sort_name and
        id), in the direction of travel (before: nearest first, so descending)."""
        if self.nothing:
            return _account(self.principal).none()
        shape, values = self._statement(after, before, limit)
        return _with_numbers(_page(*shape, **values))

    def rows(self, travel: str, limit: int, position: dict | None) -> list[Contact]:
        """apps.api_v1's paging reads the list through this (its ``Rows``), in name order."""
        return self.page(**({travel: position} if travel != "first" else {}), limit=limit)

    def position(self, object_id: str) -> dict | None:
        """A cursor is any of the caller's contacts, found by ``query`` or not: its place in name order."""
        return contact_for_cursor(principal=self.principal, contact_id=object_id)

    def page(self, *, after: dict | None = None, before: dict | None = None, limit: int) -> list[Contact]:
        if self.nothing:
            return []
        shape, values = self._statement(after, before, limit)
        contacts = PAGE.rows(*shape, **values)
        if contacts:
            ids = {f"contact_{n}": contact.pk for n, contact in enumerate(contacts)}
            by_contact = {contact.pk: [] for contact in contacts}
            for phone in PHONE_NUMBERS.rows(len(ids), **ids):
                by_contact[phone.contact_id].append(phone)
            for contact in contacts:
                setattr(contact, LISTED_NUMBERS, by_contact[contact.pk])
        return contacts


def _phone_numbers(count: int, **ids) -> QuerySet[ContactPhoneNumber]:
    return NUMBERS_IN_ORDER.queryset.filter(contact_id__in=[ids[f"contact_{n}"] for n in range(count)])


# A page's phone numbers, compiled once per page size: what prefetch_related reads, without its per-call work.
PHONE_NUMBERS = CompiledQuery(_phone_numbers)


def attach_phone_numbers(contact: Contact, phones: list[ContactPhoneNumber]) -> None:
    """``contact.phone_numbers.all()`` gives ``phones`` without a query, as after prefetch_related."""
    queryset = contact.phone_numbers.all()
    queryset._result_cache = list(phones)
    queryset._prefetch_done = True
    contact._prefetched_objects_cache = {"phone_numbers": queryset}


def contact_list(*, principal, query: str | None = None) -> ContactList:
    """The caller's contacts, those ``query`` finds when given (apps.contacts.search), in name order.

    An empty ``query``, one over 100 characters or one of more than eight words once folded is
    refused (ApiError invalid_request, param query); one with nothing searchable in it ("!!")
    finds nothing.
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
    try:
        return search.parse_query(query)
    except search.TooManyWords as refused:
        raise ApiError("invalid_request", str(refused), param="query") from None


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
    return POSITION.first(principal.livemode, user_id=principal.user.pk, contact_id=contact_id)


def _position(livemode: bool, *, user_id, contact_id: str) -> QuerySet[Contact]:
    return Contact.objects.filter(user_id=user_id, livemode=livemode, pk=contact_id).values("sort_name", "id")[:1]


POSITION = CompiledQuery(_position)


def contacts_by_ids(*, principal, ids: list[str]) -> list[Contact]:
    """The caller's contacts among ``ids``, each with its phone numbers in order, in one statement (a
    LEFT JOIN of the numbers): what another app's expansion of its references reads. Ids that are
    malformed, gone, another account's or the other mode's are left out."""
    ids = [i for i in ids if is_contact_id(i)]
    if not ids:
        return []
    rows = (
        _account(principal)
        .filter(pk__in=ids)
        .order_by("id", "phone_numbers__position", "phone_numbers__id")
        .values_list(
            "id",
            "name",
            "created",
            "livemode",
            "phone_numbers__id",
            "phone_numbers__number",
            "phone_numbers__label",
            "phone_numbers__country",
        )
    )
    found: dict[str, Contact] = {}
    for contact_id, name, created, livemode, phone_id, number, label, country in rows:
        contact = found.get(contact_id)
        if contact is None:
            contact = Contact(id=contact_id, user_id=principal.user.pk, name=name, created=created, livemode=livemode)
            setattr(contact, LISTED_NUMBERS, [])
            found[contact_id] = contact
        if phone_id is not None:
            phone = ContactPhoneNumber(id=phone_id, contact_id=contact_id, number=number, label=label, country=country)
            getattr(contact, LISTED_NUMBERS).append(phone)
    return list(found.values())


def contact_name_of(
    *, contact_id: str = "contact_id", user_id: str = "user_id", livemode: str = "livemode"
) -> Subquery:
    """The name of the contact that a row of another app names, read in that row's own statement; null
    when none or gone. The arguments name the outer row's fields; the contact must be the same
    account's and mode's, so a stale or foreign id never lends a name."""
    contacts = Contact.objects.filter(pk=OuterRef(contact_id), user_id=OuterRef(user_id), livemode=OuterRef(livemode))
    return Subquery(contacts.values("name")[:1], output_field=CharField())
