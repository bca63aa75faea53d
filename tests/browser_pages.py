"""Shared pieces of the page-layout browser tests and of scripts/screenshots.py: an
account with something on every page, and the checks that a page fits its screen.

The data is made through the services the pages show (API keys, a consent and its
code exchange, a refresh), so every page reads real rows. Call ``populate`` before
Playwright starts: Django's ORM refuses to run inside Playwright's event loop.
"""

from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode, urlsplit

WIDTHS = (375, 1280)
PASSWORD = "correct-horse-battery-staple"

# What the layout check reads from the page: the document's width against the
# viewport's, every visible control that does not lie wholly on screen, and every control,
# cell, timestamp or piece of text that spills out of its card (a box that scrolls sideways on its own may
# hold wider content).
LAYOUT = """() => {
  const width = window.innerWidth;
  const outside = [];
  const outsideCard = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + ` "${el.textContent.trim().slice(0, 30)}"`;
  const scrolls = (el, card) => {
    for (let s = el.parentElement; s && s !== card; s = s.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(s).overflowX)) return true;
    }
    return false;
  };
  const controls = 'button, a[href], input:not([type=hidden]), select, textarea, summary';
  const text = 'time, td, th, code, p, li, dd, dt, label, h1, h2, h3, strong, em, span, pre';
  for (const el of document.querySelectorAll(controls + ', ' + text)) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (!r.width) continue;
    if (el.matches(controls) && (r.left < -0.5 || r.right > width + 0.5)) {
      outside.push(`${name(el)} ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
    const card = el.closest('.card');
    if (card && !scrolls(el, card)) {
      const c = card.getBoundingClientRect();
      if (r.left < c.left - 0.5 || r.right > c.right + 0.5) {
        const card_ = `card ${Math.round(c.left)}..${Math.round(c.right)}`;
        outsideCard.push(`${name(el)} ${Math.round(r.left)}..${Math.round(r.right)} (${card_})`);
      }
    }
  }
  return {
    scrollWidth: document.documentElement.scrollWidth,
    bodyScrollWidth: document.body.scrollWidth,
    innerWidth: width,
    outside: outside,
    outsideCard: outsideCard,
  };
}"""


def assert_fits(page, label: str = "") -> None:
    """The document is never wider than the viewport, every visible control is on screen, and
    nothing spills out of its card."""
    layout = page.evaluate(LAYOUT)
    where = f"{label or page.url} at {layout['innerWidth']}px"
    assert layout["scrollWidth"] <= layout["innerWidth"], f"{where}: document {layout['scrollWidth']}px wide"
    assert layout["bodyScrollWidth"] <= layout["innerWidth"], f"{where}: body {layout['bodyScrollWidth']}px wide"
    assert not layout["outside"], f"{where}: controls off screen: {layout['outside']}"
    assert not layout["outsideCard"], f"{where}: out of its card: {layout['outsideCard']}"


def sign_in(page, base: str, email: str, password: str = PASSWORD, next_path: str = "/") -> None:
    page.goto(f"{base}/login?{urlencode({'next': next_path})}")
    page.fill("#id_username", email)
    page.fill("#id_password", password)
    page.click("form[action='/login'] button[type=submit]")
    page.wait_for_url(f"{base}{next_path}")


@dataclass
class Account:
    email: str
    password: str
    client_id: str  # the connected app
    app_name: str
    key_names: list[str]
    authorize_url: str  # starts a consent for a second, self-registered app
    consent_redirect: str


def _pkce() -> tuple[str, str]:
    import base64
    import hashlib
    import secrets

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def _client(**fields):
    from apps.oauth.models import Application

    values = {
        "client_type": Application.CLIENT_PUBLIC,
        "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
        "client_secret": "",
        "hash_client_secret": False,
        "registration_source": Application.RegistrationSource.DCR,
    }
    values.update(fields)
    return Application.objects.create(**values)


def populate(base: str, *, email: str = "ada@example.com", older_keys: int = 0, more_keys: int = 0) -> Account:
    """An account with two live API keys and a revoked one (plus ``older_keys`` revoked
    ones, for "Show older keys", and ``more_keys`` live ones with every scope), a connected app
    that refreshed once, and a second app whose authorization request the browser can open at
    ``authorize_url``."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from apps.apikeys.services import apikey_create, apikey_revoke
    from apps.oauth.services import transaction_create, transaction_decide

    user = get_user_model().objects.create_user(email=email, password=PASSWORD, display_name="Ada Lovelace")
    for n in range(older_keys):
        key, _secret = apikey_create(user=user, name=f"Old key {n + 1}", scopes=["rates:read"])
        apikey_revoke(key=key)
    retired, _secret = apikey_create(user=user, name="Old laptop", scopes=["rates:read"])
    apikey_revoke(key=retired)
    apikey_create(user=user, name="Reporting script", scopes=["rates:read", "credits:read", "calls:read"])
    apikey_create(user=user, name="Home automation with a rather long descriptive name", scopes=["calls:read"])
    from apps.credentials.scopes import ALL_SCOPES

    for n in range(more_keys):
        apikey_create(
            user=user, name=f"Key {n + 1} with every scope", scopes=list(ALL_SCOPES), ip_allowlist=["203.0.113.0/24"]
        )
    from apps.billing.services import ledger_append

    ledger_append(user=user, livemode=True, amount=2500, type="top_up", source=None, description="Card top-up")
    ledger_append(
        user=user,
        livemode=True,
        amount=-137,
        type="call",
        source=None,
        description="Call to +44 20 7946 0958 (United Kingdom), 4 min 12 s",
    )

    redirect = "https://assistant.example.com/oauth/callback"
    app = _client(name="Pocket Assistant", redirect_uris=f"{redirect} http://127.0.0.1/callback")
    verifier, challenge = _pkce()
    txn = transaction_create(
        application=app,
        user=user,
        binding_secret="populate",
        scopes=["rates:read", "credits:read", "calls:read"],
        redirect_uri=redirect,
        state="populate",
        code_challenge=challenge,
        resource=f"{base}/mcp",
    )
    code = parse_qs(urlsplit(transaction_decide(txn=txn, decision="allow")).query)["code"][0]
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "code_verifier": verifier,
        "client_id": app.client_id,
        "redirect_uri": redirect,
        "resource": f"{base}/mcp",
    }
    http = Client(HTTP_HOST=urlsplit(base).netloc)
    form_type = "application/x-www-form-urlencoded"
    tokens = http.post("/oauth/token", urlencode(form), content_type=form_type).json()
    refreshed = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "client_id": app.client_id}
    http.post("/oauth/token", urlencode(refreshed), content_type=form_type)

    consent_redirect = "https://notes.example.net/callback"
    second = _client(name="Notes Helper", redirect_uris=consent_redirect)
    _verifier, challenge = _pkce()
    params = {
        "response_type": "code",
        "client_id": second.client_id,
        "redirect_uri": consent_redirect,
        "scope": "rates:read credits:read calls:read calls:place transcripts:read",
        "state": "from-the-browser",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "resource": f"{base}/mcp",
    }
    return Account(
        email=email,
        password=PASSWORD,
        client_id=app.client_id,
        app_name=app.name,
        key_names=["Home automation with a rather long descriptive name", "Reporting script", "Old laptop"],
        authorize_url=f"{base}/oauth/authorize?{urlencode(params)}",
        consent_redirect=consent_redirect,
    )
