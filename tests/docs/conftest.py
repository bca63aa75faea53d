import pytest

from tests.support.docs import ORIGIN


@pytest.fixture
def docs_here(settings):
    """DOCS_URL at its default, {BASE_URL}/docs, on the test client's own origin, so that every
    address the service gives out can be requested from it."""
    settings.BASE_URL = ORIGIN
    settings.APP_URL = ORIGIN
    settings.DOCS_URL = f"{ORIGIN}/docs"
    return settings.DOCS_URL
