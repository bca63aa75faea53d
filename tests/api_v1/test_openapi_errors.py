"""The /v1 framework writes the errors it answers itself into every operation of the OpenAPI
document, whatever the method: the 403 of the view's scope, the 404 of each path id, a list's
400s. An app declares only its own errors, and none of these is written twice."""

import re

import pytest
from django.urls import get_resolver

from apps.api_v1.public import ResourceListApi
from tests.support.openapi import openapi_document

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def document(django_db_blocker):
    return openapi_document(django_db_blocker)


def operations(document):
    for path, methods in document["paths"].items():
        if path.endswith("openapi.json"):
            continue
        for method, operation in methods.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield f"{method.upper()} {path}", operation


def scope_of(operation) -> str | None:
    return next((req["bearer"][0] for req in operation.get("security", []) if req.get("bearer")), None)


def description(operation, status: str) -> str:
    return operation["responses"][status]["description"]


def test_every_scoped_operation_names_its_scope_in_its_403_once(document):
    scoped = [(name, operation) for name, operation in operations(document) if scope_of(operation)]
    assert len(scoped) > 20
    for name, operation in scoped:
        sentence = f"insufficient_scope: the credential lacks {scope_of(operation)}"
        assert description(operation, "403").count(sentence) == 1, name


def test_every_path_id_has_its_404_naming_the_parameter_once(document):
    seen = 0
    for name, operation in operations(document):
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "path" and parameter["name"].endswith("_id"):
                seen += 1
                assert description(operation, "404").count(f"not_found (param {parameter['name']})") == 1, name
    assert seen > 10


def list_paths() -> set[str]:
    """The /v1 paths served by a ResourceListApi, as the document writes them."""
    found = set()

    def walk(patterns, prefix):
        for pattern in patterns:
            if hasattr(pattern, "url_patterns"):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
                continue
            view = getattr(pattern.callback, "cls", None)
            if isinstance(view, type) and issubclass(view, ResourceListApi):
                found.add("/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", prefix + str(pattern.pattern)))

    walk(get_resolver().url_patterns, "")
    return found


def test_every_list_names_its_paging_errors_once(document):
    lists = list_paths()
    assert {"/v1/calls", "/v1/events", "/v1/webhook_endpoints/{endpoint_id}/deliveries"} <= lists
    for path in lists:
        errors = description(document["paths"][path]["get"], "400")
        assert errors.count("invalid_limit (param limit)") == 1, path
        assert "invalid_cursor (param starting_after or ending_before)" in errors, path


def test_an_apps_own_errors_follow_the_frameworks(document):
    place = document["paths"]["/v1/quotes"]["post"]
    assert description(place, "403").startswith("insufficient_scope: the credential lacks calls:place")
    assert "spend_limit_exceeded" in description(place, "403")
    redeliver = document["paths"]["/v1/events/{event_id}/redeliver"]["post"]
    assert description(redeliver, "404").startswith("not_found (param event_id)")
    assert "not_found (param endpoint)" in description(redeliver, "404")
