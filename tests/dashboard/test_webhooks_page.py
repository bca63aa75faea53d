"""The Webhooks page: a signed-in user sees the account's endpoints in both modes with their
owners and status, each endpoint's recent deliveries and the exact body sent, and redelivers,
resends what failed while the receiver was down, and rotates a signing secret; another
account's endpoint or delivery is a 404 for every page and form."""

from datetime import UTC, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.audit.models import AuditEvent
from apps.jobs.public import run_due
from apps.webhooks.models import Delivery, WebhookEndpoint
from apps.webhooks.secrets import decrypt
from apps.webhooks.services import endpoint_create
from tests.support.factories import PASSWORD, UserFactory
from tests.support.oauth import signed_in
from tests.support.receivers import Reply
from tests.support.webhook_history import deliver_all, make_endpoint
from tests.support.webhooks import connected_app, key_caller

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(db):
    return UserFactory(email="ada@example.com")


@pytest.fixture
def browser(owner) -> Client:
    return signed_in(owner)


@pytest.fixture
def key(owner):
    """The account's test-mode API key with webhooks:manage, and its /v1 caller."""
    return key_caller(owner)


def failing(owner, caller, receiver, *, count=2):
    """A test-mode endpoint whose receiver failed every attempt of ``count`` events, then came back."""
    endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(caller, receiver.url())["id"])
    receiver.reply = Reply(status=500)
    went_down = timezone.now() - timedelta(hours=3)
    deliver_all(owner, count, start=went_down)
    receiver.reply = Reply(status=200)
    endpoint.refresh_from_db()
    return endpoint, went_down


def page(client, path) -> str:
    response = client.get(path)
    assert response.status_code == 200, response.status_code
    return response.content.decode()


class TestList:
    def test_both_modes_with_owner_and_status(self, owner, browser, key, receiver, dns):
        test_key, caller = key
        live_key, live_caller = key_caller(owner, livemode=True)
        make_endpoint(caller, receiver.url("/test-hook"))
        live = make_endpoint(live_caller, "https://hooks.example.com/live-hook", events=["*"])
        live_caller.post(f"/v1/webhook_endpoints/{live['id']}", {"disabled": True})
        _app, as_app = connected_app(owner, "Pocket Assistant")
        endpoint_create(principal=as_app, data={"url": "https://hooks.example.com/app", "enabled_events": ["*"]})

        html = page(browser, "/settings/webhooks").replace("<wbr>", "")  # a URL's line-break points
        live_part, test_part = html.split('data-mode="test"')
        assert "live-hook" in live_part and "/app" in live_part and "test-hook" not in live_part
        assert "test-hook" in test_part and "live-hook" not in test_part
        assert f"API key \u201c{live_key.name}\u201d" in live_part
        assert "Connected app \u201cPocket Assistant\u201d" in live_part
        assert f"API key \u201c{test_key.name}\u201d" in test_part
        assert 'data-state="disabled"' in live_part and "Disabled by a request" in live_part
        assert 'data-state="enabled"' in test_part
        assert 'href="/settings/webhooks"' in html and ">Webhooks</a>" in html  # in the navigation

    def test_a_failing_endpoint_says_so(self, owner, browser, key, receiver):
        endpoint, _ = failing(owner, key[1], receiver)
        html = page(browser, "/settings/webhooks")
        assert 'data-state="failing"' in html
        assert 'data-state="failing"' in page(browser, f"/settings/webhooks/{endpoint.pk}")

    def test_none_yet(self, browser):
        html = page(browser, "/settings/webhooks")
        assert "No live mode endpoints." in html and "No test mode endpoints." in html

    def test_signed_out_is_sent_to_sign_in(self, owner, key, receiver):
        endpoint = make_endpoint(key[1], receiver.url())
        for path in ("/settings/webhooks", f"/settings/webhooks/{endpoint['id']}"):
            response = Client().get(path)
            assert response.status_code == 302 and response["Location"].startswith("/login")


class TestDeliveries:
    def test_recent_deliveries_with_type_status_code_duration_and_next_retry(self, owner, browser, key, receiver):
        endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(key[1], receiver.url())["id"])
        receiver.replies = [Reply(status=200), Reply(status=503)]
        deliver_all(owner, 1, start=timezone.now())
        # The second event's first attempt failed; its retry is due in about 5 s.
        from apps.webhooks.public import publish

        publish(owner, "call.ended", {"id": "call_9", "object": "call"}, livemode=False)
        run_due()
        failed = Delivery.objects.get(endpoint=endpoint, status="failed")
        html = page(browser, f"/settings/webhooks/{endpoint.pk}")
        assert html.count("data-delivery-id=") == 3  # succeeded, failed, and the retry that is due
        assert "call.<wbr>ended" in html
        assert '<code class="nowrap">200</code>' in html and '<code class="nowrap">503</code>' in html
        assert f"{failed.duration_ms} ms" in html
        assert f'datetime="{failed.next_attempt_at.astimezone(UTC).isoformat()}"' in html
        assert "Not sent yet" in html

    def test_the_body_page_shows_exactly_what_was_sent(self, owner, browser, key, receiver):
        make_endpoint(key[1], receiver.url())
        deliver_all(owner, 1, start=timezone.now())
        delivery = Delivery.objects.get()
        html = page(browser, f"/settings/webhooks/deliveries/{delivery.pk}")
        from html import unescape

        body = unescape(html.split('<pre class="body" id="body">', 1)[1].split("</pre>", 1)[0])
        assert body.encode() == receiver.requests[0].body
        assert 'action="/settings/webhooks/deliveries/' in html and "Redeliver" in html

    def test_redeliver_queues_one_attempt_as_durable_work(self, owner, browser, key, receiver):
        failed_endpoint, _ = failing(owner, key[1], receiver, count=1)
        last = Delivery.objects.filter(endpoint=failed_endpoint).order_by("-attempt").first()
        response = browser.post(f"/settings/webhooks/deliveries/{last.pk}/redeliver")
        assert response.status_code == 302 and response["Location"] == f"/settings/webhooks/{failed_endpoint.pk}"
        queued = Delivery.objects.get(endpoint=failed_endpoint, status="pending")
        assert queued.manual and queued.event_id == last.event_id
        assert "Queued a redelivery of call.ended" in page(browser, response["Location"])
        assert run_due() == 1
        queued.refresh_from_db()
        assert queued.status == "succeeded"

    def test_redeliver_to_a_disabled_endpoint_says_why_and_queues_nothing(self, owner, browser, key, receiver):
        endpoint, _ = failing(owner, key[1], receiver, count=1)
        key[1].post(f"/v1/webhook_endpoints/{endpoint.pk}", {"disabled": True})
        last = Delivery.objects.filter(endpoint=endpoint).first()
        response = browser.post(f"/settings/webhooks/deliveries/{last.pk}/redeliver", follow=True)
        assert "This endpoint is disabled" in response.content.decode()
        assert not Delivery.objects.filter(status="pending").exists()


class TestResend:
    def test_resend_says_how_many_and_pressing_twice_doubles_nothing(self, owner, browser, key, receiver):
        endpoint, went_down = failing(owner, key[1], receiver, count=2)
        since = (went_down - timedelta(minutes=5)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M")
        first = browser.post(f"/settings/webhooks/{endpoint.pk}/resend", {"since": since}, follow=True)
        assert "Queued 2 redeliveries" in first.content.decode()
        second = browser.post(f"/settings/webhooks/{endpoint.pk}/resend", {"since": since}, follow=True)
        assert "Nothing to resend" in second.content.decode()
        assert Delivery.objects.filter(endpoint=endpoint, status="pending", manual=True).count() == 2

    @pytest.mark.parametrize("since", ["", "yesterday", "2026-13-45T99:99"])
    def test_a_moment_that_is_not_one_changes_nothing(self, owner, browser, key, receiver, since):
        endpoint, _ = failing(owner, key[1], receiver, count=1)
        response = browser.post(f"/settings/webhooks/{endpoint.pk}/resend", {"since": since}, follow=True)
        assert response.status_code == 200
        assert "as a date and a time" in response.content.decode()
        assert not Delivery.objects.filter(status="pending").exists()

    def test_a_future_moment_is_refused(self, owner, browser, key, receiver):
        endpoint, _ = failing(owner, key[1], receiver, count=1)
        future = (timezone.now() + timedelta(days=1)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M")
        response = browser.post(f"/settings/webhooks/{endpoint.pk}/resend", {"since": future}, follow=True)
        assert "Choose a moment in the past." in response.content.decode()
        assert not Delivery.objects.filter(status="pending").exists()

    def test_the_form_starts_at_when_the_endpoint_began_failing(self, owner, browser, key, receiver):
        endpoint, _ = failing(owner, key[1], receiver, count=1)
        html = page(browser, f"/settings/webhooks/{endpoint.pk}")
        assert f'value="{endpoint.failing_since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")}"' in html


class TestRotate:
    def test_the_new_secret_is_shown_once_and_signs_from_then_on(self, owner, browser, key, receiver):
        endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(key[1], receiver.url())["id"])
        old = decrypt(endpoint.secret_encrypted)
        response = browser.post(f"/settings/webhooks/{endpoint.pk}/rotate", {"expires_in": "3600"})
        assert response.status_code == 200
        assert response["Cache-Control"].startswith("max-age=0") or "no-cache" in response["Cache-Control"]
        endpoint.refresh_from_db()
        secret = decrypt(endpoint.secret_encrypted)
        assert secret != old and secret.startswith("whsec_")
        assert secret in response.content.decode()
        assert decrypt(endpoint.previous_secret_encrypted) == old
        assert 3500 < (endpoint.previous_secret_expires_at - timezone.now()).total_seconds() <= 3600
        assert secret not in page(browser, f"/settings/webhooks/{endpoint.pk}")  # once
        rolled = AuditEvent.objects.filter(user=owner, event_type="webhook_endpoint.secret_rolled").get()
        assert rolled.data["endpoint"] == endpoint.pk

    def test_no_overlap_stops_the_old_secret_now(self, owner, browser, key, receiver):
        endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(key[1], receiver.url())["id"])
        browser.post(f"/settings/webhooks/{endpoint.pk}/rotate", {"expires_in": "0"})
        endpoint.refresh_from_db()
        assert endpoint.previous_secret_encrypted == "" and endpoint.previous_secret_expires_at is None

    @pytest.mark.parametrize("expires_in", ["", "12", "-1", "9999999", "abc"])
    def test_an_overlap_not_offered_changes_nothing(self, owner, browser, key, receiver, expires_in):
        endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(key[1], receiver.url())["id"])
        before = endpoint.secret_encrypted
        response = browser.post(f"/settings/webhooks/{endpoint.pk}/rotate", {"expires_in": expires_in})
        assert response.status_code == 302
        endpoint.refresh_from_db()
        assert endpoint.secret_encrypted == before

    def test_forms_need_the_csrf_token(self, owner, key, receiver):
        endpoint = WebhookEndpoint.objects.get(pk=make_endpoint(key[1], receiver.url())["id"])
        strict = Client(enforce_csrf_checks=True)
        strict.login(username=owner.email, password=PASSWORD)
        before = endpoint.secret_encrypted
        assert strict.post(f"/settings/webhooks/{endpoint.pk}/rotate", {"expires_in": "0"}).status_code == 403
        endpoint.refresh_from_db()
        assert endpoint.secret_encrypted == before


class TestTenants:
    """Another account's endpoint or delivery id is a 404 on every page and form, and touches nothing."""

    @pytest.fixture
    def theirs(self, receiver):
        stranger = UserFactory(email="eve@example.com")
        caller = key_caller(stranger)[1]
        endpoint, _ = failing(stranger, caller, receiver, count=1)
        return endpoint, Delivery.objects.filter(endpoint=endpoint).first()

    def test_their_ids_are_404_everywhere(self, browser, theirs):
        endpoint, delivery = theirs
        before = (endpoint.secret_encrypted, Delivery.objects.count())
        since = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
        assert browser.get(f"/settings/webhooks/{endpoint.pk}").status_code == 404
        assert browser.get(f"/settings/webhooks/deliveries/{delivery.pk}").status_code == 404
        assert browser.post(f"/settings/webhooks/{endpoint.pk}/rotate", {"expires_in": "0"}).status_code == 404
        assert browser.post(f"/settings/webhooks/{endpoint.pk}/resend", {"since": since}).status_code == 404
        assert browser.post(f"/settings/webhooks/deliveries/{delivery.pk}/redeliver").status_code == 404
        endpoint.refresh_from_db()
        assert (endpoint.secret_encrypted, Delivery.objects.count()) == before

    def test_their_endpoints_are_not_listed(self, browser, theirs):
        endpoint, _ = theirs
        html = page(browser, "/settings/webhooks")
        assert endpoint.pk not in html and endpoint.url not in html

    @pytest.mark.parametrize("bad", ["nope", "we_", "we_%00", "dlv_abc", "we_" + "a" * 80])
    def test_malformed_ids_are_404(self, browser, bad):
        assert browser.get(f"/settings/webhooks/{bad}").status_code == 404
        assert browser.get(f"/settings/webhooks/deliveries/{bad}").status_code == 404

    def test_pages_answer_get_only_and_forms_post_only(self, owner, browser, key, receiver):
        endpoint = make_endpoint(key[1], receiver.url())
        assert browser.post("/settings/webhooks").status_code == 405
        assert browser.get(f"/settings/webhooks/{endpoint['id']}/rotate").status_code == 405
        assert browser.get(f"/settings/webhooks/{endpoint['id']}/resend").status_code == 405
