"""``{{ endpoint.url|breakable }}``, ``{{ type|breakable:"." }}``: a long URL or event name that may
wrap only at its joints.

A URL has no spaces, so a narrow screen would otherwise break it at any letter (or not at
all, and widen the page). A ``<wbr>`` after each separator (``/ . ? & = _ # -``) offers the
places a reader expects instead; a piece too long for the line on its own still breaks
(the page's ``overflow-wrap: break-word``, which never narrows a column below its pieces), as the
last resort.
"""

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

register = template.Library()

URL_JOINTS = "/.?&=_#-"


@register.filter
def breakable(value, joints: str = URL_JOINTS) -> str:
    """``joints``: the characters a line may break after; an event name's is ``"."`` alone
    (``call.<wbr>ringing_you``), since a break inside ``ringing_you`` reads as two words."""
    joint = re.compile(f"(?<=[{re.escape(joints)}])(?![{re.escape(joints)}])")
    # Split before escaping: an entity's own "&" or "#" is not a joint.
    return mark_safe("<wbr>".join(escape(piece) for piece in joint.split(str(value))))  # noqa: S308  each piece escaped
