"""scripts/run_together.py, what `make run` starts the server and the worker with: they stop together."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "run_together.py"
# Writes its pid, then waits for a signal (a server or a worker with nothing to do).
WAITER = "import os, signal, sys; open(sys.argv[1], 'w').write(str(os.getpid())); signal.pause()"
# Exits with the given status once the file named exists (the other command is up).
EXIT_AFTER = (
    "import os, sys, time\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.02)\nraise SystemExit(int(sys.argv[2]))"
)


def _start(*commands):
    argv = [sys.executable, str(SCRIPT)]
    for command in commands:
        argv += ["--", *command]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _pid_when_written(path: Path, timeout=30) -> int:
    # Waits for the child to start (a state), not for time to pass.
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path.name} never started"
        time.sleep(0.02)
    return int(path.read_text())


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_when_one_command_exits_the_other_is_stopped(tmp_path):
    proc = _start(
        [sys.executable, "-c", WAITER, str(tmp_path / "server")], [sys.executable, "-c", "raise SystemExit(3)"]
    )
    server = _pid_when_written(tmp_path / "server")
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 3
    assert "exited (3); stopping the others" in err
    assert _gone(server)


def test_ctrl_c_stops_every_command(tmp_path):
    proc = _start(
        [sys.executable, "-c", WAITER, str(tmp_path / "server")],
        [sys.executable, "-c", WAITER, str(tmp_path / "worker")],
    )
    pids = [_pid_when_written(tmp_path / "server"), _pid_when_written(tmp_path / "worker")]
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 0
    assert all(_gone(pid) for pid in pids)


def test_a_command_that_ignores_sigterm_is_killed_after_the_grace_period(tmp_path):
    stubborn = (
        "import os, signal, sys; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "open(sys.argv[1], 'w').write(str(os.getpid())); signal.pause()"
    )
    env = {**os.environ, "RUN_TOGETHER_GRACE_SECONDS": "0.5"}
    argv = [sys.executable, str(SCRIPT), "--", sys.executable, "-c", stubborn, str(tmp_path / "stubborn")]
    argv += ["--", sys.executable, "-c", EXIT_AFTER, str(tmp_path / "stubborn"), "0"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    pid = _pid_when_written(tmp_path / "stubborn")
    proc.communicate(timeout=30)
    assert _gone(pid)
