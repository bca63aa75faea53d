"""The docs pages in Debian's headless Chromium at a phone's width (375 px) and a laptop's
(1280 px): the document is never wider than the viewport, every visible link lies on screen,
the API reference renders from the shipped bundle, and nothing is fetched from another origin."""

import pytest

from tests.browser import by_width, chromium_page
from tests.support.docs import LAYOUT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = ("", "/errors", "/oauth", "/mcp", "/versions", "/calls", "/webhooks", "/security", "/api")


@by_width
def test_docs_pages_fit_the_screen_and_load_nothing_from_elsewhere(service, settings, width):
    settings.DOCS_URL = f"{service}/docs"
    # What the browser actually fetched: a request the page's Content-Security-Policy blocks
    # (the Redoc bundle asks for its logo on a CDN) never gets a response.
    fetched: list[str] = []
    # What the page asked for, fetched or not (a request the page's Content-Security-Policy
    # refuses is still asked, and is a console error).
    asked: list[str] = []
    errors: list[str] = []
    with chromium_page(width) as page:
        page.on("response", lambda response: fetched.append(response.url))
        page.on("request", lambda request: asked.append(request.url))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        for path in PAGES:
            page.goto(f"{service}/docs{path}")
            if path == "/api":
                # Redoc has drawn the document: its title and the /v1/me operation.
                page.wait_for_selector("#reference h1", timeout=30000)
                page.get_by_text("/v1/me").first.wait_for(timeout=30000)
                # The document's response examples and curl samples are what Redoc shows.
                shown = page.evaluate("() => document.getElementById('reference').innerText")
                assert "usr_4f9Kq2ZbW7xLmN3pR8sT1vYc" in shown  # GET /v1/me's example
                assert "--data-urlencode" in shown and "Authorization: Bearer $KEY" in shown
            layout = page.evaluate(LAYOUT)
            where = f"/docs{path} at {width}px"
            assert layout["scrollWidth"] <= width, f"{where}: document {layout['scrollWidth']}px wide"
            assert layout["bodyWidth"] <= width, f"{where}: body {layout['bodyWidth']}px wide"
            assert not layout["outside"], f"{where}: off screen: {layout['outside']}"
        # The site's icon, decoded by the browser itself.
        icon = page.evaluate(
            """async (url) => { const img = new Image(); img.src = url; await img.decode();
               return [img.naturalWidth, img.naturalHeight]; }""",
            f"{service}/favicon.ico",
        )
        assert icon == [32, 32]
    local = (service, "data:", "blob:", "about:")
    foreign = [url for url in fetched + asked if not url.startswith(local)]
    assert not foreign, foreign
    assert not errors, errors
