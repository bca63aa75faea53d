"""The service's settings with the bench's URLconf (bench/urls.py: the service's, and the limit views);
what every bench server of the service runs with (bench/servers.py). Only with BENCH_FLOOR."""

from config.settings import *  # noqa: F403
from config.settings import BENCH_FLOOR

if BENCH_FLOOR:
    ROOT_URLCONF = "bench.urls"
