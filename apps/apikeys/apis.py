"""API-key management endpoints (docs/spec.md 4.4): dashboard session only, CSRF-protected."""

from django.utils import timezone
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.public import DeclaredOperations, IdCursorPagination, IdempotentMixin, Operation, SessionOnlyMixin
from apps.core.errors import ApiError

from . import selectors, services
from .models import KEY_ID_PREFIX, ApiKey
from .serializers import ApiKeyCreateSerializer, ApiKeySerializer, ApiKeyWithSecretSerializer, create_arguments

TAG = ["API keys (dashboard session)"]


def _record(key: ApiKey) -> dict:
    return ApiKeySerializer(key, context={"now": timezone.now()}).data


def _record_with_secret(key: ApiKey, secret: str) -> dict:
    return ApiKeyWithSecretSerializer(key, context={"now": timezone.now(), "secret": secret}).data


def _get_or_404(user, key_id: str) -> ApiKey:
    key = selectors.apikey_get(user=user, key_id=key_id)
    if key is None:
        raise ApiError("api_key_not_found", param="id")
    return key


class KeyApi(SessionOnlyMixin, IdempotentMixin, DeclaredOperations, APIView):
    """Shared base of the key endpoints: dashboard session, idempotent writes."""

    # Key management budget whatever the method, and the smaller body cap (docs/spec.md 8.1, 8.5).
    ratelimit_class = "key_management"
    body_cap = 16 * 1024


class ApiKeyListCreateApi(KeyApi):
    """Your personal API keys, of every status. Dashboard session only."""

    http_method_names = ["get", "post", "head", "options"]
    pagination_class = IdCursorPagination
    cursor_id_prefix = KEY_ID_PREFIX
    # Replays of a create answer "secret": null: no plaintext is kept at rest.
    idempotency_redacted_fields = ("secret",)
    # A control character in the name is the name's own error (apps/core/inputs.py).
    text_field_errors = {"name": "invalid_name"}
    operations = {
        "get": Operation(
            "list_api_keys", TAG, "List your API keys, newest first", responses={200: ApiKeySerializer(many=True)}
        ),
        "post": Operation(
            "create_api_key",
            TAG,
            "Create an API key; the response holds its secret, shown once",
            request=ApiKeyCreateSerializer,
            responses={201: ApiKeyWithSecretSerializer},
        ),
    }

    def get(self, request):
        paginator = self.pagination_class()
        keys = paginator.paginate_queryset(selectors.apikey_list(user=request.user), request, view=self)
        now = timezone.now()
        return paginator.get_paginated_response(ApiKeySerializer(keys, many=True, context={"now": now}).data)

    def post(self, request):
        if not request.body.strip():
            raise ApiError("invalid_body", "The request body must be a JSON object.")
        key, secret = services.apikey_create(user=request.user, **create_arguments(request.data))
        return Response(_record_with_secret(key, secret), status=status.HTTP_201_CREATED)


class ApiKeyDetailApi(KeyApi):
    """One of your API keys; another account's key is api_key_not_found. Dashboard session only."""

    http_method_names = ["get", "delete", "head", "options"]
    operations = {
        "get": Operation("retrieve_api_key", TAG, "Read one API key", responses={200: ApiKeySerializer}),
        "delete": Operation(
            "revoke_api_key",
            TAG,
            "Revoke an API key at once (repeating it is harmless)",
            responses={200: ApiKeySerializer},
        ),
    }

    def get(self, request, key_id: str):
        return Response(_record(_get_or_404(request.user, key_id)))

    def delete(self, request, key_id: str):
        key = services.apikey_revoke(key=_get_or_404(request.user, key_id))
        return Response(_record(key))


class ApiKeyRotateApi(KeyApi):
    """A new secret for a live key; revoked or expired keys cannot be rotated. Dashboard session only."""

    http_method_names = ["post", "options"]
    idempotency_redacted_fields = ("secret",)
    operations = {
        "post": Operation(
            "rotate_api_key",
            TAG,
            "Give a key a new secret; the old one stops working at once",
            request=None,
            responses={200: ApiKeyWithSecretSerializer},
        )
    }

    def post(self, request, key_id: str):
        key, secret = services.apikey_rotate(key=_get_or_404(request.user, key_id))
        return Response(_record_with_secret(key, secret))
