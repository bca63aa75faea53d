"""A fast path for bearer reads, answered with DRF's own pieces but without its request cycle.

The request nearly every client sends (GET, a bearer credential, JSON or
anything accepted) is answered with the same bearer lookup and budgets,
versioning, scope check, handler, renderer and exception handler as the DRF
view, which cost about a tenth of the request less. Anything else (HEAD,
OPTIONS, other methods, content negotiation, no or a malformed Authorization
header) is the DRF view's. Both must answer alike:
tests compare them request by request (tests/api_v1/test_fast_path.py, and
tests/accounts/test_me_fast_path.py for /v1/me). The wrapper keeps the view's
attributes, so the OpenAPI document still describes the DRF view.

Every ``ResourceApi`` is served this way (its ``as_view``); ``fast_get``
serves a view whose answer is a function of the principal alone (/v1/me)
without even the handler.
"""

import functools

from django.http import HttpResponse
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from apps.credentials.header import bearer_from_header
from apps.credentials.resolvers import resolve_bearer
from apps.credentials.scopes import require
from apps.ratelimit.public import budgets

from .authentication import RESOURCE_PATH, BearerAuthentication
from .exceptions import exception_handler
from .negotiation import FIRST_RENDERER_ACCEPTS
from .permissions import HasScope
from .throttling import BudgetThrottle
from .versioning import version_for

_json = JSONRenderer()
# Tests turn it off to ask the DRF view the same question.
ENABLED = True


def allow_header(view_class) -> str:
    """The Allow header DRF gives every response of ``view_class`` (APIView.default_response_headers)."""
    view = view_class()
    view.setup(None)  # as as_view() does: a view with get() also answers HEAD
    return ", ".join(view.allowed_methods)


def _takes(request) -> str | None:
    """The bearer secret of a request the fast path answers, else None."""
    if not ENABLED or request.method != "GET" or request.META.get("HTTP_ACCEPT", "") not in FIRST_RENDERER_ACCEPTS:
        return None
    return bearer_from_header(request) or None


def _fast(view_class, drf_view, answer):
    """``drf_view`` with the fast path in front; ``answer(request, principal, args, kwargs) -> HttpResponse``."""
    allow = allow_header(view_class)
    scope = view_class.required_scope

    @functools.wraps(drf_view)
    def view(request, *args, **kwargs):
        secret = _takes(request)
        if secret is None:
            return drf_view(request, *args, **kwargs)
        found = []

        def principal():
            if not found:
                # The budget class of a bearer GET (apps.api_v1.throttling.view_class).
                budget = getattr(view_class, "ratelimit_class", budgets.READS)
                found.append(resolve_bearer(request, secret, resource_path=RESOURCE_PATH, budget_class=budget))
            return found[0]

        try:
            # DRF's order: a version named in the header is checked before the credential,
            # the credential before the scope (HasScope).
            version_for(request, principal)
            require(principal(), scope, resource_path=RESOURCE_PATH)
            response = answer(request, principal(), args, kwargs)
        except Exception as exc:
            response = exception_handler(exc, {"request": request})
        response["Allow"] = allow
        return response

    view.fast_path = True  # for tests and the curious: functools.wraps copied the DRF view's attributes
    return view


def _rendered(data, status: int = 200) -> HttpResponse:
    return HttpResponse(_json.render(data), status=status, content_type=_json.media_type)


def _as_resource(view_class) -> bool:
    """Whether the view authenticates, permits and limits as ResourceApi does: the fast path takes
    those steps itself. Any other view (one for the dashboard's session, say) keeps DRF's cycle."""
    return (
        list(view_class.authentication_classes) == [BearerAuthentication]
        and list(view_class.permission_classes) == [IsAuthenticated, HasScope]
        and list(view_class.throttle_classes) == [BudgetThrottle]
        and list(view_class.renderer_classes) == [JSONRenderer]
        and view_class.versioning_class is APIView.versioning_class
        # A view that changes a step of DRF's cycle itself would have that change skipped.
        and all(getattr(view_class, step) is getattr(APIView, step) for step in DRF_CYCLE)
    )


DRF_CYCLE = (
    "dispatch",
    "initialize_request",
    "initial",
    "perform_authentication",
    "check_permissions",
    "check_throttles",
    "determine_version",
    "get_authenticators",
    "get_permissions",
    "get_throttles",
    "get_renderers",
    "finalize_response",
    "handle_exception",
)


def resource_view(view_class, drf_view):
    """The fast path in front of a ResourceApi: its ``get`` handler, given a DRF request already
    authenticated (``request.auth`` is the principal, ``request.query_params`` the query).

    A view that declares no ``required_scope`` keeps DRF's view alone, whose HasScope refuses
    it (and the system check api_v1.E001 names it), as does one with other authentication,
    permission or throttle classes.
    """
    if not hasattr(view_class, "required_scope") or not hasattr(view_class, "get") or not _as_resource(view_class):
        return drf_view

    def answer(request, principal, args, kwargs):
        drf_request = Request(request)
        drf_request.user, drf_request.auth = principal.user, principal
        handler = view_class(**getattr(drf_view, "initkwargs", {}))
        handler.setup(request, *args, **kwargs)
        handler.request, handler.format_kwarg, handler.headers = drf_request, None, {}
        result = handler.get(drf_request, *args, **kwargs)
        response = _rendered(result.data, result.status_code)
        for name, value in result.items():
            if name.lower() != "content-type":
                response[name] = value
        return response

    return _fast(view_class, drf_view, answer)


def fast_get(view_class, *, body):
    """``view_class.as_view()`` answering plain bearer GETs with ``body(principal) -> dict``, no handler."""
    if view_class.required_scope is not None:
        raise TypeError("fast_get serves views any scope may read: required_scope = None")
    return _fast(view_class, view_class.drf_view(), lambda request, principal, args, kwargs: _rendered(body(principal)))
