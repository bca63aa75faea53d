"""What the key endpoints' OpenAPI operations say beyond their serializers."""

from apps.api_v1.public import COMMON_HEADERS
from apps.core.ids import id_pattern

from .models import KEY_ID_PREFIX

# What the key endpoints enforce but the serializers cannot say (so that
# schemathesis judges the document and the service alike): the Idempotency-Key
# alphabet, the id shape of cursors and paths, name and allowlist rules, no
# unknown body fields (Stripe refuses them too), and links from a created key to
# the operations on it. Cursor values must also name one of the caller's objects,
# which no schema can say; the formats below name that rule for tools that can
# supply real ids (scripts/schemathesis_hooks.py does).
KEY_ID_PATTERN = id_pattern(KEY_ID_PREFIX)
# Only type and format: the format is the rule (an existing key id of the caller's,
# key_...), and tools that know the format draw real ids for it.
CURSOR_SCHEMA = {"type": "string", "format": "api-key-id"}
CONFLICT = {
    "description": (
        "Conflict: idempotency_key_reused or idempotency_in_progress (Idempotency-Key), "
        "api_key_limit (create), api_key_revoked or api_key_expired (rotate)."
    ),
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
}
NAME_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": 100,
    "pattern": r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
    "description": "1 to 100 characters, not only spaces, no control characters.",
}
IP_ENTRY_SCHEMA = {
    "anyOf": [
        {"type": "string", "format": "ipv4"},
        {"type": "string", "format": "ipv6"},
        {"type": "string", "format": "ip-network", "pattern": r"^[0-9A-Fa-f.:]+/[0-9]{1,3}$"},
    ],
    "description": "An IPv4 or IPv6 address, or a CIDR range without host bits (10.0.0.0/8, 2001:db8::/32).",
}
KEY_LINKS = {
    name: {"operationId": operation, "parameters": {"key_id": "$response.body#/id"}}
    for name, operation in (
        ("RetrieveApiKey", "retrieve_api_key"),
        ("RevokeApiKey", "revoke_api_key"),
        ("RotateApiKey", "rotate_api_key"),
    )
}


def postprocess(result, generator, request, public):
    for path, operations in result.get("paths", {}).items():
        if not path.startswith("/v1/api-keys"):
            continue
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "Idempotency-Key":
                    operation["responses"].setdefault("409", {**CONFLICT, "headers": dict(COMMON_HEADERS)})
                elif parameter["name"] in ("starting_after", "ending_before"):
                    parameter["schema"] = dict(CURSOR_SCHEMA)
                    parameter["description"] += (
                        " The id (key_...) of one of your keys. At most one of starting_after and ending_before."
                    )
                elif parameter["name"] == "key_id":
                    parameter["schema"] = {"type": "string", "pattern": KEY_ID_PATTERN}
            if operation.get("operationId") == "create_api_key":
                operation["responses"]["201"]["links"] = KEY_LINKS
    body = result.get("components", {}).get("schemas", {}).get("ApiKeyCreateRequest")
    if body is not None:
        body["additionalProperties"] = False
        body["properties"]["name"] = NAME_SCHEMA
        body["properties"]["scopes"].update(minItems=1)
        body["properties"]["ip_allowlist"].update(maxItems=50, items=IP_ENTRY_SCHEMA)
    return result
