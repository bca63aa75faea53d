"""Additions to the generated OpenAPI document: the bearer scheme, the error envelope, and the
errors the framework itself answers.

What /v1 refuses on its own is written into every operation from what the view declares, so an
app declares only its own errors (``error_response``): the 403 of a view's ``required_scope``
(``insufficient_scope`` naming it), the 404 of each path id (``not_found`` naming the
parameter), and a list's 400s (``invalid_limit``, ``invalid_cursor``). An app's own text for
the same status follows the framework's.
"""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiResponse

from apps.core.errors import REGISTRY

from .paths import path_noun


class BearerScheme(OpenApiAuthenticationExtension):
    target_class = "apps.api_v1.authentication.BearerAuthentication"
    name = "bearer"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "An OAuth access token (sat_...) bound to /v1, or a personal API key (sk_live_..., sk_test_...)."
            ),
        }

    def get_security_requirement(self, auto_schema):
        # The scope the operation needs (its view's required_scope), so the document
        # states each operation's scope; [] is "any scope".
        scope = getattr(auto_schema.view, "required_scope", None)
        return {self.name: [scope] if scope else []}


class DashboardSessionScheme(OpenApiAuthenticationExtension):
    target_class = "apps.credentials.session.DashboardSessionAuthentication"
    name = "dashboardSession"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": (
                "The signed-in dashboard session (sign in at the web application). Writes also need the "
                "X-CSRFToken header. API keys and OAuth tokens are not accepted here."
            ),
        }


ERROR_REF = {"$ref": "#/components/schemas/Error"}


def error_response(description: str) -> OpenApiResponse:
    """An error of the envelope, for an ``Operation``'s ``responses={status: ...}``."""
    return OpenApiResponse(response=ERROR_REF, description=description)


ERROR_SCHEMA = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {
            "type": "object",
            "required": ["type", "code", "message", "param", "doc_url", "request_id"],
            "properties": {
                "type": {"type": "string", "enum": sorted({e.type for e in REGISTRY.values()})},
                "code": {"type": "string"},
                "message": {"type": "string"},
                "param": {"type": ["string", "null"]},
                "doc_url": {"type": "string"},
                "request_id": {"type": ["string", "null"]},
                "billing_url": {"type": "string"},
            },
        }
    },
}

COMMON_HEADERS = {
    "Request-Id": {"schema": {"type": "string", "pattern": "^req_"}, "description": "Quote it to support."},
    "Service-Version": {"schema": {"type": "string"}, "description": "The API version that served the request."},
}

ERROR_STATUSES = {
    "400": "Invalid request (invalid_request, invalid_body, invalid_version, token_in_query, ...).",
    "401": "Missing, invalid, expired or revoked credential (invalid_token).",
    "403": "Credential not allowed here (ip_not_allowed, insufficient_scope, forbidden).",
    "404": "No such object or route.",
    "405": "Method not allowed on this path.",
    "406": "Accept excludes application/json.",
    "410": "API version retired (version_sunset).",
    "413": "Request body too large.",
    "415": "Unsupported content type.",
    "429": "Rate limited.",
    "500": "Server fault.",
    "503": "Temporarily unavailable.",
}


def postprocess(result, generator, request, public):
    result["info"]["version"] = _current_version()
    result["info"]["description"] = (
        "The public API of the telephony account service. Errors use one envelope; every response "
        "carries Request-Id. Rate limits, versioning and error codes are documented at "
        f"{settings.DOCS_URL}."
    )
    result["externalDocs"] = {"description": "Guides, error codes, OAuth and MCP", "url": settings.DOCS_URL}
    components = result.setdefault("components", {})
    components.setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    add_oauth2_scheme(result)
    order_tags(result)
    lists = list_operations(generator)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if not path.endswith("openapi.json"):
                declare_framework_errors(operation, is_list=(path, method) in lists)
            operation["parameters"] = [
                *operation.get("parameters", []),
                {
                    "name": "Service-Version",
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "enum": sorted(_known_versions())},
                    "description": "Selects an API version; the pinned or current one when omitted.",
                },
            ]
            for response in operation["responses"].values():
                response.setdefault("headers", {}).update(COMMON_HEADERS)
            for status, description in ERROR_STATUSES.items():
                if path.endswith("openapi.json") and status in {"401", "403"}:
                    continue
                operation["responses"].setdefault(
                    status,
                    {
                        "description": description,
                        "headers": dict(COMMON_HEADERS),
                        "content": {"application/json": {"schema": ERROR_REF}},
                    },
                )
    return result


# The reference's sections in the order a newcomer reads them: who am I, what a call costs, then the
# resources; the dashboard's own endpoints (a browser session, not a key) and the test helpers come last.
TAGS_FIRST = ("me", "Rates", "Balance", "Calls", "Numbers", "Contacts", "Messages", "Webhook endpoints", "Events")
TAGS_LAST = ("Test helpers", "API keys (dashboard session)")


def order_tags(result) -> None:
    """The document's ``tags``, which Redoc follows for its sections: every tag an operation uses, once."""
    used = {
        tag
        for operations in result.get("paths", {}).values()
        for operation in operations.values()
        if isinstance(operation, dict)
        for tag in operation.get("tags", [])
    }

    def rank(tag: str) -> tuple[int, int, str]:
        if tag in TAGS_FIRST:
            return (0, TAGS_FIRST.index(tag), tag)
        if tag in TAGS_LAST:
            return (2, TAGS_LAST.index(tag), tag)
        return (1, 0, tag)

    result["tags"] = [{"name": tag} for tag in sorted(used, key=rank)]


def bearer_scope(operation: dict) -> str | None:
    """The scope the operation's view requires (its bearer security requirement), if any."""
    for requirement in operation.get("security") or []:
        scopes = requirement.get("bearer")
        if scopes:
            return scopes[0]
    return None


def list_operations(generator) -> set[tuple[str, str]]:
    """(path, method) of every list: a GET of a ``ResourceListApi``, which pages with the framework's cursors."""
    from .bases import ResourceListApi

    found = set()
    for path, _regex, method, callback in generator.endpoints or ():
        view_class = getattr(callback, "cls", None)
        if method == "GET" and isinstance(view_class, type) and issubclass(view_class, ResourceListApi):
            found.add((path, "get"))
    return found


def framework_errors(operation: dict, *, is_list: bool) -> dict[str, list[tuple[str, str]]]:
    """The errors /v1 answers for this operation before the app's code runs, by status: each a
    (words that name it, sentence) pair."""
    errors: dict[str, list[tuple[str, str]]] = {}
    scope = bearer_scope(operation)
    if scope:
        named = f"insufficient_scope: the credential lacks {scope}"
        errors["403"] = [(named, f"{named} (see WWW-Authenticate); or ip_not_allowed.")]
    parameters = operation.get("parameters", [])
    for parameter in parameters:
        name = parameter.get("name", "")
        if parameter.get("in") == "path" and name.endswith("_id"):
            named = f"not_found (param {name})"
            errors.setdefault("404", []).append(
                (named, f"{named}: no such {path_noun(name)} in this account and mode.")
            )
    if is_list:
        from .pagination import MAX_LIMIT

        errors.setdefault("400", []).append(
            (
                "invalid_limit",
                f"invalid_limit (param limit): not a whole number from 1 to {MAX_LIMIT}; invalid_cursor (param "
                "starting_after or ending_before): not an object of this list in this account and mode, or both "
                "given.",
            )
        )
    return errors


def declare_framework_errors(operation: dict, *, is_list: bool) -> None:
    """Write ``framework_errors`` into the operation's responses, each before the app's own text
    for that status; an error the app's text already names is not written twice."""
    responses = operation["responses"]
    for status, errors in framework_errors(operation, is_list=is_list).items():
        declared = responses.get(status, {}).get("description", "")
        sentences = [sentence for named, sentence in errors if named not in declared]
        if not sentences:
            continue
        response = responses.setdefault(
            status, {"description": "", "content": {"application/json": {"schema": ERROR_REF}}}
        )
        response["description"] = " ".join([*sentences, declared]).strip()


def add_oauth2_scheme(result) -> None:
    """Declare the OAuth flow beside the bearer scheme, and let every operation that takes a
    bearer credential take an OAuth token for the same scopes (the security list is an OR)."""
    from apps.credentials.scopes import SCOPES

    base = settings.BASE_URL
    result["components"].setdefault("securitySchemes", {})["oauth2"] = {
        "type": "oauth2",
        "description": (
            "OAuth 2.1 authorization code with PKCE (code_challenge_method S256, required); public clients, "
            f"no client secret. Send `resource={base}/v1` on authorize and on the code exchange: the token is "
            f"bound to it. See {settings.DOCS_URL}/oauth."
        ),
        "flows": {
            "authorizationCode": {
                "authorizationUrl": f"{base}/oauth/authorize",
                "tokenUrl": f"{base}/oauth/token",
                "refreshUrl": f"{base}/oauth/token",
                "scopes": {scope.name: scope.sentence for scope in SCOPES.values()},
            }
        },
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if not isinstance(operation, dict):
                continue
            security = operation.get("security") or []
            oauth = [{"oauth2": list(req["bearer"])} for req in security if "bearer" in req]
            if oauth:
                operation["security"] = [*security, *oauth]


def _known_versions():
    from .versions import known_versions

    return known_versions()


def _current_version():
    from .versions import CURRENT_VERSION

    return CURRENT_VERSION


# Text the input guard (apps/core/inputs.py) refuses anywhere in a request: no control characters.
PLAIN_TEXT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*$"
# Path ids of the resources whose views declare no pattern of their own.
PATH_ID_PREFIXES = {"endpoint_id": "we_", "event_id": "ev_", "quote_id": "quo_", "call_id": "call_"}


def declare_input_rules(result, generator, request, public):
    """Write the input guard's rules into the document, so a request the schema allows is one the
    service accepts: ids in paths match their prefix, query strings, headers and request bodies
    hold no control characters, and bodies no fields but theirs."""
    from apps.core.ids import id_pattern

    schemas = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                prefix = PATH_ID_PREFIXES.get(parameter.get("name"))
                if parameter.get("in") == "path" and prefix and "pattern" not in schema:
                    parameter["schema"] = {**schema, "type": "string", "pattern": id_pattern(prefix)}
                elif parameter.get("in") in {"query", "header"}:
                    _plain_text(schema, schemas, set())
            if method not in {"post", "put", "patch"}:
                continue
            for content in operation.get("requestBody", {}).get("content", {}).values():
                _plain_text(content.get("schema", {}), schemas, set())
    return result


def _plain_text(schema: dict, schemas: dict, seen: set) -> None:
    ref = schema.get("$ref")
    if ref:
        name = ref.rsplit("/", 1)[-1]
        if name not in seen and name in schemas:
            seen.add(name)
            _plain_text(schemas[name], schemas, seen)
        return
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key, []):
            _plain_text(part, schemas, seen)
    if schema.get("type") == "string" and not ({"pattern", "enum", "format"} & set(schema)):
        schema["pattern"] = PLAIN_TEXT_PATTERN
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        _plain_text(schema["items"], schemas, seen)
    if schema.get("type") == "object" or "properties" in schema:
        schema.setdefault("additionalProperties", False)
        for value in schema.get("properties", {}).values():
            _plain_text(value, schemas, seen)


def docstring_excludes() -> list[type]:
    """drf-spectacular's GET_LIB_DOC_EXCLUDES: besides DRF's own classes, the /v1 framework's bases,
    whose docstrings speak to the developers of a resource app, never to the API's users. An
    operation's description is its method's docstring or its view's own, never a base's."""
    from drf_spectacular.plumbing import get_lib_doc_excludes

    from . import bases, idempotency

    framework = [
        value
        for module in (bases, idempotency)
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__ == module.__name__
    ]
    return [*get_lib_doc_excludes(), *framework]
