"""Which webhook URLs are taken (``invalid_url``, param ``url``), at creation, at each change and at delivery.

Live mode: https only. Test mode: https, or, where the operator allows it
(``WEBHOOK_ALLOW_LOOPBACK``: by default with ``DEBUG`` only), http to a loopback host (a
receiver on the developer's machine). Never credentials (``user:pass@``) or a fragment.
A host that resolves now must resolve to allowed addresses only (apps/core/egress.py);
one that does not resolve yet is taken and checked again at every attempt.
"""

import time
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

from apps.core import egress
from apps.core.errors import ApiError

MAX_URL_LENGTH = 2048
LOOKUP_SECONDS = 3
_LOOPBACK_NAMES = {"localhost", "localhost."}


def admitted() -> tuple:
    """Exact addresses a test admits (a local https receiver in live mode); no deployment sets it."""
    return tuple(getattr(settings, "WEBHOOK_TEST_ALLOWED_ADDRESSES", ()))


def loopback_allowed() -> bool:
    return bool(getattr(settings, "WEBHOOK_ALLOW_LOOPBACK", False))


def _refuse(message: str):
    return ApiError("invalid_url", message, param="url")


def parse(url, *, livemode: bool) -> SplitResult:
    """The URL's parts when its form is allowed in this mode; ApiError otherwise (no lookup)."""
    if not isinstance(url, str) or not url:
        raise ApiError("invalid_request", "url is required: the https URL to send events to.", param="url")
    if len(url) > MAX_URL_LENGTH or not url.isascii() or any(c.isspace() or not c.isprintable() for c in url):
        raise _refuse(f"url must be at most {MAX_URL_LENGTH} printable ASCII characters, without spaces.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise _refuse("url is not a valid URL.") from None
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise _refuse("url must be an absolute https URL.")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise _refuse("url must not carry a user name or password.")
    if parts.fragment or "#" in url:
        raise _refuse("url must not carry a #fragment.")
    if port == 0:
        raise _refuse("url has an invalid port.")
    if parts.scheme == "http":
        if livemode:
            raise _refuse(f"url must use https in live mode.{_test_mode_hint()}")
        if not loopback_allowed():
            raise _refuse(
                "url must use https: this service sends no webhooks to loopback addresses. To receive them on your "
                "own machine, expose your receiver through an https tunnel (see /docs/webhooks)."
            )
        if not _names_loopback(parts.hostname):
            raise _refuse("In test mode, http is taken only for a loopback host (127.0.0.1, ::1, localhost).")
    return parts


def _test_mode_hint() -> str:
    """For a live credential's refused URL: where a receiver on the developer's own machine is taken."""
    if not loopback_allowed():
        return ""
    return (
        " A receiver on your own machine (http://127.0.0.1:PORT/...) takes a test-mode key (sk_test_...) on this "
        'server; see /docs/webhooks, "Testing locally".'
    )


def _names_loopback(hostname: str) -> bool:
    return hostname.lower() in _LOOPBACK_NAMES or egress.is_loopback(hostname)


def guard_options(parts: SplitResult, *, livemode: bool) -> dict:
    """What the address guard admits for this URL: loopback in test mode where allowed, and only loopback for http."""
    return {
        "loopback": not livemode and loopback_allowed(),
        "loopback_only": parts.scheme == "http",
        "admitted": admitted(),
    }


def validate(url, *, livemode: bool) -> str:
    parts = parse(url, livemode=livemode)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    options = guard_options(parts, livemode=livemode)
    try:
        egress.resolve_checked(parts.hostname, port, deadline=time.monotonic() + LOOKUP_SECONDS, **options)
    except egress.AddressRefused as exc:
        hint = _test_mode_hint() if livemode else ""
        raise _refuse(f"url {exc}; webhooks are sent to public addresses only.{hint}") from None
    except egress.EgressError:
        pass  # not resolvable now: checked again at every delivery attempt
    return url
