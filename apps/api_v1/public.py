"""The /v1 framework's one public module: what other apps may import from apps.api_v1.

Resource apps build their views on ``ResourceDetailApi``/``ResourceListApi`` (a read of
another kind on ``ResourceApi``) and declare ``required_scope``; dashboard-session endpoints mix in
``SessionOnlyMixin``; writes mix in ``IdempotentMixin``. A view declares its handlers'
``Operation``s, and the framework documents the handlers from them. Everything else in
apps.api_v1 is private to the framework (checked by the import contracts).
"""

from apps.credentials.session import SessionOnlyMixin

from .authentication import RESOURCE_PATH
from .bases import DeclaredOperations, Operation, ResourceActionApi, ResourceApi, ResourceDetailApi, ResourceListApi
from .examples import EXAMPLE_TIME, list_example, response_example
from .expansions import expand_objects, expansion_available, register_expansion
from .fastpath import fast_get
from .filters import query_choice
from .idempotency import IdempotentMixin
from .middleware import BODY_CAP
from .openapi import COMMON_HEADERS, ERROR_REF, error_response
from .pagination import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    IdCursorPagination,
    Listing,
    Page,
    cursor_parameters,
    page,
    parse_limit,
)
from .paths import PathId, found_or_404
from .permissions import HasScope, has_scope
from .versions import CURRENT_VERSION, VERSIONS

__all__ = [
    "BODY_CAP",
    "COMMON_HEADERS",
    "CURRENT_VERSION",
    "DEFAULT_LIMIT",
    "ERROR_REF",
    "EXAMPLE_TIME",
    "MAX_LIMIT",
    "RESOURCE_PATH",
    "VERSIONS",
    "DeclaredOperations",
    "HasScope",
    "IdCursorPagination",
    "IdempotentMixin",
    "Listing",
    "Operation",
    "Page",
    "PathId",
    "ResourceActionApi",
    "ResourceApi",
    "ResourceDetailApi",
    "ResourceListApi",
    "SessionOnlyMixin",
    "cursor_parameters",
    "error_response",
    "expand_objects",
    "expansion_available",
    "fast_get",
    "found_or_404",
    "has_scope",
    "list_example",
    "page",
    "parse_limit",
    "query_choice",
    "register_expansion",
    "response_example",
]
