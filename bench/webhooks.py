"""Quick check: webhook deliveries a second to a local receiver, beside a bare loop of signed POSTs.

``python -m bench.webhooks [N]`` (``make bench`` runs it after the main run): a throwaway
SQLite database, one test-mode endpoint on a receiver on loopback, N events published,
then delivered by the durable work in this process (one thread: what one worker thread
does), and the same N bodies signed and POSTed in a bare loop to the same receiver (the
limit: signing and HTTP alone, a new connection each, as a delivery makes). Both figures
come from the same run; compare them, not runs on different machines.
"""

import os
import sys
import tempfile
import time
from pathlib import Path


def main(count: int = 500) -> int:
    workdir = Path(tempfile.mkdtemp(prefix="bench-webhooks-"))
    os.environ.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"sqlite:///{workdir / 'db.sqlite3'}",
        SECRET_KEY="bench-only-secret-key-not-for-any-deployment-0123456789",
    )
    os.environ.pop("REDIS_URL", None)
    import django

    django.setup()
    import urllib3
    from django.core.management import call_command
    from django.db import transaction

    from apps.apikeys.services import apikey_create
    from apps.jobs.public import run_due
    from apps.webhooks import secrets
    from apps.webhooks.models import WebhookEndpoint
    from apps.webhooks.public import publish
    from apps.webhooks.serializers import event_payload
    from apps.webhooks.signing import body_of, signature_header
    from tests.support.factories import UserFactory
    from tests.support.receivers import Receiver

    call_command("migrate", verbosity=0)
    receiver = Receiver()
    try:
        user = UserFactory()
        key, _secret = apikey_create(user=user, name="bench", scopes=["webhooks:manage", "calls:read"], livemode=False)
        secret = secrets.new_secret()
        WebhookEndpoint.objects.create(
            user=user,
            livemode=False,
            url=receiver.url(),
            enabled_events=["call.ended"],
            api_version="2026-10-01",
            secret_encrypted=secrets.encrypt(secret),
            owner_kind="api_key",
            owner_credential_id=key.id,
        )
        with transaction.atomic():
            events = [
                publish(user, "call.ended", {"id": f"call_{n}", "object": "call"}, livemode=False) for n in range(count)
            ]
        begun = time.perf_counter()
        run_due()
        delivered = time.perf_counter() - begun
        assert len(receiver.requests) == count, len(receiver.requests)

        bodies = [(event.id, body_of(event_payload(event))) for event in events]
        begun = time.perf_counter()
        for event_id, body in bodies:
            stamp = int(time.time())
            headers = {
                "Content-Type": "application/json",
                "webhook-id": event_id,
                "webhook-timestamp": str(stamp),
                "webhook-signature": signature_header([secret], msg_id=event_id, timestamp=stamp, body=body),
            }
            pool = urllib3.HTTPConnectionPool("127.0.0.1", receiver.port, retries=False, maxsize=1)
            pool.urlopen("POST", "/hooks", body=body, headers=headers, redirect=False).release_conn()
            pool.close()
        bare = time.perf_counter() - begun
    finally:
        receiver.close()
    print(f"webhook deliveries, durable work, one thread: {count / delivered:8.1f} /s  ({count} events)")
    print(f"bare loop of signed POSTs, same receiver:     {count / bare:8.1f} /s  (the limit)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
