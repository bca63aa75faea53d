"""The service under gunicorn.conf.py as production runs it: what gunicorn refuses before Django
carries a Request-Id and the error envelope, a long path reaches Django, and /metrics sums every
worker's counts (prometheus-client's multiprocess mode)."""

import json
import os
import socket

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.envelope import assert_error
from tests.support.processes import answers, free_port, manage, start_gunicorn, stop, wait_serving

TOKEN = "metrics-token-for-gunicorn-tests-0123456789"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gunicorn")
    port = free_port()
    metrics_dir = folder / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_99999.db").write_bytes(b"")  # a previous run's file: removed at start
    env = {
        **os.environ,
        "SECRET_KEY": "gunicorn-test-only-secret-key-not-for-any-deployment-0123456789",
        "DEBUG": "",
        "BASE_URL": f"http://127.0.0.1:{port}",
        "DOCS_URL": "https://docs.example.test",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "WEB_CONCURRENCY": "2",
        "METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "RATELIMIT_ENABLED": "0",
    }
    manage(env, "migrate", "--noinput")
    log_path = folder / "log"
    log = log_path.open("wb")
    process = start_gunicorn(port, env=env, log=log)
    try:
        wait_serving(
            process,
            lambda: answers(f"http://127.0.0.1:{port}/livez"),
            what="gunicorn",
            output=lambda: log_path.read_text(),
        )
        yield {"port": port, "metrics_dir": metrics_dir}
    finally:
        stop(process, timeout=20)
        log.close()


def raw(port: int, request: bytes) -> tuple[int, dict, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def get(port: int, target: str, *extra: str) -> tuple[int, dict, bytes]:
    lines = [f"GET {target} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close", *extra]
    return raw(port, ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))


class RawResponse:
    """An answer read off the socket, shaped as the suite's envelope assertion reads a response."""

    def __init__(self, status: int, headers: dict, body: bytes):
        self.status_code, self.headers, self.content = status, headers, body

    def __getitem__(self, name: str) -> str:
        return self.headers[name.lower()]

    def json(self):
        return json.loads(self.content)


def test_a_request_line_past_gunicorns_limit_is_414_in_the_envelope(server):
    answer = RawResponse(*get(server["port"], "/v1/" + "a" * 9000))
    assert_error(answer, 414, "invalid_request", type_="invalid_request_error")
    assert answer["Request-Id"].startswith("req_")


def test_a_bad_byte_in_a_header_name_is_400_in_the_envelope(server):
    answer = RawResponse(*get(server["port"], "/v1/me", "Bad\x01Name: value"))
    assert_error(answer, 400, "invalid_request", type_="invalid_request_error")
    assert answer["Request-Id"].startswith("req_")


def test_a_5000_character_path_reaches_django(server):
    answer = RawResponse(*get(server["port"], "/v1/" + "a" * 5000))
    assert_error(answer, 404, "route_not_found")


def test_metrics_sum_every_workers_counts(server):
    port = server["port"]
    before = livez_count(port)
    for _ in range(40):  # spread over both workers by the kernel
        assert get(port, "/livez")[0] == 200
    # Whichever worker answers the scrape, it reads every worker's files.
    assert [livez_count(port) - before for _ in range(4)] == [40] * 4
    files = os.listdir(server["metrics_dir"])
    assert "counter_99999.db" not in files
    assert len({name.rsplit("_", 1)[1] for name in files if name.startswith("counter_")}) >= 1


def livez_count(port: int) -> float:
    status, _headers, body = get(port, "/metrics", f"Authorization: Bearer {TOKEN}")
    assert status == 200, body
    for family in text_string_to_metric_families(body.decode()):
        if family.name == "service_http_requests":
            return sum(
                s.value for s in family.samples if s.labels.get("route") == "livez" and s.name.endswith("_total")
            )
    return 0.0
