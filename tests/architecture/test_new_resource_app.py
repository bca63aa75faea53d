"""A resource app added by docs/architecture.md's steps is served, documented and guarded with no
file outside its folder edited: the app is written into a temporary folder and only added to
INSTALLED_APPS (tests/support/scratch_app.py).
"""

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from apps.mcp_bridge import registry
from tests.support import scratch_app
from tests.support.envelope import assert_error
from tests.support.factories import make_api_key
from tests.support.import_rules import ROOT, broken_contracts, run_lint, scratch_copy
from tests.support.mcp import McpClient, install_fake_tokens
from tests.support.scopes import challenge, every_other_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def voicemails(tmp_path):
    scratch_app.write_scratch_app(tmp_path)
    with scratch_app.installed(tmp_path, list(settings.INSTALLED_APPS)):
        yield


def get(path, secret):
    return Client().get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")


def test_no_file_of_the_repository_names_the_app():
    for path in (".importlinter", "config/settings.py", "config/urls.py", "apps/api_v1/urls.py"):
        assert scratch_app.NAME not in (ROOT / path).read_text(), path


def test_its_route_is_served_and_its_scope_enforced(voicemails, user):
    _key, secret = make_api_key(user, scopes=[scratch_app.SCOPE])
    response = get(scratch_app.ROUTE, secret)
    assert response.status_code == 200 and response.json()["data"][0]["object"] == "voicemail"
    _key, other = make_api_key(user, scopes=every_other_scope(scratch_app.SCOPE))
    refused = get(scratch_app.ROUTE, other)
    assert_error(refused, 403, "insufficient_scope", type_="permission_error")
    assert refused["WWW-Authenticate"] == challenge(scratch_app.SCOPE, "v1")


def test_its_route_is_in_the_openapi_document(voicemails):
    operation = Client().get("/v1/openapi.json").json()["paths"][scratch_app.ROUTE]["get"]
    assert operation["operationId"] == "list_voicemails"
    assert operation["security"] == [{"bearer": [scratch_app.SCOPE]}, {"oauth2": [scratch_app.SCOPE]}]


def test_its_tool_is_registered_and_its_scope_enforced(voicemails, user, settings):
    assert registry.tool_get(scratch_app.TOOL).scope == scratch_app.SCOPE
    tokens = install_fake_tokens(settings)
    listed = McpClient(tokens.issue(user, scopes=frozenset({scratch_app.SCOPE}))).request("tools/list")
    assert scratch_app.TOOL in [tool["name"] for tool in listed.json()["result"]["tools"]]
    call = {"name": scratch_app.TOOL, "arguments": {}}
    ran = McpClient(tokens.issue(user, scopes=frozenset({scratch_app.SCOPE}))).request("tools/call", call)
    assert ran.json()["result"]["structuredContent"]["voicemails"][0]["id"] == "vm_1"
    refused = McpClient(tokens.issue(user, scopes=frozenset(every_other_scope(scratch_app.SCOPE)))).request(
        "tools/call", call
    )
    assert_error(refused, 403, "insufficient_scope")
    assert refused["WWW-Authenticate"] == challenge(scratch_app.SCOPE, "mcp")


def test_the_system_checks_pass_with_it(voicemails):
    call_command("check")


def _lint_with(tmp_path, extra=None):
    root = scratch_copy(tmp_path)
    scratch_app.write_scratch_app(root / "apps", extra)
    return run_lint(root)


def test_its_import_rules_hold_as_written(tmp_path):
    done = _lint_with(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("imported", "contract"),
    [
        ("apps.calls.selectors", "Resource apps import no other resource app"),
        ("apps.oauth.models", "Resource apps never import the credential issuers"),
        ("apps.api_v1.pagination", "Other apps use apps.api_v1.public only"),
    ],
)
def test_its_import_rules_apply(tmp_path, imported, contract):
    done = _lint_with(tmp_path, {"deliberate_break.py": f"import {imported}  # noqa\n"})
    assert done.returncode != 0, done.stdout
    assert contract in broken_contracts(done), done.stdout


def test_tools_page_with_the_paging_function_not_a_faked_request():
    """One paging function for REST and MCP: no app outside api_v1 builds a stand-in request for the
    paginator or keeps a paginator of its own."""
    from pathlib import Path

    apps_dir = Path(__file__).resolve().parents[2] / "apps"
    offenders = []
    for path in apps_dir.rglob("*.py"):
        if path.is_relative_to(apps_dir / "api_v1"):
            continue
        text = path.read_text()
        if "query_params=" in text or "(IdCursorPagination)" in text:
            offenders.append(str(path.relative_to(apps_dir)))
    assert offenders == []
