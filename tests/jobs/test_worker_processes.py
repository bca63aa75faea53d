"""Real worker processes, on PostgreSQL and on a SQLite file: a SIGKILL loses nothing, several
workers never run one row twice, and SIGTERM lets a worker finish the row in hand.

On SQLite the test database (in memory) is copied to a file the processes share once the
rows are written (``VACUUM INTO``); on PostgreSQL they use the test database itself.
"""

import os
import signal
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from apps.jobs.models import JobStatus
from apps.jobs.public import enqueue
from tests.support.jobs import handlers
from tests.support.jobs_processes import SharedDatabase

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def shared(tmp_path):
    return SharedDatabase(tmp_path)


def _wait_for(path: Path, proc, timeout=90):
    # Waits for the worker process to reach a state (not for time to pass).
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        if proc.poll() is not None:
            pytest.fail(f"the worker exited: {proc.stdout.read()}")
        if time.monotonic() > deadline:
            proc.kill()
            pytest.fail("the worker never took the row")
        time.sleep(0.05)


def _noop(payload):
    pass


def test_a_worker_killed_while_holding_a_row_loses_nothing(shared, tmp_path):
    marker = tmp_path / "held"
    with handlers(tests__hold=_noop):
        job = enqueue("tests.hold", {"marker": str(marker)})
    shared.publish()
    proc = shared.process()
    try:
        _wait_for(marker, proc)
        held = shared.jobs()[job.id]
        assert held["status"] == JobStatus.READY
        assert held["attempts"] == 1
        assert held["locked_until"] > timezone.now()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # Still leased: nobody may take it yet; once the lease has run out, the next run does. (The
    # worker also seeded the apps' recurring work, which those runs take too: only the row counts.)
    shared.run_due(held["locked_until"] - timedelta(seconds=1))
    still = shared.jobs()[job.id]
    assert (still["status"], still["attempts"]) == (JobStatus.READY, 1)
    shared.run_due(held["locked_until"] + timedelta(seconds=1))
    after = shared.jobs()[job.id]
    assert (after["status"], after["attempts"], after["locked_until"]) == (JobStatus.SUCCESSFUL, 2, None)
    assert marker.read_text().endswith(" again")


def test_several_workers_never_run_one_row_twice(shared, tmp_path):
    log = tmp_path / "runs"
    log.touch()
    with handlers(tests__record=_noop):
        for n in range(120):
            enqueue("tests.record", {"n": n, "log": str(log)})
    shared.publish()
    workers = [shared.process("--once") for _ in range(3)]
    for proc in workers:
        out, _ = proc.communicate(timeout=180)
        assert proc.returncode == 0, out
    runs = [line.split() for line in log.read_text().splitlines()]
    assert Counter(int(n) for n, _pid in runs) == Counter(range(120))
    # The workers also ran the apps' recurring work (tests/jobs/test_schedules.py): only the test's rows count here.
    recorded = [row["status"] for row in shared.rows("kind", "status") if row["kind"] == "tests.record"]
    assert Counter(recorded) == {JobStatus.SUCCESSFUL: 120}


@pytest.mark.parametrize("threads", [1, 2])
def test_sigterm_finishes_the_rows_in_hand_and_gives_back_the_rest(shared, tmp_path, threads):
    with handlers(tests__gate=_noop):
        jobs = [enqueue("tests.gate", {"dir": str(tmp_path), "n": n}) for n in range(4)]
    shared.publish()
    proc = shared.process("--threads", str(threads))
    try:
        for n in range(threads):
            _wait_for(tmp_path / f"held-{n}", proc)
        proc.send_signal(signal.SIGTERM)
        # The worker has its stop request before the rows in hand may finish.
        (tmp_path / "go").write_text("go")
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out
    assert "stopping (signal 15)" in out
    rows = [shared.jobs()[job.id] for job in jobs]
    in_hand, rest = rows[:threads], rows[threads:]
    assert [(r["status"], r["attempts"]) for r in in_hand] == [(JobStatus.SUCCESSFUL, 1)] * threads
    # Given back or never taken: due again at once, no attempt counted.
    assert [(r["status"], r["attempts"], r["locked_until"]) for r in rest] == [(JobStatus.READY, 0, None)] * (
        4 - threads
    )
