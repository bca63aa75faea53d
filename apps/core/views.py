"""Django-level 400, 404 and 500 handlers: the envelope on machine paths, a page elsewhere."""

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.urls import Resolver404, resolve
from django.views import defaults

from .envelope import oauth_error_response, render
from .surfaces import OAUTH, is_v1, speaks_envelope, surface_of


def wants_envelope(request) -> bool:
    return speaks_envelope(request.path)


def handler400(request, exception=None):
    """What Django refuses before a view can: the surface's shape (docs/spec.md 7), never an HTML page.

    Django raises these while reading the request: more than
    DATA_UPLOAD_MAX_NUMBER_FIELDS query parameters or form fields, a body over
    DATA_UPLOAD_MAX_MEMORY_SIZE, a Host it does not serve.
    """
    surface = surface_of(request.path_info)
    if surface is None:
        page = page_bad_request(request, exception)
        return page if page is not None else defaults.bad_request(request, exception)
    message = bad_request_message(exception)
    if surface.shape == OAUTH:
        return oauth_error_response(surface.bad_request, message)
    if isinstance(exception, RequestDataTooBig):
        return render(request, "request_too_large", message)
    return render(request, "invalid_request", message)


def page_bad_request(request, exception):
    """The page's own answer to a request Django could not read, when its view class has one
    (``bad_request_page(request, message)``: the sign-in page shows its form again saying why),
    else None."""
    try:
        match = resolve(request.path_info)
    except Resolver404:
        return None
    # A class-based view's class, or the object whose method the view is (the admin site's login).
    owner = getattr(match.func, "view_class", None) or getattr(match.func, "__self__", None)
    answer = getattr(owner, "bad_request_page", None)
    if answer is None:
        return None
    return answer(request, bad_request_message(exception))


def bad_request_message(exception) -> str:
    if isinstance(exception, RequestDataTooBig):
        return f"The request body is over the {settings.DATA_UPLOAD_MAX_MEMORY_SIZE // 1024} KB limit."
    if isinstance(exception, TooManyFieldsSent):
        return f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} query parameters or form fields."
    if isinstance(exception, TooManyFilesSent):
        return "The request has too many files."
    if isinstance(exception, DisallowedHost):
        return "The Host header names a host this service does not answer for."
    return "The request could not be read."


def handler404(request, exception=None):
    if wants_envelope(request):
        if is_v1(request.path):
            return render(request, "route_not_found", route_not_found_message())
        return render(request, "not_found")
    return defaults.page_not_found(request, exception)


def handler500(request):
    if wants_envelope(request):
        return render(request, "internal_error")
    return defaults.server_error(request)


def route_not_found_message() -> str:
    return (
        f"Unknown API route. The routes that exist are listed in {settings.BASE_URL}/v1/openapi.json; "
        f"the reference is {settings.DOCS_URL}/api."
    )
