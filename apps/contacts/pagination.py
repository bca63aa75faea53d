"""The contacts list is ordered by name, so its cursors follow name order (docs/decisions/contacts.md).

Same parameters and answer as every list (docs/spec.md 4: ``limit``, one of
``starting_after``/``ending_before``, each a contact id): only the order differs.
A page is a keyset query on (folded name, id) (apps.contacts.selectors.ContactList),
so page 100 costs what page 1 does. A cursor is any contact of the caller's (found
or not by ``query``): its place in name order is all the page needs.
"""

from apps.api_v1.public import IdCursorPagination, parse_limit
from apps.core.errors import ApiError

from .selectors import ContactList, contact_for_cursor


class NameCursorPagination(IdCursorPagination):
    def paginate_queryset(self, queryset: ContactList, request, view=None):
        params = request.query_params
        self.limit = parse_limit(params.get("limit"))
        after, before = params.get("starting_after"), params.get("ending_before")
        if after is not None and before is not None:
            raise ApiError(
                "invalid_cursor", "Send at most one of starting_after and ending_before.", param="ending_before"
            )
        self.url = request.path
        if after is not None:
            items = queryset.page(after=self._position(request, after, "starting_after"), limit=self.limit + 1)
        elif before is not None:
            items = queryset.page(before=self._position(request, before, "ending_before"), limit=self.limit + 1)
        else:
            items = queryset.page(limit=self.limit + 1)
        self.has_more = len(items) > self.limit
        items = items[: self.limit]
        if before is not None:
            items.reverse()
        return items

    @staticmethod
    def _position(request, value: str, param: str) -> dict:
        found = contact_for_cursor(principal=request.auth, contact_id=value)
        if found is None:
            raise ApiError("invalid_cursor", f"{param} must be the id of one of your contacts.", param=param)
        return found

    def get_schema_operation_parameters(self, view):
        limit, after, before = super().get_schema_operation_parameters(view)
        after["description"] = "A contact id (ct_...): return the contacts after it in name order."
        before["description"] = "A contact id (ct_...): return the contacts before it in name order."
        return [limit, after, before]
