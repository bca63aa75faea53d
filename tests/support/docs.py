"""Pieces of the docs tests: the origin they serve the site at (BASE_URL, APP_URL), a page's
HTML and words, the README's sections, and the docs pages' layout check."""

import re
from pathlib import Path

ORIGIN = "http://testserver"
ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def page(client, path: str) -> str:
    """The HTML of a page that answers 200."""
    response = client.get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"].startswith("text/html")
    return response.content.decode()


def text(html: str) -> str:
    """The words of ``html``, its tags and runs of white space each one space."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def section(title: str) -> str:
    """The README's section ``## title``, up to the next one."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", README, re.M | re.S)
    assert match, f"README has no section {title!r}"
    return match.group(1)


# What the docs pages' layout check reads: the document's width against the viewport's, and every visible
# link or button that lies off screen outside a box that scrolls sideways on its own (a code sample).
LAYOUT = """() => {
  const width = window.innerWidth;
  const outside = [];
  for (const el of document.querySelectorAll('a[href], button, summary')) {
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    // Inside a box that scrolls sideways on its own (a code sample), a control may sit past the edge.
    let scroller = el.parentElement;
    while (scroller && getComputedStyle(scroller).overflowX === 'visible') scroller = scroller.parentElement;
    if (scroller && scroller !== document.body && scroller !== document.documentElement) continue;
    const r = el.getBoundingClientRect();
    if (r.width && (r.left < -0.5 || r.right > width + 0.5)) {
      const label = el.textContent.trim().slice(0, 40);
      outside.push(`${el.tagName.toLowerCase()} "${label}" ${Math.round(r.left)}..${Math.round(r.right)}`);
    }
  }
  return {scrollWidth: document.documentElement.scrollWidth, bodyWidth: document.body.scrollWidth,
          innerWidth: width, outside: outside};
}"""
