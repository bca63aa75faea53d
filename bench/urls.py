"""The service's URLconf with the limit views (bench/limits.py) mounted beside the floor, first, as
the floor is: a /v1 request pays one more failed prefix check (well under a microsecond)."""

from django.urls import include, path

from bench import limits
from config.urls import handler400, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as service_patterns

urlpatterns = [
    path(
        "bench/limit/",
        include(
            [
                path("rates", limits.rate),
                path("ledger", limits.ledger),
                path("calls", limits.calls),
                path("contacts", limits.contacts),
                path("messages", limits.messages),
            ]
        ),
    ),
    *service_patterns,
]
