"""The key endpoints are described in /v1/openapi.json as session-only writes with Idempotency-Key."""

from openapi_spec_validator import validate


def test_openapi_describes_the_key_endpoints(client, db):
    doc = client.get("/v1/openapi.json").json()
    validate(doc)
    paths = doc["paths"]
    operations = {
        ("/v1/api-keys", "get"): "list_api_keys",
        ("/v1/api-keys", "post"): "create_api_key",
        ("/v1/api-keys/{key_id}", "get"): "retrieve_api_key",
        ("/v1/api-keys/{key_id}", "delete"): "revoke_api_key",
        ("/v1/api-keys/{key_id}/rotate", "post"): "rotate_api_key",
    }
    for (route, method), operation_id in operations.items():
        operation = paths[route][method]
        assert operation["operationId"] == operation_id
        assert operation["security"] == [{"dashboardSession": []}]
        names = {p["name"] for p in operation.get("parameters", [])}
        if method != "get":
            assert "Idempotency-Key" in names
    assert {"limit", "starting_after", "ending_before"} <= {
        p["name"] for p in paths["/v1/api-keys"]["get"]["parameters"]
    }
    assert "201" in paths["/v1/api-keys"]["post"]["responses"]
    assert "200" in paths["/v1/api-keys/{key_id}"]["delete"]["responses"]
    scheme = doc["components"]["securitySchemes"]["dashboardSession"]
    assert scheme["in"] == "cookie"
    list_schema = doc["components"]["schemas"]["PaginatedApiKeyList"]
    assert set(list_schema["required"]) == {"object", "data", "has_more", "url"}
