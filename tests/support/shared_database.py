"""The test database as worker processes reach it, for the tests that need a real worker.

On SQLite the test database (in memory) is copied to a file the processes share once the
rows are written (``VACUUM INTO``); on PostgreSQL they use the test database itself.
"""

import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from django.db import connection

from apps.jobs.models import Job

ROOT = Path(__file__).resolve().parents[2]


class SharedDatabase:
    """The test database as worker processes reach it, and its job rows as they left them."""

    def __init__(self, tmp_path: Path):
        self.file = None
        settings = connection.settings_dict
        if connection.vendor == "postgresql":
            self.url = (
                f"postgres://{settings['USER']}:{settings['PASSWORD'] or ''}@{settings['HOST'] or '127.0.0.1'}:"
                f"{settings['PORT'] or 5432}/{settings['NAME']}"
            )
        else:
            self.file = tmp_path / "shared.sqlite3"
            self.url = f"sqlite:///{self.file}"

    def publish(self):
        """Call once the rows are written: from here on the processes see them."""
        if self.file is not None:
            with connection.cursor() as cursor:
                cursor.execute("VACUUM INTO %s", [str(self.file)])

    def jobs(self) -> dict[int, dict]:
        fields = ["id", "status", "attempts", "locked_until"]
        if self.file is None:
            return {row["id"]: row for row in Job.objects.values(*fields)}
        with sqlite3.connect(self.file) as db:
            rows = db.execute(f"SELECT {', '.join(fields)} FROM jobs_job").fetchall()
        return {row[0]: {**dict(zip(fields, row, strict=True)), "locked_until": _parse(row[3])} for row in rows}

    def process(self, *args, env=None, **popen):
        """``python -m tests.support.jobs_worker *args`` on this database; ``env`` adds to its environment."""
        env = {**os.environ, "DATABASE_URL": self.url, "JOBS_POLL_SECONDS": "0.05", **(env or {})}
        env.setdefault("SECRET_KEY", "test-only-secret-key-not-for-any-deployment-0123456789")
        return subprocess.Popen(
            [sys.executable, "-m", "tests.support.jobs_worker", *args],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            **popen,
        )

    def run_due(self, now: datetime) -> int:
        proc = self.process("run_due", now.isoformat())
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
        return int(out.strip().splitlines()[-1])


def _parse(value):
    if value is None:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _parse(value):
    if value is None:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
