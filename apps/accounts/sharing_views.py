from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from .security import sharing_get, sharing_update


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def sharing_page(request):
    if request.method == "POST":
        # Unticked checkboxes are absent from the form: absent means off.
        sharing_update(
            user=request.user,
            call_summaries=request.POST.get("call_summaries") == "on",
            message_reading=request.POST.get("message_reading") == "on",
        )
        messages.success(request, "Sharing settings saved.")
        return redirect("sharing-page")
    return render(request, "settings/sharing.html", {"sharing": sharing_get(user=request.user)})
