"""The consent transaction API (docs/spec.md 4.5, shapes in DESIGN.md) and the consent page.

Both read the transaction through one function, so the page and the API can
never disagree about whether a transaction may be decided.
"""

import json
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import JsonResponse
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.shortcuts import render
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie
from django.views.decorators.http import require_GET, require_http_methods

from apps.core.envelope import error_response
from apps.core.envelope import render as render_error
from apps.core.errors import ApiError
from apps.core.ids import digest
from apps.core.timefmt import unix_seconds

from ..models import ConsentTransaction
from apps.credentials.scopes import SCOPES, SENSITIVE_SCOPES
from ..selectors import transaction_get
from ..services import transaction_decide
from .authorize import BINDING_COOKIE, error_page

SIGN_IN_MESSAGE = "Sign in to continue."


def confirmation_required(txn: ConsentTransaction) -> bool:
    return txn.application.is_self_registered and bool(SENSITIVE_SCOPES.intersection(txn.scopes))


def transaction_for_request(request, transaction_id: str, *, now=None) -> ConsentTransaction:
    """The transaction if this browser and user may act on it; raises ApiError otherwise."""
    now = now or timezone.now()
    txn = transaction_get(transaction_id=transaction_id)
    if txn is None:
        raise ApiError("transaction_not_found")
    cookie = request.COOKIES.get(BINDING_COOKIE, "")
    if not cookie or not constant_time_compare(digest(cookie), txn.binding_digest) or txn.user_id != request.user.pk:
        raise ApiError("transaction_binding_failed")
    if txn.decided_at is not None:
        raise ApiError("transaction_decided")
    if txn.is_expired_at(now):
        raise ApiError("transaction_expired")
    if txn.application.is_disabled:
        raise ApiError("client_disabled")
    return txn


def transaction_payload(txn: ConsentTransaction) -> dict:
    application = txn.application
    return {
        "id": txn.pk,
        "object": "oauth_transaction",
        "client": {
            "client_id": application.client_id,
            "name": application.name or application.client_id,
            "registration": application.registration_kind,
            "redirect_host": urlsplit(txn.redirect_uri).hostname,
        },
        "scopes": [
            {"scope": s, "description": SCOPES[s].sentence, "sensitive": SCOPES[s].sensitive} for s in txn.scopes
        ],
        "confirmation_required": confirmation_required(txn),
        "resource": txn.resource,
        "expires_at": unix_seconds(txn.expires_at),
    }


def _no_session():
    return ApiError("invalid_token", SIGN_IN_MESSAGE)


def _json(payload, status=200):
    response = JsonResponse(payload, status=status)
    response["Cache-Control"] = "no-store"
    return response


@never_cache
@require_GET
def transaction_detail(request, transaction_id):
    if not request.user.is_authenticated:
        return error_response(request, _no_session())
    try:
        txn = transaction_for_request(request, transaction_id)
    except ApiError as error:
        return error_response(request, error)
    return _json(transaction_payload(txn))


def _csrf_failure(request):
    check = CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {})
    return check is not None


@csrf_exempt  # checked below, so that a failure answers in the envelope
@never_cache
@require_http_methods(["POST"])
def transaction_decision(request, transaction_id):
    if not request.user.is_authenticated:
        return error_response(request, _no_session())
    if _csrf_failure(request):
        return render_error(request, "forbidden", "The CSRF check failed. Reload the consent page and try again.")
    try:
        body = json.loads(request.body or b"")
    except (ValueError, UnicodeDecodeError):
        body = None
    if not isinstance(body, dict):
        return render_error(request, "invalid_body")
    try:
        txn = transaction_for_request(request, transaction_id)
    except ApiError as error:
        return error_response(request, error)
    decision = body.get("decision")
    if decision not in (ConsentTransaction.ALLOW, ConsentTransaction.DENY):
        return render_error(request, "invalid_decision", param="decision")
    if (
        decision == ConsentTransaction.ALLOW
        and confirmation_required(txn)
        and body.get("confirm_sensitive") is not True
    ):
        return render_error(request, "confirmation_required", param="confirm_sensitive")
    redirect_to = transaction_decide(txn=txn, decision=decision)
    if redirect_to is None:  # another request decided it first
        return render_error(request, "transaction_decided")
    return _json({"redirect_to": redirect_to})


@never_cache
@ensure_csrf_cookie
@require_GET
def consent_page(request):
    transaction_id = request.GET.get("transaction", "")
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    try:
        txn = transaction_for_request(request, transaction_id)
    except ApiError as error:
        return error_page(request, error.code, error.message, status=error.status)
    get_token(request)
    return render(
        request,
        "oauth/consent.html",
        {"txn": txn, "data": transaction_payload(txn), "app_url": settings.APP_URL},
    )
