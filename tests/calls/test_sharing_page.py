"""The call-summaries switch is active now: the sharing screen says so, and names the setting the errors name."""

import pytest
from django.test import Client

from apps.calls.selectors import SHARING_SETTING

pytestmark = pytest.mark.django_db


def test_the_sharing_screen_says_call_summaries_are_read_while_on(owner):
    browser = Client()
    browser.force_login(owner)
    html = browser.get("/settings/sharing").content.decode()
    assert SHARING_SETTING in html  # the label the 403 and the tool's isError sentence name
    assert "no app can read either" not in html
    assert "transcripts:read" in html
    assert "stops them at once" in html
    # What the switch now gates besides reading: asking for a transcript, and the transcript webhooks.
    assert "ask for the transcript of a recorded call" in html and "by webhook" in html
