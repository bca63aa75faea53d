"""The read cases and the request lines each sends, built from a data set's fixture.

Every read case runs at two data sizes a factor of ten apart; each line is one request
(bench/requests.lua), so a case's lines decide which credentials and which rows it reads.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

MCP_HEADERS = (
    "Content-Type: application/json|Accept: application/json, text/event-stream|MCP-Protocol-Version: 2025-11-25"
)


def tool_call(name: str, arguments: dict | None = None) -> str:
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}}
    )


WHOAMI_CALL = tool_call("svc_whoami")
# The tool's own default page (what an assistant sends when it asks for recent calls).
LIST_CALLS_CALL = tool_call("svc_list_calls")
PEER_CALL = tool_call("whoami")


@dataclass(frozen=True)
class Case:
    key: str
    name: str
    reference: str  # "floor" or "peer"
    phase2: bool = False


CASES = (
    Case("me_key", "GET /v1/me, API key", "floor"),
    Case("me_oauth", "GET /v1/me, OAuth access token", "floor"),
    Case("mcp", "/mcp tools/call svc_whoami", "peer"),
    Case("rates", "GET /v1/rates?to=<number>", "floor", phase2=True),
    Case("ledger", "GET /v1/balance_transactions?limit=10", "floor", phase2=True),
    Case("calls", "GET /v1/calls?limit=10", "floor", phase2=True),
    Case("contacts", "GET /v1/contacts?query=<word>", "floor", phase2=True),
    Case("mcp_calls", "/mcp tools/call svc_list_calls", "peer", phase2=True),
)


def _get(path: str, secret: str) -> str:
    return f"GET\t{path}\tAuthorization: Bearer {secret}\t"


def _mcp(secret: str, body: str) -> str:
    return f"POST\t/mcp\t{MCP_HEADERS}|Authorization: Bearer {secret}\t{body}"


def case_lines(fixture: dict) -> dict[str, list[str]]:
    """Each case's lines: the account-wide cases over every account of the set, the history
    cases over its ten heavy accounts (each with the set's full ledger, calls and contacts)."""
    creds = fixture["credentials"]
    heavy = [creds[i] for i in fixture["heavy"]]
    numbers = fixture["numbers"]
    return {
        "me_key": [_get("/v1/me", c["api_key"]) for c in creds],
        "me_oauth": [_get("/v1/me", c["v1"]) for c in creds],
        "mcp": [_mcp(c["mcp"], WHOAMI_CALL) for c in creds],
        "rates": [_get(f"/v1/rates?to={quote(numbers[i % len(numbers)])}", c["api_key"]) for i, c in enumerate(creds)],
        "ledger": [_get("/v1/balance_transactions?limit=10", c["api_key"]) for c in heavy],
        "calls": [_get("/v1/calls?limit=10", c["api_key"]) for c in heavy],
        "contacts": [
            _get(f"/v1/contacts?query={quote(word)}", c["api_key"]) for word in fixture["words"] for c in heavy
        ],
        "mcp_calls": [_mcp(c["mcp"], LIST_CALLS_CALL) for c in heavy],
    }


def interleave(lists: list[list[str]]) -> list[str]:
    """One line of each list in turn, the shorter ones repeated: every case an equal share."""
    longest = max((len(rows) for rows in lists), default=0)
    return [rows[i % len(rows)] for i in range(longest) for rows in lists if rows]


def write_lines(workdir: Path, name: str, rows: list[str]) -> Path:
    path = workdir / f"{name}.lines"
    path.write_text("\n".join(rows) + "\n")
    return path
