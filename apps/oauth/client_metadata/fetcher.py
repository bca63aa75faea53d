"""The fetch of one client metadata document: resolve, check the addresses, connect, read.

One deadline (``CIMD_FETCH_TIMEOUT_SECONDS``) covers the whole fetch, the DNS
lookup included. Resolving, refusing non-public addresses and connecting to
the address just checked are apps/core/egress.py's, shared with webhook
deliveries; this module adds the document's own rules.
"""

import ssl
import time

import urllib3
from django.conf import settings
from oauth2_provider.cimd import CIMDError, SafeMetadataFetcher
from oauth2_provider.settings import oauth2_settings

from apps.core import egress

from ..dot_private import validate_client_id_url
from .addresses import admitted
from .document import cache_lifetime, client_metadata_document_validate

MAX_CLIENT_ID_LENGTH = 255


class ClientMetadataFetcher(SafeMetadataFetcher):
    """The ``CIMD_METADATA_FETCHER``: DOT's fetcher with our address policy, TLS trust and document rules.

    Also used by DOT's own validator when it meets a metadata-document client at
    the token endpoint, so every path to a document applies the same rules.
    """

    def resolve(self, hostname: str, port: int, deadline: float | None = None) -> list[str]:
        if deadline is None:
            deadline = time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        try:
            return egress.resolve_checked(hostname, port, deadline=deadline, admitted=admitted())
        except egress.AddressRefused as exc:
            raise CIMDError(f"client_id host resolves to a non-public address ({exc.address})") from exc
        except egress.EgressError as exc:
            raise CIMDError(f"client_id host: {exc}") from exc

    def ssl_context(self) -> ssl.SSLContext:
        # A CA that tests trust instead of the system store; no deployment defines the setting.
        cafile = getattr(settings, "CIMD_TEST_CA_FILE", None)
        return ssl.create_default_context(cafile=cafile) if cafile else ssl.create_default_context()

    def fetch(self, client_id):
        # The deadline starts before the lookup: resolving the host is part of the fetch.
        deadline = time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        if len(client_id) > MAX_CLIENT_ID_LENGTH:
            raise CIMDError("client_id URL is longer than 255 characters")
        parsed = validate_client_id_url(client_id)
        port = parsed.port or 443
        ips = self.resolve(parsed.hostname, port, deadline)
        path = parsed.path + (f"?{parsed.query}" if parsed.query else "")
        headers = {"Host": parsed.netloc, "Accept": "application/json", "Accept-Encoding": "identity"}
        context = self.ssl_context()
        last_error = None
        for ip in ips:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            # Connect to the address just validated; SNI, certificate and Host use the name.
            pool = egress.connection_pool(
                scheme="https", ip=ip, port=port, hostname=parsed.hostname, timeout=remaining, ssl_context=context
            )
            try:
                response = pool.urlopen("GET", path, headers=headers, redirect=False, preload_content=False)
                try:
                    with egress.watchdog(response, deadline):
                        data, max_age = self._read_document(response)
                finally:
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
        raise CIMDError(f"could not fetch client_id document: {last_error or 'the fetch deadline passed'}")

    def _read_document(self, response):
        if 300 <= response.status < 400:
            raise CIMDError("client_id document answered with a redirect, which is never followed")
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > oauth2_settings.CIMD_MAX_DOCUMENT_SIZE:
            raise CIMDError("client_id document exceeds the maximum allowed size")
        data, _dot_age = super()._read_document(response)
        return data, cache_lifetime(response.headers.get("Cache-Control"))
