"""The README tells a newcomer how to connect an assistant, where the docs are, and how the
port and BASE_URL go together; nothing in the repository points outside it."""

import subprocess

from tests.support.docs import README, ROOT, section


def test_connect_an_assistant_gives_the_url_the_sign_in_and_what_the_user_sees():
    text = section("Connect an assistant")
    assert "{BASE_URL}/mcp" in text and "http://127.0.0.1:8000/mcp" in text
    for client in ("Claude", "ChatGPT", "VS Code", "Cursor", "MCP Inspector"):
        assert client in text
    assert "sign-in" in text and "consent" in text and "Allow" in text and "Disconnect" in text


def test_the_docs_are_linked_page_by_page():
    text = section("Documentation")
    for path in ("/docs", "/docs/api", "/docs/errors", "/docs/oauth", "/docs/mcp", "/docs/security"):
        assert f"`{path}`" in text


def test_port_and_base_url_and_the_test_needs_are_explained():
    assert "PORT=8001 make run" in README
    assert "BASE_URL" in section("Ports and addresses") and "PORT" in section("Ports and addresses")
    tests = section("Tests")
    for need in ("PostgreSQL", "Redis", "Chromium", "make test-fast", "RATELIMIT_ENABLED=0"):
        assert need in tests


def test_nothing_in_the_repository_points_outside_it():
    tracked = subprocess.run(
        ["git", "grep", "-l", "-e", "../" + "shared", "-e", "/work/" + "shared", "--", ".", ":!tests/docs/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert tracked.returncode == 1, f"files naming a path outside the repository: {tracked.stdout}"


def test_make_run_says_the_mcp_url_is_the_one_to_give_an_assistant():
    makefile = (ROOT / "Makefile").read_text()
    line = next(line for line in makefile.splitlines() if "MCP server" in line and "@echo" in line)
    # The MCP address comes first and is the one to give; the docs address says how.
    assert "$(BASE_URL)/mcp  (this URL is what you give an assistant; how: $(DOCS_URL)/mcp)" in line
    assert "give this URL to an assistant: $(DOCS_URL)" not in line
    assert "(this URL is what you give an assistant; how: http://127.0.0.1:8000/docs/mcp)" in README
