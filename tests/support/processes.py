"""Processes a test starts beside itself (a server, a worker, a pooler, a ``manage.py`` command):
run, waited on until they serve, ended whatever happens."""

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = "127.0.0.1"


def free_port() -> int:
    """A port of 127.0.0.1 no one listens on now."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]


def manage(env: dict, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``manage.py *args`` of this checkout in ``env``; a failure carries what the command said."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        # What the command said is the only clue a failed set-up leaves: keep it in the failure.
        said = f"{done.stdout[-4000:]}\n{done.stderr[-8000:]}"
        raise RuntimeError(f"manage.py {' '.join(args)} exited {done.returncode}:\n{said}")
    return done


def start(command: list, *, log, env: dict | None = None) -> subprocess.Popen:
    """``command`` run from this checkout (in ``env``, else this process's), both its streams to ``log``."""
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def start_gunicorn(port: int, *options: str, env: dict, log) -> subprocess.Popen:
    """The service in gunicorn on 127.0.0.1:``port``, with ``options`` (its workers, its logs)."""
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"{LOOPBACK}:{port}", *options]
    return start(command, env=env, log=log)


def answers(url: str) -> bool:
    """Whether ``url`` answers 200 now (a refused connection or an error status raises ``OSError``)."""
    with urllib.request.urlopen(url, timeout=2) as response:
        return response.status == 200


def wait_serving(process: subprocess.Popen, probe, *, what: str, output, timeout: float = 60.0) -> None:
    """Until ``probe()`` answers truthy (an ``OSError`` is "not yet"). Fails naming ``what``, with
    ``output()``, when the process exits first or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited:\n{output()}")
        try:
            if probe():
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start:\n{output()}")


def stop(process: subprocess.Popen, *, timeout: float = 10.0) -> None:
    """Asks ``process`` to end, and kills it if it has not within ``timeout`` seconds."""
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
