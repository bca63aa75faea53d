"""Local HTTP receivers on loopback free ports, started by the tests that post to them.

A receiver records every request (path, headers, body) and answers with what the
test set: a status, headers, and optionally a hang (the handler waits until the
receiver is closed or the hang's seconds pass, in real time: a receiver stands
for a remote server that is slow, not for the clock under test).
"""

import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes


@dataclass
class Reply:
    status: int = 200
    headers: dict = field(default_factory=dict)
    body: bytes = b""
    hang: float = 0.0


class Receiver:
    """``tls``: (certificate, key) PEM paths to serve https (tests/tls.py makes them)."""

    def __init__(self, tls=None):
        self.requests: list[Received] = []
        self.received_at: list[float] = []  # time.monotonic() of each request's arrival
        self.reply = Reply()
        self.replies: list[Reply] = []  # used first, one a request, then ``reply``
        self.connections = 0  # TCP connections accepted
        self._released = threading.Event()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                with receiver._lock:
                    receiver.connections += 1
                super().setup()

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                with receiver._lock:
                    receiver.received_at.append(time.monotonic())
                    receiver.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = receiver.replies.pop(0) if receiver.replies else receiver.reply
                if reply.hang:
                    receiver._released.wait(reply.hang)
                try:
                    self.send_response(reply.status)
                    if reply.headers.get("Connection", "").lower() == "close":
                        self.close_connection = True
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the sender stopped waiting (a hang past its timeout)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.scheme = "http"
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*tls)
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.scheme = "https"
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def url(self, path="/hooks", host="127.0.0.1"):
        return f"{self.scheme}://{host}:{self.port}{path}"

    def bodies(self) -> list[bytes]:
        with self._lock:
            return [r.body for r in self.requests]

    def close(self):
        self._released.set()
        self.server.shutdown()
        self.server.server_close()
