"""The scope a /v1 operation needs is data on its view, checked in one place."""

from rest_framework.permissions import BasePermission

from apps.credentials.scopes import holds, require

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
        require(request.auth, scope, resource_path=RESOURCE_PATH)
        return True


# For optional parts of an answer (an expansion, a field) that a scope unlocks.
has_scope = holds
