"""The sharing page says what each switch now gates (docs/design.md, Phase 3)."""

import pytest

from tests.support.oauth import signed_in

pytestmark = pytest.mark.django_db


def test_the_page_says_what_message_reading_gates(user):
    html = signed_in(user).get("/settings/sharing").content.decode()
    assert "messages:read" in html and "one-time codes" in html and "messages:history" in html
    assert "stops them at once" in html
    assert "yet" not in html and "arrive" not in html
