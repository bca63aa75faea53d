"""What other apps may use of webhooks: publish an event, add a condition to a type, list a connection's endpoints.

The Connected apps page (apps/dashboard) lists each app's endpoints with
``endpoints_by_connection``; the authorization server itself imports nothing of webhooks.

A resource app publishes in its own transaction, so an event exists exactly when
the change that causes it commits::

    from apps.webhooks.public import publish

    with transaction.atomic():
        call.save()
        publish(principal_or_user, "call.ended", CallSerializer(call).data, livemode=call.livemode)

``publish(owner, type, obj, *, livemode=None, now=None) -> Event``: ``owner`` is a
Principal (its user and mode are used) or a user or user id (then ``livemode`` is
required). Thin types (``message.*``, ``transcript.*``) keep only their listed
fields, whatever ``obj`` holds.
"""

from .delivery import FAILING_AFTER, JITTER, RETRY_DELAYS, TEST_MODE_RETRY_DELAYS
from .events import EVENT_TYPES, register_gate
from .fanout import publish
from .selectors import endpoints_by_connection, endpoints_of_connection

__all__ = [
    "EVENT_TYPES",
    "FAILING_AFTER",
    "JITTER",
    "RETRY_DELAYS",
    "TEST_MODE_RETRY_DELAYS",
    "endpoints_by_connection",
    "endpoints_of_connection",
    "publish",
    "register_gate",
]
