"""A view documents each handler it writes from the Operation it declares (apps/api_v1/bases.py)."""

from pathlib import Path

import pytest
from django.urls import path
from drf_spectacular.generators import SchemaGenerator
from rest_framework.response import Response

from apps.api_v1.public import Operation, ResourceActionApi


class ThingChangeApi(ResourceActionApi):
    required_scope = None
    http_method_names = ["post", "delete", "options"]
    operations = {
        "post": Operation("update_thing", ["Things"], "Change a thing", request=None, responses={200: None}),
        "delete": Operation(
            "delete_thing", ["Things"], "Delete a thing", description="Gone for good.", responses={200: None}
        ),
    }

    def post(self, request, thing_id: str):
        """Only the fields sent change."""
        return Response({})

    def delete(self, request, thing_id: str):
        """Not this one: the operation says."""
        return Response({})


class ThingTouchApi(ResourceActionApi):
    required_scope = None
    operation = Operation("touch_thing", ["Things"], "Touch a thing", request=None, responses={200: None})

    def post(self, request, thing_id: str):
        """A touch."""
        return Response({})


@pytest.fixture(scope="module")
def paths():
    patterns = [
        path("v1/things/<str:thing_id>", ThingChangeApi.as_view()),
        path("v1/things/<str:thing_id>/touch", ThingTouchApi.as_view()),
    ]
    return SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)["paths"]


def test_each_method_is_documented_from_its_own_operation(paths):
    change = paths["/v1/things/{thing_id}"]
    assert (change["post"]["operationId"], change["post"]["summary"]) == ("update_thing", "Change a thing")
    assert (change["delete"]["operationId"], change["delete"]["summary"]) == ("delete_thing", "Delete a thing")
    assert "requestBody" not in change["post"]


def test_the_handlers_docstring_is_the_description_unless_the_operation_gives_one(paths):
    change = paths["/v1/things/{thing_id}"]
    assert change["post"]["description"] == "Only the fields sent change."
    assert change["delete"]["description"] == "Gone for good."


def test_an_actions_operation_documents_its_post(paths):
    touch = paths["/v1/things/{thing_id}/touch"]["post"]
    assert (touch["operationId"], touch["description"]) == ("touch_thing", "A touch.")


def test_an_operation_for_a_handler_the_view_does_not_write_is_refused():
    with pytest.raises(TypeError, match="declares the delete operation and writes no delete"):

        class Refused(ResourceActionApi):
            operations = {"delete": Operation("delete_refused", ["Things"], "Refused")}


def test_an_action_declaring_both_operation_and_operations_is_refused():
    # One would silently replace the other, leaving a handler undocumented.
    with pytest.raises(TypeError, match="declares both operation and operations"):

        class Both(ResourceActionApi):
            operation = Operation("both_post", ["Things"], "Both")
            operations = {"delete": Operation("both_delete", ["Things"], "Both")}

            def post(self, request):
                raise NotImplementedError

            def delete(self, request):
                raise NotImplementedError


def test_no_app_view_writes_its_own_extend_schema():
    # Every /v1 operation is declared as an Operation, so the framework writes what it answers itself.
    apps = Path(__file__).resolve().parents[2] / "apps"
    written = [
        str(source.relative_to(apps))
        for source in apps.rglob("*.py")
        if "api_v1" not in source.parts and "@extend_schema(" in source.read_text()
    ]
    assert written == []
