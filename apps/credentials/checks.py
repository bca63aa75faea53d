"""System checks of the credential configuration (run by ``manage.py check``)."""

from django.conf import settings
from django.core.checks import Error, register
from django.utils.module_loading import import_string

KNOWN_RESOURCES = {"v1", "mcp"}


@register()
def check_bearer_resolvers(app_configs, **kwargs):
    errors = []
    for prefix, entry in getattr(settings, "BEARER_RESOLVERS", {}).items():
        where = f"BEARER_RESOLVERS[{prefix!r}]"
        for name in ("resolve", "stamp"):
            if entry.get(name):
                try:
                    import_string(entry[name])
                except ImportError as exc:
                    errors.append(Error(f"{where}[{name!r}] cannot be imported: {exc}", id="credentials.E001"))
        unknown = set(entry.get("resources", ())) - KNOWN_RESOURCES
        if not entry.get("resources") or unknown:
            errors.append(Error(f"{where} must serve some of {sorted(KNOWN_RESOURCES)}", id="credentials.E002"))
    return errors
