"""Identifiers and secrets: a readable prefix followed by random base62 characters."""

import hashlib
import re
import secrets
import string
import sys

BASE62 = string.digits + string.ascii_letters
ID_LENGTH = 24
SECRET_LENGTH = 43  # ~256 bits of base62


_UNBIASED = 256 - 256 % len(BASE62)  # bytes at or above this would favour the first characters


def random_base62(length: int) -> str:
    """Uniform base62 from the OS's CSPRNG, one read for the whole string (not one per character)."""
    chars: list[str] = []
    while len(chars) < length:
        chars += [BASE62[b % 62] for b in secrets.token_bytes(length + 8) if b < _UNBIASED]
    return "".join(chars[:length])


def new_id(prefix: str, length: int = ID_LENGTH) -> str:
    return f"{prefix}{random_base62(length)}"


def id_default(prefix: str, name: str):
    """The default of a model's id field: a new id of ``prefix`` at each call.

    Assign it to ``name`` at the top of the models module (``new_call_id = id_default("call_",
    "new_call_id")``): it is named as a function written there would be, so that migrations
    refer to it by that module and name.
    """

    def make() -> str:
        return new_id(prefix)

    make.__name__ = make.__qualname__ = name
    make.__module__ = sys._getframe(1).f_globals["__name__"]
    return make


class SeededIds:
    """Ids that the same seed gives again (demo data seeded again is the same), yet unique to the
    seed's ``base`` (an account, a mode, a draw of the seed): each body is a digest of
    (``base``, counter), so two accounts seeded alike never collide."""

    def __init__(self, base: str):
        self.base = base
        self.count = 0

    def next(self, prefix: str) -> str:
        self.count += 1
        number = int.from_bytes(hashlib.sha256(f"{self.base}:{self.count}".encode()).digest(), "big")
        body = []
        for _ in range(ID_LENGTH):
            number, digit = divmod(number, len(BASE62))
            body.append(BASE62[digit])
        return prefix + "".join(body)


# The most characters an id's body may have. Ids made here have ID_LENGTH; the bound only keeps a
# malformed value (a stray byte, a megabyte of junk) from reaching a query.
ID_BODY_MAX = 64
_ID_BODY = re.compile(rf"[0-9A-Za-z]{{1,{ID_BODY_MAX}}}")


def is_id(value, prefix: str) -> bool:
    """Whether ``value`` is well formed as an id of this prefix: checked before any query."""
    return isinstance(value, str) and value.startswith(prefix) and _ID_BODY.fullmatch(value, len(prefix)) is not None


def id_pattern(prefix: str) -> str:
    """The JSON Schema and OpenAPI ``pattern`` of an id of this prefix, the same rule as ``is_id``."""
    return rf"^{re.escape(prefix)}[0-9A-Za-z]{{1,{ID_BODY_MAX}}}$"


def new_secret(prefix: str, length: int = SECRET_LENGTH) -> str:
    return f"{prefix}{random_base62(length)}"


def digest(secret: str) -> str:
    """SHA-256 of a high-entropy secret; only this is ever stored.

    A plain hash is enough (no salt, no stretching) because the secrets carry
    256 bits of randomness: there is nothing to brute-force, and a deterministic
    digest lets one indexed query find the row.
    """
    return hashlib.sha256(secret.encode()).hexdigest()


_BASE62_RUN = re.compile(r"[0-9A-Za-z]*")


def looks_like(secret: str, prefix: str, length: int = SECRET_LENGTH) -> bool:
    """Cheap format check, done before any query touches the database."""
    body = secret[len(prefix) :]
    return secret.startswith(prefix) and len(body) == length and _BASE62_RUN.fullmatch(body) is not None
