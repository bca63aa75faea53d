"""The docs pages' text in Debian's headless Chromium at a phone's width (375 px) and a laptop's (1280 px), with
the layout check: the first request's curl sample on /docs fits without scrolling sideways, and the event
types on /docs/webhooks wrap only after a dot or an underscore, never mid-word."""

import pytest

from tests.browser import by_width, chromium_page
from tests.browser_pages import assert_fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Each line break inside the event-type cells, as the character before it: the rendered lines are told
# apart by the top of each character's box.
BREAKS = """() => {
  const found = [];
  for (const code of document.querySelectorAll('table.event-types td:first-child code')) {
    const text = code.textContent;
    let top = null;
    let offset = 0;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.textContent.length; i++, offset++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (top !== null && box.top > top + 1) found.push([text, text[offset - 1]]);
        top = box.top;
      }
    }
  }
  return found;
}"""


@by_width
def test_the_curl_sample_fits_and_event_types_break_between_words(service, settings, width):
    settings.DOCS_URL = f"{service}/docs"
    with chromium_page(width) as page:
        page.goto(f"{service}/docs")
        sample = page.locator("#api-keys ~ pre").first
        assert "Authorization: Bearer $KEY" in sample.inner_text()
        assert sample.evaluate("el => el.scrollWidth <= el.clientWidth"), "the curl sample scrolls sideways"
        assert_fits(page, f"/docs at {width}px")

        page.goto(f"{service}/docs/webhooks")
        assert page.locator("table.event-types td:first-child code").count() >= 5
        breaks = page.evaluate(BREAKS)
        assert all(before in "._" for _name, before in breaks), breaks
        assert_fits(page, f"/docs/webhooks at {width}px")
