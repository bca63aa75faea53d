"""A synthetic check of a running service (``make synthetic``): what a user and an assistant do first,
each step timed, within one bound; prints PASS or FAIL a step and exits 0 only if every step passed.

Steps: sign in at ``/login``; an OAuth token through the consent flow (a public client with a
loopback redirect, PKCE), one for ``/v1`` and one for ``/mcp``; ``GET /v1/me``; an MCP
``tools/call`` of ``svc_whoami``; then both connections' refresh tokens are revoked, so a check
run every minute leaves nothing connected. The standard library only: it runs anywhere Python does.

Settings (environment): ``SYNTHETIC_URL`` (the service's BASE_URL), ``SYNTHETIC_APP_URL``
(its APP_URL, default the same), ``SYNTHETIC_EMAIL`` and ``SYNTHETIC_PASSWORD`` (an account kept
for the check), ``SYNTHETIC_CLIENT_ID`` (a registered public client whose redirect URIs include
``http://127.0.0.1/synthetic-check``; without it each run registers one, which spends the
per-address registration budget: 20 an hour), ``SYNTHETIC_TIMEOUT`` (seconds for the whole
check, default 30).
"""

import base64
import hashlib
import http.cookiejar
import json
import os
import secrets
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

REDIRECT = "http://127.0.0.1/synthetic-check"
SCOPES = "rates:read calls:read"


class StepFailed(Exception):
    pass


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Check:
    def __init__(self, base: str, app: str, timeout: float):
        self.base, self.app = base.rstrip("/"), app.rstrip("/")
        self.deadline = time.monotonic() + timeout
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), NoRedirect())
        self.results: list[tuple[str, bool, float, str]] = []

    def request(self, method, url, *, data=None, headers=None, form=None, body=None):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise StepFailed("out of time")
        headers = dict(headers or {})
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=min(10.0, remaining)) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()
        except OSError as error:
            raise StepFailed(f"{method} {urllib.parse.urlsplit(url).path}: {error}") from None

    def cookie(self, name: str) -> str:
        return next((c.value for c in self.cookies if c.name == name), "")

    def step(self, name: str, fn):
        started = time.monotonic()
        try:
            detail = fn() or ""
            ok = True
        except StepFailed as failure:
            detail, ok = str(failure), False
        elapsed = (time.monotonic() - started) * 1000
        self.results.append((name, ok, elapsed, detail))
        print(f"{'PASS' if ok else 'FAIL'}  {name:<12} {elapsed:8.1f} ms  {detail}", flush=True)
        if not ok:
            raise StepFailed(name)

    # --- the steps -------------------------------------------------------------

    def sign_in(self, email: str, password: str):
        status, _, _ = self.request("GET", f"{self.app}/login")
        if status != 200:
            raise StepFailed(f"GET /login answered {status}")
        status, _headers, _ = self.request(
            "POST",
            f"{self.app}/login",
            form={"username": email, "password": password, "csrfmiddlewaretoken": self.cookie("csrftoken")},
            headers={"Referer": f"{self.app}/login"},
        )
        if status != 302:
            raise StepFailed(f"POST /login answered {status} (not signed in)")
        return "signed in"

    def client(self, client_id: str | None) -> str:
        if client_id:
            return client_id
        status, _, body = self.request(
            "POST",
            f"{self.base}/oauth/register",
            body={"client_name": "Synthetic check", "redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
        )
        if status != 201:
            raise StepFailed(f"registration answered {status}: {body[:200]!r}")
        return json.loads(body)["client_id"]

    def token(self, client_id: str, resource: str) -> dict:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        query = urllib.parse.urlencode(
            {
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "scope": SCOPES,
                "state": secrets.token_urlsafe(12),
                "code_challenge": challenge,
                "code_challenge_method": "S256",
                "resource": resource,
            }
        )
        status, headers, _ = self.request("GET", f"{self.base}/oauth/authorize?{query}")
        location = headers.get("Location", "")
        transaction = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query).get("transaction", [""])[0]
        if status != 302 or not transaction:
            raise StepFailed(f"authorize answered {status} {location[:120]}")
        status, _, body = self.request(
            "POST",
            f"{self.app}/api/oauth/transactions/{transaction}/decision",
            body={"decision": "allow", "confirm_sensitive": True},
            headers={"X-CSRFToken": self.cookie("csrftoken"), "Referer": f"{self.app}/oauth/consent"},
        )
        if status != 200:
            raise StepFailed(f"consent answered {status}: {body[:200]!r}")
        redirect_to = json.loads(body)["redirect_to"]
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(redirect_to).query).get("code", [""])[0]
        status, _, body = self.request(
            "POST",
            f"{self.base}/oauth/token",
            form={
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": verifier,
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "resource": resource,
            },
        )
        if status != 200:
            raise StepFailed(f"token answered {status}: {body[:200]!r}")
        return json.loads(body)

    def v1_read(self, token: str):
        status, headers, _body = self.request("GET", f"{self.base}/v1/me", headers={"Authorization": f"Bearer {token}"})
        if status != 200:
            raise StepFailed(f"GET /v1/me answered {status} (Request-Id {headers.get('Request-Id')})")
        return f"Request-Id {headers.get('Request-Id')}"

    def tools_call(self, token: str):
        status, headers, body = self.request(
            "POST",
            f"{self.base}/mcp",
            body={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_whoami", "arguments": {}}},
            headers={
                "Authorization": f"Bearer {token}",
                "Accept": "application/json, text/event-stream",
                "MCP-Protocol-Version": "2025-11-25",
            },
        )
        if status != 200:
            raise StepFailed(f"POST /mcp answered {status} (Request-Id {headers.get('Request-Id')})")
        result = json.loads(body).get("result") or {}
        if result.get("isError") or "content" not in result:
            raise StepFailed(f"tools/call svc_whoami was no result: {body[:200]!r}")
        return f"Request-Id {headers.get('Request-Id')}"

    def revoke(self, client_id: str, tokens: list[dict]):
        for token in tokens:
            status, _, _ = self.request(
                "POST",
                f"{self.base}/oauth/revoke",
                form={"token": token["refresh_token"], "client_id": client_id, "token_type_hint": "refresh_token"},
            )
            if status != 200:
                raise StepFailed(f"revoke answered {status}")
        return f"{len(tokens)} connection(s) ended"


def main() -> int:
    base = os.environ.get("SYNTHETIC_URL") or "http://127.0.0.1:8000"
    check = Check(base, os.environ.get("SYNTHETIC_APP_URL") or base, float(os.environ.get("SYNTHETIC_TIMEOUT", "30")))
    email, password = os.environ.get("SYNTHETIC_EMAIL", ""), os.environ.get("SYNTHETIC_PASSWORD", "")
    started = time.monotonic()
    tokens: list[dict] = []
    client_id = os.environ.get("SYNTHETIC_CLIENT_ID") or None
    try:
        check.step("sign-in", lambda: check.sign_in(email, password))
        box = {}

        def get_tokens():
            box["client"] = check.client(client_id)
            tokens.append(check.token(box["client"], f"{check.base}/v1"))
            tokens.append(check.token(box["client"], f"{check.base}/mcp"))
            return f"client {box['client']}"

        check.step("token", get_tokens)
        check.step("v1 read", lambda: check.v1_read(tokens[0]["access_token"]))
        check.step("tools/call", lambda: check.tools_call(tokens[1]["access_token"]))
        check.step("revoke", lambda: check.revoke(box["client"], tokens))
    except StepFailed:
        pass
    total = (time.monotonic() - started) * 1000
    passed = len(check.results) == 5 and all(ok for _, ok, _, _ in check.results)
    print(f"{'PASS' if passed else 'FAIL'}  {'total':<12} {total:8.1f} ms  {base}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
