"""What other apps may use of webhooks: publish an event, add a condition to a type, list a connection's endpoints,
and what the account's own Webhooks page reads and does.

The Connected apps page (apps/dashboard) lists each app's endpoints with
``endpoints_by_connection``; the authorization server itself imports nothing of webhooks.
The Webhooks page (apps/dashboard) lists the account's endpoints in both modes and their
recent deliveries with the ``*_for_account`` selectors (another account's id reads as
None), and acts through the same services as /v1: ``endpoint_rotate_secret``,
``redeliver`` and ``deliveries_resend_failed``.

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

from .delivery import FAILING_AFTER, JITTER, RETRY_DELAYS, TEST_MODE_RETRY_DELAYS, redeliver
from .events import EVENT_TYPES, register_gate
from .fanout import publish
from .inputs import DEFAULT_ROTATION_OVERLAP, MAX_ROTATION_OVERLAP
from .resend import RESEND_LIMIT, Resent, deliveries_resend_failed
from .selectors import (
    delivery_body,
    delivery_get_for_account,
    delivery_list_recent,
    endpoint_get_for_account,
    endpoint_list_for_account,
    endpoint_state,
    endpoints_by_connection,
    endpoints_of_connection,
)
from .services import endpoint_rotate_secret

__all__ = [
    "DEFAULT_ROTATION_OVERLAP",
    "EVENT_TYPES",
    "FAILING_AFTER",
    "JITTER",
    "MAX_ROTATION_OVERLAP",
    "RESEND_LIMIT",
    "RETRY_DELAYS",
    "TEST_MODE_RETRY_DELAYS",
    "Resent",
    "deliveries_resend_failed",
    "delivery_body",
    "delivery_get_for_account",
    "delivery_list_recent",
    "endpoint_get_for_account",
    "endpoint_list_for_account",
    "endpoint_rotate_secret",
    "endpoint_state",
    "endpoints_by_connection",
    "endpoints_of_connection",
    "publish",
    "redeliver",
    "register_gate",
]
