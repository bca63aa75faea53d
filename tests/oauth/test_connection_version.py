"""docs/spec.md 9.4: "existing keys and connections stay pinned to the version in force when they were
created until upgraded". A connection records the version at consent; its tokens, refreshed ones
too, are served in it after a newer version ships; Connected apps shows it."""

import pytest
from django.test import Client

from apps.api_v1 import versions
from apps.oauth.models import GrantFamily
from tests.support.oauth import exchange, get_code, make_client, me, pkce, refresh, signed_in

pytestmark = pytest.mark.django_db

BEFORE = versions.CURRENT_VERSION
NEXT = "2027-01-01"


def connect(user, app) -> dict:
    verifier, challenge = pkce()
    code = get_code(signed_in(user), app, challenge, scope="rates:read calls:read")
    response = exchange(Client(), app, code, verifier)
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def ship_next_version(monkeypatch):
    """A breaking version ships: it becomes the current one, the old one stays served."""

    def ship():
        monkeypatch.setitem(versions.VERSIONS, NEXT, versions.ApiVersion(NEXT))
        monkeypatch.setattr(versions, "CURRENT_VERSION", NEXT)

    return ship


def test_a_connections_tokens_stay_in_the_version_of_its_consent(user, ship_next_version):
    old_app, new_app = make_client(name="Before"), make_client(name="After")
    tokens = connect(user, old_app)
    assert GrantFamily.objects.get().api_version == BEFORE
    assert me(tokens["access_token"])["Service-Version"] == BEFORE

    ship_next_version()
    assert me(tokens["access_token"])["Service-Version"] == BEFORE
    refreshed = refresh(Client(), old_app, tokens["refresh_token"])
    assert refreshed.status_code == 200, refreshed.content
    assert me(refreshed.json()["access_token"])["Service-Version"] == BEFORE
    # A request may still name a version of its own.
    asked = Client().get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {tokens['access_token']}", HTTP_SERVICE_VERSION=NEXT)
    assert asked["Service-Version"] == NEXT

    # A consent given after the change is pinned to the new version.
    later = connect(user, new_app)
    assert me(later["access_token"])["Service-Version"] == NEXT
    assert set(GrantFamily.objects.values_list("api_version", flat=True)) == {BEFORE, NEXT}


def test_connected_apps_show_the_version_each_app_is_served_in(user, ship_next_version):
    connect(user, make_client(name="Before"))
    ship_next_version()
    connect(user, make_client(name="After"))
    listed = {
        entry["name"]: entry["api_versions"] for entry in signed_in(user).get("/api/oauth/connections").json()["data"]
    }
    assert listed == {"Before": [BEFORE], "After": [NEXT]}
    html = signed_in(user).get("/settings/connected-apps").content.decode()
    assert f'<span class="api-version">API version {BEFORE}</span>' in html
    assert f'<span class="api-version">API version {NEXT}</span>' in html


def test_a_family_consented_before_versions_were_recorded_is_served_in_the_current_one(user, ship_next_version):
    tokens = connect(user, make_client())
    GrantFamily.objects.update(api_version="")
    ship_next_version()
    assert me(tokens["access_token"])["Service-Version"] == NEXT
