"""The reference's examples of the numbers endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example

from .models import CallerId, Number
from .serializers import CallerIdSerializer, NumberSerializer


def _number() -> Number:
    return Number(
        id="num_6Wd1Xk9QzH3mTb7LpR2cVn8S",
        livemode=True,
        created=EXAMPLE_TIME - timedelta(days=40),
        number="+442071838750",
        country="GB",
        type="local",
        voice=True,
        sms=True,
        messages_opt_in=False,
        status="active",
        label="London office",
        renews_at=EXAMPLE_TIME + timedelta(days=20),
    )


@response_example("list_numbers")
def numbers() -> dict:
    return list_example("/v1/numbers", NumberSerializer(_number()).data)


@response_example("retrieve_number")
def number() -> dict:
    return NumberSerializer(_number()).data


@response_example("list_caller_ids")
def caller_ids() -> dict:
    caller_id = CallerId(
        id="cid_2Bn7Yt4KqW9xLc1RmP6zVd3H",
        livemode=True,
        created=EXAMPLE_TIME - timedelta(days=90),
        number="+34612345678",
        country="ES",
        verified_at=EXAMPLE_TIME - timedelta(days=90),
        is_default=True,
    )
    return list_example("/v1/caller_ids", CallerIdSerializer(caller_id).data)
