"""Shared pieces of the sign-in and password-reset throttling tests."""

import re

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
