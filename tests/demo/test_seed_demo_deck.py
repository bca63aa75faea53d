"""seed_demo on a fresh database (an empty rate deck): it brings the demo deck, so calls go both ways."""

import pytest
from django.core.management import call_command

from apps.calls.models import Call
from apps.rates.models import Rate
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_seed_demo_on_an_empty_deck_makes_calls_in_both_directions():
    assert not Rate.objects.exists()
    user = UserFactory(email="demo@example.com")
    call_command("seed_demo", "--email", user.email)
    assert Rate.objects.count() > 1000
    live = Call.objects.filter(user=user, livemode=True)
    assert live.filter(direction="outbound").count() > 100 and live.filter(direction="inbound").count() > 50
