from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from apps.oauth.models import ConsentTransaction, Grant
from tests.support.oauth import exchange, get_code, make_client, pkce, signed_in, start

pytestmark = pytest.mark.django_db


def test_purges_only_what_is_a_day_past_expiry(user):
    app = make_client()
    browser = signed_in(user)
    verifier, challenge = pkce()
    code = get_code(browser, app, challenge)
    fresh_txn = start(browser, app, challenge)
    assert exchange(Client(), app, code, verifier).status_code == 200
    old = timezone.now() - timedelta(days=1, seconds=1)
    stale_txn = start(browser, app, challenge)
    ConsentTransaction.objects.filter(pk=stale_txn).update(expires_at=old)

    out = StringIO()
    call_command("purge_oauth_stale", stdout=out)
    assert "Deleted 1 consent transaction(s) and 0 code(s)." in out.getvalue()
    assert ConsentTransaction.objects.filter(pk=fresh_txn).exists()
    # the used code is kept (reuse detection) until it is a day past expiry
    assert Grant.objects.count() == 1
    Grant.objects.update(expires=old)
    call_command("purge_oauth_stale", stdout=StringIO())
    assert Grant.objects.count() == 0
