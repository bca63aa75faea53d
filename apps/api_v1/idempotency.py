"""``Idempotency-Key`` for /v1 writes (docs/spec.md 4 and 7.2).

Every /v1 view that accepts POST mixes in ``IdempotentMixin`` (a test walks the
URL table to keep it that way). The flow for a request that carries the header:

1. After authentication, the key is *claimed* by inserting a row under a
   unique constraint (user, credential, key) in its own committed transaction.
   Of two concurrent requests with one key exactly one insert succeeds; the
   other sees the row and answers ``idempotency_in_progress`` (or replays, once
   the first has finished).
2. The handler runs inside a transaction that also writes the response into the
   claimed row, so the operation's writes and its record commit together: a
   crash leaves neither, and an abandoned claim can be taken over safely. A
   handler that sends its writes as one statement may send that write with
   them (``idempotency_outcome_statements``): one round trip fewer.
3. Only successful (2xx) outcomes are kept. Errors change nothing (house rule),
   so the claim is released and a retry with the same key runs again.

The key is also honoured on PUT, PATCH and DELETE, so that one key sent with
two different methods is refused (``idempotency_key_reused``) rather than
silently answered with the other request's response.
"""

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, connections, router, transaction
from django.http.request import RawPostDataException
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status as http_status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from apps.core.errors import ApiError
from apps.core.sql import NothingWritten, Statement, update_row_statement
from apps.credentials.principal import Principal

from .models import IdempotencyRecord

HEADER = "HTTP_IDEMPOTENCY_KEY"
PARAM = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
REUSE_WINDOW = timedelta(hours=24)
# A claim this old belongs to a worker that died: its transaction rolled back,
# so taking the claim over cannot run the operation twice.
ABANDONED_AFTER = timedelta(minutes=5)
METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SESSION_CREDENTIAL = "session"
_CLAIM_ATTEMPTS = 3

# What parse_key accepts as the header arrives: HTTP trims a value's surrounding spaces, so a
# key neither starts nor ends with one.
OPENAPI_SCHEMA = {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH, "pattern": r"^[!-~]([ -~]*[!-~])?$"}
# Declared on every write of an ``IdempotentMixin`` view (``IdempotentSchema``).
OPENAPI_PARAMETER = OpenApiParameter(
    PARAM,
    OPENAPI_SCHEMA,
    OpenApiParameter.HEADER,
    description=(
        "A UUID v4 (1 to 255 printable ASCII characters). A retry with the same key within 24 hours gets the "
        "stored response with Idempotent-Replayed: true instead of running twice."
    ),
)


def parse_key(request) -> str | None:
    """The request's key, or None without the header; invalid keys raise."""
    raw = request.META.get(HEADER)
    if raw is None:
        return None
    if not raw or len(raw) > MAX_KEY_LENGTH or not all(" " <= c <= "~" for c in raw):
        raise ApiError("invalid_idempotency_key", param=PARAM)
    return raw


def credential_of(request) -> str:
    """Keys are unique per user and credential; a dashboard session is one credential."""
    auth = getattr(request, "auth", None)
    if isinstance(auth, Principal):
        credential = auth.credential_id
        return credential if len(credential) <= 255 else "sha256:" + hashlib.sha256(credential.encode()).hexdigest()
    return SESSION_CREDENTIAL


def request_fingerprint(*, method: str, path: str, body: bytes) -> str:
    """Digest of what makes two requests "the same": method, path and body.

    A JSON body is compared by content, so a retry that serialises its keys in
    another order is still the same request.
    """
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, UnicodeDecodeError, RecursionError):
        canonical = body
    h = hashlib.sha256()
    for part in (method.encode(), path.encode(), canonical):
        h.update(len(part).to_bytes(8, "big"))
        h.update(part)
    return h.hexdigest()


@dataclass
class Claim:
    record_id: int
    token: str
    completed: bool = False
    sent_with: tuple | None = None  # (status, data) of the answer the handler's writes stored, if it sent them


def idempotency_claim(
    *, user, credential_id: str, key: str, method: str, path: str, fingerprint: str
) -> Claim | IdempotencyRecord:
    """Claim ``key`` for this request, or return the finished record to replay.

    Raises ``idempotency_key_reused`` for a different request and
    ``idempotency_in_progress`` while the first one still runs.
    """
    for _ in range(_CLAIM_ATTEMPTS):
        now = timezone.now()
        token = secrets.token_hex(16)
        try:
            with transaction.atomic():
                record = IdempotencyRecord.objects.create(
                    user=user,
                    credential_id=credential_id,
                    key=key,
                    method=method,
                    path=path,
                    request_digest=fingerprint,
                    lock_token=token,
                    locked_at=now,
                    created=now,
                )
            return Claim(record.pk, token)
        except IntegrityError:
            pass
        existing = IdempotencyRecord.objects.filter(user=user, credential_id=credential_id, key=key).first()
        if existing is None:
            continue  # released or purged meanwhile: claim again
        if existing.created <= now - REUSE_WINDOW:
            IdempotencyRecord.objects.filter(pk=existing.pk, created=existing.created).delete()
            continue
        if not secrets.compare_digest(existing.request_digest, fingerprint):
            raise ApiError(
                "idempotency_key_reused",
                f"This Idempotency-Key was already used within 24 hours for {existing.method} {existing.path} "
                "with a different body. Use a new key for a new request.",
                param=PARAM,
            )
        if existing.completed:
            return existing
        if existing.locked_at <= now - ABANDONED_AFTER:
            taken = IdempotencyRecord.objects.filter(
                pk=existing.pk, lock_token=existing.lock_token, response_status__isnull=True
            ).update(lock_token=token, locked_at=now)
            if taken:
                return Claim(existing.pk, token)
            continue
        raise ApiError("idempotency_in_progress")
    raise ApiError("conflict")


def idempotency_complete(*, claim: Claim, status: int, body) -> None:
    """Store the outcome; runs inside the operation's own transaction."""
    stored = IdempotencyRecord.objects.filter(
        pk=claim.record_id, lock_token=claim.token, response_status__isnull=True
    ).update(response_status=status, response_body=body)
    if not stored:
        # Our claim was taken over; raising rolls this execution back.
        raise ApiError("conflict")
    claim.completed = True


_COLUMNS = ("id", "lock_token", "response_status")


def idempotency_complete_statement(*, claim: Claim, status: int, body) -> Statement:
    """``idempotency_complete``'s UPDATE as a statement (apps/core/sql.py) for the operation to send with
    its own writes in one round trip; ``write_together`` raises ``NothingWritten`` when the claim was
    taken over, which rolls the operation back as ``idempotency_complete``'s conflict does."""
    connection = connections[router.db_for_write(IdempotencyRecord)]
    update = update_row_statement(
        IdempotencyRecord, claim.record_id, connection, response_status=status, response_body=body
    )
    column = {name: connection.ops.quote_name(IdempotencyRecord._meta.get_field(name).column) for name in _COLUMNS}
    # Only while this request still holds the claim, as idempotency_complete's filter says.
    held = f" AND {column['lock_token']} = %s AND {column['response_status']} IS NULL RETURNING {column['id']}"
    return Statement(update.sql + held, [*update.params, claim.token], required=True)


def idempotency_release(*, claim: Claim) -> None:
    IdempotencyRecord.objects.filter(pk=claim.record_id, lock_token=claim.token, response_status__isnull=True).delete()


def idempotency_purge(*, now=None) -> int:
    """Delete records past the 24-hour reuse window; returns how many."""
    cutoff = (now or timezone.now()) - REUSE_WINDOW
    deleted, _ = IdempotencyRecord.objects.filter(created__lte=cutoff).delete()
    return deleted


def replay_response(record: IdempotencyRecord) -> Response:
    body = json.loads(record.response_body) if record.response_body else None
    return Response(body, status=record.response_status, headers={REPLAYED_HEADER: "true"})


class _Replay(Exception):
    def __init__(self, record: IdempotencyRecord):
        self.record = record


class IdempotentSchema(AutoSchema):
    """The OpenAPI operations of an idempotent view: each write takes ``Idempotency-Key``."""

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        return [OPENAPI_PARAMETER, *parameters] if self.method in METHODS else parameters


class IdempotentMixin:
    """Idempotency for a DRF view's writes. Put it before ``APIView`` in the bases.

    ``idempotency_key_required``: spending operations set it; without the header
    they answer ``idempotency_key_required``.
    ``idempotency_redacted_fields``: top-level response fields stored as null,
    so that a secret shown once is never kept at rest (replays show null).
    """

    schema = IdempotentSchema()
    idempotency_key_required = False
    idempotency_redacted_fields: tuple[str, ...] = ()

    def _idempotency_handles(self, method: str) -> bool:
        # A method the view does not serve is 405 method_not_allowed, whatever its key.
        return method.lower() in self.http_method_names and hasattr(self, method.lower())

    def initial(self, request, *args, **kwargs):
        self._idempotency_claim = None
        if request.method in METHODS and HEADER in request._request.META:
            # Read (and cache) the raw body before the CSRF check can parse a
            # form body from the stream; the fingerprint needs the raw bytes.
            request._request.body  # noqa: B018
        super().initial(request, *args, **kwargs)
        if request.method not in METHODS or not self._idempotency_handles(request.method):
            return
        key = parse_key(request._request)
        if key is None:
            if self.idempotency_key_required:
                raise ApiError("idempotency_key_required", param=PARAM)
            return
        if request.user is None:
            return  # an anonymous write has no owner to scope the key to
        django_request = request._request
        path = django_request.get_full_path()
        try:
            body = django_request.body
        except RawPostDataException:
            # Something upstream streamed a multipart body away; /v1 takes JSON.
            raise ApiError("unsupported_media_type") from None
        outcome = idempotency_claim(
            user=request.user,
            credential_id=credential_of(request),
            key=key,
            method=request.method,
            path=path,
            fingerprint=request_fingerprint(method=request.method, path=path, body=body),
        )
        if isinstance(outcome, IdempotencyRecord):
            raise _Replay(outcome)
        self._idempotency_claim = outcome
        self._run_handler_with_record(request.method.lower(), outcome)

    def _run_handler_with_record(self, name: str, claim: Claim) -> None:
        handler = getattr(self, name, None) if name in self.http_method_names else None
        if handler is None:
            return  # 405: nothing runs, the claim is released in finalize_response

        def run(request, *args, **kwargs):
            try:
                with transaction.atomic():
                    response = handler(request, *args, **kwargs)
                    if not http_status.is_success(response.status_code):
                        return response
                    if (
                        claim.sent_with is not None
                        and claim.sent_with[0] == response.status_code
                        and (claim.sent_with[1] is response.data)
                    ):
                        claim.completed = True  # the handler sent this very answer with its own writes
                    else:
                        idempotency_complete(claim=claim, status=response.status_code, body=self._stored_body(response))
            except NothingWritten:
                raise ApiError("conflict") from None  # the claim was taken over: nothing of this run is kept
            return response

        # An instance attribute shadows the method for this request only; DRF
        # looks the handler up after initial().
        setattr(self, name, run)

    def idempotency_outcome_statements(self, status: int, data) -> list[Statement]:
        """For a handler that writes in one round trip: the UPDATE that stores its answer (``status``,
        ``data``: what it will respond), to send with its own writes; none without a claimed key. An
        answer other than this one is stored apart, as usual."""
        claim = getattr(self, "_idempotency_claim", None)
        if claim is None:
            return []
        claim.sent_with = (status, data)
        return [idempotency_complete_statement(claim=claim, status=status, body=self._stored_body_of(data))]

    def _stored_body(self, response):
        return self._stored_body_of(getattr(response, "data", None))

    def _stored_body_of(self, data):
        if isinstance(data, dict) and self.idempotency_redacted_fields:
            data = {k: (None if k in self.idempotency_redacted_fields else v) for k, v in data.items()}
        # Stored as the client first saw it (DRF's encoder: dates, decimals, uuids).
        return "" if data is None else JSONRenderer().render(data).decode()

    def handle_exception(self, exc):
        if isinstance(exc, _Replay):
            return replay_response(exc.record)
        return super().handle_exception(exc)

    def finalize_response(self, request, response, *args, **kwargs):
        claim = getattr(self, "_idempotency_claim", None)
        if claim is not None and not claim.completed:
            idempotency_release(claim=claim)
            self._idempotency_claim = None
        return super().finalize_response(request, response, *args, **kwargs)
