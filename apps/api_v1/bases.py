"""Base views of /v1 resources: bearer authentication, the scope check, reads (lists by cursor) and
idempotent actions."""

from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .fastpath import resource_view
from .idempotency import IdempotentMixin
from .pagination import IdCursorPagination
from .permissions import HasScope


class ResourceApi(APIView):
    """A /v1 read. Subclasses set ``required_scope`` (a scope of the scope table, or None for any).

    ``as_view()`` puts the fast path for plain bearer GETs (apps/api_v1/fastpath.py) in front
    of DRF's request cycle; ``drf_view()`` is the DRF view alone.
    """

    permission_classes = [IsAuthenticated, HasScope]
    http_method_names = ["get", "head", "options"]

    @classmethod
    def drf_view(cls, **initkwargs):
        return super().as_view(**initkwargs)

    @classmethod
    def as_view(cls, **initkwargs):
        return resource_view(cls, cls.drf_view(**initkwargs))


class ResourceListApi(ResourceApi):
    """A cursor list (docs/spec.md 4: ``limit``, one of ``starting_after``/``ending_before``).

    Subclasses set ``cursor_id_prefix`` (the id prefix of the listed objects)
    and answer with ``self.list(queryset, serializer_class)``; the queryset is
    already the caller's (a selector filtered it by user and mode).
    """

    pagination_class = IdCursorPagination
    cursor_id_prefix = ""

    def list(self, queryset, serializer_class, *, context: dict | None = None) -> Response:
        return self._paged(queryset, lambda page: serializer_class(page, many=True, context=context or {}).data)

    def list_payloads(self, queryset, payload) -> Response:
        """As ``list``, each object of the page written by ``payload(row) -> dict``."""
        return self._paged(queryset, lambda page: [payload(row) for row in page])

    def _paged(self, queryset, write) -> Response:
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(queryset, self.request, view=self)
        return paginator.get_paginated_response(write(page))


class ResourceActionApi(IdempotentMixin, APIView):
    """A /v1 action: POST only, idempotent, with the bearer credentials and the scope check of a
    resource view, and no fast path (idempotency wraps DRF's request cycle). Subclasses set
    ``required_scope`` and the budget it spends, ``ratelimit_class``."""

    permission_classes = [IsAuthenticated, HasScope]
    http_method_names = ["post", "options"]
