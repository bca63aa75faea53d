"""The one way a page writes a phone number: as people read it, E.164 kept for copying.

``{{ number|phone }}`` shows the international form ("+44 20 7183 8750", readable in any
country), with the E.164 form in the title and ``data-e164`` and the national form, as
dialled at home, in the title too.
"""

import phonenumbers
from django import template
from django.utils.html import format_html

from apps.core.phones import readable

register = template.Library()


def national(number: str) -> str:
    try:
        parsed = phonenumbers.parse(number, None)
    except phonenumbers.NumberParseException:
        return ""
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.NATIONAL)


@register.filter
def phone(number: str | None) -> str:
    if not number:
        return ""
    at_home = national(number)
    title = f"{number} (at home: {at_home})" if at_home and at_home != readable(number) else number
    return format_html(
        '<span class="phone nowrap" data-e164="{}" title="{}">{}</span>', number, title, readable(number)
    )
