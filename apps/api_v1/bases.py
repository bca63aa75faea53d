"""Base views of /v1 resources: bearer authentication, the scope check, reads (one object, or a list
by cursor) and idempotent actions.

A read that declares its ``operation`` (``ResourceDetailApi``, ``ResourceListApi``) has its ``get``
written by the framework, documented from what it declares. A view that writes its own handlers
(a write, a read with its own ``get``) declares their operations too: ``operations`` by method
(``DeclaredOperations``), a POST-only ``ResourceActionApi`` its ``operation``; the framework
documents each handler from its own.
"""

from dataclasses import dataclass, field

from drf_spectacular.utils import extend_schema
from rest_framework.fields import empty
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from .fastpath import resource_view
from .idempotency import IdempotentMixin
from .pagination import IdCursorPagination
from .paths import PathId
from .permissions import HasScope


@dataclass(frozen=True)
class Operation:
    """The OpenAPI facts of one handler that its view does not already state: the framework writes
    the handler's ``@extend_schema`` from them; a declared read's with the path id's parameter and
    the 200 of the view's ``serializer_class``.

    ``parameters`` are the query's (a declared read's path id comes from ``path_id``);
    ``responses`` the app's own, each an ``error_response``, with the success's own where no
    ``serializer_class`` writes the object (a write's always). ``request`` is a write's body (a
    serializer, or None for none); unset, drf-spectacular infers it. Without a ``description``
    the document takes the handler's docstring, else the view's.
    """

    operation_id: str
    tags: list[str] | None  # None: drf-spectacular tags the operation by its path
    summary: str
    description: str | None = None
    parameters: list = field(default_factory=list)
    responses: dict = field(default_factory=dict)
    request: object = empty

    def document(self, handler, *, path_parameters: list = (), ok=None):
        """``handler`` with its ``@extend_schema``; ``ok`` the 200's serializer, None for the app's own."""
        return extend_schema(
            operation_id=self.operation_id,
            tags=self.tags,
            summary=self.summary,
            description=self.description,
            parameters=[*path_parameters, *self.parameters],
            request=self.request,
            responses=self.responses if ok is None else {200: ok, **self.responses},
        )(handler)


class DeclaredOperations:
    """A view whose handlers it writes itself, each documented from an ``Operation`` it declares in
    ``operations``, keyed by the handler's method: ``{"post": Operation(...), "delete": ...}``."""

    operations: dict[str, Operation] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for method, operation in vars(cls).get("operations", {}).items():
            # The view's own handler: documenting an inherited one would document its other views too.
            if method not in vars(cls):
                raise TypeError(f"{cls.__name__} declares the {method} operation and writes no {method}")
            setattr(cls, method, operation.document(vars(cls)[method]))


class ResourceApi(DeclaredOperations, APIView):
    """A /v1 read. Subclasses set ``required_scope`` (a scope of the scope table, or None for any);
    one that writes its own ``get`` declares its ``operations``, ``{"get": Operation(...)}``.

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


class _DeclaredRead:
    """A read whose subclass declares ``operation``, ``serializer_class`` (or writes each object
    itself, ``payload``) and the selector's read, as DRF's generic views declare theirs."""

    operation: Operation | None = None
    serializer_class = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        operation = vars(cls).get("operation")
        if operation is not None:
            cls.get = operation.document(_answering_get(), path_parameters=cls.path_parameters(), ok=cls.ok_response())

    @classmethod
    def path_parameters(cls) -> list:
        return []

    @classmethod
    def ok_response(cls):
        """The 200's serializer in the document; None where the operation's ``responses`` state it."""
        return cls.serializer_class

    def payload(self, row) -> dict:
        """The object ``row`` as the API writes it: ``serializer_class``'s, unless the view says otherwise."""
        return self.serializer_class(row).data


def _answering_get():
    # A function of its own for each view: drf-spectacular keeps a handler's schema on the function.
    def get(self, request, **ids):
        return self.answer(request, **ids)

    return get


class ResourceDetailApi(_DeclaredRead, ResourceApi):
    """One object, as DRF's ``RetrieveAPIView``: a subclass declares ``required_scope``,
    ``operation``, ``serializer_class`` (or ``payload``), ``path_id`` where a path names the object,
    and ``get_row(request, **ids)``, the selector's read; a path id's row that is None is its 404
    (``PathId.found``)."""

    path_id: PathId | None = None

    @classmethod
    def path_parameters(cls) -> list:
        return [] if cls.path_id is None else [cls.path_id.parameter]

    def get_row(self, request, **ids):
        raise NotImplementedError(f"{type(self).__name__} declares no get_row")

    def get_object(self, request, **ids):
        row = self.get_row(request, **ids)
        return row if self.path_id is None else self.path_id.found(row)

    def answer(self, request, **ids) -> Response:
        return Response(self.payload(self.get_object(request, **ids)))


class ResourceListApi(_DeclaredRead, ResourceApi):
    """A cursor list (docs/spec.md 4: ``limit``, one of ``starting_after``/``ending_before``).

    Subclasses set ``cursor_id_prefix`` (the id prefix of the listed objects)
    and answer with ``self.list(queryset, serializer_class)``; the queryset is
    already the caller's (a selector filtered it by user and mode). A list that declares
    ``operation`` answers from ``get_rows(request, **ids)``, the selector's rows, each written by
    ``serializer_class`` or else by ``payload``.
    """

    pagination_class = IdCursorPagination
    cursor_id_prefix = ""

    @classmethod
    def ok_response(cls):
        return None if cls.serializer_class is None else cls.serializer_class(many=True)

    def get_rows(self, request, **ids):
        raise NotImplementedError(f"{type(self).__name__} declares no get_rows")

    def answer(self, request, **ids) -> Response:
        rows = self.get_rows(request, **ids)
        if self.serializer_class is None:
            return self.list_payloads(rows, self.payload)
        return self.list(rows, self.serializer_class)

    def list(self, queryset, serializer_class, *, context: dict | None = None) -> Response:
        return self._paged(queryset, lambda page: serializer_class(page, many=True, context=context or {}).data)

    def list_payloads(self, queryset, payload) -> Response:
        """As ``list``, each object of the page written by ``payload(row) -> dict``."""
        return self._paged(queryset, lambda page: [payload(row) for row in page])

    def _paged(self, queryset, write) -> Response:
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(queryset, self.request, view=self)
        return paginator.get_paginated_response(write(page))


class ResourceActionApi(IdempotentMixin, DeclaredOperations, APIView):
    """A /v1 action: POST only, idempotent, with the bearer credentials and the scope check of a
    resource view, and no fast path (idempotency wraps DRF's request cycle). Subclasses set
    ``required_scope``, the budget it spends, ``ratelimit_class``, and write ``post``, documented
    from their ``operation``; one that answers another method too declares ``operations`` instead."""

    permission_classes = [IsAuthenticated, HasScope]
    http_method_names = ["post", "options"]
    operation: Operation | None = None

    def __init_subclass__(cls, **kwargs):
        operation = vars(cls).get("operation")
        if operation is not None:
            if "operations" in vars(cls):
                raise TypeError(f"{cls.__name__} declares both operation and operations: name its post in operations")
            cls.operations = {"post": operation}
        super().__init_subclass__(**kwargs)
