from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def breakable(value) -> str:
    """A snake_case or dotted name (an error code, an event type) that may wrap after its underscores and
    dots, and nowhere else."""
    return mark_safe(conditional_escape(value).replace("_", "_<wbr>").replace(".", ".<wbr>"))  # noqa: S308  escaped just above
