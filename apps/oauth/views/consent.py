"""The consent transaction API (docs/spec.md 4.5, shapes in docs/design.md) and the consent page.

Both read the transaction through one function, so the page and the API can
never disagree about whether a transaction may be decided.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET
from rest_framework.exceptions import ParseError
from rest_framework.response import Response

from apps.core.errors import ApiError
from apps.core.ids import digest
from apps.core.timefmt import unix_seconds
from apps.credentials.scopes import SCOPES, SENSITIVE_SCOPES
from apps.safeguards.public import allowance_choices, default_allowance, parse_allowance, rules_get, shown

from ..connections.selectors import scopes_held
from ..models import ConsentTransaction
from ..selectors import transaction_get
from ..services import transaction_decide
from ..session_api import SessionJsonApi
from .authorize import BINDING_COOKIE, error_page


def confirmation_required(txn: ConsentTransaction, scopes: list[str] | None = None) -> bool:
    """Whether Allow needs the second tick (docs/spec.md 5.10): a self-registered client and a
    sensitive scope among ``scopes`` (what the user left ticked; default all requested)."""
    chosen = txn.scopes if scopes is None else scopes
    return txn.application.is_self_registered and bool(SENSITIVE_SCOPES.intersection(chosen))


def chosen_scopes(txn: ConsentTransaction, body: dict) -> list[str] | None:
    """The scopes the user left ticked, in the order requested; None when the body
    has no ``scopes`` (everything requested). Anything but a non-empty list of
    requested scopes is refused: granting what was not asked is never possible."""
    if "scopes" not in body:
        return None
    chosen = body["scopes"]
    if (
        not isinstance(chosen, list)
        or not chosen
        or not all(isinstance(scope, str) for scope in chosen)
        or not set(chosen) <= set(txn.scopes)
    ):
        raise ApiError(
            "invalid_request",
            "scopes must be a non-empty list of the scopes this request asked for: " + ", ".join(txn.scopes) + ".",
            param="scopes",
        )
    return [scope for scope in txn.scopes if scope in chosen]


def client_id_host(application) -> str | None:
    """The https host serving a client's metadata document (its client id is that URL), else None.

    Shown beside the redirect host: the document's host is who vouches for the
    name on the page (the client metadata document draft's advice to consent screens).
    """
    if application.registration_source != application.RegistrationSource.CIMD:
        return None
    parts = urlsplit(application.client_id)
    return parts.hostname if parts.scheme == "https" else None


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
    if not txn.application.is_usable(request):
        raise ApiError("client_disabled")
    return txn


def scope_offers(txn: ConsentTransaction) -> tuple[list[dict], bool]:
    """Each requested scope as the page offers it, and whether this is a step-up.

    A scope the app already holds (for this resource) starts ticked; one it does not
    starts unticked when it is sensitive or opt-in, ticked otherwise. For an app already
    connected, the scopes it does not hold yet come first, marked new; a step-up is such
    a request asking for everything it holds plus more (docs/decisions/consent-defaults.md).
    Only the page's defaults: a decision without ``scopes`` still grants what was asked.
    """
    held = scopes_held(user=txn.user_id, application=txn.application, resource=txn.resource)
    offers = []
    for name in txn.scopes:
        scope = SCOPES[name]
        new = bool(held) and name not in held
        offers.append(
            {
                "scope": name,
                "description": scope.sentence,
                "sensitive": scope.sensitive,
                "held": name in held,
                "new": new,
                "ticked": name in held or not scope.starts_unticked,
            }
        )
    if held:
        offers.sort(key=lambda offer: not offer["new"])  # stable: the request's order within each group
    step_up = bool(held) and held <= set(txn.scopes) and any(offer["new"] for offer in offers)
    return offers, step_up


def transaction_payload(txn: ConsentTransaction) -> dict:
    application = txn.application
    offers, step_up = scope_offers(txn)
    return {
        "id": txn.pk,
        "object": "oauth_transaction",
        "client": {
            "client_id": application.client_id,
            "name": application.name or application.client_id,
            "registration": application.registration_kind,
            "redirect_host": urlsplit(txn.redirect_uri).hostname,
            "client_id_host": client_id_host(application),
        },
        "scopes": offers,
        "step_up": step_up,
        "confirmation_required": confirmation_required(txn),
        "rules": rules_offer(txn),
        "resource": txn.resource,
        "expires_at": unix_seconds(txn.expires_at),
    }


PLACE_SCOPE = "calls:place"


def connection_rules(body: dict, *, granted: list[str]) -> dict:
    """What the user chose for the app beside its scopes: the daily allowance (asked with calls:place)
    and whether it asks first; what is left out keeps its default."""
    rules = {}
    if "daily_allowance" in body and PLACE_SCOPE in granted:
        rules["daily_allowance"] = parse_allowance(body["daily_allowance"])
    if "ask_first" in body:
        if not isinstance(body["ask_first"], bool):
            raise ApiError("invalid_request", "ask_first must be true or false.", param="ask_first")
        rules["ask_first"] = body["ask_first"]
    return rules


def rules_offer(txn: ConsentTransaction) -> dict | None:
    """The allowance and "ask me first" the page offers when the app asks to place calls."""
    if PLACE_SCOPE not in txn.scopes:
        return None
    current = rules_get(user_id=txn.user_id, client_id=txn.application.client_id)
    chosen = current.daily_allowance if current.chosen else default_allowance()
    return {
        "choices": [
            {"amount": amount, "display": shown(amount), "chosen": amount == chosen} for amount in allowance_choices()
        ],
        "ask_first": current.ask_first if current.chosen else txn.application.is_self_registered,
    }


class TransactionApi(SessionJsonApi):
    """GET /api/oauth/transactions/{id}: the authorization request, for this browser and user only."""

    http_method_names = ["get"]

    def get(self, request, transaction_id: str):
        return Response(transaction_payload(transaction_for_request(request, transaction_id)))


class TransactionDecisionApi(SessionJsonApi):
    """POST /api/oauth/transactions/{id}/decision: allow (with the scopes left ticked) or deny."""

    http_method_names = ["post"]

    def post(self, request, transaction_id: str):
        try:
            body = request.data
        except ParseError:
            body = None
        if not isinstance(body, dict) or not request.body.strip():
            raise ApiError("invalid_body")
        txn = transaction_for_request(request, transaction_id)
        decision = body.get("decision")
        if decision not in (ConsentTransaction.ALLOW, ConsentTransaction.DENY):
            raise ApiError("invalid_decision", param="decision")
        scopes = chosen_scopes(txn, body)
        if (
            decision == ConsentTransaction.ALLOW
            and confirmation_required(txn, scopes)
            and body.get("confirm_sensitive") is not True
        ):
            raise ApiError("confirmation_required", param="confirm_sensitive")
        rules = connection_rules(body, granted=scopes if scopes is not None else txn.scopes)
        redirect_to = transaction_decide(txn=txn, decision=decision, scopes=scopes, rules=rules)
        if redirect_to is None:  # another request decided it first
            raise ApiError("transaction_decided")
        return Response({"redirect_to": redirect_to})


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
