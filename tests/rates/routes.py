"""The rates route, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from tests.rates.factories import make_deck

MAX_STATEMENTS = 2


def examples(user) -> list[str]:
    make_deck()
    return [
        "/v1/rates?to=%2B4915112345678",
        "/v1/rates?to=Germany",
        "/v1/rates?to=Korea",
        "/v1/rates?to=",
        "/v1/rates",
        "/v1/rates?to=%2B8613812345678",
    ]
