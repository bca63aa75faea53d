"""Test mode reaches loopback only where the operator allows it, and no attempt's recorded reason
tells more about the address behind a URL than its owner needs to fix the receiver.

Without ``WEBHOOK_ALLOW_LOOPBACK`` (off unless ``DEBUG``), an ordinary account's test key
cannot aim an endpoint at the server's own ports, and an endpoint aimed there while it was
allowed is not sent to. Where it is allowed, a closed port, a listener that drops the
connection and one that never answers read alike.
"""

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from apps.jobs.public import run_due
from apps.webhooks.delivery import NO_ANSWER, NOT_PUBLIC
from apps.webhooks.models import Delivery
from apps.webhooks.public import publish
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
CALL = {"id": "call_1", "object": "call", "status": "completed"}


def create(caller, url):
    return caller.post("/v1/webhook_endpoints", {"url": url, "enabled_events": ["call.ended"]})


@pytest.fixture
def no_loopback(settings):
    settings.WEBHOOK_ALLOW_LOOPBACK = False


class TestNotAllowed:
    @pytest.mark.parametrize(
        "url",
        [
            "http://127.0.0.1:6379/",
            "http://localhost:5432/x",
            "http://[::1]:8080/hooks",
            "http://127.1.2.3/hooks",
            "https://127.0.0.1:8443/hooks",
            "https://localhost/hooks",
        ],
    )
    def test_a_test_key_cannot_aim_an_endpoint_at_loopback(self, no_loopback, caller, url):
        response = create(caller, url)
        assert_error(response, 400, "invalid_url", param="url")
        assert caller.get("/v1/webhook_endpoints").json()["data"] == []

    def test_the_refusal_says_how_to_receive_webhooks_locally(self, no_loopback, caller):
        message = create(caller, "http://127.0.0.1:9000/hooks").json()["error"]["message"]
        assert "https" in message and "/docs/webhooks" in message

    def test_an_endpoint_aimed_at_loopback_while_allowed_is_not_sent_to_once_it_is_not(
        self, settings, owner, caller, receiver
    ):
        endpoint = create(caller, receiver.url()).json()
        settings.WEBHOOK_ALLOW_LOOPBACK = False
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
        assert receiver.requests == []
        attempt = Delivery.objects.get(endpoint_id=endpoint["id"], attempt=1)
        assert attempt.status == "failed"
        assert str(receiver.port) not in attempt.error


def _setting_with(**env) -> str:
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "WEBHOOK_ALLOW_LOOPBACK"}}
    clean.setdefault("SECRET_KEY", "test-only-secret-key-not-for-any-deployment-0123456789")
    clean.update(env)
    code = "import django; django.setup(); from django.conf import settings; print(settings.WEBHOOK_ALLOW_LOOPBACK)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_setting_is_on_with_debug_and_off_otherwise():
    assert _setting_with(DEBUG="1") == "True"
    assert _setting_with() == "False"
    assert _setting_with(DEBUG="1", WEBHOOK_ALLOW_LOOPBACK="0") == "False"


class Listener:
    """A loopback port that accepts connections and then drops each at once, or never answers."""

    def __init__(self, *, drop: bool):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.held: list[socket.socket] = []
        self.drop = drop
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.drop:
                conn.close()
            else:
                self.held.append(conn)

    def close(self):
        for conn in self.held:
            conn.close()
        self.sock.close()


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as sock:
        return sock.getsockname()[1]


def test_where_allowed_a_closed_a_dropping_and_a_silent_port_read_alike(settings, owner, caller, dns):
    # Real time: the silent port is waited for up to the timeout, kept short here.
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.5
    dropping, silent = Listener(drop=True), Listener(drop=False)
    try:
        ports = [_closed_port(), dropping.port, silent.port]
        endpoints = [create(caller, f"http://127.0.0.1:{port}/hooks").json()["id"] for port in ports]
        dns.answers["inside.example.test"] = ["10.0.0.7"]
        internal = create(caller, "https://inside.example.test/hooks")
        assert_error(internal, 400, "invalid_url", param="url")
        publish(owner, "call.ended", CALL, livemode=False)
        run_due()
    finally:
        dropping.close()
        silent.close()
    errors = [Delivery.objects.get(endpoint_id=endpoint, attempt=1).error for endpoint in endpoints]
    assert errors == [NO_ANSWER] * 3


def test_a_name_that_turned_internal_or_stopped_resolving_reads_alike(owner, caller, dns):
    dns.answers["a.example.test"] = ["93.184.216.34"]
    dns.answers["b.example.test"] = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    endpoints = [create(caller, f"https://{name}/hooks").json()["id"] for name in ("a.example.test", "b.example.test")]
    dns.answers["a.example.test"] = ["10.0.0.7"]
    publish(owner, "call.ended", CALL, livemode=False)
    run_due()
    errors = [Delivery.objects.get(endpoint_id=endpoint, attempt=1).error for endpoint in endpoints]
    assert errors == [NOT_PUBLIC] * 2


def test_loopback_without_debug_is_a_check_warning(settings):
    from apps.webhooks.checks import check_loopback

    settings.DEBUG = False
    settings.WEBHOOK_ALLOW_LOOPBACK = True
    assert [warning.id for warning in check_loopback()] == ["webhooks.W001"]
    settings.WEBHOOK_ALLOW_LOOPBACK = False
    assert check_loopback() == []
    settings.DEBUG, settings.WEBHOOK_ALLOW_LOOPBACK = True, True
    assert check_loopback() == []


class TestALiveKeyAimedAtTheDevelopersMachine:
    """A live key refused a local receiver is told what takes one: a test-mode key, on a server that
    allows loopback (``make run``); a server that never does says nothing of it."""

    @pytest.mark.parametrize("url", ["http://127.0.0.1:9000/hooks", "https://127.0.0.1:8443/hooks"])
    def test_the_refusal_points_at_test_mode_where_loopback_is_allowed(self, settings, live_caller, url):
        settings.WEBHOOK_ALLOW_LOOPBACK = True
        response = create(live_caller, url)
        assert_error(response, 400, "invalid_url", param="url")
        message = response.json()["error"]["message"]
        assert "test-mode key (sk_test_...)" in message and "/docs/webhooks" in message

    def test_no_such_hint_where_loopback_is_never_taken(self, no_loopback, live_caller):
        message = create(live_caller, "http://127.0.0.1:9000/hooks").json()["error"]["message"]
        assert message == "url must use https in live mode."
