"""``manage.py run_worker``: claims due rows and runs their handlers until stopped.

Several may run against PostgreSQL (claims skip each other's rows); against SQLite run
one (SQLite has one writer at a time, and the quick start needs no more). With more than
one thread (``--threads``, JOBS ``THREADS``; 4 on PostgreSQL) each thread claims one row
at a time, so a row that takes long (a webhook receiver that hangs until its timeout)
holds only its own thread: the other rows due are run beside it, never queued behind it
in the same claim. SIGTERM or
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
        parser.add_argument(
            "--threads", type=int, default=None, help="Rows run at once, one claimed at a time each (JOBS THREADS)."
        )

    def handle(self, *args, once=False, poll=None, threads=None, **options):
        poll = conf.get("POLL_SECONDS") if poll is None else poll
        if poll <= 0:
            raise CommandError("--poll must be more than 0 seconds.")
        # --once (scripts, a caller's own transaction) runs in this thread and connection.
        default = 4 if connection.vendor == "postgresql" and not once else 1
        threads = threads or conf.get("THREADS") or default
        if threads < 1:
            raise CommandError("--threads must be at least 1.")
        self.stopping = threading.Event()
        if not once:
            self._install_signal_handlers()
        self._name_orphans()
        logger.info("worker %s started (kinds: %s)", runner.worker_name(), ", ".join(registry.kinds()) or "none")
        if threads == 1:
            ran = self._loop(once=once, poll=poll, batch=conf.get("BATCH_SIZE"))
        else:
            ran = self._threads(threads, once=once, poll=poll)
        logger.info("worker %s stopped after %s rows", runner.worker_name(), ran)
        if once:
            self.stdout.write(f"Ran {ran} job(s).")

    def _threads(self, count: int, *, once: bool, poll: float) -> int:
        totals: list[int] = []

        def run():
            try:
                totals.append(self._loop(once=once, poll=poll, batch=1))
            finally:
                connection.close()  # each thread's own connection

        # Daemon threads: a second signal's SystemExit in the main thread ends the process at once.
        workers = [threading.Thread(target=run, name=f"jobs-{n}", daemon=True) for n in range(count)]
        for worker in workers:
            worker.start()
        for worker in workers:
            while worker.is_alive():
                worker.join(0.5)  # the main thread stays free to take signals
        return sum(totals)

    def _loop(self, *, once: bool, poll: float, batch: int) -> int:
        ran = 0
        while not self.stopping.is_set():
            # A connection that died or outlived CONN_MAX_AGE is replaced, as between requests
            # (never inside a transaction: a test's, or a caller's running --once).
            if not connection.in_atomic_block:
                close_old_connections()
            try:
                count = self._run_batch(batch)
            except OperationalError as exc:
                if connection.vendor != "sqlite" or "locked" not in str(exc).lower():
                    raise
                # Another writer held SQLite's one write lock past the busy timeout: try again.
                logger.warning("worker %s: %s; trying again", runner.worker_name(), exc)
                self.stopping.wait(poll)
                continue
            ran += count
            if once and count == 0:
                break
            if count == 0:
                self.stopping.wait(poll)
        return ran

    def _run_batch(self, batch: int) -> int:
        now = timezone.now()
        token, jobs = runner.claim(now=now, limit=batch)
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
