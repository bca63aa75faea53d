"""End to end: the official TypeScript MCP SDK steps up a narrowed grant, with a person at
Debian's Chromium.

The assistant (tests/e2e/ts/step_up.mjs) connects through the SDK's OAuth flow asking for
everything in ``scopes_supported``; the person signs in and narrows the grant on the
consent page to ``rates:read calls:read``. The assistant then calls ``svc_get_balance``
(``credits:read``): the server answers 403 with the step-up challenge, and:

- ``@modelcontextprotocol/client`` 2.x (the SDK's current line) re-authorizes with the
  union of what it holds and what the challenge names; the person sees the step-up page
  (the new scope first, marked new, ticked), allows with one click, and the tool answers.
- ``@modelcontextprotocol/sdk`` 1.x refreshes instead, sending no ``scope`` (a refresh can
  never widen a grant, docs/spec.md 2.3, so the server answers it as the ordinary refresh it
  is), gets the same 403 and gives up with "Server returned 403 after trying upscoping"; the
  person is never asked. /docs/mcp says so, with the workaround a 1.x assistant applies:
  forget the tokens and authorize for what it held plus what the challenge named. With it,
  the person sees the same step-up page as with 2.x and the tool answers.

Both SDKs are installed from npm by this module into a cache directory of its own (pinned
in tests/e2e/ts/package.json); only a missing ``npm`` skips it. Each run's assistant script
sits in a directory of its own next to that cache, so runs never overwrite each other's.
"""

import contextlib
import hashlib
import json
import os
import queue
import re
import shutil
import subprocess
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser import launch_chromium, require_browser
from tests.support.consent_flow import callback_server

from .assistant import EMAIL, PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

HERE = Path(__file__).parent / "ts"
STEP = 120  # seconds any one step may take (an npm install is not a step)


def sdk_directory() -> Path:
    """Where the pinned SDKs are installed: a cache directory keyed by the pinned versions."""
    manifest = (HERE / "package.json").read_bytes()
    base = Path(os.environ.get("E2E_TS_SDK_CACHE") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"))
    return base / "e2e-ts-sdk" / hashlib.sha256(manifest).hexdigest()[:16]


def install(npm: str, directory: Path) -> None:
    """The pinned SDKs into ``directory``, whole or not at all: installed beside it, then moved
    into place, so a run that sees the directory never sees half an install."""
    if (directory / "node_modules" / "@modelcontextprotocol" / "sdk" / "package.json").exists():
        return
    directory.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=directory.parent, prefix="installing-"))
    try:
        shutil.copy(HERE / "package.json", scratch / "package.json")
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"],
            cwd=scratch,
            check=True,
            timeout=600,
        )
        # Another run may have finished first: its install is the same pinned one.
        with contextlib.suppress(OSError):
            scratch.rename(directory)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@pytest.fixture(scope="session")
def ts_sdk(tmp_path_factory) -> Path:
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("npm is not installed")
    directory = sdk_directory()
    install(npm, directory)
    # ES modules resolve packages from the script's own directory: this run's copy of the
    # script gets a node_modules that points at the cache's.
    own = tmp_path_factory.mktemp("ts-assistant")
    (own / "node_modules").symlink_to(directory / "node_modules", target_is_directory=True)
    shutil.copy(HERE / "package.json", own / "package.json")
    for script in HERE.glob("*.mjs"):
        shutil.copy(script, own / script.name)
    return own


class AssistantProcess:
    """The Node assistant: its JSON lines read with a deadline, landed addresses written back."""

    def __init__(self, directory: Path, sdk: str, server_url: str, redirect_uri: str):
        self.process = subprocess.Popen(
            [shutil.which("node"), str(directory / "step_up.mjs"), sdk, f"{server_url}/mcp", redirect_uri],
            cwd=directory,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue = queue.Queue()
        self.events: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def next(self) -> dict:
        try:
            line = self.lines.get(timeout=STEP)
        except queue.Empty:
            raise AssertionError(f"the assistant said nothing for {STEP}s; so far: {self.events}") from None
        if line is None:
            raise AssertionError(f"the assistant exited: {self.events}\n{self.process.stderr.read()}")
        event = json.loads(line)
        self.events.append(event)
        return event

    def until(self, *names: str) -> dict:
        while True:
            event = self.next()
            if event["event"] in names:
                return event

    def landed(self, url: str) -> None:
        self.process.stdin.write(url + "\n")
        self.process.stdin.flush()

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)


def authorize_in_browser(page, url: str, callback: str, *, narrow_to: list[str] | None = None) -> dict:
    """The person: signs in if asked, reads the consent page, unticks what is not in
    ``narrow_to`` (if given) and allows. Returns what the page showed."""
    page.goto(url)
    if urlsplit(page.url).path == "/login":
        page.fill("#id_username", EMAIL)
        page.fill("#id_password", PASSWORD)
        page.click("form[action='/login'] button[type=submit]")
    try:
        page.wait_for_url(re.compile(r".*/oauth/consent\?transaction=otx_"), timeout=STEP * 1000)
    except Exception as error:
        raise AssertionError(f"no consent page: at {page.url}: {page.inner_text('body')[:500]}") from error
    labels = page.locator("#scopes label")
    shown = {
        "heading": page.text_content("h1").strip(),
        "order": [labels.nth(n).get_attribute("data-scope") for n in range(labels.count())],
        "new": [
            labels.nth(n).get_attribute("data-scope")
            for n in range(labels.count())
            if labels.nth(n).locator(".badge").count()
        ],
        "ticked": page.eval_on_selector_all(
            "#scopes input[name=scopes]", "boxes => boxes.filter(b => b.checked).map(b => b.value)"
        ),
    }
    if narrow_to is not None:
        for scope in shown["ticked"]:
            if scope not in narrow_to:
                page.uncheck(f"#scopes input[value='{scope}']")
    page.click("#allow")
    page.wait_for_url(re.compile(re.escape(callback) + r"\?"))
    shown["landed"] = page.url
    return shown


def run_assistant(service, ts_sdk, sdk: str) -> tuple[AssistantProcess, list[dict]]:
    """Connect with the grant narrowed to rates:read calls:read, then ask for the balance;
    every consent page the person saw, in order."""
    require_browser()
    from playwright.sync_api import sync_playwright

    pages = []
    with callback_server() as callback, sync_playwright() as pw:
        browser = launch_chromium(pw)
        assistant = AssistantProcess(ts_sdk, sdk, service.url, callback)
        try:
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            event = assistant.until("authorize", "error")
            assert event["event"] == "authorize", assistant.events
            pages.append(authorize_in_browser(page, event["url"], callback, narrow_to=["rates:read", "calls:read"]))
            assistant.landed(pages[-1]["landed"])
            assert assistant.until("connected", "error")["event"] == "connected", assistant.events
            while True:
                event = assistant.until("authorize", "result", "error")
                if event["event"] != "authorize":
                    break
                pages.append(authorize_in_browser(page, event["url"], callback))
                assistant.landed(pages[-1]["landed"])
        finally:
            browser.close()
            assistant.close()
    return assistant, pages


def requested_scopes(url: str) -> list[str]:
    return parse_qs(urlsplit(url).query)["scope"][0].split()


def test_the_current_sdk_steps_up_and_the_tool_answers(service, ts_sdk):
    assistant, pages = run_assistant(service, ts_sdk, "v2")

    first, step_up = pages  # the first connection, then exactly one step-up page
    assert first["new"] == []
    assert "credits:read" in first["ticked"] and "calls:place" not in first["ticked"]
    assert [e["scope"] for e in assistant.events if e["event"] == "tokens"] == [
        "rates:read calls:read",  # the narrowed grant
        "rates:read calls:read credits:read",  # after the step-up, without a refresh in between
    ]
    assert step_up["heading"] == "TypeScript Assistant asks for more access"
    assert step_up["order"] == ["credits:read", "rates:read", "calls:read"]
    assert step_up["new"] == ["credits:read"]
    assert step_up["ticked"] == ["credits:read", "rates:read", "calls:read"]  # one click allowed it
    result = assistant.events[-1]
    assert result["event"] == "result", assistant.events
    assert result["isError"] is False
    assert result["structured"]["spoken"].startswith("Your balance is")


def test_the_1x_sdk_refreshes_instead_and_gives_up(service, ts_sdk):
    """What a 1.x assistant's user sees, as /docs/mcp describes it: no second consent page,
    and the SDK's own error."""
    assistant, pages = run_assistant(service, ts_sdk, "v1")

    assert len(pages) == 1  # never sent back to authorize
    error = assistant.events[-1]
    assert error["event"] == "error", assistant.events
    assert "Server returned 403 after trying upscoping" in error["message"]
    # It refreshed once (the same narrowed grant) before giving up.
    assert [e["scope"] for e in assistant.events if e["event"] == "tokens"] == ["rates:read calls:read"] * 2


def test_a_1x_assistant_with_the_documented_workaround_steps_up_and_the_tool_answers(service, ts_sdk):
    """/docs/mcp's workaround for 1.x: on the SDK's 403, forget the tokens and authorize for
    what was held plus what the challenge named. The person sees the step-up page 2.x shows."""
    assistant, pages = run_assistant(service, ts_sdk, "v1-reauthorize")

    _, step_up = pages  # the first connection, then exactly one step-up page
    authorizations = [e["url"] for e in assistant.events if e["event"] == "authorize"]
    assert requested_scopes(authorizations[1]) == ["rates:read", "calls:read", "credits:read"]
    assert [e["scope"] for e in assistant.events if e["event"] == "tokens"] == [
        "rates:read calls:read",  # the narrowed grant
        "rates:read calls:read",  # 1.x's own refresh: the server never widens a grant on refresh
        "rates:read calls:read credits:read",  # after the person allowed the step-up
    ]
    assert step_up["heading"] == "TypeScript Assistant asks for more access"
    assert step_up["order"] == ["credits:read", "rates:read", "calls:read"]
    assert step_up["new"] == ["credits:read"]
    assert step_up["ticked"] == ["credits:read", "rates:read", "calls:read"]
    result = assistant.events[-1]
    assert result["event"] == "result", assistant.events
    assert result["isError"] is False
    assert result["structured"]["spoken"].startswith("Your balance is")


def authorize_answer(url: str) -> tuple[int, str]:
    """Where the server sends a browser (not signed in) that opens ``url``: status and Location."""

    class Stay(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        with urllib.request.build_opener(Stay).open(url, timeout=STEP) as response:
            return response.status, response.headers.get("Location", "")
    except urllib.error.HTTPError as answer:
        return answer.code, answer.headers.get("Location", "")


def example_provider_authorize_url(service, ts_sdk, variant: str) -> str:
    redirect_uri = "http://127.0.0.1:9/callback"  # never reached: only where the server would send the browser
    done = subprocess.run(
        [shutil.which("node"), str(ts_sdk / "example_provider.mjs"), variant, f"{service.url}/mcp", redirect_uri],
        cwd=ts_sdk,
        capture_output=True,
        text=True,
        timeout=STEP,
    )
    event = json.loads(done.stdout.strip().splitlines()[-1])
    assert event["event"] == "authorize", (done.stdout, done.stderr)
    return event["url"]


def test_the_sdk_example_provider_sends_no_state_and_is_sent_back_before_sign_in(service, ts_sdk):
    """/docs/mcp and the README: the SDK's example provider has no state(); the authorization
    request is refused before anyone signs in."""
    url = example_provider_authorize_url(service, ts_sdk, "as-shipped")
    assert "state" not in parse_qs(urlsplit(url).query)
    status, location = authorize_answer(url)
    assert status == 302 and location.startswith("http://127.0.0.1:9/callback?"), location
    answer = parse_qs(urlsplit(location).query)
    assert answer["error"] == ["invalid_request"]
    assert answer["error_description"] == ["state is required."]


def test_the_one_line_from_the_docs_makes_the_example_provider_reach_sign_in(service, ts_sdk):
    url = example_provider_authorize_url(service, ts_sdk, "with-state")
    assert len(parse_qs(urlsplit(url).query)["state"][0]) == 36
    status, location = authorize_answer(url)
    assert status == 302 and urlsplit(location).path == "/login", location
