"""API-key management endpoints (docs/spec.md 4.4): dashboard session only, CSRF-protected."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.api_v1.public import IdCursorPagination, IdempotentMixin, SessionOnlyMixin
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


class KeyApi(SessionOnlyMixin, IdempotentMixin, APIView):
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

    @extend_schema(
        operation_id="list_api_keys",
        tags=TAG,
        summary="List your API keys, newest first",
        responses={200: ApiKeySerializer(many=True)},
    )
    def get(self, request):
        paginator = self.pagination_class()
        keys = paginator.paginate_queryset(selectors.apikey_list(user=request.user), request, view=self)
        now = timezone.now()
        return paginator.get_paginated_response(ApiKeySerializer(keys, many=True, context={"now": now}).data)

    @extend_schema(
        operation_id="create_api_key",
        tags=TAG,
        summary="Create an API key; the response holds its secret, shown once",
        request=ApiKeyCreateSerializer,
        responses={201: ApiKeyWithSecretSerializer},
    )
    def post(self, request):
        if not request.body.strip():
            raise ApiError("invalid_body", "The request body must be a JSON object.")
        key, secret = services.apikey_create(user=request.user, **create_arguments(request.data))
        return Response(_record_with_secret(key, secret), status=status.HTTP_201_CREATED)


class ApiKeyDetailApi(KeyApi):
    """One of your API keys; another account's key is api_key_not_found. Dashboard session only."""

    http_method_names = ["get", "delete", "head", "options"]

    @extend_schema(operation_id="retrieve_api_key", tags=TAG, summary="Read one API key", responses=ApiKeySerializer)
    def get(self, request, key_id: str):
        return Response(_record(_get_or_404(request.user, key_id)))

    @extend_schema(
        operation_id="revoke_api_key",
        tags=TAG,
        summary="Revoke an API key at once (repeating it is harmless)",
        responses={200: ApiKeySerializer},
    )
    def delete(self, request, key_id: str):
        key = services.apikey_revoke(key=_get_or_404(request.user, key_id))
        return Response(_record(key))


class ApiKeyRotateApi(KeyApi):
    """A new secret for a live key; revoked or expired keys cannot be rotated. Dashboard session only."""

    http_method_names = ["post", "options"]
    idempotency_redacted_fields = ("secret",)

    @extend_schema(
        operation_id="rotate_api_key",
        tags=TAG,
        summary="Give a key a new secret; the old one stops working at once",
        request=None,
        responses=ApiKeyWithSecretSerializer,
    )
    def post(self, request, key_id: str):
        key, secret = services.apikey_rotate(key=_get_or_404(request.user, key_id))
        return Response(_record_with_secret(key, secret))
