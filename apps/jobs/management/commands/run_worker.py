"""``manage.py run_worker``: claims due rows and runs their handlers until stopped.

Several may run against PostgreSQL (claims skip each other's rows); against SQLite run
one (SQLite has one writer at a time, and the quick start needs no more). Every lane
(apps/jobs/lanes.py: carrier events, transcripts, webhook deliveries, housekeeping) has
threads of its own (its default for the database, or ``--threads``/JOBS ``THREADS`` for
every lane), each claiming one row of its lane at a time: a row that takes long (a webhook
receiver that hangs until its timeout) holds only its own thread, and a backlog in one lane
never delays another's rows. A lane with nothing due waits until the earlier of the poll and
its next row's ``run_at``; on PostgreSQL a row enqueued for it wakes it at once
(apps/jobs/wakeup.py). ``--once`` runs every lane's due rows in this thread. SIGTERM
or SIGINT finishes the rows being run, gives back the rest of the claim and exits; a second
signal exits at once (the rows come due again when their leases run out).
"""

import contextlib
import logging
import signal
import threading
from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections, connection
from django.utils import timezone

from apps.core.observe import job_context
from apps.jobs import conf, lanes, registry, runner, schedules, wakeup
from apps.jobs.models import Job, JobStatus

logger = logging.getLogger("apps.jobs")

# The longest wait between tries while the database is away.
OUTAGE_PAUSE_MAX = 30.0
PURGE_EVERY = timedelta(hours=1)


class Command(BaseCommand):
    help = "Run due durable work (apps.jobs) until stopped; --once runs what is due now and exits."

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.stopping = threading.Event()
        self._purge_lock = threading.Lock()
        self._next_purge = None  # at start
        self._seed_schedules = schedules.Seeder()
        self.bells = {name: wakeup.Bell() for name in lanes.LANES}

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Run every row due now, then exit.")
        parser.add_argument(
            "--poll", type=float, default=None, help="Seconds to wait when nothing is due (JOBS POLL_SECONDS)."
        )
        parser.add_argument(
            "--threads",
            type=int,
            default=None,
            help="Threads of every lane, each running one row at a time (JOBS THREADS; default: each lane's own).",
        )

    def handle(self, *args, once=False, poll=None, threads=None, **options):
        poll = conf.get("POLL_SECONDS") if poll is None else poll
        if poll <= 0:
            raise CommandError("--poll must be more than 0 seconds.")
        if threads is None:
            threads = conf.get("THREADS")
        if threads is not None and threads < 1:
            raise CommandError("--threads must be at least 1.")
        self.stopping = threading.Event()
        previous = self._install_signal_handlers() if not once else {}
        try:
            self._name_orphans()
            self._align_lanes()
            logger.info("worker %s started (kinds: %s)", runner.worker_name(), ", ".join(registry.kinds()) or "none")
            if once:
                # Scripts, and a caller's own transaction: every lane in this thread and connection.
                ran = self._loop(once=once, poll=poll, batch=conf.get("BATCH_SIZE"))
            else:
                plan = {lane.name: threads or lane.threads(connection.vendor) for lane in lanes.LANES.values()}
                listener = wakeup.start_listener(self.bells, self.stopping, alias=connection.alias)
                try:
                    ran = self._threads(plan, poll=poll)
                finally:
                    self.stopping.set()
                    if listener is not None:
                        listener.join()
        finally:
            # Whoever called the command (a test, a script) gets its own handlers back.
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        logger.info("worker %s stopped after %s rows", runner.worker_name(), ran)
        if once:
            self.stdout.write(f"Ran {ran} job(s).")

    def _threads(self, plan: dict[str, int], *, poll: float) -> int:
        totals: list[int] = []
        crashed: list[BaseException] = []

        def run(lane: str):
            try:
                totals.append(self._loop(once=False, poll=poll, batch=1, lane=lane))
            except BaseException as exc:
                # One thread's failure stops the worker (its supervisor restarts it) rather than
                # leaving it running with fewer threads than it says.
                logger.exception("worker %s: a thread failed; stopping", runner.worker_name())
                crashed.append(exc)
                self._stop()
            finally:
                connection.close()  # each thread's own connection

        # These are the worker process's own threads (manage.py run_worker), never a web process's:
        # each claims durable rows of its lane, so a slow lane holds only its own threads.
        # Daemon threads: a second signal's SystemExit in the main thread ends the process at once.
        workers = [
            threading.Thread(target=run, args=(lane,), name=f"jobs-{lane}-{n}", daemon=True)
            for lane, count in plan.items()
            for n in range(count)
        ]
        for worker in workers:
            worker.start()
        for worker in workers:
            while worker.is_alive():
                worker.join(0.5)  # the main thread stays free to take signals
        if crashed:
            raise CommandError(f"a worker thread failed: {crashed[0]!r}") from crashed[0]
        return sum(totals)

    def _loop(self, *, once: bool, poll: float, batch: int, lane: str | None = None) -> int:
        ran = 0
        pause = poll
        bell = self.bells.get(lane)
        while not self.stopping.is_set():
            # Read before looking for work: a ring while it looks ends the wait below at once.
            seen = bell.rung if bell is not None else 0
            if self.stopping.is_set():
                # _stop sets the flag before it rings: a ring already counted in `seen` shows here.
                break
            try:
                # A connection that died or outlived CONN_MAX_AGE is replaced, as between requests
                # (never inside a transaction: a test's, or a caller's running --once).
                if not connection.in_atomic_block:
                    close_old_connections()
                self._purge_if_due()
                self._seed_schedules()
                count = self._run_batch(batch, lane=lane)
                idle = self._idle_wait(poll, lane=lane) if count == 0 and not once else 0.0
            except (OperationalError, InterfaceError) as exc:
                locked = connection.vendor == "sqlite" and "locked" in str(exc).lower()
                if connection.in_atomic_block or (once and not locked):
                    raise
                # The database is away (a restart, a failover), or another writer held SQLite's
                # one write lock past the busy timeout. Nothing is lost: rows claimed and not
                # finished come due again when their lease runs out. Try again, less often
                # while it lasts.
                logger.warning("worker %s: %s; trying again in %g s", runner.worker_name(), exc, pause)
                with contextlib.suppress(DatabaseError):
                    connection.close()
                self.stopping.wait(pause)
                pause = min(pause * 2, OUTAGE_PAUSE_MAX)
                continue
            pause = poll
            ran += count
            if once and count == 0:
                break
            if count == 0:
                if bell is None:
                    self.stopping.wait(idle)
                else:
                    bell.wait(seen, idle)
        return ran

    def _idle_wait(self, poll: float, *, lane: str | None) -> float:
        """Seconds a lane that found nothing due waits: the poll, or less when its next row falls due sooner."""
        now = timezone.now()
        due = runner.next_due(now=now, lane=lane)
        return poll if due is None else max(0.0, min(poll, (due - now).total_seconds()))

    def _stop(self):
        self.stopping.set()
        for bell in self.bells.values():
            bell.ring()

    def _purge_if_due(self):
        """At start, then hourly: finished rows past their keeping time go (one thread does it)."""
        now = timezone.now()
        with self._purge_lock:
            if self._next_purge is not None and now < self._next_purge:
                return
            self._next_purge = now + PURGE_EVERY
        removed = runner.purge(now=now)
        if removed:
            logger.info("worker %s deleted %s finished rows past their keeping time", runner.worker_name(), removed)

    def _run_batch(self, batch: int, *, lane: str | None = None) -> int:
        now = timezone.now()
        token, jobs = runner.claim(now=now, limit=batch, lane=lane)
        for index, job in enumerate(jobs):
            if self.stopping.is_set():
                runner.release(token, jobs[index:])
                return index
            with job_context(kind=job.kind, row_id=job.id, lane=getattr(job, "lane", job.kind)):
                runner.run_one(job, token, now=now)
        return len(jobs)

    def _install_signal_handlers(self):
        def stop(signum, frame):
            if self.stopping.is_set():
                raise SystemExit(128 + signum)
            logger.info("worker %s stopping (signal %s)", runner.worker_name(), signum)
            self._stop()

        return {signum: signal.signal(signum, stop) for signum in (signal.SIGTERM, signal.SIGINT)}

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

    def _align_lanes(self):
        """Ready rows carry the lane their kind runs in now (rows written before a kind moved, or
        before lanes existed): a lane's threads claim only their own lane's rows."""
        for kind in registry.kinds():
            lane = registry.get(kind).lane
            Job.objects.filter(status=JobStatus.READY, kind=kind).exclude(lane=lane).update(lane=lane)
