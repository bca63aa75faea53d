"""The processes a run starts and the environment each runs with."""

import os
import secrets
import socket
import subprocess
import sys
from pathlib import Path

from bench import databases

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
BASE_URL = "http://127.0.0.1:8101"  # what the service advertises (both sets): the tokens' resources name it
PORTS = {"large": 8101, "sdk": 8102, "small": 8103, "dot": 8104, "drf": 8105}
PEER_DATABASE = "bench_peer"
# One key for every process of a run; never written anywhere.
SECRET_KEY = secrets.token_urlsafe(50)


def ports_in_use() -> list[int]:
    """The bench's ports something already listens on (another run: starting would drop its databases)."""
    return [port for port in PORTS.values() if port_in_use(port)]


def port_in_use(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def service_env(database_url: str, key_prefix: str) -> dict:
    """Production settings (DEBUG off), the bench's database and Redis, the floor view mounted, and the
    limiter's store with roomy budgets (bench/roomy_store.py). Each set gets its own key prefix in Redis."""
    return {
        **os.environ,
        # The service's settings with the limit views mounted beside the floor (bench/settings.py).
        "DJANGO_SETTINGS_MODULE": "bench.settings",
        "DEBUG": "0",
        "SECRET_KEY": SECRET_KEY,
        "BASE_URL": BASE_URL,
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DATABASE_URL": database_url,
        "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
        "RATELIMIT_STORE": "bench.roomy_store.RoomyRedisStore",
        "RATELIMIT_KEY_PREFIX": key_prefix,
        "TRUSTED_PROXIES": "127.0.0.1/32",
        "BENCH_FLOOR": "1",
        "LOG_LEVEL": "WARNING",
    }


def drf_env(service: dict) -> dict:
    """The stock DRF peer of the reads (bench/drf_peer/): the large set's environment, its settings."""
    return {**service, "DJANGO_SETTINGS_MODULE": "bench.drf_peer.settings"}


def user_ids(database_url: str, indexes: list[int]) -> list[str]:
    """The ids of the fixture's accounts ``indexes`` (bench.setup_data makes bench<i>@example.com in order)."""
    import psycopg

    emails = [f"bench{i}@example.com" for i in indexes]
    with psycopg.connect(database_url) as conn:
        found = dict(conn.execute("SELECT email, id FROM accounts_user WHERE email = ANY(%s)", [emails]).fetchall())
    return [found[email] for email in emails]


def peer_env(database_url: str) -> dict:
    """Stock django-oauth-toolkit (bench/dot_peer/) on its own database of the same server."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bench.dot_peer.settings",
        "SECRET_KEY": SECRET_KEY,
        "DATABASE_URL": databases.with_name(database_url, PEER_DATABASE),
    }


def gunicorn(module: str, port: int, workers: int) -> list[str]:
    # gunicorn reads ./gunicorn.conf.py (production's configuration) for every server it runs here.
    return [
        PY, "-m", "gunicorn", module, "--workers", str(workers), "--bind", f"127.0.0.1:{port}",
        "--log-level", "warning",
    ]  # fmt: skip


def uvicorn_peer(port: int, workers: int) -> list[str]:
    return [
        PY, "-m", "uvicorn", "bench.peer_mcp:app", "--loop", "uvloop", "--http", "httptools",
        "--workers", str(workers), "--port", str(port), "--log-level", "warning", "--no-access-log",
    ]  # fmt: skip


def django_run(module: str, *argv, env: dict) -> None:
    subprocess.run([PY, "-m", module, *map(str, argv)], cwd=ROOT, env=env, check=True)


def prepare_peer_database(database_url: str) -> None:
    databases.create(database_url, PEER_DATABASE)
    dot = peer_env(database_url)
    django_run("django", "migrate", "-v0", env=dot)
    django_run("bench.dot_peer.setup_data", "prepare", env=dot)


def flush_redis(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()


def forget_cached_credentials(url: str, key_prefix: str) -> None:
    """Drop the credential cache's entries under ``key_prefix`` (the epochs and budgets stay), so the
    next presentation fills each anew. Entries live 60 s from their fill, however often they are hit:
    filled all at once, they would all expire in one later round, every request of it a miss."""
    import redis

    client = redis.Redis.from_url(url)
    # One key per DEL: on a cluster node the keys of one call must share a slot.
    pipe = client.pipeline(transaction=False)
    for key in client.scan_iter(match=f"{key_prefix}:*:cred:*", count=1000):
        pipe.delete(key)
    pipe.execute()
