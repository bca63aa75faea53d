"""schemathesis against the live OpenAPI document, as CI runs it.

Starts gunicorn on a free loopback port against the given PostgreSQL/Redis,
creates an account with a live API key and a signed-in dashboard session, and
runs every check with a bounded number of examples. The key authenticates
/v1/me; the session cookie and CSRF header let the fuzzer reach the
session-only /v1/api-keys endpoints too (both given through the auth provider
of scripts/schemathesis_hooks.py).
"""

import json
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


STATEFUL_INPUT = r"^/v1/(webhook_endpoints|events/[^/]+/redeliver)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env, *args) -> str:
    done = subprocess.run([PY, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"manage.py {' '.join(args[:1])} failed:\n{done.stderr}")
    return done.stdout


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


def fresh_budgets(env) -> None:
    """Budgets spent by an earlier run or pass (per source address: every pass comes from 127.0.0.1)
    must not bleed into the next: a pass that sends bad credentials on purpose spends the failed-auth
    budget, and the next pass's bad credentials would then get 429 where 401 is right."""
    if env.get("REDIS_URL"):
        import redis

        redis.Redis.from_url(env["REDIS_URL"]).flushdb()


def sign_in(base: str, email: str, password: str) -> tuple[str, str]:
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/login").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = urlencode({"username": email, "password": password, "csrfmiddlewaretoken": token}).encode()
    opener.open(urllib.request.Request(f"{base}/login", data=data, headers={"Referer": f"{base}/login"}))
    cookies = {c.name: c.value for c in jar}
    return cookies["sessionid"], cookies["csrftoken"]


def cursor_keys(base: str, session: str, csrf: str) -> list[str]:
    """Ids of a few keys made through the session: real objects of the list for its cursors."""
    ids = []
    for n in range(3):
        request = urllib.request.Request(
            f"{base}/v1/api-keys",
            data=json.dumps({"name": f"cursor {n}", "scopes": ["rates:read"]}).encode(),
            headers={
                "Content-Type": "application/json",
                "Cookie": f"sessionid={session}; csrftoken={csrf}",
                "X-CSRFToken": csrf,
                "Referer": f"{base}/settings/api-keys",
            },
        )
        ids.append(json.load(urllib.request.urlopen(request))["id"])
    return ids


def demo_call_ids(base: str, key: str) -> list[str]:
    """Ids of a few of the account's calls (seed_demo made them): real objects of the calls list for its cursors."""
    request = urllib.request.Request(f"{base}/v1/calls?limit=3", headers={"Authorization": f"Bearer {key}"})
    return [call["id"] for call in json.load(urllib.request.urlopen(request))["data"]]


def demo_transaction_ids(base: str, key: str) -> list[str]:
    """Ids of a few of the account's ledger rows (seed_demo made them): real objects for the ledger's cursors."""
    request = urllib.request.Request(
        f"{base}/v1/balance_transactions?limit=3", headers={"Authorization": f"Bearer {key}"}
    )
    return [row["id"] for row in json.load(urllib.request.urlopen(request))["data"]]


def demo_ids(base: str, key: str, path: str) -> list[str]:
    """Ids of a few of the account's objects of a list (seed_demo made them): real objects for its cursors."""
    request = urllib.request.Request(f"{base}{path}?limit=3", headers={"Authorization": f"Bearer {key}"})
    return [row["id"] for row in json.load(urllib.request.urlopen(request))["data"]]


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
        # The fuzzer's requests name their own source address (scripts/schemathesis_hooks.py).
        "TRUSTED_PROXIES": "127.0.0.1/32",
    }
    env.setdefault("DATABASE_URL", f"sqlite:///{ROOT / 'schemathesis.sqlite3'}")
    fresh_database(env["DATABASE_URL"])
    fresh_budgets(env)
    manage(env, "migrate", "-v0")
    # The operator's price list, so that GET /v1/rates answers rates and not only 404s.
    manage(env, "import_rates", "--demo")
    # One account per run below: key management has a budget of 30/min per user
    # (docs/spec.md 8.1), and the stateful phase needs its own to create keys and follow links.
    accounts = []
    for name in ("fuzz", "stateful"):
        email, password = f"{name}@example.com", secrets.token_urlsafe(16)
        # "--password=" keeps a password that starts with "-" (token_urlsafe may draw one) a value.
        manage(env, "createuser", "--email", email, "--display-name", name.title(), f"--password={password}")
        # The read-only starter set and numbers:read, so that the numbers endpoints answer more than 403.
        scopes = "rates:read credits:read calls:read contacts:read numbers:read"
        accounts.append((email, password, manage(env, "createapikey", "--email", email, "--scopes", scopes).strip()))
        # Calls, ledger rows and the rest, so that lists have pages and cursors have objects.
        manage(env, "seed_demo", "--email", email)
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
        failures = 0
        for (email, password, key), phases in zip(accounts, ("examples,coverage,fuzzing", "stateful"), strict=True):
            session, csrf = sign_in(base, email, password)
            command = [
                str(Path(PY).parent / "st"),
                "run",
                f"{base}/v1/openapi.json",
                "--checks",
                "all",
                "--phases",
                phases,
                "--max-examples",
                os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "50"),
                "--header",
                f"Referer: {base}/settings/api-keys",
                "--seed",
                os.environ.get("SCHEMATHESIS_SEED", "1"),
                "--no-color",
            ]
            # The credentials go through an auth provider (scripts/schemathesis_hooks.py).
            hooks_env = {
                **env,
                "SCHEMATHESIS_HOOKS": "scripts.schemathesis_hooks",
                "PYTHONPATH": str(ROOT),
                "ST_API_KEY": key,
                "ST_SESSION": session,
                "ST_CSRF": csrf,
                "ST_KEY_IDS": ",".join(cursor_keys(base, session, csrf)),
                "ST_CALL_IDS": ",".join(demo_call_ids(base, key)),
                "ST_TXN_IDS": ",".join(demo_transaction_ids(base, key)),
                "ST_CONTACT_IDS": ",".join(demo_ids(base, key, "/v1/contacts")),
                "ST_NUMBER_IDS": ",".join(demo_ids(base, key, "/v1/numbers")),
                "ST_CALLER_ID_IDS": ",".join(demo_ids(base, key, "/v1/caller_ids")),
                # The fuzzed key cannot read messages (their sharing switches are off): its cursors stay unknown.
            }
            # Webhook endpoints and redelivery answer 400 to input the schema cannot rule out (a URL
            # that resolves to a private address, an event type beyond the key's scopes): every check
            # but "schema-valid input is accepted" runs on them, in a run of their own.
            fresh_budgets(env)
            failures += (
                subprocess.run([*command, "--exclude-path-regex", STATEFUL_INPUT], cwd=ROOT, env=hooks_env).returncode
                != 0
            )
            fresh_budgets(env)
            failures += (
                subprocess.run(
                    [*command, "--include-path-regex", STATEFUL_INPUT, "--exclude-checks", "positive_data_acceptance"],
                    cwd=ROOT,
                    env=hooks_env,
                ).returncode
                != 0
            )
        return 1 if failures else 0
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
