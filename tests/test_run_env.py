"""`make run` leaves its settings in a git-ignored file that `manage.py` reads, so the README's commands
(`manage.py sim_sms ...`, `createapikey --test`, `import_rates`) work bare in a second terminal; the
environment always wins, and an environment that configures DEBUG or SECRET_KEY reads no file at all."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from config import run_env

ROOT = Path(__file__).resolve().parent.parent
WRITTEN = f"{run_env.HEADER}; read by manage.py.\nDEBUG=1\nSECRET_KEY=from-the-file\nPORT=8123\nBASE_URL=http://127.0.0.1:8123\n"
# What the test process was given for itself; the commands below must work without it.
UNSET = {"DEBUG", "SECRET_KEY", "PORT", "BASE_URL", "APP_URL", "DOCS_URL", "DATABASE_URL", "REDIS_URL"}
UNSET |= {"DJANGO_SETTINGS_MODULE", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"}


def test_the_file_fills_what_the_environment_leaves_unsaid(tmp_path):
    path = tmp_path / run_env.FILE_NAME
    path.write_text(WRITTEN)
    environ = {"PORT": "9000"}
    assert run_env.load(path, environ) is True
    assert environ == {"DEBUG": "1", "SECRET_KEY": "from-the-file", "PORT": "9000", "BASE_URL": "http://127.0.0.1:8123"}


@pytest.mark.parametrize("given", [{"SECRET_KEY": "a-deployments-key"}, {"DEBUG": ""}, {"DEBUG": "0"}])
def test_an_environment_that_decides_reads_no_file(tmp_path, given):
    path = tmp_path / run_env.FILE_NAME
    path.write_text(WRITTEN)
    environ = dict(given)
    assert run_env.load(path, environ) is False
    assert environ == given


def test_only_the_file_make_run_wrote_is_read(tmp_path):
    path = tmp_path / run_env.FILE_NAME
    assert run_env.load(path, {}) is False  # no file
    path.write_text("DEBUG=1\nSECRET_KEY=x\n")  # not make run's
    environ = {}
    assert run_env.load(path, environ) is False and environ == {}
    path.write_text(WRITTEN + "ALLOWED_HOSTS=*\nWEBHOOK_ALLOW_LOOPBACK=1\n")  # only make run's own names
    environ = {}
    run_env.load(path, environ)
    assert "ALLOWED_HOSTS" not in environ and "WEBHOOK_ALLOW_LOOPBACK" not in environ


def test_the_file_is_git_ignored():
    ignored = subprocess.run(["git", "check-ignore", "-q", run_env.FILE_NAME], cwd=ROOT)
    assert ignored.returncode == 0


def _make_run_writes(tmp_path: Path, **variables) -> None:
    """Runs, in ``tmp_path``, the lines of `make run`'s recipe that write the file (`make -n` prints them)."""
    args = [f"{name}={value}" for name, value in variables.items()]
    printed = subprocess.run(
        ["make", "-n", "-s", "run", *args], cwd=ROOT, capture_output=True, text=True, check=True, env=_clean_env()
    ).stdout
    match = re.search(r"^umask 077 .*?> \.make-run\.env$", printed, re.M | re.S)
    assert match, printed
    (tmp_path / ".secret_key").write_text("secret-key-of-this-checkout-0123456789-0123456789\n")
    subprocess.run(["sh", "-c", match.group(0)], cwd=tmp_path, check=True)


def _clean_env() -> dict:
    return {k: v for k, v in os.environ.items() if k not in UNSET}


def test_make_run_writes_the_file_for_its_owner_only(tmp_path):
    _make_run_writes(tmp_path, PORT="8123", DATABASE_URL="sqlite:////tmp/x.sqlite3")
    path = tmp_path / run_env.FILE_NAME
    assert path.stat().st_mode & 0o077 == 0  # it holds the secret key
    environ = {}
    assert run_env.load(path, environ) is True
    assert environ == {
        "DEBUG": "1",
        "SECRET_KEY": "secret-key-of-this-checkout-0123456789-0123456789",
        "PORT": "8123",
        "BASE_URL": "http://127.0.0.1:8123",
        "DATABASE_URL": "sqlite:////tmp/x.sqlite3",
    }


@pytest.mark.e2e
def test_the_readmes_commands_run_bare_beside_make_run(tmp_path):
    """In a checkout where `make run` ran (here: a copy of manage.py beside the file it wrote), the
    commands run as the README writes them: no DEBUG, no SECRET_KEY in the terminal."""
    database = tmp_path / "db.sqlite3"
    _make_run_writes(tmp_path, PORT="8123", DATABASE_URL=f"sqlite:///{database}")
    shutil.copy(ROOT / "manage.py", tmp_path / "manage.py")
    env = {**_clean_env(), "PYTHONPATH": str(ROOT)}

    def manage(*args) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )

    def ok(*args) -> str:
        done = manage(*args)
        assert done.returncode == 0, f"manage.py {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout

    ok("migrate", "--noinput", "-v", "0")
    ok("createuser", "--email", "demo@example.com", "--display-name", "Demo", "--password", "demo-password-123")
    assert "demo deck" in ok("import_rates", "--demo", "--if-empty")
    assert ok("createapikey", "--email", "demo@example.com", "--test").startswith("sk_test_")
    ok("sim_caller_id", "--email", "demo@example.com", "--number", "+12025550190", "--test")
    # The environment still decides: told DEBUG is off, without a key, the command refuses to start.
    env["DEBUG"] = ""
    refused = manage("createapikey", "--email", "demo@example.com", "--test")
    assert refused.returncode != 0 and "SECRET_KEY must be set" in refused.stderr
    # And `make apikey TEST=1` gives a test-mode key for the same account.
    del env["DEBUG"]
    env["DATABASE_URL"] = f"sqlite:///{database}"
    key = subprocess.run(
        ["make", "-s", "apikey", "TEST=1"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert key.returncode == 0, key.stderr
    assert key.stdout.strip().startswith("sk_test_") and "make apikey TEST=1 SCOPES=" in key.stderr
