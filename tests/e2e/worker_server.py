"""The live server with its worker: gunicorn and ``manage.py run_worker`` on one database and one clock.

``LiveServerWithWorker`` is ``LiveServer`` (tests/e2e/servers.py) plus the worker process that
claims due durable work (a simulated call's next event, a transcript, a webhook delivery), started
with the same environment: the same movable clock file, the same database. The database is
PostgreSQL when ``JOURNEYS_DATABASE_URL`` names one (``make test-journeys-pg``, a step of .ci/run: a
database of its own on that server, named from it with ``_journeys`` appended, created here and
dropped afterwards), and a SQLite file otherwise. Test mode sends webhooks to a receiver on
loopback (``WEBHOOK_ALLOW_LOOPBACK``).
"""

import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tests.support.processes import start, stop

from .servers import LiveServer

DATABASE_SUFFIX = "_journeys"


# The PostgreSQL server the journeys run on, when one is named: ``make test-journeys-pg`` names the
# local one. The whole suite leaves it unset, so the journeys' server and worker keep a SQLite file of
# their own there: a connection of theirs on the shared server was ended mid-migration by the suite's
# other workers ("terminating connection due to administrator command").
JOURNEYS_DATABASE_URL = "JOURNEYS_DATABASE_URL"


def postgres_url() -> str | None:
    url = os.environ.get(JOURNEYS_DATABASE_URL, "")
    return url if urlsplit(url).scheme in {"postgres", "postgresql", "pgsql"} else None


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


class PostgresDatabase:
    """A database of its own on the server ``url`` names: made empty on entry, dropped on exit."""

    def __init__(self, url: str, suffix: str = DATABASE_SUFFIX):
        base = urlsplit(url).path.lstrip("/") or "postgres"
        self.name = f"{base}{suffix}"
        self.url = _with_database(url, self.name)
        self._admin_url = _with_database(url, "postgres")

    def _run(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self._admin_url, autocommit=True) as connection:
            connection.execute(statement)

    def __enter__(self):
        self._run(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self._run(f'CREATE DATABASE "{self.name}"')
        return self

    def __exit__(self, *exc):
        self._run(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


class LiveServerWithWorker(LiveServer):
    def __init__(self, directory: Path, **kwargs):
        super().__init__(directory, **kwargs)
        url = postgres_url()
        self.database = PostgresDatabase(url) if url else None
        if self.database is not None:
            self.env["DATABASE_URL"] = self.database.url
        self.env["WEBHOOK_ALLOW_LOOPBACK"] = "1"
        self.worker_log_path = directory / "worker.log"
        self.worker = None

    @property
    def vendor(self) -> str:
        return "postgresql" if self.database is not None else "sqlite"

    def __enter__(self):
        if self.database is not None:
            self.database.__enter__()
        try:
            super().__enter__()
            self.worker_log = self.worker_log_path.open("wb")
            self.worker = start(
                [sys.executable, "manage.py", "run_worker", "--poll", "0.2"], env=self.env, log=self.worker_log
            )
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def worker_output(self) -> str:
        self.worker_log.flush()
        return self.worker_log_path.read_text(errors="replace")[-20000:]

    def wait_for(self, condition, *, what: str, timeout: float = 30.0, every: float = 0.1):
        """``condition()``'s first truthy answer, waited for in real time (the worker runs what is due
        on the server's clock; this only gives it the moments to do so), or a failure naming ``what``."""
        deadline = time.monotonic() + timeout
        while True:
            if self.worker is not None and self.worker.poll() is not None:
                raise AssertionError(f"the worker exited while waiting for {what}:\n{self.worker_output()}")
            found = condition()
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout} s:\n{self.worker_output()[-4000:]}")
            time.sleep(every)

    def __exit__(self, *exc):
        try:
            if self.worker is not None:
                stop(self.worker, timeout=15)
                self.worker_log.close()
            if self.process is not None:
                super().__exit__(*exc)
        finally:
            if self.database is not None:
                self.database.__exit__(*exc)
