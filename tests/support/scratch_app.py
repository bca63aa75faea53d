"""A minimal resource app written into a temporary folder, as docs/architecture.md's steps make one.

``write_scratch_app(folder)`` writes ``voicemails/`` (apps, apis, urls, mcp_tools: one list route
and one tool, read under ``calls:read``) and returns its folder. ``installed(folder)`` makes it
``apps.voicemails`` by adding the folder to the ``apps`` package's path, puts it in
``INSTALLED_APPS`` and rebuilds the URL list; nothing in the repository is written.
"""

import importlib
import sys
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from django.test import override_settings
from django.urls import clear_url_caches

import apps as project_apps

NAME = "voicemails"
MODULE = f"apps.{NAME}"
ROUTE = "/v1/voicemails"
TOOL = "svc_list_voicemails"
SCOPE = "calls:read"

FILES = {
    "__init__.py": "",
    "apps.py": """
from django.apps import AppConfig


class VoicemailsConfig(AppConfig):
    name = "apps.voicemails"
    label = "voicemails"
""",
    "selectors.py": """
def voicemail_list(*, principal) -> list[dict]:
    return [{"id": "vm_1", "object": "voicemail", "livemode": principal.livemode}]
""",
    "apis.py": '''
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from apps.api_v1.public import ResourceApi

from .selectors import voicemail_list


class VoicemailListApi(ResourceApi):
    """The account's voicemails."""

    required_scope = "calls:read"

    @extend_schema(operation_id="list_voicemails", tags=["Voicemails"], summary="Voicemails", responses={200: dict})
    def get(self, request):
        return Response({"object": "list", "data": voicemail_list(principal=request.auth), "has_more": False})
''',
    "urls.py": """
from django.urls import path

from . import apis

urlpatterns = [path("voicemails", apis.VoicemailListApi.as_view(), name="v1-voicemails")]
""",
    "mcp_tools.py": """
from apps.mcp_bridge.public import ToolSpec, register

from .selectors import voicemail_list


def list_voicemails(*, principal, arguments) -> dict:
    rows = voicemail_list(principal=principal)
    return {"voicemails": rows, "spoken": f"You have {len(rows)} voicemail."}


register(
    ToolSpec(
        name="svc_list_voicemails",
        title="List voicemails",
        description="Lists the account's voicemails.",
        handler=list_voicemails,
        scope="calls:read",
        output_schema={
            "type": "object",
            "properties": {"voicemails": {"type": "array"}, "spoken": {"type": "string"}},
            "required": ["voicemails", "spoken"],
            "additionalProperties": False,
        },
    )
)
""",
}


def write_scratch_app(parent: Path, extra: dict[str, str] | None = None) -> Path:
    """``parent/voicemails/`` with the app's files (and ``extra`` ones); returns that folder."""
    folder = parent / NAME
    folder.mkdir(parents=True)
    for name, text in {**FILES, **(extra or {})}.items():
        (folder / name).write_text(text.lstrip())
    return folder


def _rebuild_urls():
    for module in ("apps.api_v1.urls", "config.urls"):
        importlib.reload(importlib.import_module(module))
    clear_url_caches()


@contextmanager
def installed(parent: Path, installed_apps: list[str]):
    """The app in ``parent`` served as ``apps.voicemails``, its tool registered, for the block."""
    from apps.mcp_bridge import registry

    with (
        mock.patch.object(project_apps, "__path__", [*project_apps.__path__, str(parent)]),
        mock.patch.dict(registry.TOOLS),
    ):
        try:
            with override_settings(INSTALLED_APPS=[*installed_apps, MODULE]):
                _rebuild_urls()
                yield
        finally:
            for module in [m for m in sys.modules if m == MODULE or m.startswith(MODULE + ".")]:
                del sys.modules[module]
            _rebuild_urls()
