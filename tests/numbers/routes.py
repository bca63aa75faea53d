"""The numbers routes, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from tests.numbers.factories import make_caller_id, make_number

MAX_STATEMENTS = 3


def examples(user) -> list[str]:
    number = make_number(user).id
    caller_id = make_caller_id(user, default=True).id
    return [
        "/v1/numbers",
        "/v1/numbers?limit=1",
        "/v1/numbers?limit=0",
        f"/v1/numbers/{number}",
        "/v1/numbers/num_nope",
        "/v1/caller_ids",
        "/v1/caller_ids?limit=0",
        f"/v1/caller_ids?starting_after={caller_id}",
    ]
