"""Shared pieces of the sign-in and password-reset throttling tests."""

import re

from apps.ratelimit.stores.base import Store, StoreUnavailable


class Clock:
    """A hand-driven clock in seconds, for the in-process store."""

    def __init__(self, now: float = 1_800_000_000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class DownStore(Store):
    """A limiter store that cannot be reached."""

    def evaluate(self, checks, *, now_ms=None):
        raise StoreUnavailable("connection refused")

    def clear(self):
        raise StoreUnavailable("connection refused")


CSRF_INPUT = re.compile(r'<input type="hidden" name="csrfmiddlewaretoken" value="[^"]*">')


def page_text(response, *, hide: str = "") -> str:
    """The page as text, without its CSRF token (random per client) and with ``hide`` blanked."""
    text = CSRF_INPUT.sub("", response.content.decode())
    return text.replace(hide, "EMAIL") if hide else text


def assert_refused_page(response, status: int) -> str:
    """An HTML page (never JSON, never a stack trace) with the status and a Retry-After."""
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"].startswith("text/html")
    assert int(response["Retry-After"]) >= 1
    text = response.content.decode()
    assert "Traceback" not in text
    return text
