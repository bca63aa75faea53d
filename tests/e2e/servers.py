"""The processes and fixture servers behind the end-to-end tests.

- ``LiveServer``: the service itself, as ``gunicorn config.wsgi`` in its own
  process on a free 127.0.0.1 port, with ``BASE_URL`` set to that address and
  a fresh SQLite database (migrated, one user created with ``createuser``),
  and a clock the tests can stop and move (``clock``; tests/e2e/live_settings.py).
- ``DocumentHost``: an HTTPS server on 127.0.0.1 with a certificate from a CA
  made here, serving client metadata documents (the server trusts that CA only
  through ``CIMD_TEST_CA_FILE``).
"""

import contextlib
import ipaddress
import json
import os
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509

from tests import tls
from tests.support.processes import LOOPBACK, ROOT, answers, free_port, manage, start_gunicorn, stop, wait_serving

# --- certificates for the document host ------------------------------------------------


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A throwaway CA and a server certificate for the address 127.0.0.1."""
    return tls.make_certificates(
        directory,
        ca_name="e2e test CA",
        common_name=LOOPBACK,
        alt_names=[x509.IPAddress(ipaddress.ip_address(LOOPBACK))],
    )


# --- the client metadata document host -------------------------------------------------------


class DocumentHost:
    def __init__(self, directory: Path):
        self.ca_file, cert_file, key_file = make_certificates(directory)
        self.documents: dict[str, dict] = {}
        self.hits: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                host.hits.append(self.path)
                document = host.documents.get(self.path)
                body = json.dumps(document).encode() if document is not None else b"{}"
                self.send_response(200 if document is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "max-age=300")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer((LOOPBACK, 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str) -> str:
        return f"https://{LOOPBACK}:{self.port}{path}"

    def serve(self, path: str, document: dict) -> str:
        self.documents[path] = document
        return self.url(path)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


# --- the service under test -----------------------------------------------------------------


class Clock:
    """The live server's clock (and its manage.py commands'), moved by the tests, never slept through.

    Runs with the real clock until ``stopped``; inside that block it stands still except when
    ``advance`` moves it, and afterwards it runs on from where it stood: it never goes back, so
    the rows written meanwhile stay in order for the tests that follow.
    """

    def __init__(self, path: Path):
        self.path = path
        self.offset = 0.0
        self.frozen: float | None = None

    def now(self) -> float:
        return self.frozen if self.frozen is not None else time.time() + self.offset

    def _write(self, clock: dict) -> None:
        # A whole file or the old one: the server never reads half a write.
        scratch = self.path.with_suffix(".tmp")
        scratch.write_text(json.dumps(clock))
        os.replace(scratch, self.path)

    @contextlib.contextmanager
    def stopped(self):
        self.frozen = self.now()
        self._write({"frozen": self.frozen})
        try:
            yield self
        finally:
            self.offset, self.frozen = self.frozen - time.time(), None
            self._write({"offset": self.offset})

    def advance(self, seconds: float) -> None:
        if self.frozen is None:
            raise RuntimeError("advance the clock inside clock.stopped()")
        self.frozen += seconds
        self._write({"frozen": self.frozen})


class LiveServer:
    def __init__(self, directory: Path, *, ca_file: Path, email: str, display_name: str, password: str):
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.log_path = directory / "server.log"
        self.clock = Clock(directory / "clock.json")
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "tests.e2e.live_settings",
            "PYTHONPATH": str(ROOT),
            "SECRET_KEY": "e2e-only-secret-key-not-for-any-deployment-0123456789",
            "DEBUG": "",
            "BASE_URL": self.url,
            "APP_URL": self.url,
            "DOCS_URL": "https://docs.example.test",
            "DATABASE_URL": f"sqlite:///{directory / 'e2e.sqlite3'}",
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
            "RATELIMIT_KEY_PREFIX": f"e2e-{self.port}-{os.getpid()}",
            "E2E_CIMD_CA_FILE": str(ca_file),
            "ALLOWED_HOSTS": "",
            "E2E_CLOCK_FILE": str(self.clock.path),
        }
        # The environment of its manage.py commands: the server's own, unless a subclass says otherwise.
        self.manage_env = self.env
        self.user = (email, display_name, password)
        self.process = None

    def manage(self, *args) -> subprocess.CompletedProcess:
        return manage(self.manage_env, *args)

    def __enter__(self):
        email, display_name, password = self.user
        self.manage("migrate", "--noinput")
        self.manage("createuser", "--email", email, "--display-name", display_name, "--password", password)
        # The quick start's data: the demo rate deck and the account's demo data set (both modes).
        self.manage("import_rates", "--demo", "--if-empty")
        self.manage("seed_demo", "--email", email)
        self.log = self.log_path.open("wb")
        self.process = start_gunicorn(
            self.port, "--workers", "1", "--threads", "8", "--access-logfile", "-", env=self.env, log=self.log
        )
        try:
            self.wait_ready()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def wait_ready(self, timeout: float = 60.0):
        probe = f"{self.url}/.well-known/oauth-protected-resource/mcp"
        wait_serving(self.process, lambda: answers(probe), what="live server", output=self.output, timeout=timeout)

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")[-20000:]

    def __exit__(self, *exc):
        if self.process is not None:
            stop(self.process)
        self.log.close()
