"""Loaded with ``-p tests.bootstrap`` before Django starts: test-only environment defaults."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-any-deployment-0123456789")
os.environ.setdefault("BASE_URL", "http://testserver")
os.environ.setdefault("APP_URL", "http://testserver")
os.environ.setdefault("DOCS_URL", "https://docs.example.test")
os.environ.setdefault("EMAIL_BACKEND", "django.core.mail.backends.locmem.EmailBackend")
# Rate-limit keys of this run never meet another run's sharing the same Redis, nor those of another
# pytest-xdist worker of this run (workers inherit the prefix their controller set; each test clears
# its own keys, and a worker sharing them would refill another's budgets mid-test).
os.environ.setdefault("RATELIMIT_KEY_PREFIX", f"rl-test-{os.getpid()}")
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["RATELIMIT_KEY_PREFIX"] += f"-{os.environ['PYTEST_XDIST_WORKER']}"
# The suite loads data sets (15,000 contacts by COPY) on CI cores it shares: its statements get a
# minute. The tests of the bound lower it themselves (tests/core/test_statement_timeout.py).
os.environ.setdefault("DATABASE_STATEMENT_TIMEOUT", "60")
