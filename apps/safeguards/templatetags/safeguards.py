"""``{% app_rules user client_id as rules %}``: a connected app's allowance and switch, for its entry
on Connected apps (the page is the OAuth app's; the rules are this app's)."""

from django import template

from ..rules import allowance_choices, rules_get, shown

register = template.Library()


@register.simple_tag
def app_rules(user, client_id: str) -> dict:
    rules = rules_get(user_id=user.pk, client_id=client_id)
    return {
        "rules": rules,
        "choices": [{"amount": amount, "display": shown(amount)} for amount in allowance_choices()],
    }
