"""Webhook signing secrets: made here, kept encrypted, read back only to sign.

Every other secret of the service is stored as a hash. A webhook secret cannot
be: the server signs each delivery with it. It is kept as a Fernet token
(AES-128-CBC with HMAC-SHA256, from ``cryptography``) under the keys of
``settings.WEBHOOK_SECRET_KEYS``: the first encrypts, any of them decrypts
(``MultiFernet``), so a new key is put first, ``manage.py rotate_webhook_keys``
re-encrypts every row with it, and the old key is then dropped
(docs/security.md).
"""

import base64
import secrets

from cryptography.fernet import Fernet, MultiFernet
from django.conf import settings

SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    """``whsec_`` then base64 of 32 random bytes (Standard Webhooks)."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def _fernet() -> MultiFernet:
    keys = settings.WEBHOOK_SECRET_KEYS
    return MultiFernet([Fernet(key) for key in keys])


def encrypt(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def decrypt(token: str) -> str:
    return _fernet().decrypt(token.encode()).decode()


def reencrypt(token: str) -> str:
    """The same secret under the first key."""
    return _fernet().rotate(token.encode()).decode()


def key_bytes(secret: str) -> bytes:
    """The HMAC key a ``whsec_`` secret stands for."""
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))
