"""The API keys screen: a page that drives the /v1/api-keys endpoints from the browser."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.csrf import ensure_csrf_cookie

from apps.credentials.scopes import READ_ONLY_STARTER_SET, SCOPES

from .services import DEFAULT_EXPIRY_DAYS, MAX_EXPIRY_DAYS, MAX_LIVE_KEYS


@login_required
@ensure_csrf_cookie
def api_keys_page(request):
    return render(
        request,
        "apikeys/api_keys.html",
        {
            "scopes": SCOPES.values(),
            "starter_scopes": READ_ONLY_STARTER_SET,
            "default_expiry": DEFAULT_EXPIRY_DAYS,
            "max_expiry": MAX_EXPIRY_DAYS,
            "max_live_keys": MAX_LIVE_KEYS,
        },
    )
