"""Fixtures for /mcp (helpers in tests/support/mcp.py)."""

import pytest

from tests.support.mcp import McpClient, install_fake_tokens


@pytest.fixture
def tokens(settings):
    return install_fake_tokens(settings)


@pytest.fixture
def token(tokens, user):
    return tokens.issue(user)


@pytest.fixture
def mcp(token):
    return McpClient(token)
