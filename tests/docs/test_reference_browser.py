"""The API reference (/docs/api) in Debian's headless Chromium at a phone's width (375 px) and a
laptop's (1280 px): the site's own styles leave Redoc alone, so each curl sample is legible, its
first line starts inside its box, the sidebar's search box lies inside the sidebar, and the first
section is the one a new key can call."""

import pytest

from tests.browser import by_width, chromium_page
from tests.browser_pages import LAYOUT
from tests.support.docs import LAYOUT as DOCS_LAYOUT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# For each curl sample: its text colour and the colour behind it (the first opaque background up
# the tree), and where its first character sits against the box it scrolls in.
SAMPLES = """() => {
  const rgb = (text) => text.match(/[\\d.]+/g).map(Number);
  const behind = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return [...document.querySelectorAll('#reference pre')]
    .filter((pre) => pre.textContent.trimStart().startsWith('curl') && pre.checkVisibility())
    .map((pre) => {
      const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
      let node = walker.nextNode();
      while (node && !node.textContent.trim()) node = walker.nextNode();
      const range = document.createRange();
      const start = node.textContent.indexOf('c');
      range.setStart(node, start);
      range.setEnd(node, start + 1);
      const first = range.getBoundingClientRect();
      const box = pre.getBoundingClientRect();
      return {text: rgb(getComputedStyle(node.parentElement).color).slice(0, 3), background: behind(node.parentElement),
              firstLeft: first.left, boxLeft: box.left, scrollLeft: pre.scrollLeft};
    });
}"""


def luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@by_width
def test_the_reference_is_legible_and_fits(service, settings, width):
    settings.DOCS_URL = f"{service}/docs"
    with chromium_page(width) as page:
        page.goto(f"{service}/docs/api")
        page.wait_for_selector("#reference h1", timeout=30000)
        page.get_by_text("/v1/me").first.wait_for(timeout=30000)

        # The first section after the introduction is /v1/me's, not the dashboard's session-only keys.
        sections = page.eval_on_selector_all(
            "#reference [data-section-id^='tag/']",
            "els => els.map((el) => el.dataset.sectionId).filter((id) => !id.includes('/operation/'))",
        )
        assert sections[0] == "tag/me", sections
        assert sections[-1] == "tag/API-keys-(dashboard-session)", sections

        samples = page.evaluate(SAMPLES)
        assert len(samples) >= 10
        for sample in samples:
            ratio = contrast(sample["text"], sample["background"])
            assert ratio >= 4.5, f"curl sample {sample['text']} on {sample['background']}: {ratio:.1f}:1"
            assert sample["scrollLeft"] == 0
            assert sample["firstLeft"] >= sample["boxLeft"] - 0.5, sample  # "curl", not "url"

        if width >= 1280:
            # The sidebar shows beside the document; its search box lies inside it.
            menu = page.locator("#reference .menu-content")
            search = page.locator("#reference .menu-content input")
            box, field = menu.bounding_box(), search.bounding_box()
            assert field["x"] >= box["x"] and field["x"] + field["width"] <= box["x"] + box["width"], (box, field)
        # The layout check, but a control may sit past the edge inside a box that scrolls sideways
        # on its own (Redoc's JSON samples), as on every docs page.
        layout, docs_layout = page.evaluate(LAYOUT), page.evaluate(DOCS_LAYOUT)
        assert layout["scrollWidth"] <= width and layout["bodyScrollWidth"] <= width, layout
        assert not layout["outsideCard"], layout["outsideCard"]
        assert not docs_layout["outside"], docs_layout["outside"]
