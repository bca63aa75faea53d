"""Run a command against a private three-primary Redis Cluster started on free loopback ports.

    python scripts/with_redis_cluster.py -- python -m pytest tests/ratelimit ...

The cluster (tests/ratelimit/redis_server.py) is started first and stopped after, whatever the
command's outcome; the command gets REDIS_URL (one node), REDIS_CLUSTER=1 and TEST_REDIS_CLUSTER=1,
so both in-process tests and the live servers they start use the cluster. Exits with the command's status.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.ratelimit.redis_server import RedisCluster  # noqa: E402


def main(argv: list[str]) -> int:
    command = argv[argv.index("--") + 1 :] if "--" in argv else argv
    with tempfile.TemporaryDirectory(prefix="redis-cluster-") as directory:
        cluster = RedisCluster(Path(directory))
        try:
            cluster.start()
            print(f"redis cluster on ports {cluster.ports}", flush=True)
            env = {
                **os.environ,
                **cluster.env,
                "TEST_REDIS_CLUSTER": "1",
                # Every node runs on this machine's one clock.
                "RATELIMIT_CLUSTER_CLOCK_SKEW_MS": "0",
            }
            return subprocess.call(command, cwd=ROOT, env=env)
        finally:
            cluster.stop()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
