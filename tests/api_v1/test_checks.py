"""api_v1.E001-E003: every bearer view under /v1 declares a scope of the scope table (None written out), and
every cursor list can read its own cursors."""

import pytest
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.checks import (
    check_required_scope,
    check_scopes_and_cursors,
    cursor_errors,
    undeclared_scope_errors,
    unknown_scope_errors,
)
from apps.api_v1.permissions import HasScope
from apps.api_v1.public import ResourceApi, ResourceListApi


class Undeclared(APIView):
    def get(self, request):
        return Response({})


class AnyScope(ResourceApi):
    required_scope = None

    def get(self, request):
        return Response({})


UNDECLARED = [path("v1/", include([path("undeclared", Undeclared.as_view())]))]
DECLARED = [path("v1/", include([path("any", AnyScope.as_view())]))]


def test_the_project_passes():
    assert check_required_scope(None) == []


def test_a_bearer_view_without_required_scope_is_refused():
    errors = undeclared_scope_errors(UNDECLARED)
    assert [e.id for e in errors] == ["api_v1.E001"]
    assert "Undeclared" in errors[0].msg


def test_none_written_out_is_accepted():
    assert undeclared_scope_errors(DECLARED) == []


def test_the_scope_check_refuses_a_view_that_declares_nothing():
    """Even past the system check, HasScope never treats a missing declaration as "any scope"."""
    with pytest.raises(TypeError):
        HasScope().has_permission(None, Undeclared())


class ResourceWithoutScope(ResourceApi):
    def get(self, request):
        return Response({})


def test_a_resource_view_without_required_scope_is_wired_and_named():
    # as_view() does not fail on it (the fast path is left out), so the check can name it.
    errors = undeclared_scope_errors([path("v1/", include([path("noscope", ResourceWithoutScope.as_view())]))])
    assert [e.id for e in errors] == ["api_v1.E001"]
    assert "ResourceWithoutScope" in errors[0].msg


class UnknownScope(ResourceApi):
    required_scope = "voicemails:read"

    def get(self, request):
        return Response({})


class NoCursorPrefix(ResourceListApi):
    required_scope = "calls:read"

    def get(self, request):
        return Response({})


class CursorPrefix(NoCursorPrefix):
    cursor_id_prefix = "vm_"


def v1(view) -> list:
    return [path("v1/", include([path("here", view.as_view())]))]


def test_the_project_has_known_scopes_and_readable_cursors():
    assert check_scopes_and_cursors(None) == []


def test_a_scope_missing_from_the_scope_table_is_refused():
    errors = unknown_scope_errors(v1(UnknownScope))
    assert [e.id for e in errors] == ["api_v1.E002"]
    assert "voicemails:read" in errors[0].msg and "UnknownScope" in errors[0].msg
    assert unknown_scope_errors(DECLARED) == []


def test_a_list_that_cannot_read_its_own_cursors_is_refused():
    errors = cursor_errors(v1(NoCursorPrefix))
    assert [e.id for e in errors] == ["api_v1.E003"]
    assert "NoCursorPrefix" in errors[0].msg
    assert cursor_errors(v1(CursorPrefix)) == []
