"""What a developer building an MCP client reads on /docs/mcp and in the README: every
authorization request carries ``state`` (docs/spec.md 4.3) and the one line that gives the
TypeScript SDK's example provider one; and what ``@modelcontextprotocol/sdk`` 1.x sends on a
step-up, why the server answers it as an ordinary refresh, and the workaround (run against
1.32.2 by tests/e2e/test_ts_sdk_step_up.py)."""

import re

import pytest

from tests.support.docs import ROOT, page, section, text

pytestmark = pytest.mark.django_db

STATE_FIX = "state() { return crypto.randomUUID(); }"


def between(html: str, start_id: str, next_tag: str = "<h2 ") -> str:
    start = html.index(f'id="{start_id}"')
    end = html.find(next_tag, start)
    return html[start : end if end != -1 else None]


def test_the_mcp_page_says_state_is_required_with_the_one_line_that_fixes_the_sdk_example(client, docs_here):
    html = page(client, "/docs/mcp")
    words = text(between(html, "state"))
    assert "Every authorization request must carry state" in words
    assert "state is required." in words and "before anyone signs in" in words
    assert "InMemoryOAuthClientProvider" in words and "state()" in words
    assert f'<code id="state-fix">{STATE_FIX}</code>' in html


def test_the_readme_connect_section_says_it_too():
    text_ = section("Connect an assistant")
    assert "must carry `state`" in text_ and "state is required." in text_
    assert f"```js\n{STATE_FIX}\n```" in text_
    assert "`{DOCS_URL}/mcp#step-up-1x`" in text_


def test_the_mcp_page_says_exactly_what_the_1x_sdk_sends_and_why_it_is_refused_more(client, docs_here):
    html = page(client, "/docs/mcp")
    words = text(between(html, "step-up", '<h3 id="step-up-1x"'))
    assert "npm install @modelcontextprotocol/sdk" in words
    assert "grant_type=refresh_token" in words and "no scope" in words
    assert "Server returned 403 after trying upscoping" in words
    assert "redirectToAuthorization" in words and "invalid_scope" in words and "invalid_grant" in words
    assert 'href="https://github.com/modelcontextprotocol/typescript-sdk/issues/2255"' in html
    assert "was given more access" in words  # the owner's email on a step-up


def test_the_workaround_is_on_the_page(client, docs_here):
    html = page(client, "/docs/mcp")
    block = between(html, "step-up-1x")
    code = re.search(r"<pre><code>(.*?)</code></pre>", block, re.S).group(1)
    assert 'provider.invalidateCredentials("tokens")' in code
    assert "await auth(provider, { serverUrl, scope, fetchFn: fetchNotingChallenges })" in code
    assert "error instanceof StreamableHTTPError &amp;&amp; error.code === 403" in code
    assert "http://testserver/mcp" in code  # the server's own address


def test_the_lines_the_page_gives_are_the_lines_the_end_to_end_test_runs(client, docs_here):
    """The state line and the workaround's working lines, as the e2e assistants run them."""
    html = page(client, "/docs/mcp").replace("&amp;", "&").replace("&quot;", '"')
    scripts = ROOT / "tests" / "e2e" / "ts"
    assert STATE_FIX in (scripts / "example_provider.mjs").read_text()
    assistant = (scripts / "step_up.mjs").read_text()
    for line in (
        'challenged = /scope="([^"]*)"/.exec(header)?.[1];',
        'const held = (await provider.tokens())?.scope ?? "";',
        'const scope = [...new Set(`${held} ${challenged}`.split(" ").filter(Boolean))].join(" ");',
        'await provider.invalidateCredentials("tokens");',
    ):
        assert line in html and line in assistant, line
