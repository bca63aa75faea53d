"""Billing in Debian's Chromium at a phone's width and a laptop's: what is true about adding
and spending credit, and the test balance topped up by clicking, once however often the
button is pressed, the live balance left as it was."""

import pytest

from apps.billing.models import Balance, BalanceTransaction
from tests.billing.factories import append
from tests.browser import by_width, signed_in_page
from tests.browser_pages import assert_fits
from tests.support.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@by_width
def test_billing_says_what_is_true_and_tops_up_the_test_balance(service, width):
    user = UserFactory(email="ada@example.com")
    append(user, type="top_up", amount=2500, description="Credit added by the operator")
    append(
        user,
        type="call",
        amount=-12,
        source="call_0123456789abcdefABCDEFGH",
        description="Call to +1 202-555-0100 (1 min 1 s)",
    )
    with signed_in_page(service, user.email, width, next_path="/billing") as page:
        text = page.inner_text("main")
        assert "can never" not in text
        assert "live credit is added by the people who run it" in text
        assert "daily allowance you chose for it" in page.inner_text("#spent-by-calls")
        assert "Call to +1 202-555-0100 (1 min 1 s)" in page.inner_text("#live-transactions")
        assert page.inner_text("#test-balance") == "Test balance: $0.00"
        assert_fits(page, "billing")

        page.select_option("#top-up-amount", label="$20.00")
        # A double click sends one form.
        page.dblclick("#top-up-button")
        page.wait_for_selector("text=Added $20.00 to your test balance.")
        assert page.inner_text("#test-balance") == "Test balance: $20.00"
        # One form sent twice, past the button (a browser retrying, a second tab): credited once.
        page.evaluate(
            """() => {
              const form = document.getElementById('test-top-up');
              HTMLFormElement.prototype.submit.call(form);
              HTMLFormElement.prototype.submit.call(form);
            }"""
        )
        page.wait_for_selector("#test-balance:has-text('$40.00')")
        assert page.inner_text("#live-balance").startswith("$24.88")
        assert "Test-mode top-up from the billing page" in page.inner_text("#test-transactions")
        assert_fits(page, "billing after a top-up")
        page.click("#billing-allowance-link")
        page.wait_for_url(f"{service}/settings/connected-apps")
    assert BalanceTransaction.objects.filter(user=user, livemode=False).count() == 2
    assert Balance.objects.get(user=user, livemode=True).amount == 2488
