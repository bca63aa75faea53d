"""Quick check: a quote, and placing then ending a callback, beside the rate lookup, in one run.

``python -m bench.callbacks [N]`` (``make bench`` runs it after the main run), measured as
bench/inprocess.py says. A placement is the place-then-end pair (one live callback per account:
the next placement waits for the end), with the simulator as the carrier; the caps are raised,
so nothing is refused. With ``--write-docs`` the figures replace the section "Callback calls" of
docs/performance.md.
"""

import uuid

from bench import inprocess

LABELS = {
    "rate": "GET /v1/rates?to=<number> (the reference)",
    "quote": "POST /v1/quotes",
    "place_then_end": "POST /v1/quotes, POST /v1/calls, POST /v1/calls/{id}/end (one placement)",
}


def main(count: int = 200, *, docs: bool = False) -> int:
    database = inprocess.configure(
        "callbacks",
        CALL_SPEND_LIMIT_DAILY="1000000.00",
        CALL_SPEND_LIMIT_CREDENTIAL_DAILY="1000000.00",
        CALLS_PER_NUMBER_HOURLY="1000000",
        CALL_DESTINATIONS_DAILY="1000000",
    )
    from django.test import Client

    from tests.calls.callbacks import CALLEE, ready
    from tests.support.credentials import cached_key_secret
    from tests.support.factories import UserFactory

    user = UserFactory()
    ready(user, credit=10**9)
    secret = cached_key_secret(user, ["calls:place", "calls:read", "rates:read"])
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}

    def rate():
        assert client.get(f"/v1/rates?to=%2B{CALLEE[1:]}", **auth).status_code == 200

    def quote():
        assert client.post("/v1/quotes", {"to": CALLEE}, content_type="application/json", **auth).status_code == 201

    def place_then_end():
        made = client.post("/v1/quotes", {"to": CALLEE}, content_type="application/json", **auth).json()
        placed = client.post(
            "/v1/calls",
            {"quote": made["id"]},
            content_type="application/json",
            HTTP_IDEMPOTENCY_KEY=str(uuid.uuid4()),
            **auth,
        )
        assert placed.status_code == 201, placed.content
        ended = client.post(f"/v1/calls/{placed.json()['id']}/end", content_type="application/json", **auth)
        assert ended.status_code == 200, ended.content

    medians, statements = inprocess.measure({"rate": rate, "quote": quote, "place_then_end": place_then_end}, count)
    inprocess.print_rows(medians, statements, "rate")
    if docs:
        inprocess.write_section(
            title="Callback calls",
            script="bench.callbacks",
            database=database,
            count=count,
            labels=LABELS,
            medians=medians,
            statements=statements,
            reference="rate",
            words=(
                "A placement is the quote, the placement and the end (one live callback per account), the "
                "simulator as the carrier; caps raised, so nothing is refused. The writes of a placement and of "
                "an end are one statement each on PostgreSQL."
            ),
            after=(
                "What bounds a quote, in-process: its one read (the rate, the caller IDs, the balance, the holds "
                "and the caps' usage) is compiled once per process (apps/calls/usage.py), so what is left is its "
                "two round trips, the second a commit, and the request's Python. A placement adds the key's "
                "claim, the balance lock, its read and its writes with its stored answer; the end its read and "
                "its writes; the webhook events are counted among the statements here. Through gunicorn under "
                'load, with many accounts: the section "Writes under load" (bench/writes.py).'
            ),
        )
    return 0


if __name__ == "__main__":
    inprocess.command_line(main, __doc__)
