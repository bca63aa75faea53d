"""``{% with_webhook_endpoints user entries as rows %}``: the Connected apps page's entries, each
with the webhook endpoints that app created.

A template library, so that the page's view (apps.oauth, the authorization server) imports nothing
of webhooks: webhooks reaches /v1, which the authorization server never imports (.importlinter).
One query for every app on the page, whatever their number.
"""

from django import template

from ..selectors import endpoints_by_connection

register = template.Library()


@register.simple_tag
def with_webhook_endpoints(user, entries):
    """``entries`` are (connection, recent actions) pairs; returns (connection, recent actions, endpoints)."""
    entries = list(entries)
    found = endpoints_by_connection(user_id=user.pk, client_ids=[connection.client_id for connection, _ in entries])
    return [(connection, recent, found.get(connection.client_id, [])) for connection, recent in entries]
