"""The deck in the admin: searchable by prefix and country, read-only (the CSV import changes it)."""

import pytest
from django.contrib.admin.sites import site

from apps.rates.models import Rate

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/rates/rate/"


def test_search_by_prefix_and_by_country(deck, admin_client):
    by_prefix = admin_client.get(CHANGELIST, {"q": "4915"})
    assert by_prefix.status_code == 200
    assert list(by_prefix.context["cl"].result_list.values_list("prefix", flat=True)) == ["4915", "49151"]
    by_country = admin_client.get(CHANGELIST, {"q": "FR"})
    assert set(by_country.context["cl"].result_list.values_list("prefix", flat=True)) == {"33", "336"}


def test_a_rate_can_be_viewed(deck, admin_client):
    assert admin_client.get(f"{CHANGELIST}4915/change/").status_code == 200


def test_no_one_may_add_change_or_delete(deck, rf, admin_user):
    request = rf.get("/admin/")
    request.user = admin_user
    rate_admin = site._registry[Rate]
    rate = Rate.objects.get(prefix="49")
    assert rate_admin.has_view_permission(request, rate)
    assert not rate_admin.has_add_permission(request)
    assert not rate_admin.has_change_permission(request, rate)
    assert not rate_admin.has_delete_permission(request, rate)
