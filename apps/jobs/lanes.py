"""Lanes: kinds of work that never wait on each other, each with its own threads in a worker.

A worker runs every lane on threads of its own, so rows of one lane (a backlog of webhook
deliveries to receivers that hang) never hold the threads of another (a call's next
state). A lane may also bound how many of its rows run at once per tenant (an account)
and per subject (a webhook endpoint): a tenant whose rows are slow fills its own slots,
and the lane's other threads go on with everyone else's rows.

Each app says which lane its kinds run in, beside its handlers (``@handler(kind,
lane=...)`` in its ``jobs.py``); a kind that says nothing runs in ``housekeeping``.
"""

from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured


@dataclass(frozen=True)
class Lane:
    name: str
    # Threads a worker gives the lane (JOBS THREADS, or --threads, sets every lane's).
    threads_postgresql: int
    threads_sqlite: int
    # At most this many of the lane's rows run at once for one tenant / one subject, across
    # every worker; None: no bound.
    per_tenant: int | None = None
    per_subject: int | None = None

    @property
    def bounded(self) -> bool:
        return self.per_tenant is not None or self.per_subject is not None

    def threads(self, vendor: str) -> int:
        return self.threads_postgresql if vendor == "postgresql" else self.threads_sqlite


CARRIER = "carrier"  # a call's next state: a carrier's events, the simulator's script
TRANSCRIPTS = "transcripts"
DELIVERIES = "deliveries"  # webhook delivery attempts: a receiver may hang up to its timeout
HOUSEKEEPING = "housekeeping"  # purges and anything else that may wait

LANES: dict[str, Lane] = {
    lane.name: lane
    for lane in (
        Lane(CARRIER, threads_postgresql=2, threads_sqlite=1),
        Lane(TRANSCRIPTS, threads_postgresql=1, threads_sqlite=1),
        # One account's receivers cost that account's two slots, never the lane's other threads;
        # one endpoint gets one attempt at a time (a slow receiver is not hit harder).
        Lane(DELIVERIES, threads_postgresql=6, threads_sqlite=3, per_tenant=2, per_subject=1),
        Lane(HOUSEKEEPING, threads_postgresql=1, threads_sqlite=1),
    )
}
DEFAULT = HOUSEKEEPING


def get(name: str) -> Lane:
    try:
        return LANES[name]
    except KeyError:
        raise ImproperlyConfigured(f"Unknown job lane {name!r}; the lanes are {', '.join(LANES)}.") from None
