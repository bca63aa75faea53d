"""The reference's example of GET /v1/me (apps/api_v1/examples.py)."""

from apps.api_v1.public import response_example
from apps.credentials.principal import Principal

from .models import User
from .serializers import UserSerializer

EXAMPLE_USER_ID = "usr_4f9Kq2ZbW7xLmN3pR8sT1vYc"


@response_example("retrieve_me")
def me() -> dict:
    user = User(id=EXAMPLE_USER_ID, email="ada@example.com", display_name="Ada Lovelace")
    principal = Principal(kind="api_key", user=user, credential_id="key_example", livemode=True)
    return UserSerializer.from_principal(principal)
