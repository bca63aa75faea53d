"""A list's filter in the query string (``?type=...``): one of its values, or 400 ``invalid_request``."""

from apps.core.errors import ApiError


def query_choice(request, name: str, choices) -> str | None:
    """The query parameter ``name``: absent is None, a value not among ``choices`` is 400 naming it."""
    value = request.query_params.get(name)
    if value is not None and value not in choices:
        raise ApiError("invalid_request", f"{name} must be one of {', '.join(choices)}.", param=name)
    return value
