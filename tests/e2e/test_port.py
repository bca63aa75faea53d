"""The quick start on another port: `PORT=<port> make run`, exactly as a new user types it.

From a fresh database (and with no BASE_URL, APP_URL or DOCS_URL in the environment)
the Makefile migrates, creates the demo account and serves on that port; the service
advertises that address (issuer, resources), the banner names the sign-in, the MCP
URL and the docs without printing a secret, and the official MCP SDK client connects
to ``http://127.0.0.1:<port>/mcp``, signs the demo account in and calls a tool.
"""

import json
import os
import re
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

from .assistant import MemoryStorage, Person
from .servers import free_port

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
# What the test process was given for itself; `make run` must work without any of it.
NOT_PASSED_ON = {
    "BASE_URL",
    "APP_URL",
    "DOCS_URL",
    "SECRET_KEY",
    "DEBUG",
    "DATABASE_URL",
    "REDIS_URL",
    "ALLOWED_HOSTS",
    "PORT",
    "EMAIL_BACKEND",
    "MAKEFLAGS",
    "MFLAGS",
    "MAKELEVEL",
}


def makefile_value(name: str) -> str:
    match = re.search(rf"^{name}\s*:?=\s*(\S+)\s*$", (ROOT / "Makefile").read_text(), re.M)
    assert match, f"{name} is not set in the Makefile"
    return match.group(1)


DEMO_EMAIL = makefile_value("DEMO_EMAIL")
DEMO_PASSWORD = makefile_value("DEMO_PASSWORD")


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


class QuickStart:
    def __init__(self, directory: Path):
        self.port = free_port()
        while self.port == 8000:
            self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = directory / "make-run.log"
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in NOT_PASSED_ON and not k.startswith(("DJANGO_", "PYTEST", "RATELIMIT_"))
        }
        # A database of its own instead of the checkout's db.sqlite3; nothing else is set.
        self.env.update(PORT=str(self.port), DATABASE_URL=f"sqlite:///{directory / 'quickstart.sqlite3'}")

    def __enter__(self):
        self.log = self.log_path.open("wb")
        # Its own process group: make, runserver and runserver's reloader child end together.
        self.process = subprocess.Popen(
            ["make", "run"], cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 300  # `make run` may first have to install
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"make run exited:\n{self.output()}")
            try:
                get_json(f"{self.url}/.well-known/oauth-protected-resource/mcp")
                return self
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError(f"make run did not serve {self.url}:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def __exit__(self, *exc):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=20)
        except ProcessLookupError:
            pass
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def quick_start(tmp_path_factory):
    with QuickStart(tmp_path_factory.mktemp("quickstart")) as started:
        yield started


def test_it_serves_and_advertises_the_port_it_was_given(quick_start):
    base = quick_start.url
    assert get_json(f"{base}/.well-known/oauth-protected-resource/mcp")["resource"] == f"{base}/mcp"
    assert get_json(f"{base}/.well-known/oauth-protected-resource/v1")["resource"] == f"{base}/v1"
    metadata = get_json(f"{base}/.well-known/oauth-authorization-server")
    assert metadata["issuer"] == base
    assert metadata["token_endpoint"] == f"{base}/oauth/token"
    assert metadata["service_documentation"] == f"{base}/docs/oauth"
    with urllib.request.urlopen(f"{base}/docs/mcp", timeout=5) as page:
        assert page.status == 200
        assert f"{base}/mcp" in page.read().decode()


def test_the_banner_names_sign_in_mcp_and_docs_and_no_secret(quick_start):
    output = quick_start.output()
    base = quick_start.url
    assert f"{base}/login" in output and DEMO_EMAIL in output and DEMO_PASSWORD in output
    assert f"{base}/mcp" in output
    assert f"{base}/docs" in output
    secret_key = (ROOT / ".secret_key").read_text().strip()
    assert secret_key not in output


def test_the_mcp_sdk_client_connects_and_calls_a_tool(quick_start):
    base = quick_start.url
    person = Person(base, DEMO_EMAIL, DEMO_PASSWORD)
    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=f"{base}/mcp",
        client_metadata=OAuthClientMetadata(
            client_name="Quick start check",
            redirect_uris=["http://127.0.0.1:53682/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage,
        redirect_handler=person.open,
        callback_handler=person.callback,
    )

    async def connect():
        async with (
            httpx2.AsyncClient(auth=provider, trust_env=False, timeout=30) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
        ):
            tools = await client.list_tools()
            result = await client.call_tool("svc_whoami", {})
            return tools, result

    tools, result = anyio.run(connect)
    assert "svc_whoami" in {tool.name for tool in tools.tools}
    assert result.is_error is False
    assert result.structured_content["email"] == DEMO_EMAIL
    assert person.redirect["iss"] == base
    assert storage.tokens.access_token.startswith("sat_")
