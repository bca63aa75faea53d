"""The ledger in the admin: read-only rows (no change, no delete); a correction is a new adjustment row,
appended by the same service as every other row."""

import pytest
from django.contrib.admin.sites import site
from django.contrib.admin.utils import quote

from apps.billing.models import Balance, BalanceTransaction
from tests.billing.factories import append, chain_holds, ledger

pytestmark = pytest.mark.django_db

TXN_ADMIN = "/admin/billing/balancetransaction/"
BALANCE_ADMIN = "/admin/billing/balance/"


@pytest.fixture
def superuser_request(rf, admin_user):
    request = rf.get("/admin/")
    request.user = admin_user
    return request


def test_no_one_may_change_or_delete_a_ledger_row(user, superuser_request):
    row = append(user)
    txn_admin = site._registry[BalanceTransaction]
    assert txn_admin.has_view_permission(superuser_request, row)
    assert not txn_admin.has_change_permission(superuser_request, row)
    assert not txn_admin.has_delete_permission(superuser_request, row)
    assert not txn_admin.has_change_permission(superuser_request)
    assert not txn_admin.has_delete_permission(superuser_request)
    assert "delete_selected" not in txn_admin.get_actions(superuser_request)


def test_no_one_may_add_change_or_delete_a_balance(user, superuser_request):
    append(user)
    balance_admin = site._registry[Balance]
    balance = Balance.objects.get(user=user)
    assert balance_admin.has_view_permission(superuser_request, balance)
    for check in (balance_admin.has_change_permission, balance_admin.has_delete_permission):
        assert not check(superuser_request, balance)
    assert not balance_admin.has_add_permission(superuser_request)


def test_the_lists_and_a_row_are_viewable(user, admin_client):
    rows = ledger(user, ["top_up", "call", "refund"])
    assert admin_client.get(TXN_ADMIN).status_code == 200
    assert admin_client.get(TXN_ADMIN, {"q": user.email}).status_code == 200
    assert admin_client.get(TXN_ADMIN, {"type__exact": "call", "livemode__exact": "1"}).status_code == 200
    assert admin_client.get(BALANCE_ADMIN).status_code == 200
    page = admin_client.get(f"{TXN_ADMIN}{quote(rows[1].pk)}/change/")
    assert page.status_code == 200
    assert b'name="_save"' not in page.content  # a view, not a form


def test_posting_to_a_rows_page_changes_nothing(user, admin_client):
    row = append(user)
    before = BalanceTransaction.objects.get(pk=row.pk).__dict__.copy()
    response = admin_client.post(f"{TXN_ADMIN}{quote(row.pk)}/change/", {"amount": "999999", "description": "x"})
    assert response.status_code == 403
    after = BalanceTransaction.objects.get(pk=row.pk).__dict__
    assert {k: v for k, v in after.items() if k != "_state"} == {k: v for k, v in before.items() if k != "_state"}


def test_deleting_a_row_is_refused(user, admin_client):
    row = append(user)
    assert admin_client.post(f"{TXN_ADMIN}{quote(row.pk)}/delete/", {"post": "yes"}).status_code == 403
    response = admin_client.post(TXN_ADMIN, {"action": "delete_selected", "_selected_action": [row.pk], "post": "yes"})
    assert response.status_code in (200, 302)
    assert BalanceTransaction.objects.filter(pk=row.pk).exists()


def test_an_adjustment_is_appended_through_the_service(user, admin_client):
    ledger(user, ["top_up", "call"])  # 2000 - 123
    form = admin_client.get(f"{TXN_ADMIN}add/")
    assert form.status_code == 200
    response = admin_client.post(
        f"{TXN_ADMIN}add/",
        {"user": user.pk, "livemode": "on", "amount": "-250", "description": "Correction: call billed twice"},
    )
    assert response.status_code == 302, response.content
    row = BalanceTransaction.objects.filter(user=user).order_by("-created").first()
    assert (row.type, row.amount, row.source, row.description) == (
        "adjustment",
        -250,
        "",
        "Correction: call billed twice",
    )
    assert row.ending_balance == 2000 - 123 - 250
    assert Balance.objects.get(user=user, livemode=True).amount == row.ending_balance
    assert chain_holds(user)


def test_an_adjustment_in_test_mode(user, admin_client):
    response = admin_client.post(f"{TXN_ADMIN}add/", {"user": user.pk, "amount": "500", "description": "Test credit"})
    assert response.status_code == 302, response.content
    row = BalanceTransaction.objects.get(user=user)
    assert (row.livemode, row.type, row.ending_balance) == (False, "adjustment", 500)


@pytest.mark.parametrize(
    "fields",
    [
        {"amount": "0", "description": "Nothing"},
        {"amount": "1.5", "description": "Half a cent"},
        {"amount": "100", "description": ""},
        {"amount": "", "description": "No amount"},
    ],
)
def test_a_bad_adjustment_is_refused_and_writes_nothing(user, admin_client, fields):
    response = admin_client.post(f"{TXN_ADMIN}add/", {"user": user.pk, "livemode": "on", **fields})
    assert response.status_code == 200  # the form again, with its errors
    assert response.context["adminform"].form.errors
    assert not BalanceTransaction.objects.exists()
