"""The user's own activity log at /settings/activity."""

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from .selectors import audit_list_for_user

PAGE_SIZE = 50


@never_cache
@require_GET
@login_required
def activity_page(request):
    events = audit_list_for_user(user=request.user)
    page = Paginator(events, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "settings/activity.html", {"page": page})
