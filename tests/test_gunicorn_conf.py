"""gunicorn.conf.py, which production and `make bench` run with (Procfile, bench/run.py)."""

import os
import runpy
from pathlib import Path

CONF = Path(__file__).resolve().parent.parent / "gunicorn.conf.py"


def workers(monkeypatch, value=None) -> int:
    if value is None:
        monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    else:
        monkeypatch.setenv("WEB_CONCURRENCY", value)
    return runpy.run_path(str(CONF))["workers"]


def test_workers_follow_gunicorns_advice_for_the_cores_granted(monkeypatch):
    assert workers(monkeypatch) == 2 * len(os.sched_getaffinity(0)) + 1


def test_web_concurrency_sets_the_workers(monkeypatch):
    assert workers(monkeypatch, "3") == 3


def test_an_empty_web_concurrency_is_unset(monkeypatch):
    assert workers(monkeypatch, "") == 2 * len(os.sched_getaffinity(0)) + 1


def test_the_procfile_leaves_the_count_to_the_config():
    procfile = (CONF.parent / "Procfile").read_text()
    assert "--workers" not in procfile
