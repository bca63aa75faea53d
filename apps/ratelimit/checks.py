"""System checks for the limiter configuration (``manage.py check``)."""

from django.conf import settings
from django.core.checks import Error, Info, Warning, register

from apps.core.checks import configured_class

from . import conf
from .stores.base import Store


@register("ratelimit")
def check_store(app_configs=None, **kwargs):
    configured = getattr(settings, "RATELIMIT", {})
    if not isinstance(configured, dict):
        return [Error("RATELIMIT must be a dict.", id="ratelimit.E004")]
    unknown = sorted(set(configured) - set(conf.DEFAULTS))
    if unknown:
        return [Error(f"Unknown RATELIMIT keys: {', '.join(unknown)}.", id="ratelimit.E005")]
    path = conf.get("STORE")
    store_class, errors = configured_class(
        "RATELIMIT['STORE']",
        path,
        Store,
        kind="a Store subclass",
        hint=f"Use {conf.REDIS_STORE!r} or {conf.MEMORY_STORE!r}.",
        ids=("ratelimit.E001", "ratelimit.E002"),
    )
    if store_class is None:
        return errors
    if path in (conf.REDIS_STORE, conf.REDIS_CLUSTER_STORE) and not conf.get("REDIS_URL"):
        errors.append(Error("The Redis limiter store needs REDIS_URL.", id="ratelimit.E003"))
    if path == conf.MEMORY_STORE and conf.get("ENABLED") and not settings.DEBUG:
        errors.append(
            # A single-process deployment is supported, so this informs rather than warns.
            Info(
                "The in-process limiter store gives every server process its own budgets.",
                hint="Set REDIS_URL when running more than one process.",
                id="ratelimit.I001",
            )
        )
    if not conf.get("ENABLED") and not settings.DEBUG:
        errors.append(Warning("Rate limiting is disabled.", id="ratelimit.W002"))
    return errors
