"""manage.py sim_caller_id: the simulator's magic numbers for your own phone (+1 202 555 0190 to 0192, on
/docs/calls) become the account's default caller ID, so a quote rings that phone first and a callback
call plays what the number does; another of the account's caller IDs can be made the default again."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from apps.numbers.models import CallerId
from apps.telephony import simulator
from tests.calls.callbacks import CALLEE, YOUR_PHONE, Placer, ready

pytestmark = pytest.mark.django_db


def sim_caller_id(*args) -> str:
    out = StringIO()
    call_command("sim_caller_id", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("behaviour", simulator.YOUR_NUMBERS, ids=lambda b: b.number)
def test_each_magic_number_becomes_the_number_a_quote_rings(user, behaviour):
    ready(user)
    said = sim_caller_id("--email", user.email, "--number", behaviour.number)
    assert behaviour.says in said and "default caller ID" in said
    quote = Placer(user).quote(CALLEE).json()
    assert quote["your_number"] == behaviour.number
    # The previous default stays, and the command says how to go back to it.
    assert CallerId.objects.filter(user=user, number=YOUR_PHONE, is_default=False).exists()
    assert f"--number {YOUR_PHONE}" in said
    sim_caller_id("--email", user.email, "--number", YOUR_PHONE)
    assert Placer(user).quote(CALLEE).json()["your_number"] == YOUR_PHONE


def test_a_number_written_as_people_do_and_run_twice_makes_one_row(user):
    sim_caller_id("--email", user.email, "--number", "+1 202 555 0191", "--test")
    sim_caller_id("--email", user.email, "--number", "+12025550191", "--test")
    rows = CallerId.objects.filter(user=user, livemode=False)
    assert [(row.number, row.is_default) for row in rows] == [("+12025550191", True)]


@pytest.mark.parametrize(
    "args",
    [
        ["--email", "nobody@example.com", "--number", "+12025550190"],
        ["--email", "ada@example.com", "--number", "+12025550199"],  # neither magic nor the account's
        ["--email", "ada@example.com", "--number", "202 555 0190"],
    ],
)
def test_refusals_change_nothing(user, args):
    with pytest.raises(CommandError):
        sim_caller_id(*args)
    assert not CallerId.objects.exists()


def test_live_mode_on_a_real_carrier_is_refused(user, settings):
    settings.TELEPHONY_CARRIER = "twilio"
    with pytest.raises(CommandError, match="--test"):
        sim_caller_id("--email", user.email, "--number", "+12025550190")
    assert not CallerId.objects.exists()
