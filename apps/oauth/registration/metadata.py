"""Validation of client metadata (RFC 7591 shape) against docs/spec.md 4.3 and 7.3.

One pure function serves both ways a client identifies itself: a body posted to
``/oauth/register`` and a client metadata document fetched from an https
``client_id`` (docs/spec.md 5.3). It never touches the database, so a refused request
changes nothing.
"""

import re
import unicodedata
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..redirects import is_loopback_redirect, split_authority

INVALID_CLIENT_METADATA = "invalid_client_metadata"
INVALID_REDIRECT_URI = "invalid_redirect_uri"

MAX_CLIENT_NAME = 100
MAX_REDIRECT_URIS = 10
# Long enough for any real callback; bounds what a registration can make us store.
MAX_URI_LENGTH = 2000

WEB, NATIVE = "web", "native"
APPLICATION_TYPES = (WEB, NATIVE)
GRANT_TYPES = ("authorization_code", "refresh_token")
RESPONSE_TYPES = ("code",)
# RFC 3986 characters only (IDNs in their xn-- form). Anything else, a backslash above
# all, is parsed differently by browsers and by us, so the host the consent page shows
# could differ from the one the browser is sent to.
_URI_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\]")


class ClientMetadataError(Exception):
    """A refused field: ``error`` is the RFC 7591 code, ``description`` is safe to show."""

    def __init__(self, error: str, description: str):
        super().__init__(description)
        self.error = error
        self.description = description


@dataclass(frozen=True)
class ClientMetadata:
    redirect_uris: tuple[str, ...]
    application_type: str
    grant_types: tuple[str, ...]
    response_types: tuple[str, ...]
    client_name: str | None = None
    client_uri: str | None = None


def _metadata_error(description: str) -> ClientMetadataError:
    return ClientMetadataError(INVALID_CLIENT_METADATA, description)


def _redirect_error(description: str) -> ClientMetadataError:
    return ClientMetadataError(INVALID_REDIRECT_URI, description)


def _absent(value) -> bool:
    # Several clients send null or "" for metadata they do not have; both mean "not given".
    return value is None or value == ""


def _has_unsafe_characters(value: str) -> bool:
    # Control and format characters (newlines, bidi overrides, zero-width joiners) let a
    # name or URI render differently from what it is, on the consent page or in logs.
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in value)


def _string_list(data: dict, field: str, default: tuple[str, ...]) -> tuple[str, ...]:
    value = data.get(field)
    if value is None:
        return default
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _metadata_error(f"{field} must be an array of strings.")
    return tuple(dict.fromkeys(value))


def _validate_redirect_uri(uri: str) -> None:
    if len(uri) > MAX_URI_LENGTH:
        raise _redirect_error(f"A redirect URI is longer than {MAX_URI_LENGTH} characters.")
    if not _URI_CHARACTERS.fullmatch(uri):
        raise _redirect_error("A redirect URI may contain only URI characters (RFC 3986), no spaces.")
    if "#" in uri:
        raise _redirect_error("A redirect URI must not contain a fragment.")
    if "*" in uri:
        raise _redirect_error("A redirect URI must not contain a wildcard.")
    parts = urlsplit(uri)
    if "@" in parts.netloc:
        raise _redirect_error("A redirect URI must not contain user information.")
    try:
        host, _port = split_authority(parts.netloc)
    except ValueError as exc:
        raise _redirect_error("A redirect URI has an invalid port: a port is a number from 1 to 65535.") from exc
    if not parts.hostname or not _HOST.fullmatch(host.lower()):
        raise _redirect_error("A redirect URI must be an absolute https URL or an http loopback URL.")
    if parts.scheme == "https":
        return
    if is_loopback_redirect(uri):
        return
    raise _redirect_error("Each redirect URI must be an https URL, or an http URL on 127.0.0.1, localhost or [::1].")


def _redirect_uris(data: dict) -> tuple[str, ...]:
    value = data.get("redirect_uris")
    if value is None or value == []:
        raise _redirect_error("redirect_uris is required: at least one redirect URI.")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _redirect_error("redirect_uris must be an array of strings.")
    uris = tuple(dict.fromkeys(value))
    if len(value) > MAX_REDIRECT_URIS:
        raise _redirect_error(f"At most {MAX_REDIRECT_URIS} redirect URIs may be registered.")
    for uri in uris:
        _validate_redirect_uri(uri)
    return uris


def _optional_string(data: dict, field: str) -> str | None:
    value = data.get(field)
    if _absent(value):
        return None
    if not isinstance(value, str):
        raise _metadata_error(f"{field} must be a string.")
    return value


def _client_name(data: dict) -> str | None:
    value = _optional_string(data, "client_name")
    if value is None:
        return None
    name = value.strip()
    if not name:
        return None
    if len(name) > MAX_CLIENT_NAME:
        raise _metadata_error(f"client_name must be at most {MAX_CLIENT_NAME} characters.")
    if _has_unsafe_characters(name):
        raise _metadata_error("client_name must not contain control or formatting characters.")
    return name


def _client_uri(data: dict) -> str | None:
    value = _optional_string(data, "client_uri")
    if value is None:
        return None
    parts = urlsplit(value)
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or "@" in parts.netloc
        or len(value) > MAX_URI_LENGTH
        or not _URI_CHARACTERS.fullmatch(value)
    ):
        raise _metadata_error("client_uri must be an http or https URL.")
    return value


def _application_type(data: dict, redirect_uris: tuple[str, ...]) -> str:
    value = data.get("application_type")
    if value is None:
        # RFC 7591 has no application_type; OpenID's default "web" would refuse the
        # loopback callbacks that command-line and desktop MCP clients register
        # without naming a type, so the type follows the redirect URIs instead.
        return NATIVE if any(is_loopback_redirect(u) for u in redirect_uris) else WEB
    if value not in APPLICATION_TYPES:
        raise _metadata_error("application_type must be web or native.")
    return value


def client_metadata_validate(*, data: object) -> ClientMetadata:
    """Validate RFC 7591 client metadata; raise ClientMetadataError with the docs/spec.md 7.3 code.

    Public clients only: ``token_endpoint_auth_method`` must be ``none`` (absent
    means ``none``); any other value, ``client_secret_post`` included, is refused
    rather than silently changed. Unknown fields are ignored (RFC 7591 2).
    """
    if not isinstance(data, dict):
        raise _metadata_error("The request body must be a JSON object.")

    auth_method = data.get("token_endpoint_auth_method")
    if auth_method is not None and auth_method != "none":
        raise _metadata_error("token_endpoint_auth_method must be none: every client is public.")

    grant_types = _string_list(data, "grant_types", ("authorization_code",))
    unsupported = [g for g in grant_types if g not in GRANT_TYPES]
    if unsupported:
        raise _metadata_error(f"Unsupported grant type {unsupported[0]!r}: use authorization_code and refresh_token.")
    if "authorization_code" not in grant_types:
        raise _metadata_error("grant_types must include authorization_code.")

    response_types = _string_list(data, "response_types", RESPONSE_TYPES)
    if response_types != RESPONSE_TYPES:
        raise _metadata_error('response_types must be ["code"].')

    client_name = _client_name(data)
    client_uri = _client_uri(data)
    redirect_uris = _redirect_uris(data)
    application_type = _application_type(data, redirect_uris)
    if application_type == WEB:
        for uri in redirect_uris:
            if urlsplit(uri).scheme != "https":
                raise _redirect_error("Web clients may register https redirect URIs only.")

    return ClientMetadata(
        redirect_uris=redirect_uris,
        application_type=application_type,
        grant_types=grant_types,
        response_types=response_types,
        client_name=client_name,
        client_uri=client_uri,
    )
