"""Quick check: a message list and svc_read_messages beside GET /v1/me, in one run.

``python -m bench.messages [N]`` (``make bench`` runs it after the main run), measured as
bench/inprocess.py says: one account with a shared number holding 30 messages of the last hour,
read through its cached API key (the list, the list of one number) and through an OAuth token
(the tool). With ``--write-docs`` the figures replace the section "Messages" of docs/performance.md.
"""

import json

from bench import inprocess

LABELS = {
    "me": "GET /v1/me, API key (the reference)",
    "list": "GET /v1/messages?limit=10",
    "list_number": "GET /v1/messages?number=<id>&limit=10",
    "tool": "/mcp tools/call svc_read_messages",
}


def main(count: int = 200, *, docs: bool = False) -> int:
    database = inprocess.configure("messages")
    from django.conf import settings
    from django.test import Client

    from tests.messages.factories import make_message, make_sms_number
    from tests.support.credentials import cached_key_secret
    from tests.support.factories import UserFactory
    from tests.support.oauth import issue, make_client

    user = UserFactory()
    number = make_sms_number(user)
    for n in range(30):
        make_message(number, f"Your code is {100000 + n}.", ago=60 * n + 5)
    secret = cached_key_secret(user, ["messages:read"])
    token = issue(user, make_client(), resource=f"{settings.BASE_URL}/mcp", scope="messages:read")["access_token"]
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    tool_call = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "svc_read_messages", "arguments": {}}}
    )
    mcp = {
        "HTTP_AUTHORIZATION": f"Bearer {token}",
        "HTTP_ACCEPT": "application/json, text/event-stream",
        "HTTP_MCP_PROTOCOL_VERSION": "2025-11-25",
    }

    def me():
        assert client.get("/v1/me", **auth).status_code == 200

    def listed():
        assert client.get("/v1/messages?limit=10", **auth).status_code == 200

    def listed_number():
        assert client.get(f"/v1/messages?number={number.id}&limit=10", **auth).status_code == 200

    def tool():
        answer = client.post("/mcp", tool_call, content_type="application/json", **mcp)
        assert answer.status_code == 200 and answer.json()["result"]["isError"] is False, answer.content

    medians, statements = inprocess.measure(
        {"me": me, "list": listed, "list_number": listed_number, "tool": tool}, count
    )
    inprocess.print_rows(medians, statements, "me")
    if docs:
        inprocess.write_section(
            title="Messages",
            script="bench.messages",
            database=database,
            count=count,
            labels=LABELS,
            medians=medians,
            statements=statements,
            reference="me",
            words=(
                "One account, one shared number, 30 messages of the last hour; each list read also writes its "
                "audit row (numbers and counts), counted among the statements."
            ),
            after=(
                "A list read costs what /v1/me does plus its statements (the number and its switches, the page, "
                "the audit row, each a round trip) and the page's serializing; the tool adds the JSON-RPC layer."
            ),
        )
    return 0


if __name__ == "__main__":
    inprocess.command_line(main, __doc__)
