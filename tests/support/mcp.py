"""MCP test helpers: a stand-in bearer resolver that hands out Principals, and a JSON-RPC client.

The stand-in is configured like any resolver, under its own prefix in
``settings.BEARER_RESOLVERS``, so tests exercise /mcp's and /v1's own rules
(resource binding, livemode, scopes) independently of the OAuth token store.
"""

import itertools
import json

from django.conf import settings
from django.test import Client

from apps.credentials.challenges import invalid_token, wrong_resource_message
from apps.credentials.principal import Principal

FAKE_PREFIX = "mcptest_"
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"


class FakeTokens:
    def __init__(self):
        self.principals: dict[str, Principal] = {}
        self.lookups: list[str] = []
        self._n = itertools.count()

    def issue(self, user, **overrides) -> str:
        fields = {
            "kind": "oauth",
            "user": user,
            "credential_id": f"tok_{next(self._n)}",
            "scopes": frozenset({"rates:read"}),
            "livemode": True,
            "resource": f"{settings.BASE_URL}/mcp",
            "client_id": "dcr_test",
        }
        fields.update(overrides)
        secret = f"{FAKE_PREFIX}{fields['credential_id']}"
        self.principals[secret] = Principal(**fields)
        return secret

    def resolve(self, request, secret, *, resource_path):
        self.lookups.append(secret)
        try:
            return self.principals[secret]
        except KeyError:
            raise invalid_token(resource_path) from None


class McpClient:
    """Posts JSON-RPC to /mcp the way a Streamable HTTP client does."""

    def __init__(self, token=None):
        self.client = Client()
        self.token = token
        self._ids = itertools.count(1)

    def headers(self, token=None, version=None, **extra):
        headers = {"Accept": "application/json, text/event-stream"}
        token = token or self.token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if version:
            headers["MCP-Protocol-Version"] = version
        headers.update(extra)
        return headers

    def post_raw(self, data, *, content_type="application/json", path="/mcp", **headers):
        return self.client.post(path, data=data, content_type=content_type, headers=headers)

    def post(self, message, *, token=None, version=None, headers=None):
        body = message if isinstance(message, bytes) else json.dumps(message)
        return self.post_raw(body, **self.headers(token, version, **(headers or {})))

    def request(self, method, params=None, *, version=HANDSHAKE, headers=None, token=None):
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if params is not None:
            message["params"] = params
        return self.post(message, token=token, version=version, headers=headers)

    def modern(self, method, params=None, *, headers=None, version=MODERN, capabilities=None):
        """A 2026-07-28 request: the per-request envelope in _meta, mirrored in the routing headers."""
        params = dict(params or {})
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": capabilities or {},
            "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1"},
        }
        routing = {"Mcp-Method": method}
        if method == "tools/call":
            routing["Mcp-Name"] = params.get("name", "")
        routing.update(headers or {})
        return self.request(method, params, version=version, headers=routing)


_active: list[FakeTokens] = []


def resolve(request, secret, *, resource_path):
    """The dotted-path resolver of the stand-in: the active FakeTokens answers, bound like a real token."""
    principal = _active[-1].resolve(request, secret, resource_path=resource_path)
    if principal.resource != f"{settings.BASE_URL}/{resource_path}":
        raise invalid_token(resource_path, wrong_resource_message(resource_path))
    return principal


def install_fake_tokens(settings_fixture) -> FakeTokens:
    """Configure the stand-in resolver for this test (pytest-django's ``settings`` fixture undoes it)."""
    fake = FakeTokens()
    _active.append(fake)
    settings_fixture.BEARER_RESOLVERS = {
        **settings_fixture.BEARER_RESOLVERS,
        FAKE_PREFIX: {"resolve": "tests.support.mcp.resolve", "resources": ["v1", "mcp"]},
    }
    return fake
