"""System checks of the /v1 framework (run by ``manage.py check`` and at test start)."""

from django.core.checks import Error, register
from django.urls import URLPattern, URLResolver, get_resolver

from .authentication import BearerAuthentication


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
