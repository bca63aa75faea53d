"""seed_demo's messages (docs/design.md, Phase 3): "messages in both modes on the account's first SMS-capable
number (a few in the last hour, more over the last days, codes among them) and leaves every sharing
switch off. A phone number belongs to one account in each mode: seed_demo draws numbers that no other
account holds"."""

from datetime import UTC, datetime, timedelta

import pytest

from apps.accounts.selectors import sharing_get
from apps.demo.services import demo_seed
from apps.messages.models import Message
from apps.numbers.models import Number
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def test_both_modes_get_messages_on_the_first_sms_number_with_codes(user):
    demo_seed(user=user, now=NOW)
    for livemode in (True, False):
        first = Number.objects.filter(user=user, livemode=livemode, sms=True).order_by("created").first()
        messages = list(Message.objects.filter(user=user, livemode=livemode).order_by("-created"))
        assert messages and {m.number_id for m in messages} == {first.id}
        assert all(m.to_number == first.number for m in messages)
        recent = [m for m in messages if m.created >= NOW - timedelta(hours=1)]
        older = [m for m in messages if m.created < NOW - timedelta(hours=2)]
        assert 1 <= len(recent) <= 5 and len(older) > len(recent)
        assert messages[0].code  # the newest carries a code
        assert any(m.code and m.code_domain for m in messages) or livemode is False
        assert any(not m.code for m in messages)
    assert (
        Message.objects.filter(user=user, livemode=True).count()
        > Message.objects.filter(user=user, livemode=False).count()
    )
    # Every switch left off.
    assert not Number.objects.filter(user=user, messages_opt_in=True).exists()
    assert sharing_get(user=user).message_reading is False


def test_seeding_again_replaces_the_messages(user):
    demo_seed(user=user, now=NOW)
    count = Message.objects.count()
    demo_seed(user=user, now=NOW)
    assert Message.objects.count() == count


def test_two_accounts_seeded_alike_hold_different_numbers(user):
    other = UserFactory()
    demo_seed(user=user, now=NOW)
    demo_seed(user=other, now=NOW)
    for livemode in (True, False):
        mine = set(Number.objects.filter(user=user, livemode=livemode).values_list("number", flat=True))
        theirs = set(Number.objects.filter(user=other, livemode=livemode).values_list("number", flat=True))
        assert mine and theirs and not mine & theirs
