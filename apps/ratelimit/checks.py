"""System checks for the limiter configuration (``manage.py check``)."""

from django.conf import settings
from django.core.checks import Error, Info, Warning, register
from django.utils.module_loading import import_string

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
    try:
        store_class = import_string(path)
    except ImportError as exc:
        return [
            Error(
                f"RATELIMIT['STORE'] {path!r} cannot be imported: {exc}.",
                hint=f"Use {conf.REDIS_STORE!r} or {conf.MEMORY_STORE!r}.",
                id="ratelimit.E001",
            )
        ]
    if not (isinstance(store_class, type) and issubclass(store_class, Store)):
        return [Error(f"RATELIMIT['STORE'] {path!r} is not a Store subclass.", id="ratelimit.E002")]
    errors = []
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
