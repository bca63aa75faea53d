"""LOG_FORMAT=json (docs/operations.md, "Logs"): one JSON object a line, one line per request with the
request id of its Request-Id header, and a worker's lines name the job they ran. Never a secret."""

import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from apps.core.logfilters import JsonFormatter
from apps.core.observe import ContextFilter
from apps.jobs.public import enqueue
from tests.support.factories import make_api_key
from tests.support.jobs import handlers, without_schedules

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def json_lines(settings):
    """What the console handler writes under LOG_FORMAT=json, one parsed object a line."""
    settings.LOG_FORMAT = "json"
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter("{asctime}{levelname}{name}{message}", style="{"))
    handler.addFilter(ContextFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    previous = root.level
    root.setLevel(logging.INFO)
    lines = []

    def read():
        lines[:] = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
        return lines

    yield read
    root.removeHandler(handler)
    root.setLevel(previous)


def test_each_request_is_one_line_with_the_request_id_of_its_header(json_lines, user):
    key, secret = make_api_key(user, scopes=["calls:read"])
    api = Client(HTTP_AUTHORIZATION=f"Bearer {secret}")
    answers = [api.get("/v1/me"), api.get("/v1/calls/call_nosuchcall0001"), Client().get("/v1/me")]
    requests = [line for line in json_lines() if line["logger"] == "service.request"]
    assert [line["request_id"] for line in requests] == [answer["Request-Id"] for answer in answers]
    me, missing, anonymous = requests
    assert (me["route"], me["method"], me["status"]) == ("v1/me", "GET", 200)
    assert (me["principal_kind"], me["principal_id"], me["user_id"]) == ("api_key", key.id, str(user.pk))
    assert isinstance(me["duration_ms"], float) and me["duration_ms"] > 0
    assert me["level"] == "INFO" and me["message"] == "request" and "time" in me
    assert missing["status"] == 404 and "call_nosuchcall0001" not in json.dumps(missing)
    assert (anonymous["status"], anonymous["principal_kind"]) == (401, "anonymous")
    assert secret not in json.dumps(json_lines())


def test_a_session_request_names_the_user(json_lines, user):
    browser = Client()
    browser.force_login(user)
    answer = browser.get("/settings/api-keys")
    (line,) = [line for line in json_lines() if line["logger"] == "service.request"]
    assert (line["request_id"], line["principal_kind"], line["user_id"]) == (
        answer["Request-Id"],
        "session",
        str(user.pk),
    )


def test_lines_written_while_serving_a_request_carry_its_id(json_lines, user, caplog):
    _key, secret = make_api_key(user)
    answer = Client(HTTP_AUTHORIZATION=f"Bearer {secret}").get("/v1/me")
    logging.getLogger("anything").info("outside any request")
    lines = json_lines()
    assert [line for line in lines if line.get("request_id") == answer["Request-Id"]]
    assert "request_id" not in next(line for line in lines if line["message"] == "outside any request")


def test_a_workers_lines_name_the_job_kind_row_and_lane(json_lines):
    def noisy(payload):
        logging.getLogger("tests.job").warning("working")

    with handlers(tests__noisy=noisy), without_schedules():
        job = enqueue("tests.noisy", {"secret": "never-logged"})
        call_command("run_worker", "--once", stdout=io.StringIO())
    (line,) = [line for line in json_lines() if line["logger"] == "tests.job"]
    assert (line["job_kind"], line["job_id"], line["lane"]) == ("tests.noisy", job.id, "housekeeping")
    assert "never-logged" not in json.dumps(json_lines())


def test_the_settings_write_json_when_asked():
    script = "import django, logging; django.setup(); logging.getLogger('probe').warning('hello %s', 'world')"
    env = {"DJANGO_SETTINGS_MODULE": "config.settings", "LOG_FORMAT": "json", "DEBUG": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    (line,) = [json.loads(text) for text in done.stderr.splitlines() if text.startswith("{")]
    assert (line["logger"], line["level"], line["message"]) == ("probe", "WARNING", "hello world")
