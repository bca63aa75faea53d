"""The ``breakable`` filter: a URL or an event name offers line breaks at its joints only, and
stays escaped (a URL is the API caller's text)."""

from apps.dashboard.templatetags.breakable import breakable


def test_a_url_breaks_after_its_separators():
    assert breakable("https://hooks.example.com/a-b?x=1") == (
        "https://<wbr>hooks.<wbr>example.<wbr>com/<wbr>a-<wbr>b?<wbr>x=<wbr>1"
    )


def test_an_event_name_breaks_at_its_dot_only():
    assert breakable("call.ringing_you", ".") == "call.<wbr>ringing_you"


def test_markup_in_the_text_is_escaped_and_entities_stay_whole():
    html = breakable('https://x.example/?a=1&b=<script>"')
    assert "<script>" not in html
    assert "&amp;<wbr>b" in html and "&lt;script&gt;&quot;" in html
