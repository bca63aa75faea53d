"""The Twilio adapter's settings and its REST client, read at each use so that ``override_settings`` works.

``TWILIO_API_BASE`` is where the REST client sends every request: Twilio's own by default;
anything else (a local fake of Twilio's API in tests, a recording proxy) serves both
domains the adapter uses, Voice (``/2010-04-01/...``) and Voice Intelligence (``/v2/...``).
The addresses Twilio calls back are on ``BASE_URL``, and a callback's signature is checked
against that address: the one Twilio was given, whatever proxy the request came through.
"""

from urllib.parse import urlencode

from django.conf import settings

TWILIO_API_DEFAULT = "https://api.twilio.com"
# Seconds the REST client waits for Twilio; a placement waits on it inside its transaction.
REQUEST_TIMEOUT = 10

# Twilio's rings and waits (docs/design.md, the transitions table): your phone rings 30 s,
# you have 15 s to press 1, the callee's phone rings 45 s.
YOUR_RING_SECONDS = 30
PRESS_1_SECONDS = 15
CALLEE_RING_SECONDS = 45


def account_sid() -> str:
    return settings.TWILIO_ACCOUNT_SID


def auth_token() -> str:
    return settings.TWILIO_AUTH_TOKEN


def api_base() -> str:
    return (settings.TWILIO_API_BASE or TWILIO_API_DEFAULT).rstrip("/")


def rest_client():
    """Twilio's REST client for the configured account, on ``TWILIO_API_BASE``."""
    from twilio.http.http_client import TwilioHttpClient
    from twilio.rest import Client

    client = Client(account_sid(), auth_token(), http_client=TwilioHttpClient(timeout=REQUEST_TIMEOUT))
    base = api_base()
    if base != TWILIO_API_DEFAULT:
        client.api.base_url = base
        client.intelligence.base_url = base
    return client


def callback_url(what: str, **query) -> str:
    """The address Twilio calls back for ``what`` (status, gather, dial, leg, sms): ``BASE_URL/carrier/twilio/...``.

    What the adapter must know later (our call id, the callee, the time limit) travels in the
    query: Twilio signs the whole address, so a callback cannot alter it."""
    url = f"{settings.BASE_URL.rstrip('/')}/carrier/twilio/{what}"
    return f"{url}?{urlencode(query)}" if query else url


def signed_url(request) -> str:
    """The address a callback was sent to, as Twilio signed it."""
    return f"{settings.BASE_URL.rstrip('/')}{request.get_full_path()}"
