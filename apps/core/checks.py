"""core.E001: every setting that names project code by dotted path can be imported.

Settings name code so that the app calling it need not import it: credential resolvers
and standings, carrier event receivers, the live carrier, the limiter's store, DOT's and
drf-spectacular's hooks. A typo in one would otherwise surface at the first request or
carrier event that reaches it, in a web process or the worker. This check walks every
setting, imports each string that names project code (``apps.`` or ``config.``), and
resolves the settings whose value may be a short name through the table that defines
those names (``NAMED_BY``, itself a dotted path, so core imports no app).
"""

import re
from importlib import import_module

from django.conf import settings
from django.core.checks import Error, register
from django.utils.module_loading import import_string

PROJECT_PATH = re.compile(r"^(apps|config)(\.[A-Za-z_][A-Za-z0-9_]*)+$")
# Settings whose value is a name of a table or a dotted path: the table, by dotted path.
NAMED_BY = {"TELEPHONY_CARRIER": "apps.telephony.carriers.CARRIERS"}
# Settings that name installed apps (modules, imported by Django itself) rather than code to call.
NOT_CODE = frozenset({"INSTALLED_APPS", "ROOT_URLCONF", "WSGI_APPLICATION", "ASGI_APPLICATION", "SETTINGS_MODULE"})


def named_paths(value, where: str):
    """(where, path) for each string under ``value`` that names project code."""
    if isinstance(value, str):
        if PROJECT_PATH.match(value):
            yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from named_paths(item, f"{where}[{key!r}]")
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from named_paths(item, f"{where}[{index}]")


def importable(path: str) -> str | None:
    """None when ``path`` names an attribute or a module that imports; otherwise why not."""
    try:
        import_string(path)
    except ImportError as attribute_error:
        try:
            import_module(path)
        except ImportError:
            return str(attribute_error)
    return None


def settings_paths():
    for name in sorted(set(dir(settings))):
        if name.isupper() and name not in NOT_CODE:
            value = getattr(settings, name)
            if name in NAMED_BY and isinstance(value, str) and not PROJECT_PATH.match(value):
                table = import_string(NAMED_BY[name])
                yield name, table.get(value, value)
            else:
                yield from named_paths(value, name)


def configured_class(
    setting: str, value: str, base: type, *, kind: str, hint: str, ids: tuple[str, str], path: str | None = None
):
    """(the class ``value`` names, []) when it imports and is a subclass of ``base``; otherwise (None,
    the error: ``ids[0]`` when it does not import, ``ids[1]`` when it is not ``kind``). ``path`` is the
    dotted path when ``value`` is a short name for one."""
    try:
        named = import_string(path or value)
    except ImportError as exc:
        return None, [Error(f"{setting} {value!r} cannot be imported: {exc}.", hint=hint, id=ids[0])]
    if not (isinstance(named, type) and issubclass(named, base)):
        return None, [Error(f"{setting} {value!r} is not {kind}.", id=ids[1])]
    return named, []


@register()
def check_settings_paths(app_configs, **kwargs):
    errors = []
    for where, path in settings_paths():
        problem = importable(path)
        if problem is not None:
            errors.append(Error(f"{where} names {path!r}, which cannot be imported: {problem}", id="core.E001"))
    return errors
