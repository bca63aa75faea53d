"""The README takes a newcomer from `make run` to test mode: a test key, webhooks to a receiver on
their own machine (whose command runs here as written), the inbox through sim_sms, the simulator's
magic numbers for their own phone, and the pages that say more (/docs/calls, /docs/webhooks)."""

import json
import re
import socket
import subprocess
import time
import urllib.request

from tests.support.docs import README, section


def test_the_test_mode_section_names_each_step():
    text = section("Test mode: webhooks, the inbox and the simulator")
    for needed in (
        "make -s apikey TEST=1",
        "sk_test_",
        "/v1/webhook_endpoints",
        "/test",
        "/v1/messages",
        "manage.py sim_sms",
        "manage.py sim_caller_id",
        "/docs/calls",
        "/docs/webhooks",
        "/settings/sharing",
    ):
        assert needed in text, needed
    assert "`/docs/calls`" in section("Documentation") and "`/docs/webhooks`" in section("Documentation")


def test_the_readme_says_where_manage_py_finds_make_runs_settings():
    assert ".make-run.env" in section("Quick start") and ".make-run.env" in section("Operations")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_receiver_prints_what_it_is_sent():
    block = re.search(r"<!-- webhook-receiver:.*?-->\n```sh\n(.*?)```", README, re.S).group(1)
    assert '("127.0.0.1", 9000)' in block and "http://127.0.0.1:9000/hooks" in README
    port = _free_port()
    receiver = subprocess.Popen(
        ["sh", "-c", block.replace("9000", str(port))], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        event = {"id": "ev_1", "type": "ping"}
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/hooks", data=json.dumps(event).encode(), method="POST"
        )
        for _attempt in range(100):  # until it listens
            try:
                with urllib.request.urlopen(request, timeout=5) as response:
                    assert response.status == 204
                break
            except OSError:
                time.sleep(0.05)
        assert json.loads(receiver.stdout.readline()) == event
    finally:
        receiver.terminate()
        receiver.wait(timeout=10)
