"""The confirmation page (a link an app's refusal carries) and the Connected apps form that changes
an app's rules. Plain forms, CSRF-protected by the middleware: both work without JavaScript."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from apps.core.errors import ApiError
from apps.safeguards.public import confirmation_payload, decision_record, parse_allowance, rules_set

from .confirm_selectors import app_name, decision_for, is_connected, pending_action

CONFIRM, DECLINE = "confirm", "decline"


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def confirmation_page(request, token: str):
    payload = confirmation_payload(token)
    now = timezone.now()
    action = pending_action(user=request.user, payload=payload, now=now) if payload else None
    if action is None:
        return render(request, "safeguards/confirm.html", {"missing": True}, status=404)
    decision_id = f"cnf_{payload.get('n', '')}"
    decided = decision_for(user=request.user, decision_id=decision_id, action=action)
    if request.method == "POST" and decided is None and not action.closed:
        choice = request.POST.get("decision")
        if choice in (CONFIRM, DECLINE):
            decided = decision_record(
                user=request.user,
                decision_id=decision_id,
                client_id=action.client_id,
                client_name=action.client_name,
                action=action.action,
                subject=action.subject,
                confirmed=choice == CONFIRM,
                expires_at=action.expires_at,
                summary=action.summary,
                now=now,
            ) or decision_for(user=request.user, decision_id=decision_id, action=action)
        return redirect(request.path)
    return render(request, "safeguards/confirm.html", {"action": action, "decided": decided})


@never_cache
@require_POST
@login_required
def rules_form(request):
    """Connected apps' Save: an app's daily allowance and its "ask me first" switch."""
    client_id = request.POST.get("client_id", "")
    if not client_id or not client_id.isprintable() or not is_connected(user=request.user, client_id=client_id):
        messages.error(request, "No such connected app.")
        return redirect("connected-apps-page")
    try:
        value = request.POST.get("daily_allowance", "")
        allowance = parse_allowance(int(value) if value.isdigit() else value)
    except ApiError as error:
        messages.error(request, error.message)
        return redirect("connected-apps-page")
    name = app_name(client_id)
    rules_set(
        user=request.user,
        client_id=client_id,
        client_name=name,
        daily_allowance=allowance,
        ask_first=request.POST.get("ask_first") == "on",
    )
    messages.success(request, f"Saved what {name} may do.")
    return redirect("connected-apps-page")
