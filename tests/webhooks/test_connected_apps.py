"""Each app's entry on Connected apps lists the webhook endpoints that app created: URL, enabled
or disabled (and why), the event types (docs/design.md "Webhooks": the app's connection owns
them). One query finds every app's endpoints, however many apps and endpoints there are."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.support.oauth import issue, make_client, signed_in
from tests.support.webhooks import Caller

pytestmark = pytest.mark.django_db

PAGE = "/settings/connected-apps"


def entry(html: str, client_id: str) -> str:
    start = html.index(f'data-client-id="{client_id}"')
    return html[start : html.index("</tr>", start)]


def app_caller(owner, name, scope="webhooks:manage calls:read messages:read"):
    app = make_client(name=name)
    return app, Caller(issue(owner, app, scope=scope)["access_token"])


def create(caller, url, events=("call.ended",)):
    response = caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": list(events)})
    assert response.status_code == 201, response.content
    return response.json()


def test_each_apps_endpoints_show_under_that_app_only(owner, dns, caller):
    pocket, pocket_caller = app_caller(owner, "Pocket Assistant")
    notes, notes_caller = app_caller(owner, "Notes Helper")
    quiet, _ = app_caller(owner, "Quiet App")
    first = create(pocket_caller, "https://hooks.example.com/pocket/calls", events=["call.ended", "message.received"])
    second = create(pocket_caller, "https://hooks.example.com/pocket/everything", events=["*"])
    pocket_caller.post(f"/v1/webhook_endpoints/{second['id']}", {"disabled": True})
    theirs = create(notes_caller, "https://hooks.example.com/notes")
    by_key = create(caller, "http://127.0.0.1:9/by-a-key")  # an API key's: no app's entry

    html = signed_in(owner).get(PAGE).content.decode()
    mine = entry(html, pocket.client_id)
    assert "2 webhook endpoints" in mine
    assert mine.index(second["id"]) < mine.index(first["id"])  # newest first
    listed = mine[mine.index(f'data-endpoint-id="{first["id"]}"') :]
    assert "https://hooks.example.com/pocket/calls" in listed and "Enabled" in listed.split("</li>")[0]
    assert "call.ended, message.received" in listed.split("</li>")[0]
    disabled = mine[mine.index(f'data-endpoint-id="{second["id"]}"') :].split("</li>")[0]
    assert "Disabled" in disabled and "disabled by a request" in disabled and "every event" in disabled
    assert theirs["id"] not in mine and "/notes" not in mine and by_key["id"] not in mine

    assert theirs["id"] in entry(html, notes.client_id) and "1 webhook endpoint " in entry(html, notes.client_id)
    assert "pocket" not in entry(html, notes.client_id)
    assert "webhook endpoint" not in entry(html, quiet.client_id)
    assert by_key["id"] not in html


def test_another_accounts_endpoints_for_the_same_app_stay_out(owner, dns):
    from tests.support.factories import UserFactory

    app, _ = app_caller(owner, "Shared App")
    stranger = UserFactory()
    strangers = Caller(issue(stranger, app, scope="webhooks:manage calls:read")["access_token"])
    create(strangers, "https://hooks.example.com/strangers")
    assert "webhook endpoint" not in entry(signed_in(owner).get(PAGE).content.decode(), app.client_id)


def test_one_query_finds_every_apps_endpoints(owner, dns):
    for n in range(3):
        _app, app_calls = app_caller(owner, f"App {n}")
        for m in range(2):
            create(app_calls, f"https://hooks.example.com/app-{n}/{m}")
    browser = signed_in(owner)
    browser.get(PAGE)
    with CaptureQueriesContext(connection) as ctx:
        html = browser.get(PAGE).content.decode()
    assert html.count("data-endpoint-id=") == 6
    assert len([q for q in ctx.captured_queries if "webhooks_webhookendpoint" in q["sql"]]) == 1
