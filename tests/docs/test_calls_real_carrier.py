"""/docs/calls says whether live calls ring real phones here, and what each of Twilio's refusals asks of the user."""

import pytest

from apps.telephony import carriers


@pytest.mark.parametrize("carrier, words", [("simulated", "no phone rings"), ("twilio", "live calls ring real phones")])
def test_the_calls_page_says_which_carrier_places_live_calls(client, settings, carrier, words):
    settings.TELEPHONY_CARRIER = carrier
    carriers._carrier.cache_clear()
    page = client.get("/docs/calls").content.decode()
    assert words in page
    for code in ("invalid_request", "destination_not_allowed", "service_unavailable"):
        assert f"<code>{code}</code>" in page
    assert "Retry-After" in page
