import pytest

from .assistant import ACCOUNT
from .servers import DocumentHost, LiveServer


@pytest.fixture(scope="session")
def document_host(tmp_path_factory):
    with DocumentHost(tmp_path_factory.mktemp("cimd")) as host:
        yield host


@pytest.fixture(scope="session")
def service(tmp_path_factory, document_host):
    """The service in its own gunicorn process on a free 127.0.0.1 port (one per test session)."""
    server = LiveServer(
        tmp_path_factory.mktemp("live"),
        ca_file=document_host.ca_file,
        **ACCOUNT,
    )
    with server:
        yield server
