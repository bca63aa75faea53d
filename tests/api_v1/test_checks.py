"""api_v1.E001: every bearer view under /v1 declares the scope it needs (None written out)."""

import pytest
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.checks import check_required_scope, undeclared_scope_errors
from apps.api_v1.permissions import HasScope
from apps.api_v1.public import ResourceApi


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
