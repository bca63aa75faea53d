"""``/carrier/<name>/<what>``: where a real carrier's callbacks land (docs/design.md, Phase 3, "The carrier
boundary"). The adapter checks the carrier's signature and translates; the call's own service applies
what it reports. A carrier is added by its adapter alone: here a signed test adapter stands in for one."""

import hashlib
import hmac
import json

import pytest
from django.test import Client
from django.utils import timezone

from apps.telephony import carriers
from apps.telephony import events as ev
from apps.telephony.carriers.base import CarrierRefused
from apps.telephony.carriers.simulated import SimulatedCarrier
from tests.calls.callbacks import Placer, ready

pytestmark = pytest.mark.django_db

SIGNING_KEY = b"test-carrier-signing-key"


def signature(body: bytes) -> str:
    return hmac.new(SIGNING_KEY, body, hashlib.sha256).hexdigest()


class SignedTestCarrier(SimulatedCarrier):
    """Places calls as the simulator does; its callbacks are signed JSON, translated one to one."""

    name = "signedtest"

    def parse_callback(self, request):
        given = request.headers.get("X-Test-Signature", "")
        if not hmac.compare_digest(given, signature(request.body)):
            raise CarrierRefused("bad signature")
        data = json.loads(request.body)
        return [ev.CarrierEvent(ev.CALL, data["kind"], data["call"], timezone.now(), True)]


@pytest.fixture
def signed_carrier(settings, monkeypatch):
    monkeypatch.setitem(carriers.CARRIERS, SignedTestCarrier.name, f"{__name__}.SignedTestCarrier")
    settings.TELEPHONY_CARRIER = SignedTestCarrier.name
    carriers._carrier.cache_clear()
    yield
    carriers._carrier.cache_clear()


def callback(name: str, payload: dict, *, signed: bool = True):
    body = json.dumps(payload).encode()
    headers = {"HTTP_X_TEST_SIGNATURE": signature(body) if signed else "0" * 64}
    # A carrier posts without a session or CSRF token.
    return Client(enforce_csrf_checks=True).post(
        f"/carrier/{name}/status", body, content_type="application/json", **headers
    )


def test_an_unknown_carrier_is_404_and_the_simulator_takes_no_callbacks(user):
    assert callback("nowhere", {"kind": "you_declined", "call": "call_0"}).status_code == 404
    assert callback("simulated", {"kind": "you_declined", "call": "call_0"}).status_code == 403


def test_a_signed_callback_moves_the_call_through_its_own_service(user, signed_carrier):
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place()
    assert call["status"] == "ringing_you"
    response = callback(SignedTestCarrier.name, {"kind": ev.YOU_DECLINED, "call": call["id"]})
    assert response.status_code == 204
    after = placer.get(f"/v1/calls/{call['id']}").json()
    assert after["status"] == "canceled" and after["amount"] in (None, 0)


def test_a_callback_with_a_bad_signature_changes_nothing(user, signed_carrier):
    ready(user)
    placer = Placer(user)
    call = placer.quote_and_place()
    response = callback(SignedTestCarrier.name, {"kind": ev.YOU_DECLINED, "call": call["id"]}, signed=False)
    assert response.status_code == 403
    assert placer.get(f"/v1/calls/{call['id']}").json()["status"] == "ringing_you"


def test_callbacks_are_posts_only(signed_carrier):
    assert Client().get(f"/carrier/{SignedTestCarrier.name}/status").status_code == 405
