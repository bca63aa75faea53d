"""The calls routes, relative to /v1/."""

import functools

from django.urls import path

from . import apis, callback_apis, transcript_apis

_list = apis.CallListApi.as_view()
_place = callback_apis.CallPlaceApi.drf_view()


@functools.wraps(_list)
def calls(request, *args, **kwargs):
    # One path, two operations: a bearer GET keeps the list's fast path; anything else is the
    # view that also places (its Allow header names POST, its 405s answer for both).
    if request.method == "GET":
        return _list(request, *args, **kwargs)
    return _place(request, *args, **kwargs)


# The route walkers read the list (view_class); the OpenAPI document both operations (cls).
calls.cls = callback_apis.CallPlaceApi


urlpatterns = [
    path("quotes", callback_apis.QuoteCreateApi.as_view(), name="v1-quotes"),
    path("calls", calls, name="v1-calls"),
    path("calls/<str:call_id>", apis.CallDetailApi.as_view(), name="v1-call"),
    path("calls/<str:call_id>/end", callback_apis.CallEndApi.as_view(), name="v1-call-end"),
    path("calls/<str:call_id>/transcript", transcript_apis.TranscriptRequestApi.as_view(), name="v1-call-transcript"),
]
