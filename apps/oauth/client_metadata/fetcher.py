"""The fetch of one client metadata document: resolve, check the addresses, connect, read.

One deadline (``CIMD_FETCH_TIMEOUT_SECONDS``) covers the whole fetch, the DNS
lookup included: ``socket.getaddrinfo`` takes no timeout and a resolver that
never answers would otherwise hold the worker for as long as the system's
resolver retries. The lookup runs on a daemon thread that the fetch stops
waiting for at the deadline; at most ``MAX_LOOKUPS`` such lookups run at once
in a process, so a resolver that hangs costs a few threads, never a thread
per request.
"""

import socket
import ssl
import threading
import time

import urllib3
from django.conf import settings
from oauth2_provider.cimd import CIMDError, SafeMetadataFetcher
from oauth2_provider.settings import oauth2_settings

from ..dot_private import validate_client_id_url
from .addresses import address_allowed
from .document import cache_lifetime, client_metadata_document_validate

MAX_CLIENT_ID_LENGTH = 255
MAX_LOOKUPS = 8
_lookups = threading.BoundedSemaphore(MAX_LOOKUPS)


def _getaddrinfo_within(hostname: str, port: int, timeout: float) -> list:
    """``socket.getaddrinfo`` for a TCP connection, given up on after ``timeout`` seconds."""
    if timeout <= 0:
        raise CIMDError("client_id host was not resolved within the fetch deadline")
    if not _lookups.acquire(blocking=False):
        raise CIMDError("too many client_id host lookups in progress")
    outcome: dict = {}
    done = threading.Event()

    def lookup():
        try:
            outcome["infos"] = socket.getaddrinfo(hostname, port, proto=socket.IPPROTO_TCP)
        except BaseException as exc:  # handed to the waiting request below
            outcome["error"] = exc
        finally:
            _lookups.release()
            done.set()

    threading.Thread(target=lookup, name="cimd-lookup", daemon=True).start()
    if not done.wait(timeout):
        raise CIMDError("client_id host was not resolved within the fetch deadline")
    if "error" in outcome:
        raise CIMDError("could not resolve client_id host") from outcome["error"]
    return outcome["infos"]


class ClientMetadataFetcher(SafeMetadataFetcher):
    """The ``CIMD_METADATA_FETCHER``: DOT's fetcher with our address policy, TLS trust and document rules.

    Also used by DOT's own validator when it meets a metadata-document client at
    the token endpoint, so every path to a document applies the same rules.
    """

    def resolve(self, hostname: str, port: int, deadline: float | None = None) -> list[str]:
        if deadline is None:
            deadline = time.monotonic() + oauth2_settings.CIMD_FETCH_TIMEOUT_SECONDS
        infos = _getaddrinfo_within(hostname, port, deadline - time.monotonic())
        ips = list(dict.fromkeys(info[4][0] for info in infos))
        if not ips:
            raise CIMDError("client_id host did not resolve to any address")
        # One internal address refuses the host: a split answer must not reach an internal service.
        refused = [ip for ip in ips if not address_allowed(ip)]
        if refused:
            raise CIMDError(f"client_id host resolves to a non-public address ({refused[0]})")
        return ips

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
        raise CIMDError(f"could not fetch client_id document: {last_error or 'the fetch deadline passed'}")

    def _read_document(self, response):
        if 300 <= response.status < 400:
            raise CIMDError("client_id document answered with a redirect, which is never followed")
        declared = response.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > oauth2_settings.CIMD_MAX_DOCUMENT_SIZE:
            raise CIMDError("client_id document exceeds the maximum allowed size")
        data, _dot_age = super()._read_document(response)
        return data, cache_lifetime(response.headers.get("Cache-Control"))
