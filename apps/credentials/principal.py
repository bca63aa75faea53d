from dataclasses import dataclass, field

from django.contrib.auth.backends import ModelBackend


@dataclass(frozen=True)
class Principal:
    """Who is calling and with what: the result of a bearer lookup.

    ``credential_id`` identifies the specific key or connection (the
    per-principal rate-limit key); ``resource`` is the audience an OAuth token
    is bound to (None for API keys, which only work on /v1).
    """

    kind: str  # "api_key" | "oauth" | "session" (session_principal)
    user: object
    credential_id: str
    scopes: frozenset = field(default_factory=frozenset)
    livemode: bool = True
    api_version: str | None = None
    resource: str | None = None
    client_id: str | None = None
    credential: object = None


def session_principal(user, *, livemode: bool = True) -> Principal:
    """The signed-in user as a caller of the selectors the API reads through (the dashboard's pages):
    every scope of the account is theirs, so none is named, and no credential is spent."""
    return Principal(kind="session", user=user, credential_id="session", livemode=livemode)


def user_can_act(user) -> bool:
    """Whether an account may be acted for at all: Django's one rule for it (an inactive
    account signs in nowhere), so every credential of a deactivated account stops at once."""
    return ModelBackend().user_can_authenticate(user)
