"""The peer: the mcp SDK's own stateless JSON server with a constant whoami tool, no auth.

Run under uvicorn in its best configuration (uvloop + httptools), e.g.
    uvicorn bench.peer_mcp:app --loop uvloop --http httptools --workers 2 --port 8102
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("peer")


@server.tool()
def whoami() -> dict:
    """Who the caller is connected as."""
    return {
        "email": "bench@example.com",
        "display_name": "Bench User",
        "spoken": "You are connected as Bench User, bench@example.com.",
    }


app = server.streamable_http_app(json_response=True, stateless_http=True)
