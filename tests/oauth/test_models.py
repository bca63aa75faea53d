"""Application properties others build on, and the stored shape of codes and tokens."""

import pytest
from django.utils import timezone

from apps.oauth.models import Application
from tests.support.oauth import make_client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "source,partner,kind,self_registered",
    [
        ("dcr", False, "self-registered", True),
        ("dcr", True, "verified partner", False),
        ("cimd", False, "registered by URL", False),
        ("cimd", True, "verified partner", False),
        ("manual", False, "self-registered", False),
    ],
)
def test_registration_kind(source, partner, kind, self_registered):
    app = make_client(registration_source=source, verified_partner=partner)
    assert app.registration_kind == kind
    assert app.is_self_registered is self_registered


def test_disabled_and_defaults():
    app = make_client()
    assert app.is_disabled is False and app.application_type == "native" and app.last_used_at is None
    app.disabled_at = timezone.now()
    assert app.is_disabled is True


def test_client_id_fits_a_metadata_document_url():
    url = "https://assistant.example/" + "a" * 200 + "/client.json"
    assert make_client(client_id=url).client_id == url
    assert Application._meta.get_field("client_id").max_length == 255


def test_client_id_has_a_default():
    app = Application.objects.create(
        name="Operator app", client_type="public", authorization_grant_type="authorization-code"
    )
    assert len(app.client_id) >= 32
