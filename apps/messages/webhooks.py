"""``message.received`` for the account's webhook endpoints (docs/design.md "Webhooks").

An event is made when a message arrives on a number whose messages are shared (the
number's ``messages_opt_in`` and the account's message-reading switch, the rule of
``selectors.is_shared``), and the same rule is registered as the type's gate, so that
each delivery attempt asks again: a number switched off after its message arrived
sends nothing more. The payload is thin (id, object, number, created): never the
body or a code.
"""

from apps.webhooks.public import publish, register_gate

from . import selectors
from .serializers import message_data

EVENT_TYPE = "message.received"


def number_is_shared(*, user_id, livemode: bool, data: dict) -> bool:
    """The gate: the event's number shares its messages now (one query)."""
    return selectors.number_shares_messages(user_id=user_id, livemode=livemode, number_id=data.get("number"))


def register() -> None:
    register_gate(EVENT_TYPE, number_is_shared)


def publish_received(message) -> None:
    """The event of a message that just arrived, in the transaction that stores it; none for a number
    whose messages are not shared."""
    if selectors.number_shares_messages(
        user_id=message.user_id, livemode=message.livemode, number_id=message.number_id
    ):
        publish(message.user_id, EVENT_TYPE, message_data(message), livemode=message.livemode)
