"""System checks for webhooks (``manage.py check``)."""

from django.conf import settings
from django.core.checks import Warning, register


@register("webhooks")
def check_loopback(app_configs=None, **kwargs):
    # On a shared server, loopback is the server's own machine: any account's test key could
    # aim an endpoint at its database or cache and learn from the attempts what answers there.
    if getattr(settings, "WEBHOOK_ALLOW_LOOPBACK", False) and not settings.DEBUG:
        return [
            Warning(
                "WEBHOOK_ALLOW_LOOPBACK is on without DEBUG: test-mode webhook endpoints may reach this "
                "server's own ports.",
                hint="Leave WEBHOOK_ALLOW_LOOPBACK unset in a deployment; receivers on a developer's machine use "
                "an https tunnel.",
                id="webhooks.W001",
            )
        ]
    return []
