"""The transcript expansion answers alike on the fast path and through DRF's cycle, switch on and off."""

import pytest

from apps.accounts.models import SharingSettings
from apps.credentials.scopes import ALL_SCOPES
from tests.calls.routes import examples
from tests.support.factories import make_api_key
from tests.support.fast_path import alike

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("summaries", [True, False])
def test_the_transcript_expansion_follows_the_switch_on_both_paths(user, summaries):
    SharingSettings.objects.update_or_create(user=user, defaults={"call_summaries": summaries})
    _key, secret = make_api_key(user, scopes=sorted(ALL_SCOPES))
    statuses = {path: alike(path, secret)[0] for path in examples(user)}
    # The transcript expansion is refused while the account's call summaries switch is off.
    assert (statuses["/v1/calls?expand[]=transcript"] == 403) is not summaries
