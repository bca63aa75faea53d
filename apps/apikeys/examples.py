"""The reference's examples of the key endpoints (apps/api_v1/examples.py)."""

from datetime import timedelta

from apps.api_v1.public import EXAMPLE_TIME, list_example, response_example
from apps.credentials.scopes import READ_ONLY_STARTER_SET

from .models import ApiKey
from .serializers import ApiKeySerializer, ApiKeyWithSecretSerializer

KEY_ID = "key_7Hc2LwQe9RbT4nXz1VmKp0Aa"
# Not a key of any account: the shape of one.
SECRET = "sk_live_EXAMPLEonlyNotAKey0000000000000000000000x4Qd"
CREATE = {"name": "Reporting script", "scopes": list(READ_ONLY_STARTER_SET), "expires_in_days": 90}


def _key(**changes) -> ApiKey:
    key = ApiKey(
        id=KEY_ID,
        name=CREATE["name"],
        scopes=list(READ_ONLY_STARTER_SET),
        livemode=True,
        secret_last4=SECRET[-4:],
        ip_allowlist=[],
        created=EXAMPLE_TIME,
        expires_at=EXAMPLE_TIME + timedelta(days=90),
        last_used_at=EXAMPLE_TIME + timedelta(hours=2),
    )
    for name, value in changes.items():
        setattr(key, name, value)
    return key


def _write(key: ApiKey, secret: str | None = None) -> dict:
    if secret is None:
        return ApiKeySerializer(key, context={"now": EXAMPLE_TIME}).data
    return ApiKeyWithSecretSerializer(key, context={"now": EXAMPLE_TIME, "secret": secret}).data


@response_example("list_api_keys", query={"limit": 3})
def key_list() -> dict:
    return list_example("/v1/api-keys", _write(_key()))


@response_example("create_api_key", body=CREATE)
def key_created() -> dict:
    return _write(_key(last_used_at=None), SECRET)


@response_example("retrieve_api_key")
def key() -> dict:
    return _write(_key())


@response_example("revoke_api_key")
def key_revoked() -> dict:
    return _write(_key(revoked_at=EXAMPLE_TIME + timedelta(days=3)))


@response_example("rotate_api_key")
def key_rotated() -> dict:
    return _write(_key(), SECRET)
