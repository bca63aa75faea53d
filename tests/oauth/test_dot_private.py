"""What we rely on of django-oauth-toolkit's private names (apps/oauth/dot_private.py).

If an upgrade of DOT changes one of these behaviours, this file fails before
anything that depends on it does.
"""

import pytest
from oauth2_provider.cimd import CIMDError

from apps.oauth.dot_private import registration_permitted, validate_client_id_url


@pytest.mark.parametrize(
    "url",
    [
        "http://client.example/meta.json",  # not https
        "https:///meta.json",  # no host
        "https://client.example:99999/meta.json",  # port out of range
        "https://user:pw@client.example/meta.json",  # userinfo
        "https://client.example/meta.json#frag",  # fragment
        "https://client.example",  # no path
        "https://client.example/a/../meta.json",  # dot segment
    ],
)
def test_validate_client_id_url_refuses_what_the_draft_forbids(url):
    with pytest.raises(CIMDError):
        validate_client_id_url(url)


def test_validate_client_id_url_returns_the_parsed_url():
    parsed = validate_client_id_url("https://Client.Example:8443/app/meta.json")
    assert (parsed.hostname, parsed.port, parsed.path) == ("client.example", 8443, "/app/meta.json")


def test_registration_is_permitted_by_default_and_closed_by_an_empty_setting(settings):
    assert registration_permitted(None, "https://client.example/meta.json") is True
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "CIMD_REGISTRATION_PERMISSION_CLASSES": ()}
    assert registration_permitted(None, "https://client.example/meta.json") is False
