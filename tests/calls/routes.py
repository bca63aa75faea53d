"""The calls routes, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from tests.calls.factories import CallFactory, TranscriptFactory, make_contact

MAX_STATEMENTS = 3


def examples(user) -> list[str]:
    contact = make_contact(user)
    calls = [CallFactory(user=user, contact_id=contact.id) for _ in range(4)]
    TranscriptFactory(call=calls[0])
    call = calls[1].id
    return [
        "/v1/calls",
        "/v1/calls?format=api",
        "/v1/calls?limit=1&direction=outbound",
        "/v1/calls?direction=sideways",
        "/v1/calls?expand[]=contact",
        "/v1/calls?expand[]=transcript",
        "/v1/calls?expand[]=everything",
        f"/v1/calls?starting_after={call}",
        f"/v1/calls/{call}",
        f"/v1/calls/{call}?expand[]=transcript&expand[]=contact",
        "/v1/calls/call_nope",
    ]
