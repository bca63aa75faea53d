"""Signing secrets at rest: encrypted under WEBHOOK_SECRET_KEYS, and the key rotated without losing one."""

import pytest
from cryptography.fernet import Fernet
from django.core.management import call_command

from apps.webhooks import secrets
from apps.webhooks.delivery import live_secrets
from apps.webhooks.models import WebhookEndpoint

pytestmark = pytest.mark.django_db


def test_a_new_key_first_then_rotate_then_the_old_key_dropped(caller, settings):
    created = caller.post(
        "/v1/webhook_endpoints", {"url": "http://127.0.0.1:9/x", "enabled_events": ["call.ended"]}
    ).json()
    old_key = settings.WEBHOOK_SECRET_KEYS[0]
    new_key = Fernet.generate_key().decode()
    settings.WEBHOOK_SECRET_KEYS = [new_key, old_key]
    call_command("rotate_webhook_keys", stdout=open("/dev/null", "w"))  # noqa: SIM115
    settings.WEBHOOK_SECRET_KEYS = [new_key]
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert secrets.decrypt(endpoint.secret_encrypted) == created["secret"]


def test_a_secret_is_whsec_and_32_random_bytes():
    secret = secrets.new_secret()
    assert secret.startswith("whsec_") and len(secrets.key_bytes(secret)) == 32
    assert secrets.new_secret() != secret


def test_only_the_live_previous_secret_signs(caller):
    created = caller.post(
        "/v1/webhook_endpoints", {"url": "http://127.0.0.1:9/x", "enabled_events": ["call.ended"]}
    ).json()
    caller.post(f"/v1/webhook_endpoints/{created['id']}/rotate_secret", {"expires_in": 60})
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    during, after = endpoint.updated, endpoint.previous_secret_expires_at
    assert len(live_secrets(endpoint, during)) == 2
    assert live_secrets(endpoint, after) == live_secrets(endpoint, during)[:1]
