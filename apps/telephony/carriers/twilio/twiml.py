"""The TwiML of a callback call, written with the ``twilio`` package's builder.

Your phone hears a prompt inside ``<Gather numDigits="1">``; the gather's action answers
``1`` with ``<Dial callerId=...>`` to the callee (recording from the answer when asked, the
quote's ``max_duration`` as ``timeLimit``), and anything else with a goodbye.
"""

from twilio.twiml.messaging_response import MessagingResponse
from twilio.twiml.voice_response import VoiceResponse

from apps.core.phones import readable

from .conf import CALLEE_RING_SECONDS, PRESS_1_SECONDS

LEG_EVENTS = "initiated ringing answered completed"


def prompt(*, callee_name: str, to: str, gather_url: str) -> str:
    """What your phone says when you answer: press 1 to connect to the callee, named where known."""
    response = VoiceResponse()
    who = callee_name or readable(to)
    gather = response.gather(
        num_digits=1, timeout=PRESS_1_SECONDS, action=gather_url, method="POST", action_on_empty_result=True
    )
    gather.say(f"Press 1 to connect your call to {who}.")
    return str(response)


def dial(*, to: str, caller_id: str, time_limit: int, record: bool, dial_url: str, leg_url: str) -> str:
    """Connect your phone to the callee, showing ``caller_id``, for at most ``time_limit`` seconds."""
    response = VoiceResponse()
    options = {"record": "record-from-answer"} if record else {}
    dialing = response.dial(
        caller_id=caller_id,
        time_limit=time_limit,
        timeout=CALLEE_RING_SECONDS,
        action=dial_url,
        method="POST",
        **options,
    )
    dialing.number(to, status_callback=leg_url, status_callback_event=LEG_EVENTS, status_callback_method="POST")
    return str(response)


def goodbye(text: str = "") -> str:
    response = VoiceResponse()
    if text:
        response.say(text)
    response.hangup()
    return str(response)


def no_reply() -> str:
    """An inbound SMS is stored, never answered."""
    return str(MessagingResponse())
