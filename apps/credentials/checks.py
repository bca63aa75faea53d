"""System checks of the credential configuration (run by ``manage.py check``).

That every resolver named in ``BEARER_RESOLVERS`` imports is core.E001's, with every other
setting that names code.
"""

from django.conf import settings
from django.core.checks import Error, register

KNOWN_RESOURCES = {"v1", "mcp"}


@register()
def check_bearer_resolvers(app_configs, **kwargs):
    errors = []
    for prefix, entry in getattr(settings, "BEARER_RESOLVERS", {}).items():
        unknown = set(entry.get("resources", ())) - KNOWN_RESOURCES
        if not entry.get("resources") or unknown:
            where = f"BEARER_RESOLVERS[{prefix!r}]"
            errors.append(Error(f"{where} must serve some of {sorted(KNOWN_RESOURCES)}", id="credentials.E002"))
    return errors
