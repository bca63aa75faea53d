"""System checks of the /v1 framework (run by ``manage.py check`` and at test start).

Each catches at start-up a view that would otherwise fail every request: a bearer view that
declares no scope (E001), a scope missing from the scope table, so that no credential holds
it (E002), a list that cannot read its own cursors (E003).
"""

import re

from django.core.checks import Error, register
from django.urls import URLPattern, URLResolver, get_resolver

from apps.core.ids import is_id, new_id
from apps.credentials.scopes import is_known

from .authentication import BearerAuthentication
from .pagination import IdCursorPagination

# An id prefix: lower-case letters and digits, then an underscore (num_, call_, txn_).
_PREFIX = re.compile(r"[a-z][a-z0-9]*_")


def _views(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _views(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), getattr(pattern.callback, "view_class", None)


@register()
def check_required_scope(app_configs, **kwargs):
    """api_v1.E001: every bearer view under /v1 declares ``required_scope`` (None written out)."""
    return undeclared_scope_errors(get_resolver().url_patterns)


def undeclared_scope_errors(url_patterns) -> list[Error]:
    errors = []
    for route, view_class in _views(url_patterns):
        if view_class is None or not route.startswith("v1/"):
            continue
        classes = getattr(view_class, "authentication_classes", ())
        bearer = any(isinstance(c, type) and issubclass(c, BearerAuthentication) for c in classes)
        if bearer and not hasattr(view_class, "required_scope"):
            errors.append(
                Error(
                    f"{view_class.__module__}.{view_class.__name__} (/{route}) takes bearer credentials "
                    "but declares no required_scope",
                    hint="Set required_scope to the scope the operation needs, or None for any scope.",
                    id="api_v1.E001",
                )
            )
    return errors


@register()
def check_scopes_and_cursors(app_configs, **kwargs):
    """api_v1.E002 and E003 over the project's URL list."""
    patterns = get_resolver().url_patterns
    return unknown_scope_errors(patterns) + cursor_errors(patterns)


def _v1_views(url_patterns):
    seen = set()
    for route, view_class in _views(url_patterns):
        if view_class is not None and route.startswith("v1/") and view_class not in seen:
            seen.add(view_class)
            yield route, view_class


def _name(view_class) -> str:
    return f"{view_class.__module__}.{view_class.__name__}"


def unknown_scope_errors(url_patterns) -> list[Error]:
    """api_v1.E002: a ``required_scope`` that is not in the scope table (apps/credentials/scopes.py)."""
    errors = []
    for route, view_class in _v1_views(url_patterns):
        scope = getattr(view_class, "required_scope", None)
        if scope is not None and not is_known(scope):
            errors.append(
                Error(
                    f"{_name(view_class)} (/{route}) requires the scope {scope!r}, which the scope table does not "
                    "have: no credential can hold it, so every request would be refused",
                    hint="Use a scope of apps/credentials/scopes.py, or add the new scope there (docs/spec.md 2.3).",
                    id="api_v1.E002",
                )
            )
    return errors


def cursor_errors(url_patterns) -> list[Error]:
    """api_v1.E003: a cursor list whose ``cursor_id_prefix`` is no id prefix, so that it would refuse
    the ids of its own objects as cursors."""
    errors = []
    for route, view_class in _v1_views(url_patterns):
        paginator = getattr(view_class, "pagination_class", None)
        if not (isinstance(paginator, type) and issubclass(paginator, IdCursorPagination)):
            continue
        prefix = getattr(view_class, "cursor_id_prefix", "")
        if not (isinstance(prefix, str) and _PREFIX.fullmatch(prefix) and is_id(new_id(prefix), prefix)):
            errors.append(
                Error(
                    f"{_name(view_class)} (/{route}) pages by cursor but its cursor_id_prefix {prefix!r} is no id "
                    "prefix: every starting_after and ending_before would be refused",
                    hint="Set cursor_id_prefix to the id prefix of the listed objects (num_, call_).",
                    id="api_v1.E003",
                )
            )
    return errors
