"""`manage.py purge_registrations` (docs/spec.md 4.3, 8.5).

Self-registered clients never used for 30 days are deleted.
"""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from apps.core.ids import new_id
from apps.oauth.models import AccessToken, Application, RefreshToken
from tests.support import oauth

pytestmark = pytest.mark.django_db


def make_client(*, age_days, source=Application.RegistrationSource.DCR, last_used_at=None, client_id=None):
    client = oauth.make_client(
        client_id=client_id or new_id("dcr_"),
        name="c",
        redirect_uris="https://c.example/cb",
        registration_source=source,
        last_used_at=last_used_at,
    )
    Application.objects.filter(pk=client.pk).update(created=timezone.now() - timedelta(days=age_days))
    return client


def purge(*args):
    out = StringIO()
    call_command("purge_registrations", *args, stdout=out)
    return out.getvalue()


def exists(client):
    return Application.objects.filter(pk=client.pk).exists()


def test_deletes_never_used_registrations_older_than_30_days():
    old = make_client(age_days=31)
    assert purge() == "Deleted 1 unused registration(s).\n"
    assert not exists(old)


def test_keeps_registrations_within_30_days():
    recent = make_client(age_days=29)
    assert purge() == "Deleted 0 unused registration(s).\n"
    assert exists(recent)


def test_keeps_used_registrations_however_old():
    used = make_client(age_days=200, last_used_at=timezone.now() - timedelta(days=100))
    purge()
    assert exists(used)


def test_keeps_clients_that_hold_tokens_even_without_a_stamp(user):
    with_access = make_client(age_days=60)
    with_refresh = make_client(age_days=60)
    AccessToken.objects.create(
        application=with_access, user=user, token_checksum="a" * 64, expires=timezone.now(), scope="rates:read"
    )
    RefreshToken.objects.create(application=with_refresh, user=user, token_checksum="b" * 64)
    purge()
    assert exists(with_access) and exists(with_refresh)


def test_only_self_registered_clients_are_purged():
    by_url = make_client(
        age_days=90, source=Application.RegistrationSource.CIMD, client_id="https://c.example/client.json"
    )
    manual = make_client(age_days=90, source=Application.RegistrationSource.MANUAL, client_id="partner-app")
    purge()
    assert exists(by_url) and exists(manual)


def test_dry_run_counts_without_deleting():
    old = make_client(age_days=45)
    assert purge("--dry-run") == "Would delete 1 unused registration(s).\n"
    assert exists(old)
