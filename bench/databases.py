"""The bench's PostgreSQL databases: built once per schema and kept between runs as templates.

A data set (users, keys, tokens and the phase 2 rows) takes minutes to write and one
second-long file copy to clone, so each size is built into a template database named by a
fingerprint of everything that shapes it (every migration, the data code, the sizes, the
Django and django-oauth-toolkit versions), and each run clones the templates afresh:
nothing a previous run wrote (tokens issued, stamps) is ever measured again. A template
whose fingerprint no longer matches is dropped. ``--rebuild`` builds anew regardless.

Names: ``bench`` (the large set, which the token cases also use), ``bench_small``,
``bench_peer`` (stock django-oauth-toolkit), ``bench_tpl_<size>_<code>_<sizes>`` (kept),
``bench_build_<size>`` (while building).
"""

import hashlib
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SIZES = {"small": 0.1, "large": 1.0}
RUN_NAMES = {"small": "bench_small", "large": "bench"}
DATA_CODE = ("bench/setup_data.py", "bench/dataset.py", "bench/dataset_sql.py", "apps/rates/demo_deck.csv")


def server_url(url: str) -> str:
    return url.rsplit("/", 1)[0]


def with_name(url: str, name: str) -> str:
    return f"{server_url(url)}/{name}"


def _admin(url: str):
    return psycopg.connect(with_name(url, "postgres"), autocommit=True)


def fingerprint(users: int, scale: float) -> str:
    """``<code>_<sizes>``: the code part changes with any migration, the data code or a version;
    the sizes part with the options (a trial at other sizes keeps its own templates)."""
    code = hashlib.sha256()
    files = [*sorted(ROOT.glob("apps/*/migrations/*.py")), *(ROOT / name for name in DATA_CODE)]
    for path in files:
        code.update(str(path.relative_to(ROOT)).encode())
        code.update(path.read_bytes())
    code.update(f"{version('Django')}|{version('django-oauth-toolkit')}".encode())
    sizes = hashlib.sha256(f"{users}|{scale}".encode())
    return f"{code.hexdigest()[:10]}_{sizes.hexdigest()[:4]}"


def existing(url: str) -> set[str]:
    with _admin(url) as conn:
        return {row[0] for row in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'bench%'")}


def drop(url: str, name: str) -> None:
    with _admin(url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def create(url: str, name: str, template: str | None = None) -> None:
    drop(url, name)
    with _admin(url) as conn:
        if template is None:
            conn.execute(f'CREATE DATABASE "{name}"')
        else:
            # FILE_COPY: a file copy and two checkpoints, not a gigabyte of WAL.
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')


def migrate(env: dict, name: str) -> None:
    subprocess.run(
        [PY, "manage.py", "migrate", "-v0"],
        cwd=ROOT,
        env={**env, "DATABASE_URL": with_name(env["DATABASE_URL"], name)},
        check=True,
    )


def templates_ensure(
    env: dict, users: int, scale: float = 1.0, *, rebuild: bool = False
) -> tuple[dict[str, str], float]:
    """The template of each size, built when missing; returns {size: template name} and the
    seconds spent building (0 when both were kept)."""
    url = env["DATABASE_URL"]
    key = fingerprint(users, scale)
    wanted = {size: f"bench_tpl_{size}_{key}" for size in SIZES}
    present = existing(url)
    for name in present:
        # Templates of older code go; those of the same code at other sizes stay.
        stale = name.startswith("bench_tpl_") and not name.endswith(key) and key.split("_")[0] not in name
        if stale or (rebuild and name in wanted.values()):
            drop(url, name)
    missing = [size for size, name in wanted.items() if rebuild or name not in present]
    started = time.monotonic()
    if missing:
        print(f"building the data set ({', '.join(missing)}): a few minutes, once per schema", flush=True)
        base = "bench_build_base"
        create(url, base)
        migrate(env, base)
        for size in missing:
            building = f"bench_build_{size}"
            create(url, building, template=base)
            size_users = users if size == "large" else max(1, users // 10)
            subprocess.run(
                [PY, "-m", "bench.setup_data", "build", str(size_users), str(SIZES[size] * scale)],
                cwd=ROOT,
                # A bulk load serves no client: no statement bound (the copy of the search terms alone
                # takes longer than a request's).
                env={**env, "DATABASE_URL": with_name(url, building), "DATABASE_STATEMENT_TIMEOUT": "0"},
                check=True,
            )
            with _admin(url) as conn:
                conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{wanted[size]}"')
            print(f"  {size}: built in {time.monotonic() - started:.0f} s", flush=True)
        drop(url, base)
    return wanted, (time.monotonic() - started) if missing else 0.0


def clone_for_run(env: dict, templates: dict[str, str]) -> dict[str, str]:
    """Fresh copies for this run; returns {size: database URL}."""
    url = env["DATABASE_URL"]
    urls = {}
    for size, template in templates.items():
        create(url, RUN_NAMES[size], template=template)
        urls[size] = with_name(url, RUN_NAMES[size])
    return urls
