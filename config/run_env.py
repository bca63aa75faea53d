"""The settings `make run` serves with, for the `manage.py` commands a developer runs beside it.

`make run` writes them to a git-ignored file at the project's root (``FILE_NAME``), and
``manage.py`` reads that file when the environment says nothing about the two settings that
decide whether the service may start at all (``DEBUG``, ``SECRET_KEY``), so that
``manage.py sim_sms ...`` in the quick-start checkout reaches the same database with the same
key and addresses as the server. A variable the environment sets is never replaced, and an
environment that sets ``DEBUG`` or ``SECRET_KEY`` (every deployment sets the key) reads no file
at all. Only a file carrying `make run`'s header is read; the web server (gunicorn) never reads it.
"""

import os
from pathlib import Path

FILE_NAME = ".make-run.env"
HEADER = "# Written by make run"
# What `make run` writes: its own settings, and the database and Redis it was given.
NAMES = frozenset({"DEBUG", "SECRET_KEY", "PORT", "BASE_URL", "DATABASE_URL", "REDIS_URL"})
# Either of these in the environment means it was configured on purpose: the file stays unread.
DECIDING = ("DEBUG", "SECRET_KEY")


def load(path: Path, environ=None) -> bool:
    """Sets each of the file's variables the environment lacks; True when the file was read."""
    environ = os.environ if environ is None else environ
    if any(name in environ for name in DECIDING):
        return False
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not lines or not lines[0].startswith(HEADER):
        return False
    for line in lines[1:]:
        name, sep, value = line.partition("=")
        if sep and name in NAMES:
            environ.setdefault(name, value)
    return True
