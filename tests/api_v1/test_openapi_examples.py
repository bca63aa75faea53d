"""Every operation of /v1/openapi.json has a response example and a curl sample (apps/api_v1/examples.py).

The examples are the serializers' own output, so they cannot drift from the answers: each is
checked against its operation's schema (every documented field, nothing else), and each
object it shows has the fields the live endpoint gives for a seeded account's rows.
"""

import copy
import re

import jsonschema
import pytest
from django.core.management import call_command

from apps.credentials.scopes import ALL_SCOPES
from tests.support.factories import UserFactory, make_api_key

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture
def document(api):
    return api.get("/v1/openapi.json").json()


def operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def success(operation) -> tuple[str, dict]:
    status = min(status for status in operation["responses"] if status.startswith("2"))
    return status, operation["responses"][status]["content"]["application/json"]


def check_fields(value, schema, components, where):
    """``value`` has exactly the object's documented properties, at every level that is an object."""
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    if isinstance(value, dict) and "properties" in schema:
        assert set(value) == set(schema["properties"]), where
        for name, inner in value.items():
            check_fields(inner, schema["properties"][name], components, f"{where}.{name}")
    elif isinstance(value, list) and "items" in schema:
        for inner in value:
            check_fields(inner, schema["items"], components, f"{where}[]")


def test_every_operation_has_a_response_example_that_its_schema_accepts(document):
    components = document["components"]["schemas"]
    seen = 0
    for path, method, operation in operations(document):
        where = f"{method.upper()} {path}"
        _status, content = success(operation)
        assert "example" in content, f"{where} has no response example"
        schema = copy.deepcopy(content["schema"])
        # Resolve "#/components/..." against the document itself.
        jsonschema.validate(content["example"], {**schema, "components": document["components"]})
        check_fields(content["example"], content["schema"], components, where)
        seen += 1
    assert seen >= 17


def test_every_operation_has_a_curl_sample_redoc_shows(document):
    for path, _method, operation in operations(document):
        samples = operation.get("x-codeSamples")
        assert samples and samples[0]["lang"] == "Shell" and samples[0]["label"] == "curl", path
        source = samples[0]["source"]
        assert source.startswith("curl ") and "http://testserver/v1/" in source
        # Path parameters are filled in: the example's own id, or the object it is under.
        assert "{" not in source.split("\n", 1)[0], source
        example = success(operation)[1]["example"]
        if path.endswith("_id}") and example.get("object") != "list" and example.get("id", "")[:3] in path:
            assert f"/{example['id']}" in source, source
        if operation.get("security") and any("bearer" in s for s in operation["security"]):
            assert "Authorization: Bearer $KEY" in source


def test_each_sample_fills_its_path_with_an_id_of_the_parameters_kind(document):
    """A call's action names a call id (call_...), never the id of what it answers with (trs_...)."""
    checked = 0
    for path, method, operation in operations(document):
        source = operation["x-codeSamples"][0]["source"]
        url = source.split("\n", 1)[0].split("http://testserver", 1)[1].split()[0]
        for template, given in zip(path.split("/"), url.split("/"), strict=True):
            if template.startswith("{"):
                name = template.strip("{}")
                parameter = next(p for p in operation["parameters"] if p["in"] == "path" and p["name"] == name)
                pattern = parameter["schema"].get("pattern")
                if pattern:
                    assert re.search(pattern, given), f"{method.upper()} {path}: {name}={given}"
                    checked += 1
    assert checked >= 15
    transcript = document["paths"]["/v1/calls/{call_id}/transcript"]["post"]["x-codeSamples"][0]["source"]
    assert "/v1/calls/call_" in transcript and "trs_" not in transcript.split("\n", 1)[0]


def test_the_samples_run_on_a_stock_debian(document):
    """An Idempotency-Key is made with python3, which any machine running the samples has; uuidgen is
    missing from Debian's and most containers' base."""
    posts = [
        operation["x-codeSamples"][0]["source"] for _path, method, operation in operations(document) if method == "post"
    ]
    assert posts
    for source in posts:
        assert "uuidgen" not in source
        assert "Idempotency-Key: $(python3 -c 'import uuid; print(uuid.uuid4())')" in source


def test_the_reference_opens_on_the_user_and_ends_with_the_dashboards_endpoints(document):
    """Redoc lays its sections out in the document's tag order: the first is what a key can call
    (/v1/me), the dashboard's own session-only endpoints come last."""
    names = [tag["name"] for tag in document["tags"]]
    used = {tag for _path, _method, operation in operations(document) for tag in operation.get("tags", [])}
    assert set(names) == used and len(names) == len(used)
    assert names[0] == "me"
    assert names[-1] == "API keys (dashboard session)"


def test_the_rate_sample_encodes_the_plus(document):
    source = document["paths"]["/v1/rates"]["get"]["x-codeSamples"][0]["source"]
    assert source.startswith("curl -G http://testserver/v1/rates")
    assert "--data-urlencode 'to=+4915112345678'" in source


def test_the_key_creation_sample_is_a_session_request_with_a_body(document):
    source = document["paths"]["/v1/api-keys"]["post"]["x-codeSamples"][0]["source"]
    assert "-X POST" in source and "X-CSRFToken" in source and "Idempotency-Key" in source
    assert '"scopes": ["rates:read"' in source
    assert "Authorization" not in source


def test_the_examples_show_the_fields_the_endpoints_give(document, client):
    """A seeded account's first row of each list has exactly the fields its example shows."""
    user = UserFactory(email="seeded@example.com")
    call_command("seed_demo", "--email", user.email, verbosity=0)
    call_command("import_rates", "--demo", verbosity=0)
    _key, secret = make_api_key(user, scopes=list(ALL_SCOPES))
    compared = 0
    for path, method, operation in operations(document):
        if method != "get" or "{" in path or "api-keys" in path:
            continue
        example = success(operation)[1]["example"]
        query = {"to": "+4915112345678"} if path == "/v1/rates" else {}
        answer = client.get(path, query, HTTP_AUTHORIZATION=f"Bearer {secret}").json()
        if example.get("object") == "list":
            if not answer["data"]:
                continue  # nothing of the kind in the demo data set (webhook endpoints, events)
            example, answer = example["data"][0], answer["data"][0]
        assert set(answer) == set(example), path
        compared += 1
    assert compared >= 7
