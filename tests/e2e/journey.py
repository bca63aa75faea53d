"""What a user of the journeys has in hand: a test key's client, a signed-in browser, a webhook receiver.

Everything goes through HTTP to the live server (tests/e2e/worker_server.py); the only other
moves are the server's clock (``server.clock``) and real-time waits, bounded, for the worker to run
what the clock made due.
"""

import re
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx2
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from tests.support.receivers import Receiver

SCOPES = "calls:place calls:read credits:read transcripts:read webhooks:manage"
# Request budgets run on the real clock (apps/ratelimit), which these journeys compress: a user
# who meets one waits as told, never longer than this.
LONGEST_RETRY_AFTER = 65.0


class Api:
    """A test key's client of /v1: JSON in and out, an Idempotency-Key on every POST, Retry-After honoured."""

    def __init__(self, base_url: str, key: str):
        self.client = httpx2.Client(base_url=f"{base_url}/v1", headers={"Authorization": f"Bearer {key}"}, timeout=30)

    def request(self, method: str, path: str, **kwargs) -> httpx2.Response:
        if method == "POST":
            kwargs.setdefault("headers", {})["Idempotency-Key"] = str(uuid.uuid4())
        while True:
            try:
                response = self.client.request(method, path, **kwargs)
            except httpx2.RemoteProtocolError:
                # The server closed a kept-alive connection while this client waited out a Retry-After;
                # the request is sent again as it was (a POST with its same Idempotency-Key).
                response = self.client.request(method, path, **kwargs)
            if response.status_code != 429:
                return response
            wait = float(response.headers.get("Retry-After", "1"))
            assert wait <= LONGEST_RETRY_AFTER, response.text
            time.sleep(wait)

    def get(self, path: str, **params) -> httpx2.Response:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: dict | None = None) -> httpx2.Response:
        return self.request("POST", path, json=body if body is not None else {})

    def every(self, path: str) -> list[dict]:
        """All the objects of a list endpoint, page after page."""
        objects, after = [], None
        while True:
            page = self.get(path, limit=100, **({"starting_after": after} if after else {}))
            assert page.status_code == 200, page.text
            objects += page.json()["data"]
            if not page.json()["has_more"]:
                return objects
            after = objects[-1]["id"]


def expect(response: httpx2.Response, status: int) -> dict:
    assert response.status_code == status, f"{response.request.method} {response.request.url}: {response.text}"
    return response.json()


class Browser:
    """A person at a browser on the server's pages, signed in with a password (the user, or the operator)."""

    def __init__(self, base_url: str, email: str, password: str):
        self.base_url = base_url
        self.client = httpx2.Client(base_url=base_url, follow_redirects=False, timeout=30)
        page = self.client.get("/login")
        signed_in = self.client.post(
            "/login",
            data={"username": email, "password": password, **self._csrf(page)},
            headers=self._referer("/login"),
        )
        assert signed_in.status_code == 302, signed_in.text

    @staticmethod
    def _csrf(page) -> dict:
        return {"csrfmiddlewaretoken": re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)}

    def _referer(self, path: str) -> dict:
        return {"Referer": f"{self.base_url}{path}"}

    def submit(self, path: str, fields: dict) -> httpx2.Response:
        """The form at ``path``, filled with ``fields`` and sent as the page's own form would be."""
        page = self.client.get(path)
        assert page.status_code == 200, page.text
        sent = self.client.post(path, data={**self._csrf(page), **fields}, headers=self._referer(path))
        assert sent.status_code == 302, sent.text
        return sent


class Operator(Browser):
    """The service's staff at its admin, who add a verified caller ID to an account and make it the
    account's default (an account has no API for either: GET /v1/caller_ids only lists them)."""

    def __init__(self, base_url: str, email: str, password: str, *, account_id: str):
        super().__init__(base_url, email, password)
        self.account_id = account_id

    def caller_id(self, number: str) -> str | None:
        page = self.client.get("/admin/numbers/callerid/", params={"q": self.account_id, "livemode__exact": "0"})
        # Each row's checkbox: value="cid_…" … aria-label="Select this object for an action - +1… (cid_…)"
        rows = re.findall(r'name="_selected_action" value="(cid_\w+)"[^>]* - (\+\d+) \(', page.text)
        return next((cid for cid, shown in rows if shown == number), None)

    def make_default(self, number: str) -> None:
        caller_id = self.caller_id(number)
        if caller_id is None:
            verified = {"verified_at_0": "2026-01-01", "verified_at_1": "09:00:00"}
            self.submit("/admin/numbers/callerid/add/", {"user": self.account_id, "number": number, **verified})
            caller_id = self.caller_id(number)
        form = {"action": "make_default", "_selected_action": caller_id, "index": "0"}
        self.submit(f"/admin/numbers/callerid/?q={self.account_id}&livemode__exact=0", form)


class ServerClockWebhook(Webhook):
    """The library's verification, whose "now" is the server's clock: the receiver lives in the world
    the tests move, and a real one would reject a timestamp more than 5 minutes from its own time."""

    TOLERANCE = timedelta(minutes=5)

    def __init__(self, secret: str, clock):
        super().__init__(secret)
        self.clock = clock

    def _Webhook__verify_timestamp(self, timestamp_header: str) -> datetime:  # the library's private check
        timestamp = datetime.fromtimestamp(float(timestamp_header), tz=UTC)
        now = datetime.fromtimestamp(self.clock.now(), tz=UTC)
        if not now - self.TOLERANCE <= timestamp <= now + self.TOLERANCE:
            raise WebhookVerificationError(f"timestamp {timestamp} is more than 5 minutes from {now}")
        return timestamp


class Hooks:
    """The user's webhook receiver on loopback and the endpoint aimed at it. Each delivery is verified
    when first seen, as the docs tell a receiver to (the ``standardwebhooks`` package, the endpoint's
    secret), so callers look often enough that the clock has not moved on far since it came."""

    def __init__(self, receiver: Receiver, secret: str, *, clock):
        self.receiver = receiver
        self.webhook = ServerClockWebhook(secret, clock)
        self.verified: list[dict] = []

    def deliveries(self) -> list[dict]:
        """The events received so far, in the order they came, each checked once."""
        for request in self.receiver.requests[len(self.verified) :]:
            event = self.webhook.verify(request.body, request.headers)  # raises on a bad signature or time
            assert event["id"] == request.headers["webhook-id"], request.headers
            self.verified.append(event)
        return list(self.verified)

    def events_about(self, object_id: str) -> list[dict]:
        """Each event whose object is ``object_id`` or belongs to that call, once (delivery is at least
        once: a repeat has the same webhook-id), in the order received."""
        events, ids = [], set()
        for event in self.deliveries():
            subject = event["data"]["object"]
            if object_id in (subject.get("id"), subject.get("call")) and event["id"] not in ids:
                ids.add(event["id"])
                events.append(event)
        return events

    def types_about(self, object_id: str) -> list[str]:
        return [event["type"] for event in self.events_about(object_id)]
