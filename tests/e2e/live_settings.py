"""Settings of the live server the end-to-end tests start: the real settings, plus the
two test-only CIMD settings that admit the local HTTPS fixture serving client
metadata documents (apps/oauth/client_metadata/), and a clock the tests can move.
No deployment uses this module.
"""

import json
import os
from datetime import UTC, datetime, timedelta

from django.utils import timezone

from config.settings import *  # noqa: F403

CIMD_TEST_CA_FILE = os.environ["E2E_CIMD_CA_FILE"]
CIMD_TEST_ALLOWED_ADDRESSES = ("127.0.0.1",)

# The server's clock, for tests of what happens later (a simulated call's next event is durable
# work due at its time, and a read of the call applies what is due: docs/design.md, "The carrier
# boundary"). The file holds {"offset": seconds} (the real clock moved on) or {"frozen": unix}
# (stopped there until the test moves it); no file: the real clock. Every time the service takes
# is django.utils.timezone.now() (apps/jobs/public.py), so moving that one function moves it all;
# it is replaced here, before any app is imported.
CLOCK_FILE = os.environ.get("E2E_CLOCK_FILE")

if CLOCK_FILE:
    _real_now = timezone.now

    def _test_clock_now() -> datetime:
        try:
            with open(CLOCK_FILE) as file:
                clock = json.load(file)
        except (FileNotFoundError, ValueError):
            return _real_now()
        if "frozen" in clock:
            return datetime.fromtimestamp(clock["frozen"], tz=UTC)
        return _real_now() + timedelta(seconds=clock.get("offset", 0))

    timezone.now = _test_clock_now
