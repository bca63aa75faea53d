"""Writes for the OAuth core: consent transactions, codes, the new-connection email, client last use, purging."""

import logging
from datetime import timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.module_loading import import_string
from oauthlib.common import add_params_to_uri

from apps.audit.models import EventType
from apps.audit.services import audit_record
from apps.core.ids import digest, new_secret
from apps.credentials.cache import LAST_USED_GRANULARITY
from apps.credentials.scopes import SCOPES
from apps.safeguards.public import rules_set

from .connections.selectors import scopes_held
from .models import (
    TRANSACTION_LIFETIME,
    Application,
    ConsentTransaction,
    Grant,
    GrantFamily,
)
from .selectors import issuer
from .token.lifetimes import CODE_LIFETIME

log = logging.getLogger(__name__)


def redirect_with(uri: str, params: dict) -> str:
    return add_params_to_uri(uri, [(k, v) for k, v in params.items() if v is not None])


def authorize_error_redirect(*, redirect_uri: str, error: str, description: str, state: str | None) -> str:
    return redirect_with(
        redirect_uri, {"error": error, "error_description": description, "state": state, "iss": issuer()}
    )


def transaction_create(
    *,
    application: Application,
    user,
    binding_secret: str,
    scopes: list[str],
    redirect_uri: str,
    state: str,
    code_challenge: str,
    resource: str,
) -> ConsentTransaction:
    now = timezone.now()
    return ConsentTransaction.objects.create(
        created=now,
        expires_at=now + TRANSACTION_LIFETIME,
        application=application,
        user=user,
        binding_digest=digest(binding_secret),
        scopes=scopes,
        redirect_uri=redirect_uri,
        state=state,
        code_challenge=code_challenge,
        resource=resource,
    )


def transaction_decide(
    *, txn: ConsentTransaction, decision: str, scopes: list[str] | None = None, rules: dict | None = None
) -> str | None:
    """Record the decision exactly once; returns where to send the browser, or None if already decided.

    ``scopes`` is what the user left ticked on Allow, a non-empty subset of
    ``txn.scopes`` checked by the caller (None: everything requested); the
    code, and so every token of the family, carries only those. ``rules``: what the user chose
    for the app on the page (``daily_allowance``, ``ask_first``; apps.safeguards.services.rules_set).

    The conditional UPDATE is the lock: of two concurrent decisions only one
    changes the row, so only one code is ever issued per transaction.
    """
    now = timezone.now()
    granted = list(txn.scopes) if scopes is None else [s for s in txn.scopes if s in scopes]
    # Read before the new grant exists: what the app held decides which email the owner gets.
    held = scopes_held(user=txn.user_id, application=txn.application, resource=txn.resource, now=now)
    with transaction.atomic():
        won = ConsentTransaction.objects.filter(pk=txn.pk, decided_at__isnull=True).update(
            decided_at=now, decision=decision
        )
        if not won:
            return None
        if decision == ConsentTransaction.DENY:
            return authorize_error_redirect(
                redirect_uri=txn.redirect_uri,
                error="access_denied",
                description="The user denied the request.",
                state=txn.state,
            )
        code = grant_issue(txn=txn, scopes=granted, now=now)
        application = txn.application
        rules_set(
            user=txn.user,
            client_id=application.client_id,
            client_name=application.name,
            now=now,
            ask_first_default=application.is_self_registered,
            **(rules or {}),
        )
        data = {"scopes": granted, "resource": txn.resource, "client_name": txn.application.name}
        declined = [s for s in txn.scopes if s not in granted]
        if declined:
            data["declined_scopes"] = declined
        audit_record(
            event_type=EventType.OAUTH_CONNECTION_CREATED,
            user=txn.user_id,
            client_id=txn.application.client_id,
            data=data,
            at=now,
        )
        transaction.on_commit(lambda: connection_email_send(txn=txn, scopes=granted, held=held, when=now))
    return redirect_with(txn.redirect_uri, {"code": code, "state": txn.state, "iss": issuer()})


def grant_issue(*, txn: ConsentTransaction, scopes: list[str], now) -> str:
    """Issue an authorization code for ``scopes``; only its digest is stored.

    The family's row keeps the redirect URI this consent used, for as long as
    its tokens live (the code row itself is purged a day after it expires).
    """
    code = new_secret("")
    grant = Grant.objects.create(
        user_id=txn.user_id,
        application_id=txn.application_id,
        code=digest(code),
        expires=now + CODE_LIFETIME,
        redirect_uri=txn.redirect_uri,
        scope=" ".join(scopes),
        code_challenge=txn.code_challenge,
        code_challenge_method="S256",
        resource=[txn.resource],
    )
    GrantFamily.objects.create(
        family=grant.family,
        user_id=txn.user_id,
        application_id=txn.application_id,
        redirect_uri=txn.redirect_uri,
        created=now,
        api_version=api_version_in_force(),
    )
    return code


def api_version_in_force() -> str:
    """The /v1 version new credentials are pinned to, from the resource server's one table
    (named in settings: the authorization server imports no resource server)."""
    return import_string(settings.API_VERSION_IN_FORCE)()


def connection_email_send(*, txn: ConsentTransaction, scopes: list[str], held: set[str], when) -> None:
    """Tell the owner what was just allowed. An app that already held scopes on this account
    is no new app: a step-up says what it was given on top, a reconnection says so."""
    user = txn.user
    name = txn.application.name or txn.application.client_id
    added = [s for s in scopes if s not in held]
    context = {
        "user": user,
        "client_name": name,
        "registration": txn.application.registration_kind,
        "scopes": [SCOPES[s] for s in scopes if s in SCOPES],
        "added": [SCOPES[s] for s in added if s in SCOPES],
        "kept": [SCOPES[s] for s in scopes if s in held and s in SCOPES],
        "when": when,
        "app_url": settings.APP_URL,
    }
    if not held:
        subject, template = f"New app connected to your account: {name}", "oauth/email/new_connection.txt"
    elif added:
        subject, template = f"{name} was given more access to your account", "oauth/email/more_access.txt"
    else:
        subject, template = f"{name} was connected to your account again", "oauth/email/connected_again.txt"
    try:
        send_mail(
            subject=subject,
            message=render_to_string(template, context),
            from_email=None,
            recipient_list=[user.email],
        )
    except Exception:  # the connection stands even if the mail server is down
        log.exception("could not send the connection email for %s", txn.pk)


def application_mark_used(*, application: Application, now) -> None:
    """Stamp last use at most once a minute, so the hot path rarely writes."""
    last = application.last_used_at
    if last is not None and now - last < LAST_USED_GRANULARITY:
        return
    Application.objects.filter(pk=application.pk).update(last_used_at=now)
    application.last_used_at = now


STALE_AFTER = timedelta(days=1)


def oauth_purge_stale(*, now=None) -> tuple[int, int]:
    """Delete consent transactions and codes that can no longer be used.

    Kept a day past expiry, not less: a used code must still be found when it
    is replayed (reuse detection), and a code lives 60 seconds, so a day is
    ample. Returns (transactions, codes) deleted.
    """
    cutoff = (now or timezone.now()) - STALE_AFTER
    transactions, _ = ConsentTransaction.objects.filter(expires_at__lt=cutoff).delete()
    codes, _ = Grant.objects.filter(expires__lt=cutoff).delete()
    return transactions, codes
