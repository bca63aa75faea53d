"""Reads for connected apps, derived from the token rows."""

from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urlsplit

from django.db.models import Max, Min, OuterRef, Q, Subquery
from django.utils import timezone

from apps.credentials.scopes import SCOPES
from apps.oauth.models import Application, GrantFamily, RefreshToken


@dataclass
class Connection:
    application: Application
    first_authorized: datetime
    last_used: datetime
    scopes: list[str] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)
    # Where this connection actually sends the user's browser: the hosts of the
    # redirect URIs its live grant families were authorized with, most recent
    # first. Not merely what the client registered: a client may register a
    # harmless URI beside another and use the other (docs/spec.md 5.12).
    redirect_hosts: list[str] = field(default_factory=list)
    # The /v1 versions its live grant families are served in (pinned at each consent,
    # docs/spec.md 9.4), most recent consent first; empty for families consented before
    # versions were recorded (served in the current one).
    api_versions: list[str] = field(default_factory=list)

    @property
    def client_id(self) -> str:
        return self.application.client_id

    @property
    def name(self) -> str:
        return self.application.name or self.application.client_id

    @property
    def redirect_host(self) -> str | None:
        return self.redirect_hosts[0] if self.redirect_hosts else None

    @property
    def sensitive_count(self) -> int:
        return sum(1 for s in self.scopes if s in SCOPES and SCOPES[s].sensitive)

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


def scopes_held(*, user, application, resource: str, now=None) -> set[str]:
    """The scopes ``application`` holds on ``user``'s account for ``resource``: those of
    its live grant families bound to that resource (one query)."""
    now = now or timezone.now()
    held: set[str] = set()
    rows = RefreshToken.objects.filter(live_refresh_q(now), user=user, application=application).values_list(
        "scope", "resource"
    )
    for scope, resources in rows:
        if resource in (resources or []):
            held.update(scope.split())
    return held


def _registered_single_host(application: Application) -> str | None:
    """For a family issued before redirect URIs were recorded: the host, when every
    registered URI has the same one (then no other can have been used)."""
    hosts = {urlsplit(uri).hostname for uri in application.redirect_uris.split()}
    return next(iter(hosts)) if len(hosts) == 1 else None


def connection_list(*, user, now=None) -> list[Connection]:
    """The user's connected apps, most recently used first. Three queries.

    An app is connected while one of its grant families holds a live refresh
    token. First authorized is the first token of the oldest live family (the
    code exchange right after consent); last used is the newest token issued
    in any live family (exchange or refresh). The redirect URIs are those each
    live family was authorized with (GrantFamily, read in the first query).
    """
    now = now or timezone.now()
    live = RefreshToken.objects.filter(live_refresh_q(now), user=user)
    families = GrantFamily.objects.filter(family=OuterRef("token_family"))
    held: dict[int, tuple[list[str], list[str], list[tuple]]] = {}
    rows = live.annotate(
        family_redirect_uri=Subquery(families.values("redirect_uri")[:1]),
        family_api_version=Subquery(families.values("api_version")[:1]),
    ).values_list("application_id", "scope", "resource", "created", "family_redirect_uri", "family_api_version")
    for application_id, scope, resource, created, redirect_uri, api_version in rows:
        scopes, resources, redirects = held.setdefault(application_id, ([], [], []))
        scopes.extend(s for s in scope.split() if s not in scopes)
        resources.extend(r for r in (resource or []) if r not in resources)
        redirects.append((created, redirect_uri, api_version))
    if not held:
        return []
    spans = (
        RefreshToken.objects.filter(user=user, token_family__in=live.values("token_family"))
        .values("application_id")
        .annotate(first=Min("created"), last=Max("created"))
    )
    applications = Application.objects.in_bulk(list(held))
    connections = []
    for row in spans:
        application = applications.get(row["application_id"])
        if application is None:
            continue
        scopes, resources, redirects = held[row["application_id"]]
        hosts, api_versions = [], []
        for _, uri, api_version in sorted(redirects, key=lambda r: r[0], reverse=True):
            # None: issued before the family's redirect URI was recorded.
            host = urlsplit(uri).hostname if uri is not None else _registered_single_host(application)
            if host and host not in hosts:
                hosts.append(host)
            if api_version and api_version not in api_versions:
                api_versions.append(api_version)
        connections.append(
            Connection(
                application=application,
                first_authorized=row["first"],
                last_used=row["last"],
                # In the order of the scope table, so the screen reads the same for every app.
                scopes=[s for s in SCOPES if s in scopes],
                resources=sorted(resources),
                redirect_hosts=hosts,
                api_versions=api_versions,
            )
        )
    return sorted(connections, key=lambda c: (c.last_used, c.client_id), reverse=True)


def app_name_of(client_id: str) -> str | None:
    """The registered name of the app ``client_id``, or None."""
    return Application.objects.filter(client_id=client_id).values_list("name", flat=True).first()


def app_is_connected(*, user, client_id: str, now=None) -> bool:
    """Whether ``client_id`` holds a live refresh token of ``user`` (what Connected apps lists)."""
    now = now or timezone.now()
    return RefreshToken.objects.filter(live_refresh_q(now), user=user, application__client_id=client_id).exists()
