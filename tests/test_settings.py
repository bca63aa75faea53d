"""Settings read from the environment; `check --deploy` is clean in a production-like one."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_manage(*args, **env):
    clean = {k: v for k, v in os.environ.items() if k not in {"DEBUG", "SECRET_KEY", "BASE_URL", "APP_URL"}}
    # DEBUG given, empty: manage.py then never reads the settings `make run` left (config/run_env.py).
    clean["DEBUG"] = ""
    clean.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120
    )


PRODUCTION_LIKE = {
    "SECRET_KEY": "p" * 20 + "roduction-like-secret-key-with-enough-entropy-0123456789",
    "BASE_URL": "https://api.example.com",
    "APP_URL": "https://app.example.com",
    "ALLOWED_HOSTS": "api.example.com,app.example.com",
    # A production-like deployment rings real phones (docs/operations.md, "A real carrier").
    "TELEPHONY_CARRIER": "twilio",
    "TWILIO_ACCOUNT_SID": "AC" + "0" * 32,
    "TWILIO_AUTH_TOKEN": "check-only-auth-token",
    "TWILIO_INTELLIGENCE_SERVICE_SID": "GA" + "0" * 32,
}


def test_check_deploy_is_clean_in_production_like_environment():
    result = run_manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION_LIKE)
    assert result.returncode == 0, result.stdout + result.stderr


def test_live_mode_on_the_simulator_outside_debug_is_a_check_warning():
    result = run_manage(
        "check", "--deploy", "--fail-level", "WARNING", **{**PRODUCTION_LIKE, "TELEPHONY_CARRIER": "simulated"}
    )
    assert result.returncode != 0
    assert "telephony.W001" in result.stdout + result.stderr


def test_secret_key_is_required_unless_debug():
    result = run_manage("check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr
    assert run_manage("check", DEBUG="1").returncode == 0
