"""End to end: the official MCP SDK client, with its OAuthClientProvider, against a live server.

Every step an assistant takes on first contact happens over real HTTP: the 401
from /mcp, protected-resource metadata, authorization-server metadata,
dynamic registration (or a client metadata document), authorize, sign-in and
consent by a person with a browser session, the code exchange with ``iss``
checked by the SDK, then ``tools/list`` and ``tools/call svc_whoami``, and a
refresh once the access token has lapsed.
"""

import time

import httpx2
import pytest
from mcp.client.auth import OAuthFlowError

from apps.credentials.scopes import ALL_SCOPES

from .assistant import DISPLAY_NAME, EMAIL, REDIRECT_URI, Assistant, run

pytestmark = pytest.mark.e2e

WHOAMI = {
    "email": EMAIL,
    "display_name": DISPLAY_NAME,
    "spoken": f"You are connected as {DISPLAY_NAME} ({EMAIL}).",
}


def assert_first_contact(assistant, *, registered: bool):
    """The order of docs/spec.md 5 / the MCP authorization flow, as the server saw it."""
    paths = [(method, path, status) for method, path, status in assistant.requests]
    assert paths[0] == ("POST", "/mcp", 401)
    assert paths[1] == ("GET", "/.well-known/oauth-protected-resource/mcp", 200)
    assert paths[2] == ("GET", "/.well-known/oauth-authorization-server", 200)
    rest = paths[3:]
    if registered:
        assert rest[0] == ("POST", "/oauth/register", 201)
        rest = rest[1:]
    else:
        assert ("POST", "/oauth/register", 201) not in paths
    assert rest[0] == ("POST", "/oauth/token", 200)
    assert all(step[1] == "/mcp" and step[2] in (200, 202) for step in rest[1:]), rest


def assert_person_steps(person, *, registration: str):
    assert [path for _m, path, _s in person.steps] == [
        "/oauth/authorize",
        "/login",
        "/login",
        "/oauth/authorize",
        "/oauth/consent",
        f"/api/oauth/transactions/{person.steps[5][1].rsplit('/', 1)[-1]}",
        f"/api/oauth/transactions/{person.steps[5][1].rsplit('/', 1)[-1]}/decision",
    ]
    assert person.consent["client"]["name"] == "E2E Assistant"
    assert person.consent["client"]["registration"] == registration
    assert {s["scope"] for s in person.consent["scopes"]} == set(ALL_SCOPES)
    assert set(person.redirect) >= {"code", "state", "iss"}


async def first_contact(assistant):
    async with assistant.http() as http, assistant.session(http) as client:
        tools = await client.list_tools()
        result = await client.call_tool("svc_whoami", {})
        return client.protocol_version, tools, result


def assert_whoami(tools, result):
    (tool,) = [tool for tool in tools.tools if tool.name == "svc_whoami"]
    assert tool.title == "Who am I"
    assert tool.output_schema["required"] == ["email", "display_name", "spoken"]
    assert result.is_error is False
    assert result.structured_content == WHOAMI
    assert result.content[0].type == "text"


# auto: the SDK probes server/discover at 2026-07-28 and is served; legacy: the handshake.
AUTO_RPC = [("server/discover", 401), ("server/discover", 200), ("tools/list", 200), ("tools/call", 200)]
LEGACY_RPC = [
    ("initialize", 401),
    ("initialize", 200),
    ("notifications/initialized", 202),
    ("tools/list", 200),
    ("tools/call", 200),
]


@pytest.mark.parametrize(
    ("mode", "protocol", "rpc"),
    [("auto", "2026-07-28", AUTO_RPC), ("legacy", "2025-11-25", LEGACY_RPC)],
    ids=["auto", "legacy"],
)
def test_dynamic_registration_flow(service, mode, protocol, rpc):
    assistant = Assistant(service, mode=mode)
    version, tools, result = run(first_contact, assistant)

    assert_first_contact(assistant, registered=True)
    assert_person_steps(assistant.person, registration="self-registered")
    # The issuer came back on the redirect and the SDK compared it with the metadata's.
    assert assistant.person.redirect["iss"] == service.url
    assert assistant.storage.client_info.client_id.startswith("dcr_")
    token = assistant.storage.tokens
    assert token.access_token.startswith("sat_")
    assert token.refresh_token.startswith("srt_")
    assert_whoami(tools, result)
    assert version == protocol
    assert assistant.rpc == rpc


def test_client_metadata_document_flow(service, document_host):
    url = document_host.url("/e2e/client.json")
    document_host.serve(
        "/e2e/client.json",
        {
            "client_id": url,
            "client_name": "E2E Assistant",
            "redirect_uris": [REDIRECT_URI],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "application_type": "native",
        },
    )
    assistant = Assistant(service, client_metadata_url=url)
    _version, tools, result = run(first_contact, assistant)

    assert_first_contact(assistant, registered=False)
    assert_person_steps(assistant.person, registration="registered by URL")
    assert "/e2e/client.json" in document_host.hits
    assert assistant.storage.client_info.client_id == url
    assert_whoami(tools, result)


def test_refresh_when_the_access_token_lapses(service):
    assistant = Assistant(service)

    async def scenario():
        async with assistant.http() as http, assistant.session(http) as client:
            await client.call_tool("svc_whoami", {})
            first = assistant.storage.tokens
            # The hour has passed, as far as the client knows: it refreshes before its next call.
            assistant.provider.context.token_expiry_time = time.time() - 1
            mark = len(assistant.requests)
            result = await client.call_tool("svc_whoami", {})
            return first, mark, result

    first, mark, result = run(scenario)
    second = assistant.storage.tokens
    assert assistant.since(mark)[0] == ("POST", "/oauth/token", 200)
    assert assistant.since(mark)[1][1:] == ("/mcp", 200)
    assert second.access_token != first.access_token
    assert second.refresh_token != first.refresh_token  # rotated
    assert result.structured_content == WHOAMI

    async def replay_old_refresh_token():
        async with httpx2.AsyncClient(trust_env=False, timeout=30) as http:
            replay = await http.post(
                f"{service.url}/oauth/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": first.refresh_token,
                    "client_id": assistant.storage.client_info.client_id,
                },
            )
            after = await http.post(
                f"{service.url}/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"Authorization": f"Bearer {second.access_token}", "Accept": "application/json"},
            )
            return replay, after

    replay, after = run(replay_old_refresh_token)
    # Reuse of a rotated refresh token revokes the whole family: the current access token dies too.
    assert replay.status_code == 400
    assert replay.json()["error"] == "invalid_grant"
    assert after.status_code == 401
    assert after.json()["error"]["code"] == "invalid_token"
    assert "resource_metadata=" in after.headers["WWW-Authenticate"]


def test_the_sdk_refuses_a_code_whose_iss_is_not_the_servers(service):
    """The check the flows above pass is real: a redirect naming another issuer stops the exchange."""
    assistant = Assistant(service)
    genuine = assistant.person.callback

    async def forged():
        result = await genuine()
        return result.model_copy(update={"iss": "https://issuer.example"})

    assistant.provider.context.callback_handler = forged
    with pytest.raises(ExceptionGroup) as caught:  # raised inside the transport's task group
        run(first_contact, assistant)
    assert caught.group_contains(OAuthFlowError, match="iss mismatch")
    assert ("POST", "/oauth/token", 200) not in assistant.requests
    assert not any(path == "/oauth/token" for _m, path, _s in assistant.requests)
