"""Run several commands as one: `python scripts/run_together.py -- CMD1 ... -- CMD2 ...`.

What `make run` uses to start the server and the worker side by side. Each command runs
in its own process group (runserver's reloader is two processes); when one exits, or on
Ctrl-C or SIGTERM, every group is sent SIGTERM, then SIGKILL after a grace period, so
none is left behind holding the port or the database. Exits with the status of the
command that ended first (0 when stopped by a signal).
"""

import contextlib
import os
import signal
import subprocess
import sys
import time

# How long a command has to stop after SIGTERM before it is killed.
GRACE_SECONDS = float(os.environ.get("RUN_TOGETHER_GRACE_SECONDS", "10"))


class _Stop(Exception):
    pass


def _commands(argv: list[str]) -> list[list[str]]:
    commands, current = [], None
    for arg in argv:
        if arg == "--":
            current = []
            commands.append(current)
        elif current is None:
            raise SystemExit(__doc__.splitlines()[0])
        else:
            current.append(arg)
    commands = [c for c in commands if c]
    if not commands:
        raise SystemExit(__doc__.splitlines()[0])
    return commands


def _signal_groups(procs, signum):
    for proc in procs:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signum)


def main(argv: list[str]) -> int:
    commands = _commands(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    procs = [subprocess.Popen(command, start_new_session=True) for command in commands]

    def stop(signum, frame):
        raise _Stop

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    status = 0
    try:
        pid, raw = os.wait()
        ended = next((p for p in procs if p.pid == pid), None)
        if ended is not None:
            ended.returncode = os.waitstatus_to_exitcode(raw)
            status = ended.returncode or 0
            name = " ".join(ended.args[:3])
            print(f"run_together: {name} exited ({ended.returncode}); stopping the others", file=sys.stderr)
    except _Stop:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _signal_groups(procs, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    for proc in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.1, deadline - time.monotonic()))
    _signal_groups(procs, signal.SIGKILL)
    for proc in procs:
        proc.wait()
    return abs(status) if status < 0 else status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
