"""Waking a worker's idle lanes: a bell per lane, and on PostgreSQL one listening connection.

An idle lane's threads wait until the earlier of the poll (``JOBS["POLL_SECONDS"]``) and
the lane's next row's ``run_at`` (``runner.next_due``), or until the lane's bell rings.
On PostgreSQL every ready row inserted notifies its lane's channel (``jobs_<lane>``, a
trigger of migration 0003, so the notification leaves when the row's transaction
commits, and never for one rolled back); one thread of the worker holds a connection
listening on every lane's channel and rings the lane's bell, so a row enqueued for now
is run at once rather than at the next poll. Behind a transaction pooler
(``DATABASE_POOLER``), which cannot keep a ``LISTEN``, and on SQLite, lanes only poll.

The listener is only a shortcut: while its connection is away the lanes keep polling,
and it connects again (less often while the database stays away); every bell rings when
it is back, so a row written meanwhile waits no longer than a poll.
"""

import logging
import threading
import time

import psycopg
from django.conf import settings
from django.db import connections

logger = logging.getLogger("apps.jobs")

# How long one wait for notifications lasts: the listener notices a stop within it.
LISTEN_WINDOW = 0.5
# The longest wait between tries while the listening connection cannot be opened.
RECONNECT_PAUSE_MAX = 30.0
# How often an idle listening connection is checked (one SELECT 1).
CHECK_EVERY = 60.0
# libpq's settings of the listening socket (where the database's own settings name none).
LISTENING_SOCKET = {
    "connect_timeout": 5,
    "keepalives": 1,
    "keepalives_idle": 30,
    "keepalives_interval": 10,
    "keepalives_count": 3,
    "tcp_user_timeout": 30_000,
}


def channel(lane: str) -> str:
    """The channel a lane's inserted rows notify (the trigger's ``'jobs_' || lane``)."""
    return f"jobs_{lane}"


class Bell:
    """Wakes a lane's waiting threads. A thread reads ``rung`` before it looks for work and waits
    for a ring after that reading, so a ring between its look and its wait is not missed."""

    def __init__(self):
        self._condition = threading.Condition()
        self.rung = 0

    def ring(self) -> None:
        with self._condition:
            self.rung += 1
            self._condition.notify_all()

    def wait(self, seen: int, timeout: float) -> bool:
        """Until the bell rings after ``seen`` (True) or ``timeout`` seconds pass (False)."""
        with self._condition:
            return self._condition.wait_for(lambda: self.rung != seen, timeout)


def listens(alias: str) -> bool:
    """Whether a worker on database ``alias`` can be woken by notifications."""
    return connections[alias].vendor == "postgresql" and not getattr(settings, "DATABASE_POOLER", "")


class Listener:
    """One connection of its own (outside any pool, in autocommit) listening on every lane's
    channel, in one thread, until ``stopping`` is set."""

    def __init__(self, bells: dict[str, Bell], stopping: threading.Event, *, alias: str):
        self.stopping, self.alias = stopping, alias
        self.bells = {channel(lane): bell for lane, bell in bells.items()}
        self.listening = threading.Event()  # set while its connection listens
        # A thread of the worker process (manage.py run_worker, its only caller), never of a web
        # process: it holds no work of its own, only wakes lanes whose rows are already durable.
        self._thread = threading.Thread(target=self.run, name="jobs-listener", daemon=True)

    def start(self) -> "Listener":
        self._thread.start()
        return self

    def join(self, timeout: float = 10.0) -> None:
        """Once ``stopping`` is set: returns when its connection is closed (within a window, unless
        it is still opening one to a database that does not answer: the thread is a daemon)."""
        self._thread.join(timeout)

    def run(self) -> None:
        pause = 1.0
        while not self.stopping.is_set():
            try:
                with self._connect() as listening:
                    for name in self.bells:
                        listening.execute(f'LISTEN "{name}"')
                    pause = 1.0
                    self._ring_all()  # rows written while it was away: look now
                    self.listening.set()
                    self._listen(listening)
            except Exception as exc:  # whatever it was, the lanes poll meanwhile and it tries again
                if self.stopping.is_set():
                    break
                logger.warning("jobs listener: %s; lanes poll meanwhile, listening again in %g s", exc, pause)
                self.stopping.wait(pause)
                pause = min(pause * 2, RECONNECT_PAUSE_MAX)
            finally:
                self.listening.clear()

    def _connect(self) -> psycopg.Connection:
        # The database's own parameters (Django's, and the project's statement bound), without its
        # pool; TCP keepalives and a user timeout so a network that drops without a word ends the
        # connection in seconds, not at the kernel's retransmission limit.
        params = connections[self.alias].get_connection_params()
        for name, value in LISTENING_SOCKET.items():
            params.setdefault(name, value)
        return psycopg.connect(**params, autocommit=True)

    def _listen(self, listening: psycopg.Connection) -> None:
        checked = time.monotonic()
        while not self.stopping.is_set():
            for notify in listening.notifies(timeout=LISTEN_WINDOW):
                bell = self.bells.get(notify.channel)
                if bell is not None:
                    bell.ring()
            if time.monotonic() - checked > CHECK_EVERY:
                # A connection the network dropped without a word raises here, not in notifies().
                listening.execute("SELECT 1")
                checked = time.monotonic()

    def _ring_all(self) -> None:
        for bell in self.bells.values():
            bell.ring()


def start_listener(bells: dict[str, Bell], stopping: threading.Event, *, alias: str) -> Listener | None:
    """The listener, started (None where the database cannot notify)."""
    if not listens(alias):
        return None
    return Listener(bells, stopping, alias=alias).start()
