from django.apps import AppConfig


class McpBridgeConfig(AppConfig):
    name = "apps.mcp_bridge"
    label = "mcp_bridge"
    verbose_name = "MCP server"

    def ready(self):
        from . import tools  # noqa: F401  registers the live tools
