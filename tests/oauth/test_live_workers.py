"""The OAuth server's bounds against a live gunicorn with sync workers sharing one Redis.

One server process with three sync workers (each serves one request at a
time, so a request that waits holds a whole worker), a private Redis and a
file SQLite database:

- client metadata documents (docs/spec.md 5.3): while fetches from a host that never
  answers are in flight, discovery and ``/v1/me`` keep answering, because at
  most two fetches are in flight server-wide and the rest are refused at once;
  a failed URL is not fetched again for a minute;
- grant families (docs/spec.md 8.3): a refresh token revoked by a disconnect keeps
  answering ``invalid_grant`` with the reconnect message, whichever worker
  serves it and however often, and the family budget counts successes only.

Assertions are on what happened (which requests were answered while the slow
fetches were still open), never on how long anything took; the bounds on
waiting are only there so that a broken server fails the test instead of
hanging it.
"""

import json
import os
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.oauth.cimd_support import SlowHost
from tests.ratelimit.redis_server import start_private_redis
from tests.support.processes import ROOT, answers, free_port, manage, start_gunicorn, stop, wait_serving

pytestmark = pytest.mark.e2e

WORKERS = 3
EMAIL = "live@example.com"
# Settings of the server under test: the real ones, admitting the slow host on 127.0.0.1 (a
# test-only setting no deployment defines) and with a fetch deadline long enough that the slow
# fetches are certainly still in flight while the test's other requests are answered.
SETTINGS = """
from config.settings import *  # noqa: F403

CIMD_TEST_ALLOWED_ADDRESSES = ("127.0.0.1",)
OAUTH2_PROVIDER = {**OAUTH2_PROVIDER, "CIMD_FETCH_TIMEOUT_SECONDS": 20}  # noqa: F405
"""
ISSUE_TOKENS = """
import json, uuid
from datetime import timedelta
from django.utils import timezone
from apps.accounts.models import User
from apps.oauth.token import issuing
from apps.oauth.models import Application
from apps.oauth.tokens import new_access_token, new_refresh_token
user = User.objects.get(email="%(email)s")
app = Application.objects.create(
    client_id="dcr_live_" + uuid.uuid4().hex, name="Live", redirect_uris="https://live.example/cb",
    client_type=Application.CLIENT_PUBLIC, authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
    registration_source=Application.RegistrationSource.DCR, client_secret="", hash_client_secret=False,
)
now = timezone.now()
token = {"access_token": new_access_token(), "refresh_token": new_refresh_token(), "scope": "rates:read"}
issuing.tokens_issue(
    token=token, user=user, application=app, family=uuid.uuid4(), resource=["%(base)s/v1"],
    granted_scope="rates:read", now=now, family_expires=now + timedelta(days=30), previous=None,
)
print(json.dumps({"client_id": app.client_id, "refresh_token": token["refresh_token"]}))
"""
DISCONNECT = """
from apps.accounts.models import User
from apps.oauth.connections.services import connection_revoke
connection_revoke(user=User.objects.get(email="%(email)s"), client_id="%(client_id)s")
"""


class Live:
    def __init__(self, directory: Path, redis_url: str):
        (directory / "live_oauth_settings.py").write_text(SETTINGS)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = directory / "server.log"
        # Its own private single Redis: nothing of a cluster run's REDIS_CLUSTER carries over.
        keep = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DJANGO_", "PYTEST", "RATELIMIT_", "REDIS_", "TEST_REDIS"))
        }
        self.env = {
            **keep,
            "DJANGO_SETTINGS_MODULE": "live_oauth_settings",
            "PYTHONPATH": os.pathsep.join([str(directory), str(ROOT)]),
            "SECRET_KEY": "live-workers-test-key-0123456789-0123456789-0123456789",
            "DEBUG": "",
            "BASE_URL": self.url,
            "APP_URL": self.url,
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": f"sqlite:///{directory / 'live.sqlite3'}",
            "REDIS_URL": redis_url,
            "RATELIMIT_KEY_PREFIX": f"live-{self.port}",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        }
        self.process = None

    def manage(self, *args) -> str:
        return manage(self.env, *args).stdout.strip()

    def shell(self, code: str) -> str:
        return self.manage("shell", "-c", code)

    def start(self):
        self.manage("migrate", "--noinput")
        self.manage("createuser", "--email", EMAIL, "--display-name", "Live", "--password", "live-pw-0123456789!")
        self.api_key = self.manage("createapikey", "--email", EMAIL)
        self.log = self.log_path.open("wb")
        self.process = start_gunicorn(
            self.port,
            "--workers",
            str(WORKERS),
            "--worker-class",
            "sync",
            "--no-control-socket",
            env=self.env,
            log=self.log,
        )
        wait_serving(
            self.process,
            lambda: answers(f"{self.url}/.well-known/oauth-authorization-server"),
            what="server",
            output=self.output,
        )

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-20000:]

    def stop(self):
        if self.process is not None:
            stop(self.process, timeout=15)
            self.log.close()

    def request(self, path: str, *, data: dict | None = None, headers=None, timeout: float = 20):
        body = urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.url + path, data=body, headers=headers or {})
        if body is not None:
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def authorize(self, client_id: str, timeout: float = 60):
        params = {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": "https://assistant.example/callback",
            "scope": "rates:read",
            "state": "s",
            "code_challenge": "a" * 43,
            "code_challenge_method": "S256",
            "resource": f"{self.url}/v1",
        }
        return self.request(f"/oauth/authorize?{urlencode(params)}", timeout=timeout)

    def refresh(self, client_id: str, refresh_token: str, **extra):
        form = {"grant_type": "refresh_token", "refresh_token": refresh_token, "client_id": client_id, **extra}
        status, body = self.request("/oauth/token", data=form)
        return status, json.loads(body)


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    redis_server = start_private_redis()
    server = Live(tmp_path_factory.mktemp("live-oauth"), redis_server.url)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        redis_server.stop()


def is_invalid_client_page(answer) -> bool:
    status, body = answer
    return status == 400 and "invalid_client" in body


# --- client metadata documents ---------------------------------------------------------------


def test_slow_document_hosts_never_hold_the_server(live):
    slow = SlowHost()
    answers: dict[int, tuple] = {}

    def authorize(n):
        answers[n] = live.authorize(slow.url(f"/slow/{n}.json"))

    # Six at once, against three workers: on an unbounded server every worker would now wait.
    threads = [threading.Thread(target=authorize, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    try:
        # Two fetches reach the host (the server-wide cap) and stay there, unanswered.
        assert slow.wait(lambda host: host.accepted >= 2, timeout=30), live.output()
        # The other four are refused at once with the invalid_client page.
        assert wait_until(lambda: len(answers) >= 4, timeout=30), (answers, live.output())
        assert len(answers) == 4 and all(is_invalid_client_page(a) for a in answers.values()), answers

        # Discovery and /v1/me are answered meanwhile, by the worker no fetch holds.
        status, body = live.request("/.well-known/oauth-authorization-server", timeout=10)
        assert status == 200 and json.loads(body)["issuer"] == live.url
        status, body = live.request("/v1/me", headers={"Authorization": f"Bearer {live.api_key}"}, timeout=10)
        assert status == 200 and json.loads(body)["email"] == EMAIL

        # ...while both slow fetches were still in flight: the host still holds both connections.
        assert (slow.accepted, slow.open) == (2, 2)
        assert len(answers) == 4
    finally:
        slow.release()  # the two held fetches fail now, and any later connection is closed at once
        for thread in threads:
            thread.join(60)

    try:
        assert len(answers) == 6 and all(is_invalid_client_page(a) for a in answers.values()), answers
        assert slow.accepted == 2
        # A URL whose fetch failed is not fetched again for a minute, whichever worker is asked: of
        # twelve more requests only the four URLs refused for the cap (never fetched) reach the host.
        retries = [live.authorize(slow.url(f"/slow/{n}.json"), timeout=30) for _ in range(2) for n in range(6)]
        assert all(is_invalid_client_page(a) for a in retries)
        assert slow.accepted == 2 + 4
    finally:
        slow.close()


def wait_until(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# --- grant families ----------------------------------------------------------------------------


def issue_tokens(live) -> dict:
    return json.loads(live.shell(ISSUE_TOKENS % {"email": EMAIL, "base": live.url}).splitlines()[-1])


def test_a_disconnected_refresh_token_asks_to_reconnect_on_every_worker_never_429(live):
    tokens = issue_tokens(live)
    live.shell(DISCONNECT % {"email": EMAIL, "client_id": tokens["client_id"]})
    for _ in range(25):  # one family; past its 10 a minute and the address's 10 failures a minute
        status, body = live.refresh(tokens["client_id"], tokens["refresh_token"])
        assert (status, body["error"]) == (400, "invalid_grant"), body
        assert "reconnect" in body["error_description"]


def test_the_family_budget_counts_successful_refreshes_only(live):
    tokens = issue_tokens(live)
    client_id, token = tokens["client_id"], tokens["refresh_token"]
    assert live.refresh("dcr_nobody", token)[0] == 400  # failed: spends nothing of the family's budget
    for _ in range(10):
        status, body = live.refresh(client_id, token)
        assert status == 200, body
        token = body["refresh_token"]
    status, body = live.refresh(client_id, token)
    assert (status, body["error"]) == (429, "temporarily_unavailable")
    # A rotated token presented again revokes the family at once, budget spent or not.
    status, body = live.refresh(client_id, tokens["refresh_token"])
    assert (status, body["error"]) == (400, "invalid_grant")
    assert "revoked" in body["error_description"]
