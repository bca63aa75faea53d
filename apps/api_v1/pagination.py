"""Cursor lists of docs/spec.md 4: ``limit``, ``starting_after`` / ``ending_before``.

Cursors are object ids (with their prefix), as in Stripe's API, not DRF's
opaque cursors. Lists are newest first, ordered by ``(-created, -id)``; a page
is a keyset query, so it costs the same on page 1 and on page 1000.

``has_more`` tells whether more objects lie in the direction of travel: after
the page with ``starting_after`` (or without a cursor), before it with
``ending_before``.

One list shape, one paging function: ``page(rows, limit=, after=, before=, prefix=)``
knows no HTTP. ``IdCursorPagination`` reads the query string and calls it for REST;
MCP tools call it with their arguments. ``rows`` is anything with ``rows(travel, limit,
position)`` and ``position(object_id)`` (``Rows``): a ``Listing`` (compiled statements,
newest first), a list of another order that says its own positions (the contacts'
name order), or a plain queryset of a short list, paged through the ORM newest first.
"""

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from django.db.models import Q, QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.response import Response

from apps.core.errors import ApiError
from apps.core.ids import is_id
from apps.core.sql import CompiledQuery

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
_DIGITS = re.compile(r"[0-9]{1,4}")
NEWEST_FIRST = ("-created", "-id")
OLDEST_FIRST = ("created", "id")


def parse_limit(value: str | None) -> int:
    if value is None:
        return DEFAULT_LIMIT
    if not _DIGITS.fullmatch(value) or not 1 <= int(value) <= MAX_LIMIT:
        raise ApiError("invalid_limit", param="limit")
    return int(value)


@dataclass(frozen=True)
class Listing:
    """A list's rows as its selector defines them, for the list to page them compiled.

    ``build(*shape, **values)`` returns the caller's rows as a queryset, in no
    particular order; ``shape`` holds what changes its SQL (a filter given or not),
    ``values`` what only fills it in (the account, the mode, a filter's value):
    apps.core.sql.CompiledQuery compiles each page's statement once per shape.
    ``cursors`` are the rows a cursor may name, when not these (a filtered list's
    unfiltered rows). ``build`` must be a module-level function: the compiled
    statements are kept per function.
    """

    build: Callable[..., QuerySet]
    shape: tuple = ()
    values: Mapping = field(default_factory=dict)
    cursors: "Listing | None" = None

    def queryset(self) -> QuerySet:
        return self.build(*self.shape, **self.values)

    def rows(self, travel: str, limit: int, position: dict | None) -> list:
        page, _ = _compiled(self.build)
        at = {} if position is None else {"cursor_created": position["created"], "cursor_id": position["id"]}
        return page.rows(self.shape, travel, limit, **at, **self.values)

    def position(self, object_id: str) -> dict | None:
        cursors = self.cursors or self
        _, position = _compiled(cursors.build)
        return position.first(cursors.shape, cursor_pk=object_id, **cursors.values)


def _older(created, last_id) -> Q:
    # The redundant bound on created is what an index can seek to: without it, PostgreSQL
    # reads the OR as a filter and walks every newer row of the account (47 ms at row
    # 50,000 of an account's 100,000 calls, 0.2 ms with it).
    return Q(created__lte=created) & (Q(created__lt=created) | Q(created=created, id__lt=last_id))


def _newer(created, last_id) -> Q:
    return Q(created__gte=created) & (Q(created__gt=created) | Q(created=created, id__gt=last_id))


def _page(rows: QuerySet, travel: str, limit: int, created=None, last_id=None) -> QuerySet:
    """Up to ``limit`` rows from a position, in the direction of travel: "first" (newest first),
    "after" a cursor (older, newest first) or "before" it (newer, nearest first)."""
    if travel == "after":
        return rows.filter(_older(created, last_id)).order_by(*NEWEST_FIRST)[:limit]
    if travel == "before":
        return rows.filter(_newer(created, last_id)).order_by(*OLDEST_FIRST)[:limit]
    return rows.order_by(*NEWEST_FIRST)[:limit]


# The compiled page and cursor statements of each Listing.build, made on first use.
_COMPILED: dict[Callable, tuple[CompiledQuery, CompiledQuery]] = {}


def _compiled(build: Callable) -> tuple[CompiledQuery, CompiledQuery]:
    found = _COMPILED.get(build)
    if found is None:
        if "<" in build.__qualname__:  # a lambda or a function made per call: one entry each, unbounded
            raise TypeError(f"Listing.build must be a module-level function, not {build.__qualname__}")

        def page(shape, travel, limit, *, cursor_created=None, cursor_id=None, **values):
            return _page(build(*shape, **values), travel, limit, cursor_created, cursor_id)

        def position(shape, *, cursor_pk, **values):
            return build(*shape, **values).filter(pk=cursor_pk).values("created", "id")[:1]

        found = _COMPILED[build] = (CompiledQuery(page), CompiledQuery(position))
    return found


class Rows(Protocol):
    """What ``page`` reads of a list: up to ``limit`` rows in the direction of travel ("first":
    from the start; "after" or "before" a position, "before" nearest first), and the position
    of one of the list's objects (None when the id names none the list may start from)."""

    def rows(self, travel: str, limit: int, position: dict | None) -> list: ...

    def position(self, object_id: str) -> dict | None: ...


class _QuerysetRows:
    """A short list's queryset, paged through the ORM newest first (no compiled statement)."""

    def __init__(self, queryset: QuerySet):
        self.queryset = queryset

    def rows(self, travel: str, limit: int, position: dict | None) -> list:
        created, last_id = (position["created"], position["id"]) if position else (None, None)
        return list(_page(self.queryset, travel, limit, created, last_id))

    def position(self, object_id: str) -> dict | None:
        return self.queryset.filter(pk=object_id).values("created", "id").first()


@dataclass(frozen=True)
class Page:
    items: list
    has_more: bool


def page(
    rows: Rows | QuerySet, *, limit: int, after: str | None = None, before: str | None = None, prefix: str = ""
) -> Page:
    """One page of a list, REST's and the tools' alike: ``limit`` objects after the object
    ``after`` names (older), before the one ``before`` names (newer), or from the start.

    A cursor must be the id of one of the list's objects (docs/spec.md 7.2), so another
    account's id is refused exactly like a made-up one: ApiError ``invalid_cursor`` with the
    cursor's parameter, as is sending both.
    """
    if after is not None and before is not None:
        raise ApiError("invalid_cursor", "Send at most one of starting_after and ending_before.", param="ending_before")
    source = _QuerysetRows(rows) if isinstance(rows, QuerySet) else rows
    travel, value, param = "first", None, None
    if after is not None:
        travel, value, param = "after", after, "starting_after"
    elif before is not None:
        travel, value, param = "before", before, "ending_before"
    position = None
    if value is not None:
        # A malformed id (NUL included) never reaches a query.
        position = source.position(value) if is_id(value, prefix) else None
        if position is None:
            raise ApiError("invalid_cursor", f"{param} must be the id of an object in this list.", param=param)
    items = source.rows(travel, limit + 1, position)
    has_more = len(items) > limit
    items = items[:limit]
    if travel == "before":
        items.reverse()
    return Page(items, has_more)


class IdCursorPagination(BasePagination):
    """The REST side of ``page``: ``limit``, ``starting_after`` and ``ending_before`` from the
    query string, the view's ``cursor_id_prefix`` for the cursors' ids, and the list answer."""

    def paginate_queryset(self, queryset: Rows | QuerySet, request, view=None):
        params = request.query_params
        found = page(
            queryset,
            limit=parse_limit(params.get("limit")),
            after=params.get("starting_after"),
            before=params.get("ending_before"),
            prefix=getattr(view, "cursor_id_prefix", ""),
        )
        self.url = request.path
        self.has_more = found.has_more
        return found.items

    def get_paginated_response(self, data):
        return Response(self.list_body(data))

    def list_body(self, data) -> dict:
        return {"object": "list", "data": list(data), "has_more": self.has_more, "url": self.url}

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["object", "data", "has_more", "url"],
            "properties": {
                "object": {"type": "string", "enum": ["list"]},
                "data": schema,
                "has_more": {"type": "boolean"},
                "url": {"type": "string"},
            },
        }

    def get_schema_operation_parameters(self, view):
        def param(name, schema, description):
            return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}

        return [
            param(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
                "Number of objects to return.",
            ),
            param("starting_after", {"type": "string"}, "An object id: return the objects after it (older)."),
            param("ending_before", {"type": "string"}, "An object id: return the objects before it (newer)."),
        ]


def cursor_parameters(
    *,
    prefix: str,
    format: str,
    objects: str,
    after: str = "after it (older)",
    before: str = "before it (newer)",
    note: str = "",
) -> list:
    """The OpenAPI parameters of a list's two cursors.

    Only type and format: the rule (the id of one of the caller's objects of this list) is more
    than a pattern can say; tools that know the format draw real ids for it (the schemathesis
    hooks do, as for the API keys' ``api-key-id``).
    """
    from drf_spectacular.utils import OpenApiParameter

    return [
        OpenApiParameter(
            name,
            {"type": "string", "format": format},
            description=(
                f"The id ({prefix}...) of one of your {objects}: return the {objects} {what}. At most one of "
                "starting_after and ending_before. Any other id is 400 invalid_cursor." + (f" {note}" if note else "")
            ),
        )
        for name, what in (("starting_after", after), ("ending_before", before))
    ]
