"""``{{ endpoint.url|breakable }}``: a long URL or event name that may wrap only at its joints.

A URL has no spaces, so a narrow screen would otherwise break it at any letter (or not at
all, and widen the page). A ``<wbr>`` after each separator (``/ . ? & = _ #``) offers the
places a reader expects instead; a piece too long for the line on its own still breaks
(the page's ``overflow-wrap``), as the last resort.
"""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

_JOINT = re.compile(r"(?<=[/.?&=_#])(?![/.?&=_#])")


@register.filter
def breakable(value) -> str:
    # Split before escaping: an entity's own "&" or "#" is not a joint.
    return mark_safe("<wbr>".join(escape(piece) for piece in _JOINT.split(str(value))))  # noqa: S308  each piece escaped
