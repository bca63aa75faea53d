"""The velocity caps count what a user's ordinary hour calls (docs/spec.md 8.5; docs/design.md "One writer of a
call's state"): 5 calls an hour to *that* number, 20 distinct destinations a day *including this one*,
checked at the quote and again at placing against the call being placed."""

import pytest

from apps.ratelimit.testing import clear_budgets
from tests.calls.callbacks import Placer, ready
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


@pytest.fixture
def placer(owner, clock):
    ready(owner, credit=100_000)
    return Placer(owner)


def number(n: int) -> str:
    return f"+1202555{1000 + n:04d}"  # "any other" numbers of the simulator: each answers as 0100


def call_and_end(placer, to, clock):
    clear_budgets()  # a day of calls in a few seconds: the request budgets are not what is tested
    placed = placer.quote_and_place(to)
    clock.tick(1)
    assert placer.end(placed["id"]).status_code == 200
    clock.tick(1)
    return placed


def test_six_calls_to_six_numbers_in_an_hour_are_all_placed(placer, clock):
    # The README's call plus four numbers of /docs/calls is five; the sixth, to a number never
    # called, is an ordinary hour's call, not a sixth call to one number.
    for n in range(5):
        call_and_end(placer, number(n), clock)
    quote = placer.quote(number(5))
    assert quote.status_code == 201, quote.content
    placed = placer.place(quote.json()["id"])
    assert placed.status_code == 201, placed.content


def test_a_sixth_call_to_one_number_in_an_hour_is_refused_at_placing(placer, clock):
    target = number(0)
    for _ in range(4):
        call_and_end(placer, target, clock)
    # Two quotes made under the cap (4 calls so far); the first placed makes 5, the second is refused.
    first, second = placer.quote(target).json(), placer.quote(target).json()
    placed = placer.place(first["id"])
    assert placed.status_code == 201, placed.content
    clock.tick(1)
    placer.end(placed.json()["id"])
    refused = placer.place(second["id"])
    assert_error(refused, 403, "spend_limit_exceeded")
    assert "At most 5 calls an hour may be placed to +1 202-555-1000" in refused.json()["error"]["message"]
    # Another number is not held back by it.
    assert placer.place(placer.quote(number(1)).json()["id"]).status_code == 201


def test_the_per_number_cap_frees_up_an_hour_after_the_first(placer, clock):
    target = number(0)
    for _ in range(5):
        call_and_end(placer, target, clock)
    assert_error(placer.quote(target), 403, "spend_limit_exceeded")
    clock.tick(3600)
    assert placer.quote(target).status_code == 201


def test_the_twentieth_destination_of_a_day_is_the_last(placer, clock, settings):
    # Eighteen destinations placed; three quotes to three new numbers are each under the cap
    # when made; placing them makes 19 and 20; the third placement would be the 21st.
    for n in range(18):
        call_and_end(placer, number(n), clock)
    quotes = [placer.quote(number(18 + i)) for i in range(3)]
    assert [q.status_code for q in quotes] == [201, 201, 201]
    for quote in quotes[:2]:
        placed = placer.place(quote.json()["id"])
        assert placed.status_code == 201, placed.content
        clock.tick(1)
        placer.end(placed.json()["id"])
    refused = placer.place(quotes[2].json()["id"])
    assert_error(refused, 403, "spend_limit_exceeded")
    assert f"at most {settings.CALL_DESTINATIONS_DAILY} different numbers a day" in refused.json()["error"]["message"]
    # A number already called today is not a new destination.
    again = placer.quote(number(3))
    assert again.status_code == 201
    assert placer.place(again.json()["id"]).status_code == 201
