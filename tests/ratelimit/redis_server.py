"""A private redis-server for tests that stop it or count its commands, and a private Redis Cluster.

The shared Redis on 6379 is never stopped or flushed: tests that need an
outage or exact command counts start their own on a free port. With
``TEST_REDIS_CLUSTER=1`` the store shared by a test session is a RedisClusterStore
on three primaries that this module starts on free ports (and stops).
"""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn_redis(port: int, *options: str) -> subprocess.Popen:
    """A redis-server on 127.0.0.1:``port`` that keeps nothing on disk, with ``options`` added."""
    return subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class RedisServer:
    def __init__(self):
        self.port = free_port()
        self.process = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = spawn_redis(self.port)
        client = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, decode_responses=True)


def start_private_redis() -> RedisServer:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = RedisServer()
    server.start()
    return server


class RedisCluster:
    """Three cluster-enabled redis-servers on free ports, joined by ``redis-cli --cluster create``."""

    def __init__(self, directory, primaries: int = 3):
        self.directory = directory
        self.ports = [free_port() for _ in range(primaries)]
        # The cluster bus would default to port + 10000, past 65535 for a high free port.
        self.bus_ports = [free_port() for _ in range(primaries)]
        self.processes: list[subprocess.Popen] = []

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.ports[0]}/0"

    @property
    def env(self) -> dict:
        """What a server process needs to use this cluster."""
        return {"REDIS_URL": self.url, "REDIS_CLUSTER": "1"}

    def _launch(self) -> None:
        Path(self.directory).mkdir(parents=True, exist_ok=True)
        for port, bus_port in zip(self.ports, self.bus_ports, strict=True):
            cluster = ["--cluster-enabled", "yes", "--cluster-port", str(bus_port)]
            files = ["--cluster-config-file", f"nodes-{port}.conf", "--dir", str(self.directory)]
            self.processes.append(spawn_redis(port, *cluster, *files))
        for port, process in zip(self.ports, self.processes, strict=True):
            _wait_ping(port, process)

    def start(self) -> None:
        for attempt in range(3):
            try:
                self._launch()
                break
            except RuntimeError:
                # A free port taken by another process in the meantime: new ports, again.
                self.stop()
                if attempt == 2:
                    raise
                self.ports = [free_port() for _ in self.ports]
                self.bus_ports = [free_port() for _ in self.ports]
        nodes = [f"127.0.0.1:{port}" for port in self.ports]
        subprocess.run(
            ["redis-cli", "--cluster", "create", *nodes, "--cluster-replicas", "0", "--cluster-yes"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        client = redis.Redis(port=self.ports[0], decode_responses=True)
        for _ in range(200):
            if all(
                redis.Redis(port=port, decode_responses=True).cluster("info").get("cluster_state") == "ok"
                for port in self.ports
            ) and len(client.cluster("slots")) == len(self.ports):
                return
            time.sleep(0.05)
        raise RuntimeError("redis cluster did not come up")

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()
        self.processes = []

    def restart(self) -> None:
        """The same nodes again on the same ports: their config files bring the cluster back."""
        self._launch()
        for _ in range(400):
            if all(
                redis.Redis(port=p, decode_responses=True).cluster("info")["cluster_state"] == "ok" for p in self.ports
            ):
                return
            time.sleep(0.05)
        raise RuntimeError("redis cluster did not come back")

    def client(self):
        return redis.RedisCluster(host="127.0.0.1", port=self.ports[0], decode_responses=True)


def _wait_ping(port: int, process: subprocess.Popen | None = None) -> None:
    client = redis.Redis(port=port, socket_connect_timeout=0.5)
    for _ in range(600):  # a loaded machine starts a server slowly
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"redis-server on {port} exited")
        try:
            client.ping()
            return
        except redis.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError(f"redis-server on {port} did not start")


def cluster_wanted() -> bool:
    """The session runs its shared Redis store on a Redis Cluster."""
    return os.environ.get("TEST_REDIS_CLUSTER") == "1"


def start_private_cluster(directory) -> RedisCluster:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    cluster = RedisCluster(directory)
    try:
        cluster.start()
    except Exception:
        cluster.stop()
        raise
    return cluster


_shared: "RedisServer | RedisCluster | None" = None


def redis_store_or_skip(request):
    """A Redis store on a private server (or cluster) shared by the session (started once)."""
    from apps.ratelimit.stores.redis import RedisStore
    from apps.ratelimit.stores.redis_cluster import RedisClusterStore

    global _shared
    if _shared is None:
        if cluster_wanted():
            _shared = start_private_cluster(request.config._tmp_path_factory.mktemp("redis-cluster"))
        else:
            _shared = start_private_redis()
        request.config.add_cleanup(_shared.stop)
    prefix = f"gcra-{time.monotonic_ns()}"
    if isinstance(_shared, RedisCluster):
        # Every node of the test cluster runs on this machine's one clock.
        return RedisClusterStore(url=_shared.url, key_prefix=prefix, clock_skew_ms=0)
    return RedisStore(url=_shared.url, key_prefix=prefix)


def sent_commands(monkeypatch) -> list:
    """Every command this process sends to any Redis (one entry per network write)."""
    sent = []
    original = redis.connection.AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        sent.append(command)
        return original(self, command, check_health)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counting)
    return sent
