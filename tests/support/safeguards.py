"""An app connected as consent leaves it (its allowance and "ask me first"), and the user answering a
confirmation link on the service's page, signed in."""

from urllib.parse import urlsplit

from django.conf import settings
from django.test import Client

from apps.oauth.models import Application
from apps.safeguards.services import rules_set
from tests.support.oauth import MCP, V1, issue, make_client, signed_in

PLACE_SCOPES = "calls:place calls:read credits:read"


def connect(
    user,
    *,
    self_registered: bool = True,
    scope: str = PLACE_SCOPES,
    resource: str = V1,
    daily_allowance: int | None = None,
    ask_first: bool | None = None,
    app: Application | None = None,
    name: str = "Example Assistant",
) -> tuple[Application, str]:
    """An app (self-registered unless told) connected with ``scope`` for ``resource``, with the rules
    the consent page writes (its defaults unless given); returns the app and an access token."""
    if app is None:
        source = Application.RegistrationSource.DCR if self_registered else Application.RegistrationSource.MANUAL
        app = make_client(registration_source=source, name=name)
    token = issue(user, app, resource=resource, scope=scope)["access_token"]
    rules_set(
        user=user,
        client_id=app.client_id,
        client_name=app.name,
        daily_allowance=daily_allowance,
        ask_first=ask_first,
        ask_first_default=app.is_self_registered,
    )
    return app, token


def connect_mcp(user, **fields) -> tuple[Application, str]:
    return connect(user, resource=MCP, **fields)


def page_path(confirm_url: str) -> str:
    assert confirm_url.startswith(f"{settings.APP_URL}/confirm/"), confirm_url
    return urlsplit(confirm_url).path


def answer(user, confirm_url: str, decision: str = "confirm", *, browser: Client | None = None):
    """The user opens the link signed in and presses Confirm (or Decline); returns the page after it."""
    browser = browser or signed_in(user)
    path = page_path(confirm_url)
    page = browser.get(path)
    assert page.status_code == 200, page.content
    assert b'name="decision"' in page.content, page.content
    done = browser.post(path, {"decision": decision})
    assert done.status_code == 302, done.content
    return browser.get(path)
