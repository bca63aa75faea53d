"""The origin the docs tests serve the site at (BASE_URL, APP_URL)."""

ORIGIN = "http://testserver"

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
