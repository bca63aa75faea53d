"""``manage.py run_worker``: claims due rows and runs their handlers until stopped.

Several may run against PostgreSQL (claims skip each other's rows); against SQLite run
one (SQLite has one writer at a time, and the quick start needs no more). SIGTERM or
SIGINT finishes the row being run, gives back the rest of the claim and exits; a second
signal exits at once (the row comes due again when its lease runs out).
"""

import logging
import signal
import threading

from django.core.management.base import BaseCommand, CommandError
from django.db import OperationalError, close_old_connections, connection
from django.utils import timezone

from apps.jobs import conf, registry, runner
from apps.jobs.models import Job, JobStatus

logger = logging.getLogger("apps.jobs")


class Command(BaseCommand):
    help = "Run due durable work (apps.jobs) until stopped; --once runs what is due now and exits."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Run every row due now, then exit.")
        parser.add_argument(
            "--poll", type=float, default=None, help="Seconds to wait when nothing is due (JOBS POLL_SECONDS)."
        )

    def handle(self, *args, once=False, poll=None, **options):
        poll = conf.get("POLL_SECONDS") if poll is None else poll
        if poll <= 0:
            raise CommandError("--poll must be more than 0 seconds.")
        self.stopping = threading.Event()
        if not once:
            self._install_signal_handlers()
        self._name_orphans()
        logger.info("worker %s started (kinds: %s)", runner.worker_name(), ", ".join(registry.kinds()) or "none")
        ran = 0
        while not self.stopping.is_set():
            # A connection that died or outlived CONN_MAX_AGE is replaced, as between requests
            # (never inside a transaction: a test's, or a caller's running --once).
            if not connection.in_atomic_block:
                close_old_connections()
            try:
                count = self._run_batch()
            except OperationalError as exc:
                if connection.vendor != "sqlite" or "locked" not in str(exc).lower():
                    raise
                # Another writer holds SQLite's one write lock: try again on the next poll.
                count = 0
            ran += count
            if once and count == 0:
                break
            if count == 0:
                self.stopping.wait(poll)
        logger.info("worker %s stopped after %s rows", runner.worker_name(), ran)
        if once:
            self.stdout.write(f"Ran {ran} job(s).")

    def _run_batch(self) -> int:
        now = timezone.now()
        token, jobs = runner.claim(now=now, limit=conf.get("BATCH_SIZE"))
        for index, job in enumerate(jobs):
            if self.stopping.is_set():
                runner.release(token, jobs[index:])
                return index
            runner.run_one(job, token, now=now)
        return len(jobs)

    def _install_signal_handlers(self):
        def stop(signum, frame):
            if self.stopping.is_set():
                raise SystemExit(128 + signum)
            logger.info("worker %s stopping (signal %s)", runner.worker_name(), signum)
            self.stopping.set()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)

    def _name_orphans(self):
        kinds = registry.kinds()
        orphans = (
            Job.objects.filter(status=JobStatus.READY)
            .exclude(kind__in=kinds)
            .values_list("kind", flat=True)
            .distinct()
            .order_by("kind")
        )
        for kind in orphans:
            logger.error("ready jobs of kind %s have no handler: they are kept until one is registered", kind)
