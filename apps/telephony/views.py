"""``/carrier/<name>/<what>``: where a real carrier's callbacks land, outside /v1 (docs/design.md, Phase 3).

The adapter checks the carrier's signature and translates; the events go to their
receivers as durable work, once however often the carrier sends the callback
(``delivery.py``). A callback the carrier did not sign changes nothing and is logged once.
Nothing here knows a call's states.

Every answer but the carrier's own reply and the 204 is the error envelope (/carrier/ is a JSON
surface, its unknown paths included: apps/core/surfaces.py), and every request spends the source
address's carrier budget (apps/ratelimit/budgets.py) before it gets here.
"""

import logging

from django.db import transaction
from django.http import HttpResponse
from django.views.decorators.csrf import csrf_exempt

from apps.core import metrics
from apps.core.envelope import render

from .carriers import carrier_named
from .carriers.base import CarrierRefused
from .delivery import deliver_later

logger = logging.getLogger(__name__)


@csrf_exempt
def carrier_callback(request, name: str, what: str):
    carrier = carrier_named(name)
    if carrier is None:
        return render(request, "not_found", "No carrier of that name.")
    if request.method != "POST":
        response = render(request, "method_not_allowed", "A carrier's callbacks are POST requests.")
        response["Allow"] = "POST"
        return response
    try:
        reply = carrier.answer_callback(request, what)
    except CarrierRefused as refused:
        logger.warning("carrier callback refused: %s %s: %s", name, what, refused.message)
        metrics.count_carrier_refusal(carrier=name, stage="callback")
        return render(request, "forbidden", "The callback's signature was not accepted.")
    with transaction.atomic():
        deliver_later(reply.events, dedupe_key=reply.dedupe_key)
    if reply.content:
        return HttpResponse(reply.content, content_type=reply.content_type)
    return HttpResponse(status=204)
