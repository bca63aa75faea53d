"""The user's own activity log at /settings/activity: cursor pages, filtered by app and by kind."""

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .models import EVENT_KINDS, ActorType, AuditEvent, EventType
from .selectors import audit_activity, audit_app_client_ids, audit_event_for_user, audit_page, audit_subject_names

# A page a phone scrolls through in a few screens.
PAGE_SIZE = 20


@dataclass
class ActivityRow:
    """One event as the page shows it: names, not ids (the ids stay in a tooltip).

    A run of refreshes by one app is one row: an app in use renews its token at least
    hourly, and an app retrying a refused call refreshes each time; the log keeps every
    refresh, the page says how many and since when.
    """

    event: AuditEvent
    subject_kind: str  # "app", "key" or ""
    subject_id: str
    subject_name: str  # "" when the app or key no longer exists and no name was recorded
    by: str
    times: int = 1
    since: datetime | None = None


def _by(event: AuditEvent, user) -> str:
    if event.event_type == EventType.SIGN_IN_FAILED:
        return "Someone"
    if event.actor_type == ActorType.USER:
        return "You" if event.actor_id == user.pk else "Service staff"
    if event.actor_type == ActorType.CLIENT:
        return "The app"
    if event.actor_type == ActorType.API_KEY:
        return "The API key"
    return "The service"


def _folds_into(row: ActivityRow, event: AuditEvent) -> bool:
    return (
        event.event_type == EventType.OAUTH_TOKEN_REFRESHED
        and row.event.event_type == EventType.OAUTH_TOKEN_REFRESHED
        and row.event.client_id == event.client_id
    )


def _rows(events, names, user) -> list[ActivityRow]:
    rows: list[ActivityRow] = []
    for event in events:
        if rows and _folds_into(rows[-1], event):
            rows[-1].times += 1
            rows[-1].since = event.created
            continue
        if event.client_id:
            kind, subject_id, name = "app", event.client_id, names.get(("client", event.client_id), "")
        elif event.key_id:
            kind, subject_id, name = "key", event.key_id, names.get(("key", event.key_id), "")
        else:
            kind, subject_id, name = "", "", ""
        rows.append(ActivityRow(event, kind, subject_id, name, _by(event, user)))
    return rows


def _names(user, events, client_ids) -> dict:
    """The names of the page's apps and keys and of every app in the filter, in one lookup:
    an app named by a row of the page reads as it did there."""
    stand_ins = [AuditEvent(client_id=client_id) for client_id in client_ids]
    return audit_subject_names(user=user, events=[*events, *stand_ins])


def _app_choices(client_ids, names) -> list[tuple[str, str]]:
    choices = [(client_id, names.get(("client", client_id)) or client_id) for client_id in client_ids]
    return sorted(choices, key=lambda choice: (choice[1].casefold(), choice[0]))


@never_cache
@require_GET
@login_required
def activity_page(request):
    user = request.user
    app = request.GET.get("app", "")[:255]
    kind = request.GET.get("kind", "")
    if kind not in EVENT_KINDS:
        kind = ""
    events = audit_activity(user=user, client_id=app, kind=kind)
    after = audit_event_for_user(user=user, event_id=request.GET.get("after", ""))
    before = None if after else audit_event_for_user(user=user, event_id=request.GET.get("before", ""))
    page, more = audit_page(events, after=after, before=before, limit=PAGE_SIZE)
    client_ids = audit_app_client_ids(user=user)
    if app and app not in client_ids:
        client_ids.append(app)
    names = _names(user, page, client_ids)
    # Older rows exist beyond this page when the query said so, or when the page was reached
    # going back (the rows it came from lie beyond it); newer ones likewise.
    has_older = more if before is None else True
    has_newer = (after is not None) or (before is not None and more)
    filters = {name: value for name, value in (("app", app), ("kind", kind)) if value}
    context = {
        "rows": _rows(page, names, user),
        "app": app,
        "kind": kind,
        "kinds": [(value, label) for value, (label, _types) in EVENT_KINDS.items()],
        "apps": _app_choices(client_ids, names),
        "filtered": bool(filters),
        "older_url": "?" + urlencode({**filters, "after": page[-1].pk}) if page and has_older else "",
        "newer_url": "?" + urlencode({**filters, "before": page[0].pk}) if page and has_newer else "",
        "newest_url": "?" + urlencode(filters) if has_newer else "",
    }
    return render(request, "settings/activity.html", context)
