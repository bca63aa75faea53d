"""docs/spec.md 9: the Service-Version header, unknown versions, superseded and retired versions."""

from datetime import date, timedelta

import pytest
from django.utils import timezone

from apps.api_v1 import versions
from apps.apikeys.models import ApiKey
from tests.support.envelope import assert_error

pytestmark = pytest.mark.django_db


def test_every_v1_response_carries_service_version(api, bearer):
    assert api.get("/v1/me", **bearer)["Service-Version"] == "2026-10-01"
    assert api.get("/v1/me")["Service-Version"] == "2026-10-01"
    assert api.get("/v1/openapi.json")["Service-Version"] == "2026-10-01"
    assert api.get("/v1/nope")["Service-Version"] == "2026-10-01"


def test_non_v1_responses_do_not_carry_it(client):
    assert "Service-Version" not in client.get("/login")


def test_explicit_current_version(api, bearer):
    response = api.get("/v1/me", HTTP_SERVICE_VERSION="2026-10-01", **bearer)
    assert response.status_code == 200
    assert response["Service-Version"] == "2026-10-01"
    assert "Deprecation" not in response and "Sunset" not in response


@pytest.mark.parametrize("value", ["2020-01-01", "latest", "", "2026-10-01x"])
def test_unknown_version_lists_known_versions(api, bearer, value):
    response = api.get("/v1/me", HTTP_SERVICE_VERSION=value, **bearer)
    error = assert_error(response, 400, "invalid_version", param="Service-Version")
    assert "2026-10-01" in error["message"]


@pytest.fixture
def superseded(monkeypatch):
    """A test-only table: an old version superseded by the current one."""
    today = timezone.now().date()
    table = dict(versions.VERSIONS)
    table["2025-01-01"] = versions.ApiVersion(
        "2025-01-01", deprecated_on=date(2026, 10, 1), sunset_on=today + timedelta(days=30)
    )
    table["2024-01-01"] = versions.ApiVersion("2024-01-01", deprecated_on=date(2025, 1, 1), sunset_on=today)
    monkeypatch.setattr(versions, "VERSIONS", table)
    return table


def test_superseded_version_carries_deprecation_and_sunset(api, bearer, superseded):
    response = api.get("/v1/me", HTTP_SERVICE_VERSION="2025-01-01", **bearer)
    assert response.status_code == 200
    assert response["Service-Version"] == "2025-01-01"
    assert response["Deprecation"] == "@1790812800"  # 2026-10-01T00:00:00Z
    sunset = superseded["2025-01-01"].sunset_on
    assert response["Sunset"] == sunset.strftime("%a, %d %b %Y 00:00:00 GMT")


def test_version_past_sunset_is_gone(api, bearer, superseded):
    response = api.get("/v1/me", HTTP_SERVICE_VERSION="2024-01-01", **bearer)
    error = assert_error(response, 410, "version_sunset", type_="invalid_request_error")
    assert "https://docs.example.test/versions" in error["message"]


def test_key_is_pinned_to_the_version_in_force_at_creation(api, api_key, bearer, superseded):
    key, _ = api_key
    assert key.api_version == "2026-10-01"
    ApiKey.objects.filter(pk=key.pk).update(api_version="2025-01-01")
    response = api.get("/v1/me", **bearer)
    assert response.status_code == 200
    assert response["Service-Version"] == "2025-01-01"
    assert "Sunset" in response
    # The header overrides the pin.
    assert api.get("/v1/me", HTTP_SERVICE_VERSION="2026-10-01", **bearer)["Service-Version"] == "2026-10-01"


def test_pinned_version_past_sunset_is_gone(api, api_key, bearer, superseded):
    key, _ = api_key
    ApiKey.objects.filter(pk=key.pk).update(api_version="2024-01-01")
    assert_error(api.get("/v1/me", **bearer), 410, "version_sunset")


def test_a_410_for_a_retired_pinned_version_spends_a_read(api, api_key, bearer, superseded):
    """docs/decisions/api-conventions.md: the reads budget is applied with the credential lookup, before the pin is
    found retired (a version named in the header is checked first and spends nothing)."""
    key, _ = api_key
    ApiKey.objects.filter(pk=key.pk).update(api_version="2024-01-01")
    gone = api.get("/v1/me", **bearer)
    assert gone.status_code == 410
    assert gone["X-RateLimit-Remaining"] == "59"
    named = api.get("/v1/me", HTTP_SERVICE_VERSION="2024-01-01", **bearer)
    assert named.status_code == 410
    assert "X-RateLimit-Remaining" not in named
