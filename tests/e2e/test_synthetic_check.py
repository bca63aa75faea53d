"""`make synthetic` (scripts/synthetic_check.py, docs/operations.md "Availability") against the service
in gunicorn: every step passes and is timed, and a failing step is named and fails the run."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .assistant import EMAIL, PASSWORD

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
STEPS = ("sign-in", "token", "v1 read", "tools/call", "revoke", "total")


def run_check(service, password: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "SYNTHETIC_URL": service.url,
        "SYNTHETIC_EMAIL": EMAIL,
        "SYNTHETIC_PASSWORD": password,
        "SYNTHETIC_TIMEOUT": "60",
    }
    return subprocess.run(
        [sys.executable, "scripts/synthetic_check.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_every_step_passes_with_its_time(service):
    done = run_check(service, PASSWORD)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["sign-in", "token", "v1", "tools/call", "revoke", "total"]
    for line in lines:
        assert line.startswith("PASS") and " ms " in line
    assert "Request-Id req_" in lines[2] and "Request-Id req_" in lines[3]


def test_a_failing_step_is_named_and_fails_the_run(service):
    done = run_check(service, "not-the-password")
    assert done.returncode == 1
    assert done.stdout.splitlines()[0].startswith("FAIL  sign-in")
    assert done.stdout.splitlines()[-1].startswith("FAIL  total")
