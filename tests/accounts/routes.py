"""GET /v1/me, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

MAX_STATEMENTS = 0


def examples(user) -> list[str]:
    return [
        "/v1/me",
        "/v1/me?unknown=1",
        "/v1/me?format=json",
        "/v1/me?format=xml",
        "/v1/me?access_token=sk_live_in_the_url",
    ]
