"""A worker process for the tests that need a real one.

``python -m tests.support.jobs_worker [run_worker args]`` registers the test kinds, then
runs ``manage.py run_worker``; ``python -m tests.support.jobs_worker run_due ISO-TIME``
runs ``run_due(now=ISO-TIME)`` once and prints how many rows ran. The kinds:
``tests.hold`` writes its pid to the file named in its payload (the row is now held) and
never returns, unless that file already exists (a later run, after the first was killed):
then it appends ``again`` and returns. ``tests.record`` appends its payload's ``n`` and
its pid to the file named in its payload, one line per run. ``tests.gate`` writes the
file ``held-N`` (its payload's ``n``), then returns once the file ``go`` exists (both in
its payload's ``dir``). With ``JOBS_TEST_NOW`` (an ISO time) in the environment the
process's clock stands still there (``timezone.now()``), so processes of one test agree on
the period of a schedule.
"""

import os
import sys
import threading
import time
from pathlib import Path


def register():
    from apps.jobs.public import handler

    @handler("tests.hold", atomic=False)
    def hold(payload):
        marker = Path(payload["marker"])
        if marker.exists():
            with marker.open("a") as out:
                out.write(" again")
            return
        marker.write_text(str(os.getpid()))
        threading.Event().wait()

    @handler("tests.record", atomic=False)
    def record(payload):
        with open(payload["log"], "a") as log:
            log.write(f"{payload['n']} {os.getpid()}\n")

    @handler("tests.gate", atomic=False)
    def gate(payload):
        folder = Path(payload["dir"])
        (folder / f"held-{payload['n']}").write_text(str(os.getpid()))
        # Waits for the test to signal the worker and open the gate (a state, not a duration).
        while not (folder / "go").exists():
            time.sleep(0.02)


def main(argv):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    register()
    if os.environ.get("JOBS_TEST_NOW"):
        from datetime import datetime
        from unittest import mock

        at = datetime.fromisoformat(os.environ["JOBS_TEST_NOW"])
        mock.patch("django.utils.timezone.now", return_value=at).start()
    if argv[:1] == ["run_due"]:
        from datetime import datetime

        from apps.jobs.public import run_due

        print(run_due(now=datetime.fromisoformat(argv[1])))
        return
    from django.core.management import call_command

    call_command("run_worker", *argv)


if __name__ == "__main__":
    main(sys.argv[1:])
