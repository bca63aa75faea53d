"""Standard Webhooks 1.0 signatures: ``v1,<base64 HMAC-SHA256 of "id.timestamp.body">``."""

import base64
import hashlib
import hmac
import json

from .secrets import key_bytes


def body_of(event_object: dict) -> bytes:
    """The request body: the event object as compact JSON, the bytes that are signed."""
    return json.dumps(event_object, separators=(",", ":"), ensure_ascii=False).encode()


def signature(secret: str, *, msg_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key_bytes(secret), signed, hashlib.sha256).digest()).decode()


def signature_header(secrets: list[str], *, msg_id: str, timestamp: int, body: bytes) -> str:
    """One signature per live secret, space-separated (two while a rotated secret lives)."""
    return " ".join(signature(s, msg_id=msg_id, timestamp=timestamp, body=body) for s in secrets)
