"""The client metadata document fixtures: a local HTTPS server, a host that never answers, a DNS stand-in.

The HTTPS server on 127.0.0.1 has a certificate from a CA generated here. It is
reachable only because two test-only settings admit it (``CIMD_TEST_ALLOWED_ADDRESSES``
and ``CIMD_TEST_CA_FILE``; the ``cimd`` fixture of conftest.py sets both). Host
names are mapped to addresses by a stand-in for ``socket.getaddrinfo``, which
also counts lookups.
"""

import contextlib
import json
import socket
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from oauth2_provider.cimd import CIMDError

from apps.oauth.client_metadata import ClientMetadataFetcher
from tests import tls
from tests.support.dns import FakeDNS  # noqa: F401  (the fixtures import it from here)

FIXTURE_HOSTS = ("client.example.test", "rebind.example.test")
PATH = "/oauth/client.json"


# --- certificates ---------------------------------------------------------------------------


def make_certificates(directory):
    """A CA and a certificate for the fixture hosts (DNS names, resolved by the test)."""
    return tls.make_certificates(
        directory,
        ca_name="CIMD test CA",
        common_name=FIXTURE_HOSTS[0],
        alt_names=[x509.DNSName(h) for h in FIXTURE_HOSTS],
    )


# --- the fixture server ------------------------------------------------------------------------


class Route:
    def __init__(self, status=200, body=b"", headers=None, delay=0.0, content_length=True, trickle=0.0):
        self.status = status
        self.body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self.delay = delay
        self.trickle = trickle  # seconds between body bytes
        self.content_length = content_length


class FixtureServer:
    def __init__(self, server):
        self.server = server
        self.port = server.server_address[1]
        self.routes: dict[str, Route] = {}
        self.hits: list[tuple[str, str]] = []

    def url(self, path=PATH, host=FIXTURE_HOSTS[0]):
        return f"https://{host}:{self.port}{path}"

    def serve(self, path, route):
        self.routes[path] = route

    def hits_on(self, path):
        return sum(1 for p, _ in self.hits if p == path)


def handler(fixture):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            fixture.hits.append((self.path, self.headers.get("Host")))
            route = fixture.routes.get(self.path) or Route(404, {"error": "not found"})
            if route.delay:
                time.sleep(route.delay)
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if route.content_length:
                self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            with contextlib.suppress(OSError):
                if not route.trickle:
                    self.wfile.write(route.body)
                for byte in route.body if route.trickle else b"":
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(route.trickle)

        def log_message(self, *args):
            pass

    return Handler


def document(url, **overrides):
    doc = {
        "client_id": url,
        "client_name": "Example Assistant",
        "client_uri": "https://assistant.example",
        "redirect_uris": ["https://assistant.example/callback", "http://127.0.0.1/callback"],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    }
    doc.update(overrides)
    return {k: v for k, v in doc.items() if v is not None}


def serve_document(server, path=PATH, headers=None, **overrides):
    url = server.url(path)
    server.serve(path, Route(200, document(url, **overrides), headers=headers))
    return url


def refused(url):
    with pytest.raises(CIMDError) as info:
        ClientMetadataFetcher().fetch(url)
    return str(info.value)


def start_https_server(tls_files) -> tuple[FixtureServer, ThreadingHTTPServer]:
    _ca, cert_file, key_file = tls_files
    fixture = FixtureServer.__new__(FixtureServer)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(fixture))
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    FixtureServer.__init__(fixture, server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return fixture, server


class SlowHost:
    """Accepts TCP connections on 127.0.0.1 and never answers: not even the TLS handshake.

    Counts the connections it was given and how many are still open (a
    connection closes when the fetcher gives up on it, or on ``release``).
    """

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self._changed = threading.Condition()
        self.accepted = 0
        self.open = 0
        self.holding = True  # after release(), connections are closed as soon as they come
        self._connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"https://{host}:{self.port}{path}"

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self._changed:
                self.accepted += 1
                self.open += 1
                holding = self.holding
                if holding:
                    self._connections.append(connection)
                self._changed.notify_all()
            if not holding:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()
            threading.Thread(target=self._drain, args=(connection,), daemon=True).start()

    def _drain(self, connection):
        # Read and drop whatever comes (a TLS ClientHello); an empty read is the other side leaving.
        with contextlib.suppress(OSError):
            while connection.recv(4096):
                pass
        with self._changed:
            self.open -= 1
            self._changed.notify_all()

    def wait(self, predicate, timeout: float = 30.0) -> bool:
        """Wait (within a generous bound) until ``predicate(self)`` holds; whether it did."""
        with self._changed:
            return self._changed.wait_for(lambda: predicate(self), timeout)

    def release(self):
        """Close every held connection (the fetches waiting on them fail at once), and every later one."""
        with self._changed:
            self.holding = False
            connections, self._connections = self._connections, []
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def close(self):
        self.listener.close()
        self.release()
