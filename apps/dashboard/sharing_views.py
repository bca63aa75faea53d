"""The sharing page: the account's switches and each number's message-reading switch."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from apps.accounts.security import sharing_update
from apps.accounts.selectors import sharing_get
from apps.numbers.selectors import number_list_for_sharing
from apps.numbers.services import NumberNotFound, number_set_messages_opt_in

# More than any account rents; bounds the work one form post can ask for.
MAX_NUMBERS_PER_POST = 200


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def sharing_page(request):
    if request.method == "POST":
        opted_in = set(request.POST.getlist("messages_opt_in"))
        # A number that cannot receive SMS has no messages to share: the page offers no switch for it.
        offered = {number.id for number in number_list_for_sharing(user=request.user) if number.sms}
        with transaction.atomic():
            # Unticked checkboxes are absent from the form: absent means off.
            sharing_update(
                user=request.user,
                call_summaries=request.POST.get("call_summaries") == "on",
                message_reading=request.POST.get("message_reading") == "on",
            )
            # Only the numbers the page showed: a number rented since keeps its switch.
            for number_id in request.POST.getlist("numbers_shown")[:MAX_NUMBERS_PER_POST]:
                if number_id not in offered:
                    continue
                try:
                    number_set_messages_opt_in(user=request.user, number_id=number_id, value=number_id in opted_in)
                except NumberNotFound:
                    continue  # not one of the user's numbers: nothing of theirs to change
        messages.success(request, "Sharing settings saved.")
        return redirect("sharing-page")
    context = {"sharing": sharing_get(user=request.user), "numbers": number_list_for_sharing(user=request.user)}
    return render(request, "settings/sharing.html", context)
