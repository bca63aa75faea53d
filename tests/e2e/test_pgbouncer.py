"""End to end behind PgBouncer in transaction mode (docs/decisions/scale-out.md, "PgBouncer and
connection pools").

Debian's PgBouncer (1.18: no prepared statements in transaction mode) runs on a free loopback
port in front of the local PostgreSQL, and the service runs in gunicorn through it with
DATABASE_POOLER=pgbouncer-transaction and Django's own pool (DATABASE_POOL). The database is made,
migrated and seeded directly on PostgreSQL; only the server goes through the pooler. The
assistant's whole MCP flow (tests/e2e/test_mcp_tools.py) and a REST read succeed through it, and
the statement bound, set on the database as an operator sets it on the role, still cancels a
long statement, answered 503 with Retry-After.
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import httpx2
import psycopg
import pytest

from tests.support.processes import start, stop, wait_serving

from .assistant import ACCOUNT, EMAIL, Assistant, run
from .servers import LOOPBACK, LiveServer, free_port
from .tool_flow import CALLBACK_TOOLS, TOOLS, assert_valid_result, every_tool

PGBOUNCER = shutil.which("pgbouncer") or next(
    (path for path in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.access(path, os.X_OK)), None
)
POSTGRES = {"host": LOOPBACK, "port": 5432, "user": "postgres"}
ROLE_BOUND = "2s"  # what the operator sets on the role; pg_sleep(5) of /v1/_slow runs past it

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(PGBOUNCER is None, reason="the pgbouncer binary is not installed (apt-get install pgbouncer)"),
]


def _postgres(dbname: str = "postgres") -> psycopg.Connection:
    try:
        return psycopg.connect(**POSTGRES, dbname=dbname, autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as error:
        pytest.skip(f"no PostgreSQL at {LOOPBACK}:5432 as user postgres: {error}")


@pytest.fixture(scope="module")
def database():
    """A database of the test's own on PostgreSQL itself, with the statement bound on it."""
    name = f"e2e_pgbouncer_{os.getpid()}"
    with _postgres() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
        admin.execute(f"ALTER DATABASE \"{name}\" SET statement_timeout = '{ROLE_BOUND}'")
    yield name
    with _postgres() as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class PgBouncer:
    """PgBouncer in transaction mode on a free loopback port, in the foreground of its own process."""

    def __init__(self):
        # Not pytest's tmp_path: PgBouncer run by root drops to nobody, who must still read these.
        self.directory = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
        self.directory.chmod(0o755)
        self.port = free_port()
        self.log_path = self.directory / "pgbouncer.log"
        (self.directory / "userlist.txt").write_text('"postgres" ""\n')
        (self.directory / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={POSTGRES['host']} port={POSTGRES['port']}\n"
            "[pgbouncer]\n"
            f"listen_addr = {LOOPBACK}\n"
            f"listen_port = {self.port}\n"
            "unix_socket_dir =\n"
            "auth_type = trust\n"
            f"auth_file = {self.directory / 'userlist.txt'}\n"
            "admin_users = postgres\n"
            "pool_mode = transaction\n"
            "default_pool_size = 10\n"
            "max_client_conn = 200\n"
        )
        for name in ("userlist.txt", "pgbouncer.ini"):
            (self.directory / name).chmod(0o644)
        self.process = None

    def __enter__(self):
        command = [PGBOUNCER, str(self.directory / "pgbouncer.ini")]
        if os.geteuid() == 0:
            command += ["-u", "nobody"]  # PgBouncer refuses to run as root
        self.log = self.log_path.open("wb")
        self.process = start(command, log=self.log)

        def listening() -> bool:
            socket.create_connection((LOOPBACK, self.port), timeout=1).close()
            return True

        wait_serving(
            self.process,
            listening,
            what="pgbouncer",
            output=lambda: self.log_path.read_text(errors="replace"),
            timeout=20,
        )
        return self

    def admin(self, command: str) -> list[dict]:
        """A command of PgBouncer's admin console (simple query protocol only, hence psql)."""
        done = subprocess.run(
            [
                "psql",
                "-h",
                LOOPBACK,
                "-p",
                str(self.port),
                "-U",
                "postgres",
                "-d",
                "pgbouncer",
                "-AF",
                "\t",
                "-c",
                command,
            ],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        header, *rows = done.stdout.strip().splitlines()[:-1]  # the last line counts the rows
        names = header.split("\t")
        return [dict(zip(names, row.split("\t"), strict=True)) for row in rows]

    def __exit__(self, *exc):
        if self.process is not None:
            stop(self.process)
        self.log.close()
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture(scope="module")
def pgbouncer(database):
    if not shutil.which("psql"):
        pytest.skip("psql is not installed (PgBouncer's admin console speaks only the simple query protocol)")
    with PgBouncer() as bouncer:
        yield bouncer


class ServerThroughThePooler(LiveServer):
    """The live server serving through PgBouncer; its manage.py commands (migrate, seed_demo,
    createapikey) run on PostgreSQL itself, as an operator runs migrations beside the pooler."""

    def __init__(self, directory: Path, *, database: str, pooler_port: int, **kwargs):
        super().__init__(directory, **kwargs)
        self.manage_env = {**self.env, "DATABASE_URL": f"postgres://postgres@{LOOPBACK}:5432/{database}"}
        for name in ("DATABASE_POOLER", "DATABASE_POOL", "DATABASE_PREPARE_THRESHOLD"):
            self.manage_env.pop(name, None)
        self.env.update(
            {
                "DJANGO_SETTINGS_MODULE": "tests.e2e.slow_live_settings",
                "DATABASE_URL": f"postgres://postgres@{LOOPBACK}:{pooler_port}/{database}",
                "DATABASE_POOLER": "pgbouncer-transaction",
                "DATABASE_POOL": "4",
                "DATABASE_STATEMENT_TIMEOUT": "2",
            }
        )
        self.env.pop("DATABASE_PREPARE_THRESHOLD", None)


@pytest.fixture(scope="module")
def pooled_service(tmp_path_factory, document_host, database, pgbouncer):
    server = ServerThroughThePooler(
        tmp_path_factory.mktemp("live-pgbouncer"),
        database=database,
        pooler_port=pgbouncer.port,
        ca_file=document_host.ca_file,
        **ACCOUNT,
    )
    with server:
        yield server


def _transactions(pgbouncer, database: str) -> int:
    return sum(int(row["total_xact_count"]) for row in pgbouncer.admin("SHOW STATS") if row["database"] == database)


def _numbers(service, secret: str) -> httpx2.Response:
    """GET /v1/numbers of ``service`` with the key ``secret``."""
    return httpx2.get(
        f"{service.url}/v1/numbers", headers={"Authorization": f"Bearer {secret}"}, trust_env=False, timeout=30
    )


def test_pgbouncer_refuses_the_start_up_option_that_carries_the_bound_directly(pgbouncer, database):
    # Why the service sends it only to PostgreSQL itself: PgBouncer refuses the connection.
    with pytest.raises(psycopg.OperationalError, match="options"):
        psycopg.connect(
            host=LOOPBACK, port=pgbouncer.port, user="postgres", dbname=database, options="-c statement_timeout=5000"
        ).close()


def test_the_assistant_flow_and_a_rest_read_succeed_through_the_pooler(pooled_service, pgbouncer, database):
    before = _transactions(pgbouncer, database)
    listed, results, summary, unknown = run(every_tool, Assistant(pooled_service))

    assert set(listed) == TOOLS | CALLBACK_TOOLS
    for label, result in results.items():
        assert_valid_result(listed[label.split(" ")[0]], result)
    assert summary.is_error is True and unknown.is_error is True

    key = pooled_service.manage("createapikey", "--email", EMAIL, "--name", "E2E pooler", "--scopes", "numbers:read")
    numbers = _numbers(pooled_service, key.stdout.strip())
    assert numbers.status_code == 200, numbers.text
    assert numbers.json()["data"]
    # It all went through PgBouncer, and the role's bound was found in place.
    assert _transactions(pgbouncer, database) > before
    assert "ALTER ROLE" not in pooled_service.output()


def test_a_statement_past_the_roles_bound_is_503_through_the_pooler(pooled_service):
    started = time.monotonic()
    response = httpx2.get(f"{pooled_service.url}/v1/_slow", trust_env=False, timeout=30)
    assert response.status_code == 503, response.text
    assert response.headers["Retry-After"] == "5"
    assert response.json()["error"]["type"] == "api_error"
    assert time.monotonic() - started < 4.5  # cancelled at the role's 2 s, before pg_sleep(5) ended
    # The same server, through the same pooler, goes on serving reads of the database.
    key = pooled_service.manage("createapikey", "--email", EMAIL, "--name", "E2E after", "--scopes", "numbers:read")
    for _ in range(3):
        again = _numbers(pooled_service, key.stdout.strip())
        assert again.status_code == 200, again.text
