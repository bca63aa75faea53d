"""A worker process for the tests that need a real one: `python -m tests.support.jobs_worker [run_worker args]`.

It registers the test kinds, then runs ``manage.py run_worker``:
``tests.hold`` writes the file named in its payload (the row is now held) and never
returns, so the test can kill the worker while it holds the row; ``tests.record``
appends its payload's ``n`` to the file named in its payload, one line per run.
"""

import os
import sys
import threading


def main(argv):
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from apps.jobs.public import handler

    @handler("tests.hold", atomic=False)
    def hold(payload):
        with open(payload["marker"], "w") as marker:
            marker.write(str(os.getpid()))
        threading.Event().wait()

    @handler("tests.record", atomic=False)
    def record(payload):
        with open(payload["log"], "a") as log:
            log.write(f"{payload['n']} {os.getpid()}\n")

    call_command("run_worker", *argv)


if __name__ == "__main__":
    main(sys.argv[1:])
