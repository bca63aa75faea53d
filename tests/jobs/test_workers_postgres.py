"""Real worker processes on PostgreSQL: a SIGKILL loses nothing, and two workers never run one row twice."""

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone

from apps.jobs.models import Job, JobStatus
from apps.jobs.public import enqueue, run_due
from tests.support.jobs import handlers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs PostgreSQL: worker processes must share the test database",
    ),
]
ROOT = Path(__file__).resolve().parents[2]


def _worker(*args):
    settings = connection.settings_dict
    url = (
        f"postgres://{settings['USER']}:{settings['PASSWORD'] or ''}@{settings['HOST'] or '127.0.0.1'}:"
        f"{settings['PORT'] or 5432}/{settings['NAME']}"
    )
    env = {**os.environ, "DATABASE_URL": url, "JOBS_POLL_SECONDS": "0.05"}
    env.setdefault("SECRET_KEY", "test-only-secret-key-not-for-any-deployment-0123456789")
    return subprocess.Popen(
        [sys.executable, "-m", "tests.support.jobs_worker", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def _wait_for(path: Path, proc, timeout=60):
    # Waits for the worker process to reach a state (not for time to pass).
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text():
        if proc.poll() is not None:
            pytest.fail(f"the worker exited: {proc.stdout.read().decode()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the worker never took the row")
        time.sleep(0.05)


def _noop(payload):
    pass


def test_a_worker_killed_while_holding_a_row_loses_nothing(tmp_path):
    marker = tmp_path / "held"
    ran = []
    with handlers(tests__hold=lambda p: ran.append(p["marker"])):
        job = enqueue("tests.hold", {"marker": str(marker)})
    proc = _worker()
    try:
        _wait_for(marker, proc)
        job.refresh_from_db()
        assert job.status == JobStatus.READY
        assert job.locked_until > timezone.now()
        assert job.attempts == 1
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    with handlers(tests__hold=lambda p: ran.append(p["marker"])):
        # Still leased: nobody may take it yet.
        assert run_due() == 0
        assert run_due(now=job.locked_until + timedelta(seconds=1)) == 1
    job.refresh_from_db()
    assert (job.status, job.attempts, ran) == (JobStatus.SUCCESSFUL, 2, [str(marker)])


def test_two_worker_processes_never_run_one_row_twice(tmp_path):
    log = tmp_path / "runs"
    log.touch()
    with handlers(tests__record=_noop):
        for n in range(200):
            enqueue("tests.record", {"n": n, "log": str(log)})
    workers = [_worker("--once") for _ in range(3)]
    for proc in workers:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out.decode()
    runs = [line.split() for line in log.read_text().splitlines()]
    counts = Counter(int(n) for n, _pid in runs)
    assert counts == Counter(range(200))
    assert Job.objects.filter(status=JobStatus.SUCCESSFUL).count() == 200
    # The claims were shared, not all taken by the first worker up.
    assert len({pid for _n, pid in runs}) >= 2
