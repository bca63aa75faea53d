"""The reference's examples of the messages endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Message
from .serializers import MessageSerializer

BODY = "Your Example code is 747723.\n\n@example.com #747723"
# The numbers reference's example number (apps/numbers/examples.py), and who texted it.
NUMBER_ID = "num_6Wd1Xk9QzH3mTb7LpR2cVn8S"
NUMBER = "+442071838750"
SENDER = "+12025550150"


def _message(livemode: bool = True) -> Message:
    return Message(
        id="msg_4Kd8Wq2ZxN7bRt1LmY5cVp3H",
        livemode=livemode,
        created=EXAMPLE_TIME - timedelta(minutes=2),
        number_id=NUMBER_ID,
        to_number=NUMBER,
        from_sender=SENDER,
        body=BODY,
        num_segments=1,
        code="747723",
        code_domain="example.com",
    )


@response_example("list_messages", query={"number": NUMBER_ID})
def messages() -> dict:
    return list_example("/v1/messages", MessageSerializer(_message()).data)


@response_example("retrieve_message")
def message() -> dict:
    return MessageSerializer(_message()).data


@response_example(
    "test_helpers_deliver_message",
    body={"number": NUMBER_ID, "from": SENDER, "body": BODY},
)
def delivered() -> dict:
    return MessageSerializer(_message(livemode=False)).data
