"""The user's own activity log at /settings/activity."""

from dataclasses import dataclass

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .models import ActorType, AuditEvent
from .selectors import audit_list_for_user, audit_subject_names

PAGE_SIZE = 50


@dataclass(frozen=True)
class ActivityRow:
    """One event as the page shows it: names, not ids (the ids stay in a tooltip)."""

    event: AuditEvent
    subject_kind: str  # "app", "key" or ""
    subject_id: str
    subject_name: str  # "" when the app or key no longer exists and no name was recorded
    by: str


def _by(event: AuditEvent, user) -> str:
    if event.actor_type == ActorType.USER:
        return "You" if event.actor_id == user.pk else "Service staff"
    if event.actor_type == ActorType.CLIENT:
        return "The app"
    return "The service"


def _rows(events, user) -> list[ActivityRow]:
    names = audit_subject_names(user=user, events=events)
    rows = []
    for event in events:
        if event.client_id:
            kind, subject_id, name = "app", event.client_id, names.get(("client", event.client_id), "")
        elif event.key_id:
            kind, subject_id, name = "key", event.key_id, names.get(("key", event.key_id), "")
        else:
            kind, subject_id, name = "", "", ""
        rows.append(ActivityRow(event, kind, subject_id, name, _by(event, user)))
    return rows


@never_cache
@require_GET
@login_required
def activity_page(request):
    events = audit_list_for_user(user=request.user)
    page = Paginator(events, PAGE_SIZE).get_page(request.GET.get("page"))
    rows = _rows(list(page.object_list), request.user)
    return render(request, "settings/activity.html", {"page": page, "rows": rows})
