"""The messages routes, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from tests.messages.factories import make_message, make_sms_number

MAX_STATEMENTS = 3


def examples(user) -> list[str]:
    number = make_sms_number(user, "+442071838799")
    message = make_message(number, "Your code is 1234")
    off = make_sms_number(user, "+442071838798", shared=False)
    off_message = make_message(off).id
    old = make_message(number, ago=7200).id
    return [
        "/v1/messages",
        f"/v1/messages?number={number.id}&limit=1",
        "/v1/messages?number=%2B442071838798",
        "/v1/messages?number=num_nope",
        "/v1/messages?created[gte]=1",
        "/v1/messages?from=%3Cx%3E",
        f"/v1/messages?starting_after={old}",
        f"/v1/messages?starting_after={message.id}",
        f"/v1/messages/{message.id}",
        f"/v1/messages/{off_message}",
        f"/v1/messages/{old}",
        "/v1/messages/msg_nope",
    ]
