"""The fake's HTTP side: a WSGI server on loopback, on a free port, in a thread of the test process.

It answers the REST requests the adapter sends through the ``twilio`` package's client,
after checking each against Twilio's OpenAPI description (``spec.py``) and the account's
Basic credentials, with Twilio's error shape when it refuses. It never calls the service:
the callbacks a request causes are queued for the test's thread (``FakeTwilio.advance``).
"""

import base64
import json
import threading
from urllib.parse import parse_qs
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from . import spec


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def twilio_error(status: int, code: int, message: str) -> tuple[int, dict]:
    return status, {
        "code": code,
        "message": message,
        "more_info": f"https://www.twilio.com/docs/errors/{code}",
        "status": status,
    }


class Server:
    def __init__(self, fake):
        self.fake = fake
        self.httpd: WSGIServer = make_server("127.0.0.1", 0, self.app, handler_class=_Quiet)
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="fake-twilio", daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_port}"

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def app(self, environ, start_response):
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        query = parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length).decode() if length else ""
        form = parse_qs(raw, keep_blank_values=True) if raw else {}
        if raw and not environ.get("CONTENT_TYPE", "").startswith("application/x-www-form-urlencoded"):
            status, body = twilio_error(400, 20001, "Twilio takes form-encoded bodies")
            self.fake.violations.append(f"{method} {path} sent {environ.get('CONTENT_TYPE')!r}")
        else:
            try:
                status, body = self.handle(method, path, query, form, environ.get("HTTP_AUTHORIZATION", ""))
            except AssertionError as wrong:
                # An answer off Twilio's description is the fake's fault: the test fails on it at teardown.
                self.fake.violations.append(f"the fake's answer to {method} {path}: {wrong}")
                status, body = twilio_error(500, 20500, "Internal Server Error")
        payload = json.dumps(body).encode()
        start_response(f"{status} X", [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
        return [payload]

    def handle(self, method, path, query, form, authorization):
        expected = "Basic " + base64.b64encode(f"{self.fake.account_sid}:{self.fake.auth_token}".encode()).decode()
        if authorization != expected:
            return twilio_error(401, 20003, "Authenticate")
        problems = spec.check(method, path, query, form)
        matched = spec.match(method, path)
        with self.fake.lock:
            self.fake.requests.append((method, path, query, form))
            if problems:
                self.fake.violations.extend(problems)
                return twilio_error(400, 20001, "; ".join(problems))
            operation, path_values = matched
            if path_values.get("AccountSid", self.fake.account_sid) != self.fake.account_sid:
                return twilio_error(404, 20404, "The requested resource was not found")
            single = {name: values[0] for name, values in form.items() if len(values) == 1}
            arrays = {name: values for name, values in form.items()}
            return self.fake.operate(operation.operation_id, path_values, query, single, arrays)
