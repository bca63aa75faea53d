"""The reference's examples of the messages endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import Message
from .serializers import MessageSerializer

BODY = "Your Example code is 747723.\n\n@example.com #747723"


def _message(livemode: bool = True) -> Message:
    return Message(
        id="msg_4Kd8Wq2ZxN7bRt1LmY5cVp3H",
        livemode=livemode,
        created=EXAMPLE_TIME - timedelta(minutes=2),
        number_id="num_6Wd1Xk9QzH3mTb7LpR2cVn8S",
        to_number="+442071838750",
        from_sender="+12025550150",
        body=BODY,
        num_segments=1,
        code="747723",
        code_domain="example.com",
    )


@response_example("list_messages", query={"number": "num_6Wd1Xk9QzH3mTb7LpR2cVn8S"})
def messages() -> dict:
    return list_example("/v1/messages", MessageSerializer(_message()).data)


@response_example("retrieve_message")
def message() -> dict:
    return MessageSerializer(_message()).data


@response_example(
    "test_helpers_deliver_message",
    body={"number": "num_6Wd1Xk9QzH3mTb7LpR2cVn8S", "from": "+12025550150", "body": BODY},
)
def delivered() -> dict:
    return MessageSerializer(_message(livemode=False)).data
