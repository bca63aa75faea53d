"""One guard for the text a request brings in: control characters and unpaired surrogates are refused.

No field of the service holds either: ids, names, URLs, scopes, codes and cursors are
single-line text. Both are also dangerous past the boundary. PostgreSQL refuses NUL in
text, and a lone UTF-16 surrogate (JSON's ``"\\ud800"``, which ``json.loads`` accepts)
has no UTF-8 form at all, so it fails wherever it is written: a database row, a log
line, a Redis key. Checks kept in each view missed some (a lone surrogate in an API
key's name was a 500). This guard runs once per request, after routing and before the
view, over every way text comes in: path ids, query parameters and the body (JSON or
form, as the surface reads it, ``surfaces.py``). Nothing has been written when it refuses.

The answer is the surface's own: the envelope's ``invalid_request`` with ``param``, the
RFC 6749 ``invalid_request`` on /oauth/token, ``invalid_client_metadata`` on
/oauth/register. A view may name a more specific code for one of its fields in
``text_field_errors`` (the API key's ``name`` is ``invalid_name``). Offending text is
never echoed: a field whose name is itself bad is reported without a ``param``.

Refused: C0 controls (tab and newline included), DEL, C1 controls, and surrogates
(which a decoded JSON string holds only when unpaired). Format characters (zero-width
joiners, bidi marks) are legitimate in names and are left to fields that show text to
people (the consent page's client name).
"""

import json
import re
from dataclasses import dataclass

from django.http import HttpResponse

from .envelope import oauth_error_response, render
from .surfaces import FORM, JSON, JSON_ANY, OAUTH, Surface, surface_of

FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")

# A JSON body can carry forbidden text only as an escape (\b \f \n \r \t, \u0000-\u001f,
# \u007f-\u009f, \ud800-\udfff) or as a raw DEL or C1 character (raw C0 is not valid
# JSON). Bodies without any of these, nearly all, are not decoded twice.
_JSON_SUSPECT = re.compile(rb"\\(?:[bfnrt]|u(?:00[01]|007f|00[89]|d[89a-f]))|\x7f|\xc2[\x80-\x9f]", re.IGNORECASE)

FORM_TYPE = "application/x-www-form-urlencoded"
JSON_TYPE = "application/json"


def forbidden_text(value: str) -> bool:
    return FORBIDDEN.search(value) is not None


def json_may_hold_forbidden_text(body: bytes) -> bool:
    return _JSON_SUSPECT.search(body) is not None


@dataclass(frozen=True)
class Finding:
    """Forbidden text in field ``param`` (None: in a field's name, or the body is a bare value)."""

    param: str | None


def _holds_forbidden(value) -> bool:
    # Iterative: a decoded body may be nested a thousand levels deep.
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if forbidden_text(item):
                return True
        elif isinstance(item, dict):
            for key, inner in item.items():
                if forbidden_text(key):
                    return True
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
    return False


def find_in_json(data) -> Finding | None:
    if not isinstance(data, dict):
        return Finding(None) if _holds_forbidden(data) else None
    for key, value in data.items():
        if forbidden_text(key):
            return Finding(None)
        if _holds_forbidden(value):
            return Finding(key)
    return None


def find_in_pairs(pairs) -> Finding | None:
    """Query or form fields, as ``QueryDict.lists()``."""
    for key, values in pairs:
        if forbidden_text(key):
            return Finding(None)
        if any(forbidden_text(value) for value in values):
            return Finding(key)
    return None


def find_in_request(request, surface: Surface, view_kwargs: dict) -> Finding | None:
    for name, value in view_kwargs.items():
        if isinstance(value, str) and forbidden_text(value):
            return Finding(name)
    if surface.query and request.META.get("QUERY_STRING"):
        # Reading GET may raise TooManyFieldsSent: views.handler400 answers in the surface's shape.
        found = find_in_pairs(request.GET.lists())
        if found:
            return found
    if surface.body == FORM:
        if request.method == "POST" and request.content_type == FORM_TYPE:
            return find_in_pairs(request.POST.lists())
    elif surface.body in (JSON, JSON_ANY):
        if surface.body == JSON and request.content_type != JSON_TYPE:
            return None  # not parsed by the view (415)
        return find_in_json_body(request)
    return None


def find_in_json_body(request) -> Finding | None:
    if not request.META.get("CONTENT_LENGTH"):
        return None
    body = request.body  # read once; the view reads the same bytes again from memory
    if not body or not json_may_hold_forbidden_text(body):
        return None
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return None  # not JSON: the view answers that in its own words
    return find_in_json(data)


def field_code(view_func, surface: Surface, param: str | None) -> str:
    errors = getattr(getattr(view_func, "view_class", view_func), "text_field_errors", None) or {}
    return errors.get(param) or surface.field_errors.get(param) or surface.bad_request


def refusal(request, surface: Surface, code: str, param: str | None) -> HttpResponse:
    if param is None:
        message = "The request holds a control character or an unpaired surrogate, which no field accepts."
    else:
        message = f"{param} must not contain control characters or unpaired surrogates."
    if surface.shape == OAUTH:
        return oauth_error_response(code, message)
    return render(request, code, message, param=param)


class InputGuardMiddleware:
    """Refuses forbidden text on the machine surfaces, after routing (so path ids are known), before the view."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        surface = surface_of(request.path_info)
        if surface is None:
            return None  # pages: Django's forms refuse NUL themselves
        found = find_in_request(request, surface, view_kwargs)
        if found is None:
            return None
        return refusal(request, surface, field_code(view_func, surface, found.param), found.param)
