"""Settings of the live server the end-to-end tests start: the real settings, plus the
two test-only CIMD settings that admit the local HTTPS fixture serving client
metadata documents (apps/oauth/client_metadata/). No deployment uses this module.
"""

import os

from config.settings import *  # noqa: F403

CIMD_TEST_CA_FILE = os.environ["E2E_CIMD_CA_FILE"]
CIMD_TEST_ALLOWED_ADDRESSES = ("127.0.0.1",)
