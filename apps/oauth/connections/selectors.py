"""Reads for connected apps, derived from the token rows."""

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from django.db.models import Max, Min, Q
from django.utils import timezone

from apps.oauth.models import Application, RefreshToken
from apps.credentials.scopes import SCOPES


@dataclass
class Connection:
    application: Application
    first_authorized: datetime
    last_used: datetime
    scopes: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)

    @property
    def client_id(self) -> str:
        return self.application.client_id

    @property
    def name(self) -> str:
        return self.application.name or self.application.client_id

    @property
    def redirect_host(self) -> str | None:
        uris = self.application.redirect_uris.split()
        return urlsplit(uris[0]).hostname if uris else None

    @property
    def scope_details(self) -> list[dict]:
        return [
            {"scope": s, "description": SCOPES[s].sentence, "sensitive": SCOPES[s].sensitive}
            for s in self.scopes
            if s in SCOPES
        ]


def live_refresh_q(now) -> Q:
    """A refresh token that can still be exchanged: not revoked, within its idle
    and absolute lifetimes."""
    return (
        Q(revoked__isnull=True)
        & (Q(expires__isnull=True) | Q(expires__gt=now))
        & (Q(family_expires__isnull=True) | Q(family_expires__gt=now))
    )


def connection_list(*, user, now=None) -> list[Connection]:
    """The user's connected apps, most recently used first. Three queries.

    An app is connected while one of its grant families holds a live refresh
    token. First authorized is the first token of the oldest live family (the
    code exchange right after consent); last used is the newest token issued
    in any live family (exchange or refresh).
    """
    now = now or timezone.now()
    live = RefreshToken.objects.filter(live_refresh_q(now), user=user)
    held: dict[int, tuple[list[str], list[str]]] = {}
    for application_id, scope, resource in live.values_list("application_id", "scope", "resource"):
        scopes, resources = held.setdefault(application_id, ([], []))
        scopes.extend(s for s in scope.split() if s not in scopes)
        resources.extend(r for r in (resource or []) if r not in resources)
    if not held:
        return []
    spans = (
        RefreshToken.objects.filter(user=user, token_family__in=live.values("token_family"))
        .values("application_id")
        .annotate(first=Min("created"), last=Max("created"))
    )
    applications = Application.objects.in_bulk(list(held))
    connections = [
        Connection(
            application=applications[row["application_id"]],
            first_authorized=row["first"],
            last_used=row["last"],
            # In the order of the scope table, so the screen reads the same for every app.
            scopes=[s for s in SCOPES if s in held[row["application_id"]][0]],
            resources=sorted(held[row["application_id"]][1]),
        )
        for row in spans
        if row["application_id"] in applications
    ]
    return sorted(connections, key=lambda c: (c.last_used, c.client_id), reverse=True)


def connection_get(*, user, client_id: str, now=None) -> Connection | None:
    return next((c for c in connection_list(user=user, now=now) if c.client_id == client_id), None)
