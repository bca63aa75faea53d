"""An MCP client as an assistant runs it: the official SDK client with its OAuthClientProvider,
plus a person at a browser who signs in and allows the app when the provider sends them there.
"""

import json
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

EMAIL = "ada@example.com"
DISPLAY_NAME = "Ada Lovelace"
PASSWORD = "e2e-correct-horse-battery"
# The account a live server of these tests creates, in the keywords LiveServer takes (tests/e2e/servers.py).
ACCOUNT = {"email": EMAIL, "display_name": DISPLAY_NAME, "password": PASSWORD}


class MemoryStorage:
    """The provider's TokenStorage, in memory; the test reads it to follow token rotation."""

    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None
        self.history: list[OAuthToken] = []

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info


@dataclass
class Person:
    """Signs in and allows the app over plain HTTP with a cookie session, as the pages' own JS would."""

    base_url: str
    email: str
    password: str
    steps: list[tuple[str, str, int]] = field(default_factory=list)
    consent: dict | None = None
    redirect: dict | None = None
    # Scopes the person ticks on the consent page before Allow, besides those the page starts ticked
    # (a sensitive scope starts unticked). Empty: Allow as the app asked, the default the API grants.
    tick: tuple[str, ...] = ()
    page_ticked: list[str] | None = None  # the scopes the page offered ticked
    sensitive_confirmation: bool | None = None  # whether the page carried the second, sensitive checkbox
    # "Ask me first" as the person leaves it when the page offers it (None: as the page starts it).
    ask_first: bool | None = None
    page_ask_first: bool | None = None  # whether the page offered it ticked

    def _record(self, response):
        self.steps.append((response.request.method, response.request.url.path, response.status_code))

    async def open(self, authorization_url: str) -> None:
        async with httpx2.AsyncClient(trust_env=False, timeout=30) as browser:
            # Not signed in yet: /oauth/authorize sends the browser to the sign-in page and back.
            page = await browser.get(authorization_url)
            self._record(page)
            assert page.status_code == 302, page.text
            login_url = page.headers["Location"]
            assert urlsplit(login_url).path == "/login", login_url
            page = await browser.get(login_url if "://" in login_url else self.base_url + login_url)
            self._record(page)
            assert page.status_code == 200
            csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            next_url = re.search(r'name="next" value="([^"]*)"', page.text).group(1).replace("&amp;", "&")
            signed_in = await browser.post(
                f"{self.base_url}/login",
                data={"username": self.email, "password": self.password, "csrfmiddlewaretoken": csrf, "next": next_url},
                headers={"Referer": f"{self.base_url}/login"},
            )
            self._record(signed_in)
            assert signed_in.status_code == 302, signed_in.text
            # Back to /oauth/authorize, now signed in: a consent transaction and the consent page.
            again = await browser.get(self.absolute(signed_in.headers["Location"]))
            self._record(again)
            assert again.status_code == 302, again.text
            consent_url = self.absolute(again.headers["Location"])
            assert urlsplit(consent_url).path == "/oauth/consent", consent_url
            page = await browser.get(consent_url)
            self._record(page)
            assert page.status_code == 200
            transaction = parse_qs(urlsplit(consent_url).query)["transaction"][0]
            details = await browser.get(f"{self.base_url}/api/oauth/transactions/{transaction}")
            self._record(details)
            assert details.status_code == 200, details.text
            self.consent = details.json()
            decision = {"decision": "allow", "confirm_sensitive": True}
            if self.tick:
                decision = self.fill_in(page.text)
            decided = await browser.post(
                f"{self.base_url}/api/oauth/transactions/{transaction}/decision",
                json=decision,
                headers={"X-CSRFToken": browser.cookies["csrftoken"], "Referer": consent_url},
            )
            self._record(decided)
            assert decided.status_code == 200, decided.text
            redirect_to = decided.json()["redirect_to"]
            self.redirect = {k: v[0] for k, v in parse_qs(urlsplit(redirect_to).query).items()}

    def fill_in(self, page: str) -> dict:
        """The consent form as the page's script sends it: the scope boxes left ticked, plus ``tick``;
        the sensitive confirmation checked once a sensitive scope is among them."""
        boxes = re.findall(r'<input type="checkbox" name="scopes" value="([^"]+)"([^>]*)>', page)
        self.page_ticked = [scope for scope, attributes in boxes if " checked" in attributes]
        offered = [scope for scope, _attributes in boxes]
        assert set(self.tick) <= set(offered), (self.tick, offered)
        self.sensitive_confirmation = 'id="confirm-sensitive"' in page
        chosen = [scope for scope in offered if scope in self.page_ticked or scope in self.tick]
        decision = {"decision": "allow", "scopes": chosen, "confirm_sensitive": self.sensitive_confirmation}
        box = re.search(r'<input type="checkbox" id="ask-first"([^>]*)>', page)
        if box is not None:
            self.page_ask_first = " checked" in box.group(1)
            decision["ask_first"] = self.page_ask_first if self.ask_first is None else self.ask_first
        return decision

    async def confirm(self, confirm_url: str, decision: str = "confirm") -> str:
        """Open a confirmation link in a browser signed in as this person and press Confirm (or
        Decline), as the page's plain form does; returns the page shown after it."""
        async with httpx2.AsyncClient(trust_env=False, timeout=30, follow_redirects=True) as browser:
            login = await browser.get(f"{self.base_url}/login")
            csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text).group(1)
            signed_in = await browser.post(
                f"{self.base_url}/login",
                data={"username": self.email, "password": self.password, "csrfmiddlewaretoken": csrf},
                headers={"Referer": f"{self.base_url}/login"},
            )
            assert signed_in.status_code == 200, signed_in.text
            page = await browser.get(confirm_url)
            assert page.status_code == 200 and 'value="confirm"' in page.text, page.text
            csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
            done = await browser.post(
                confirm_url,
                data={"decision": decision, "csrfmiddlewaretoken": csrf},
                headers={"Referer": confirm_url},
            )
            assert done.status_code == 200, done.text
            return done.text

    def absolute(self, location: str) -> str:
        return location if "://" in location else self.base_url + location

    async def callback(self) -> AuthorizationCodeResult:
        # What the app's redirect URI receives: code, state and the issuer (RFC 9207).
        return AuthorizationCodeResult(
            code=self.redirect["code"], state=self.redirect.get("state"), iss=self.redirect.get("iss")
        )


REDIRECT_URI = "http://127.0.0.1:53682/callback"


class Assistant:
    def __init__(self, service, *, client_metadata_url=None, mode="auto", tick=(), ask_first=None, elicitation=None):
        self.base = service.url
        self.mode = mode
        self.elicitation = elicitation  # the client's elicitation callback: it declares elicitation when set
        self.storage = MemoryStorage()
        self.person = Person(self.base, EMAIL, PASSWORD, tick=tuple(tick), ask_first=ask_first)
        self.requests: list[tuple[str, str, int]] = []
        self.rpc: list[tuple[str, int]] = []  # JSON-RPC method of each POST /mcp, with its status
        self.provider = OAuthClientProvider(
            server_url=f"{self.base}/mcp",
            client_metadata=OAuthClientMetadata(
                client_name="E2E Assistant",
                redirect_uris=[REDIRECT_URI],
                grant_types=["authorization_code", "refresh_token"],
                response_types=["code"],
                token_endpoint_auth_method="none",
            ),
            storage=self.storage,
            redirect_handler=self.person.open,
            callback_handler=self.person.callback,
            client_metadata_url=client_metadata_url,
        )

    async def _record(self, response):
        request = response.request
        self.requests.append((request.method, request.url.path, response.status_code))
        if request.url.path == "/mcp" and request.method == "POST":
            self.rpc.append((json.loads(request.content)["method"], response.status_code))

    def http(self):
        return httpx2.AsyncClient(
            auth=self.provider, trust_env=False, timeout=30, event_hooks={"response": [self._record]}
        )

    def session(self, http):
        return Client(
            streamable_http_client(f"{self.base}/mcp", http_client=http),
            mode=self.mode,
            elicitation_callback=self.elicitation,
        )

    def since(self, mark: int) -> list[tuple[str, str, int]]:
        return self.requests[mark:]


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)
