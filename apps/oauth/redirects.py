"""Redirect URIs: the port rule and the matcher (docs/spec.md 4.3, 5.4; RFC 8252 7.3).

Registration, authorize and DOT's own ``Application.redirect_uri_allowed`` use
these functions, so a URI is read the same way wherever it is judged.

A loopback redirect URI (``http`` on ``127.0.0.1``, ``localhost`` or
``[::1]``) matches its registered form on any port, since native clients get
an ephemeral port from the operating system. "Any port" is a number from 1 to
65535 written in plain decimal: ``:abc``, ``:99999``, ``:-1``, ``:0``,
``:080`` and a bare ``:`` are not ports, and a URI carrying one matches
nothing. ``urlsplit().port`` is not enough on its own: it reads a bare ``:``
as no port at all and accepts ``0``, and the matcher DOT ships never reads a
loopback port, so any text there matched.
"""

import re
from urllib.parse import urlsplit

# RFC 8252 7.3 loopback hosts, as they appear in the authority (IPv6 in brackets).
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
_PORT = re.compile(r"[1-9][0-9]{0,4}")


def split_authority(netloc: str) -> tuple[str, int | None]:
    """The host (IPv6 literals keep their brackets) and port of an authority without userinfo.

    The port is None when the authority names none; ValueError when the text
    after the host is not a port from 1 to 65535.
    """
    if netloc.startswith("["):
        end = netloc.find("]") + 1
        host, rest = (netloc[:end], netloc[end:]) if end else (netloc, "")
    else:
        host, colon, port_text = netloc.partition(":")
        rest = colon + port_text
    if not rest:
        return host, None
    port_text = rest[1:] if rest.startswith(":") else None
    if port_text is None or not _PORT.fullmatch(port_text) or int(port_text) > 65535:
        raise ValueError("not a port from 1 to 65535")
    return host, int(port_text)


def is_loopback_redirect(uri: str) -> bool:
    parts = urlsplit(uri)
    if parts.scheme != "http":
        return False
    try:
        host, _port = split_authority(parts.netloc)
    except ValueError:
        return False
    return host.lower() in LOOPBACK_HOSTS


def _comparable(uri: str) -> tuple | None:
    """What must match exactly when a URI is compared on any port: None if not a loopback URI."""
    parts = urlsplit(uri)
    if not is_loopback_redirect(uri):
        return None
    host, _port = split_authority(parts.netloc)
    # An empty query ("/cb?") is not an absent one: simple string comparison, as DOT does.
    return host.lower(), parts.path, "?" in uri, parts.query


def redirect_uri_matches(uri: str | None, registered: list[str]) -> bool:
    """Exact match against a registered URI; loopback URIs match on any real port."""
    if not uri or "#" in uri:
        return False
    parts = urlsplit(uri)
    # Userinfo is never registered (registration refuses it); stripping it to compare hosts would admit it.
    if "@" in parts.netloc:
        return False
    try:
        split_authority(parts.netloc)
    except ValueError:
        return False  # not a port: matches nothing, not even a URI registered with the same text
    if uri in registered:
        return True
    loopback = _comparable(uri)
    if loopback is None:
        return False
    # A registered URI with a fragment or userinfo can never match (registration refuses both).
    return any(_comparable(c) == loopback for c in registered if "@" not in c and "#" not in c)
