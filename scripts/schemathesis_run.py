"""schemathesis against the live OpenAPI document, as CI runs it (issue 10).

Starts gunicorn on a free loopback port against the given PostgreSQL/Redis,
creates an account with a live API key and a signed-in dashboard session, and
runs every default check with a bounded number of examples. The key
authenticates /v1/me; the session cookie and CSRF header let the fuzzer reach
the session-only /v1/api-keys endpoints too.
"""

import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env, *args) -> str:
    return subprocess.run(
        [PY, "manage.py", *args], cwd=ROOT, env=env, check=True, capture_output=True, text=True
    ).stdout


def fresh_database(url: str) -> None:
    """Every run starts on an empty database of its own (created when missing)."""
    if url.startswith("sqlite"):
        Path(url.removeprefix("sqlite:///")).unlink(missing_ok=True)
        return
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def sign_in(base: str, email: str, password: str) -> tuple[str, str]:
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/login").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = urlencode({"username": email, "password": password, "csrfmiddlewaretoken": token}).encode()
    opener.open(urllib.request.Request(f"{base}/login", data=data, headers={"Referer": f"{base}/login"}))
    cookies = {c.name: c.value for c in jar}
    return cookies["sessionid"], cookies["csrftoken"]


def main() -> int:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "BASE_URL": base,
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
    }
    env.setdefault("DATABASE_URL", f"sqlite:///{ROOT / 'schemathesis.sqlite3'}")
    fresh_database(env["DATABASE_URL"])
    if env.get("REDIS_URL"):
        import redis

        # Budgets of an earlier run (per source address) must not bleed into this one.
        redis.Redis.from_url(env["REDIS_URL"]).flushdb()
    manage(env, "migrate", "-v0")
    email, password = "fuzz@example.com", secrets.token_urlsafe(16)
    manage(env, "createuser", "--email", email, "--display-name", "Fuzz", "--password", password)
    key = manage(env, "createapikey", "--email", email).strip()
    server = subprocess.Popen(
        [
            PY,
            "-m",
            "gunicorn",
            "config.wsgi",
            "--workers",
            "2",
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{base}/v1/openapi.json", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        session, csrf = sign_in(base, email, password)
        command = [
            str(Path(PY).parent / "st"),
            "run",
            f"{base}/v1/openapi.json",
            "--checks",
            "all",
            "--max-examples",
            os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "50"),
            "--header",
            f"Authorization: Bearer {key}",
            "--header",
            f"Cookie: sessionid={session}; csrftoken={csrf}",
            "--header",
            f"X-CSRFToken: {csrf}",
            "--header",
            f"Referer: {base}/settings/api-keys",
            "--seed",
            os.environ.get("SCHEMATHESIS_SEED", "1"),
            "--no-color",
        ]
        return subprocess.run(command, cwd=ROOT, env=env).returncode
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
