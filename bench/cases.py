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
    # The entry of bench/report.py's BOUNDS that says what bounds this read against its references.
    bounds: str = "phase2"
    # Measured against the stock DRF peer (bench/drf_peer/) and its limit (bench/limits.py) too.
    references: bool = False
    # Another case whose lines run in turn with this one's (on the large set): /mcp against /v1.
    beside: str = ""


CASES = (
    Case("me_key", "GET /v1/me, API key", "floor", bounds="me", references=True),
    Case("me_oauth", "GET /v1/me, OAuth access token", "floor", bounds="me", references=True),
    Case("mcp", "/mcp tools/call svc_whoami", "peer", bounds="mcp", beside="me_oauth"),
    Case("rates", "GET /v1/rates?to=<number>", "floor", references=True),
    Case("ledger", "GET /v1/balance_transactions?limit=10", "floor", references=True),
    Case("calls", "GET /v1/calls?limit=10", "floor", references=True),
    Case("contacts", "GET /v1/contacts?query=<word>", "floor", references=True),
    Case("mcp_calls", "/mcp tools/call svc_list_calls", "peer", bounds="mcp", beside="calls"),
    Case("messages", "GET /v1/messages?limit=10", "floor", bounds="messages", references=True),
)


def _get(path: str, secret: str) -> str:
    return f"GET\t{path}\tAuthorization: Bearer {secret}\t"


def _mcp(secret: str, body: str) -> str:
    return f"POST\t/mcp\t{MCP_HEADERS}|Authorization: Bearer {secret}\t{body}"


def case_lines(fixture: dict) -> dict[str, list[str]]:
    """Each case's lines: the account-wide cases over every account of the set, the history
    cases over its ten heavy accounts (each with the set's full ledger, calls, contacts and inbox)."""
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
        "messages": [_get("/v1/messages?limit=10", c["api_key"]) for c in heavy],
    }


ROUND_TRIP_LINE = "GET\t/bench/floor-round-trip\t\t"


def limit_lines(fixture: dict, heavy_ids: list[str]) -> dict[str, list[str]]:
    """Each read's limit (bench/limits.py): the same rows asked of the bare statements, the account
    named by its id. /v1/me's limit is the calibration row (the floor plus one Redis round trip)."""
    numbers = fixture["numbers"]
    return {
        "me_key": [ROUND_TRIP_LINE],
        "me_oauth": [ROUND_TRIP_LINE],
        "rates": [f"GET\t/bench/limit/rates?to={quote(n)}\t\t" for n in numbers],
        "ledger": [f"GET\t/bench/limit/ledger?user={u}\t\t" for u in heavy_ids],
        "calls": [f"GET\t/bench/limit/calls?user={u}\t\t" for u in heavy_ids],
        "contacts": [
            f"GET\t/bench/limit/contacts?query={quote(word)}&user={u}\t\t"
            for word in fixture["words"]
            for u in heavy_ids
        ],
        "messages": [f"GET\t/bench/limit/messages?user={u}\t\t" for u in heavy_ids],
    }


def with_host(line: str, host: str) -> str:
    """``line`` with a Host header: the stock DRF peer answers on its own port, addressed as the service."""
    method, path, headers, body = line.split("\t")
    return "\t".join((method, path, f"{headers}|Host: {host}" if headers else f"Host: {host}", body))


def interleave(lists: list[list[str]]) -> list[str]:
    """One line of each list in turn, the shorter ones repeated: every case an equal share."""
    longest = max((len(rows) for rows in lists), default=0)
    return [rows[i % len(rows)] for i in range(longest) for rows in lists if rows]


def write_lines(workdir: Path, name: str, rows: list[str]) -> Path:
    path = workdir / f"{name}.lines"
    path.write_text("\n".join(rows) + "\n")
    return path
