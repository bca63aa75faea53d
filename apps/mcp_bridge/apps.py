from django.apps import AppConfig
from django.utils.module_loading import autodiscover_modules


class McpBridgeConfig(AppConfig):
    name = "apps.mcp_bridge"
    label = "mcp_bridge"
    verbose_name = "MCP server"

    def ready(self):
        # Tools live beside the data they read, in each app's mcp_tools.py, and register
        # themselves; the bridge imports no resource app.
        autodiscover_modules("mcp_tools")
        # CORS on /mcp follows the view's Origin check (views.cors_enabled).
        from corsheaders.signals import check_request_enabled

        from . import checks  # noqa: F401  registers the registry's system checks
        from .views import cors_enabled

        check_request_enabled.connect(cors_enabled, dispatch_uid="mcp_bridge.cors_enabled")
