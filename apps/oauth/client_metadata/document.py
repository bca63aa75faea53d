"""What a fetched client metadata document must be, and how long it is kept."""

import re

from oauth2_provider.cimd import CIMDError
from oauth2_provider.settings import oauth2_settings

from ..registration.metadata import ClientMetadataError, client_metadata_validate

# Without cache headers a document is kept this long (bounded by the settings' floor and ceiling).
DEFAULT_MAX_AGE_SECONDS = 3600
_MAX_AGE_RE = re.compile(r"(?:^|[,\s])max-age\s*=\s*\"?(\d+)", re.IGNORECASE)


def cache_lifetime(cache_control: str | None) -> int:
    """Seconds a fetched document stays valid, from its ``Cache-Control`` header, clamped."""
    floor = oauth2_settings.CIMD_METADATA_MIN_AGE_SECONDS
    ceiling = oauth2_settings.CIMD_METADATA_MAX_AGE_SECONDS
    age = DEFAULT_MAX_AGE_SECONDS
    if cache_control:
        lowered = cache_control.lower()
        match = _MAX_AGE_RE.search(lowered)
        if "no-store" in lowered or "no-cache" in lowered:
            age = 0
        elif match:
            age = int(match.group(1))
    return max(floor, min(age, ceiling))


def client_metadata_document_validate(*, client_id: str, data: dict):
    """The rules a fetched document must meet beyond parsing; returns ClientMetadata or raises CIMDError."""
    if data.get("client_id") != client_id:
        raise CIMDError("document client_id does not match the client_id URL")
    if "client_secret" in data or "client_secret_expires_at" in data:
        raise CIMDError("a client metadata document must not carry a client secret")
    try:
        return client_metadata_validate(data=data)
    except ClientMetadataError as exc:
        raise CIMDError(f"invalid client metadata: {exc.description}") from exc
