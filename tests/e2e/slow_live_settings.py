"""The live server's settings (tests/e2e/live_settings.py) with one test-only route more:
/v1/_slow runs a statement past any bound a test sets (tests/core/urls_slow.py). No deployment
uses this module."""

from tests.e2e.live_settings import *  # noqa: F403

ROOT_URLCONF = "tests.core.urls_slow"
