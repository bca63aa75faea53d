"""Settings read from the environment; `check --deploy` is clean in a production-like one."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args, **env):
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "BASE_URL", "APP_URL"}}
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_in_production_like_environment():
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        SECRET_KEY="p" * 20 + "roduction-like-secret-key-with-enough-entropy-0123456789",
        BASE_URL="https://api.example.com",
        APP_URL="https://app.example.com",
        ALLOWED_HOSTS="api.example.com,app.example.com",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_secret_key_is_required_unless_debug():
    result = run_manage("check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr
    assert run_manage("check", DEBUG="1").returncode == 0
