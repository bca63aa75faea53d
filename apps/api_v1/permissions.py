"""The scope a /v1 operation needs is data on its view, checked in one place."""

from rest_framework.permissions import BasePermission

from apps.credentials.challenges import insufficient_scope
from apps.credentials.principal import Principal

from .authentication import RESOURCE_PATH

# A view must say which scope it needs; ``None`` (any scope) must be written out.
UNDECLARED = object()


class HasScope(BasePermission):
    """``request.auth`` holds ``view.required_scope`` (None: any scope will do).

    Raises rather than returning False, so that the 403 carries its
    ``WWW-Authenticate: Bearer error="insufficient_scope", scope="..."``
    challenge (docs/spec.md 5.9).
    """

    def has_permission(self, request, view):
        scope = getattr(view, "required_scope", UNDECLARED)
        if scope is UNDECLARED:
            raise TypeError(f"{type(view).__name__} declares no required_scope")
        principal = request.auth
        if scope is None or (isinstance(principal, Principal) and scope in principal.scopes):
            return True
        raise insufficient_scope(RESOURCE_PATH, scope, principal=principal)


def has_scope(principal: Principal, scope: str) -> bool:
    """For optional parts of an answer (an expansion, a field) that a scope unlocks."""
    return isinstance(principal, Principal) and scope in principal.scopes
