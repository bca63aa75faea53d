"""A private redis-server for tests that stop it or count its commands.

The shared Redis on 6379 is never stopped or flushed: tests that need an
outage or exact command counts start their own on a free port.
"""

import shutil
import socket
import subprocess
import time

import pytest
import redis


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    def __init__(self):
        self.port = free_port()
        self.process = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
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


_shared: RedisServer | None = None


def redis_store_or_skip(request):
    """A RedisStore on a private server shared by the session (started once)."""
    from apps.ratelimit.stores.redis import RedisStore

    global _shared
    if _shared is None:
        _shared = start_private_redis()
        request.config.add_cleanup(_shared.stop)
    return RedisStore(url=_shared.url, key_prefix=f"gcra-{time.monotonic_ns()}")


def sent_commands(monkeypatch) -> list:
    """Every command this process sends to any Redis (one entry per network write)."""
    sent = []
    original = redis.connection.AbstractConnection.send_packed_command

    def counting(self, command, check_health=True):
        sent.append(command)
        return original(self, command, check_health)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counting)
    return sent
