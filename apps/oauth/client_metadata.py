"""Client metadata documents (docs/spec.md 5.3; draft-ietf-oauth-client-id-metadata-document).

A client may use an https URL as its ``client_id``; the document served there
must carry that exact URL as its ``client_id``. Fetching a client-chosen URL
from inside the authorization flow is an SSRF surface, so the fetch follows
these rules, built on DOT's ``oauth2_provider.cimd`` (its URL validation,
address classification, document reader and in-flight cap):

- https only, no userinfo, fragment or dot segments (DOT's URL check);
- the host is resolved once and every resolved address must be public
  (loopback, private, link-local, CGNAT, multicast, reserved, and IPv6 forms
  embedding such an IPv4 are refused); the connection then goes to that same
  validated address with TLS verified against the hostname, so a second DNS
  answer (rebinding) can never redirect it;
- no redirect is followed (a 3xx is an invalid document), a 3 s deadline for
  the whole fetch, a 5 KB body cap, JSON content type only;
- the document must satisfy the registration rules of docs/spec.md 4.3 (the same
  validator as ``POST /oauth/register``) and must not carry a client secret;
- errors and invalid documents are never cached; a valid document is cached
  for its ``Cache-Control: max-age`` (``no-store``/``no-cache``: not at all,
  none given: one hour), never beyond 24 hours. Once that lapses the document
  is fetched again, and a failure then makes the client unknown: a stale
  document is never used past its lifetime.

Tests admit a local fixture server through two test-only settings that no
deployment defines: ``CIMD_TEST_ALLOWED_ADDRESSES`` (addresses exempt from the
public-address rule) and ``CIMD_TEST_CA_FILE`` (the CA that signed the fixture
certificate, trusted instead of the system store).
"""

import logging
import re
import socket
import ssl
import threading
import time
from datetime import timedelta

import urllib3
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from oauth2_provider.cimd import (
    CIMDError,
    SafeMetadataFetcher,
    _fetch_slot,
    _ip_is_public,
    _registration_permitted,
    _validate_client_id_url,
    is_cimd_client_id,
)
from oauth2_provider.models import get_application_model
from oauth2_provider.settings import oauth2_settings

from .registration.metadata import ClientMetadataError, client_metadata_validate

log = logging.getLogger(__name__)

MAX_CLIENT_ID_LENGTH = 255
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


def address_allowed(ip: str) -> bool:
    return _ip_is_public(ip) or ip in getattr(settings, "CIMD_TEST_ALLOWED_ADDRESSES", ())


class ClientMetadataFetcher(SafeMetadataFetcher):
    """The ``CIMD_METADATA_FETCHER``: DOT's fetcher with our address policy, TLS trust and document rules.

    Also used by DOT's own validator when it meets a metadata-document client at
    the token endpoint, so every path to a document applies the same rules.
    """

    def resolve(self, hostname: str, port: int) -> list[str]:
        try:
            infos = socket.getaddrinfo(hostname, port, proto=socket.IPPROTO_TCP)
        except (OSError, UnicodeError) as exc:
            raise CIMDError("could not resolve client_id host") from exc
        ips = list(dict.fromkeys(info[4][0] for info in infos))
        if not ips:
            raise CIMDError("client_id host did not resolve to any address")
        # One internal address refuses the host: a split answer must not reach an internal service.
        refused = [ip for ip in ips if not address_allowed(ip)]
        if refused:
            raise CIMDError(f"client_id host resolves to a non-public address ({refused[0]})")
        return ips

    def ssl_context(self) -> ssl.SSLContext:
        cafile = getattr(settings, "CIMD_TEST_CA_FILE", None)
        return ssl.create_default_context(cafile=cafile) if cafile else ssl.create_default_context()

    def fetch(self, client_id):
        if len(client_id) > MAX_CLIENT_ID_LENGTH:
            raise CIMDError("client_id URL is longer than 255 characters")
        parsed = _validate_client_id_url(client_id)
        port = parsed.port or 443
        ips = self.resolve(parsed.hostname, port)
        path = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        headers = {"Host": parsed.netloc, "Accept": "application/json", "Accept-Encoding": "identity"}
        context = self.ssl_context()
        deadline = time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        last_error = None
        for ip in ips:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # Connect to the address just validated; SNI, certificate and Host use the name.
            pool = urllib3.HTTPSConnectionPool(
                host=ip,
                port=port,
                timeout=urllib3.Timeout(connect=remaining, read=remaining, total=remaining),
                retries=False,
                maxsize=1,
                ssl_context=context,
                server_hostname=parsed.hostname,
            )
            try:
                response = pool.urlopen("GET", path, headers=headers, redirect=False, preload_content=False)
                # urllib3's timeouts restart with every chunk read, so a server that
                # trickles its body byte by byte could hold this worker for hours;
                # a watchdog shuts the socket when the whole-fetch deadline passes.
                watchdog = threading.Timer(max(deadline - time.monotonic(), 0), response.shutdown)
                watchdog.start()
                try:
                    data, max_age = self._read_document(response)
                finally:
                    watchdog.cancel()
                    response.release_conn()
                if time.monotonic() >= deadline:
                    raise CIMDError("client_id document was not received within the fetch deadline")
                # Validated here, not only by our resolver: DOT's validator calls fetchers too.
                client_metadata_document_validate(client_id=client_id, data=data)
                return data, max_age
            except urllib3.exceptions.HTTPError as exc:
                last_error = exc
            finally:
                pool.close()
        raise CIMDError(f"could not fetch client_id document: {last_error}")

    def _read_document(self, response):
        if 300 <= response.status < 400:
            raise CIMDError("client_id document answered with a redirect, which is never followed")
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > oauth2_settings.CIMD_MAX_DOCUMENT_SIZE:
            raise CIMDError("client_id document exceeds the maximum allowed size")
        data, _dot_age = super()._read_document(response)
        return data, cache_lifetime(response.headers.get("Cache-Control"))


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


def _fetch_validated(client_id: str):
    fetcher = oauth2_settings.CIMD_METADATA_FETCHER()
    data, max_age = fetcher.fetch(client_id)
    return client_metadata_document_validate(client_id=client_id, data=data), max_age


def _client_fields(metadata, max_age: int, now) -> dict:
    Application = get_application_model()
    return {
        "name": metadata.client_name or "",
        "redirect_uris": " ".join(metadata.redirect_uris),
        "application_type": metadata.application_type,
        "client_uri": metadata.client_uri or "",
        "client_type": Application.CLIENT_PUBLIC,
        "authorization_grant_type": Application.GRANT_AUTHORIZATION_CODE,
        "registration_source": Application.RegistrationSource.CIMD,
        "cimd_expires_at": now + timedelta(seconds=max_age),
    }


def _upsert(client_id: str, fields: dict):
    Application = get_application_model()
    client = Application.objects.filter(client_id=client_id).first()
    if client is None:
        try:
            with transaction.atomic():
                return Application.objects.create(
                    client_id=client_id, user=None, client_secret="", hash_client_secret=False, **fields
                )
        except IntegrityError:
            # A concurrent first sight of the same URL won; update its row instead.
            client = Application.objects.filter(client_id=client_id).first()
            if client is None:
                raise
    if client.registration_source != Application.RegistrationSource.CIMD:
        raise CIMDError("client_id URL belongs to a client of another kind")
    for name, value in fields.items():
        setattr(client, name, value)
    # Only document-derived fields: disabled_at, verified_partner and last_used_at stay as they are.
    client.save(update_fields=[*fields, "updated"])
    return client


def client_get_by_metadata_url(client_id: str, request=None):
    """The client an https ``client_id`` names, fetched or refreshed as needed; None if unusable.

    None means "unknown client" to the caller: the URL is not a valid metadata
    URL, the document is unfetchable or invalid, or the in-flight cap is full.
    A cached row still within its lifetime (or disabled: no fetch is spent on
    it) is returned without a fetch.
    """
    if not oauth2_settings.CIMD_ENABLED or not client_id or not is_cimd_client_id(client_id):
        return None
    if len(client_id) > MAX_CLIENT_ID_LENGTH:
        return None
    Application = get_application_model()
    now = timezone.now()
    existing = Application.objects.filter(client_id=client_id).first()
    if existing is not None:
        if existing.registration_source != Application.RegistrationSource.CIMD or existing.is_disabled:
            return existing
        if existing.cimd_expires_at is not None and now < existing.cimd_expires_at:
            return existing
    # DOT's CIMD_REGISTRATION_PERMISSION_CLASSES (default: allow all) gate new fetches, as in DOT.
    if not _registration_permitted(request, client_id):
        log.info("client metadata document refused by CIMD permission classes: %r", client_id)
        return None
    with _fetch_slot() as acquired:
        if not acquired:
            log.warning("client metadata fetch skipped: in-flight cap reached")
            return None
        try:
            metadata, max_age = _fetch_validated(client_id)
            return _upsert(client_id, _client_fields(metadata, max_age, timezone.now()))
        except CIMDError as exc:
            log.info("client metadata document refused for %r: %s", client_id, exc)
            return None
        except Exception:
            # A client-controlled URL on a pre-authentication path: degrade to "unknown client".
            log.exception("unexpected error resolving client metadata document %r", client_id)
            return None
