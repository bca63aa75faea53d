"""End to end: the README's callback call in curl, its exact lines, against a live server.

The block after the README's ``callback-curl`` marker is read here, so a change to those
lines is a change to what this test runs. Its key line names the scopes; the key is made
with ``manage.py createapikey --scopes`` (what ``make apikey SCOPES=`` runs) for the live
server's account, and its address replaces the README's http://127.0.0.1:8000.

The README promises what the simulator's table says for +1 202 555 0100 (docs/design.md,
"The carrier boundary"): your phone rings first, you press 1 after 4 s, the callee answers
5 s later and hangs up after 30 s, and the call is completed and charged one minute. The
server's clock stands still and the test moves it (tests/e2e/servers.py ``Clock``); each
read of the live call applies the events already due.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from .assistant import EMAIL
from .servers import ROOT

pytestmark = pytest.mark.e2e

MARKER = "<!-- callback-curl:"
README_BASE = "http://127.0.0.1:8000"


def readme_block() -> list[str]:
    """The lines of the fenced block that follows the marker."""
    text = (ROOT / "README.md").read_text()
    assert text.count(MARKER) == 1, "the README's callback curl block lost its marker"
    after = text.split(MARKER, 1)[1]
    match = re.search(r"^```sh\n(.*?)^```", after, flags=re.S | re.M)
    assert match and after[: match.start()].count("\n") == 1, "the marker must sit just above the ```sh block"
    return match.group(1).splitlines()


def one_line(lines: list[str], start: str) -> str:
    (line,) = [line for line in lines if line.startswith(start)]
    return line


def shell(script: str, *, env: dict) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_readme_places_a_call_with_three_curl_lines(service):
    lines = readme_block()
    key_line = one_line(lines, "KEY=")
    scopes = re.search(r'SCOPES="([^"]+)"', key_line).group(1)
    assert "calls:place" in scopes.split()
    quote_line, place_line, get_line = (
        one_line(lines, start).replace(README_BASE, service.url) for start in ("QUOTE=", "CALL=", "curl ")
    )
    assert len(lines) == 4, lines  # the key and the three curl lines: nothing else runs unseen

    created = service.manage("createapikey", "--email", EMAIL, "--name", "README curl", "--scopes", scopes)
    key = created.stdout.strip()
    assert key.startswith("sk_live_")
    # The README's python3 is this interpreter: the one whose packages the suite has.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    env = {"PATH": path, "KEY": key, "LANG": "C.UTF-8"}

    def read_the_call(call_id: str) -> dict:
        return json.loads(shell(get_line, env={**env, "CALL": call_id}))

    with service.clock.stopped() as clock:
        call_id = shell(f'{quote_line}\n{place_line}\nprintf "%s" "$CALL"', env=env)
        assert call_id.startswith("call_"), call_id
        seen = [read_the_call(call_id)]
        for seconds in (4, 5, 30):  # you press 1; the callee answers; the callee hangs up
            clock.advance(seconds)
            seen.append(read_the_call(call_id))

    assert [call["status"] for call in seen] == ["ringing_you", "ringing", "in_progress", "completed"]
    assert all(call["id"] == call_id and call["to"] == "+12025550100" for call in seen)
    done = seen[-1]
    assert done["end_reason"] == "callee_hung_up"
    assert done["duration"] == 30
    assert done["billed_duration"] == 60  # charged one minute
    assert done["amount"] > 0
    transitions = done["status_transitions"]
    assert transitions["ringing_at"] - transitions["ringing_you_at"] == 4
    assert transitions["answered_at"] - transitions["ringing_at"] == 5
    assert transitions["ended_at"] - transitions["answered_at"] == 30

    # The charge is on the ledger, once: one call balance transaction for this call, of its amount.
    reader = service.manage("createapikey", "--email", EMAIL, "--name", "README ledger", "--scopes", "credits:read")
    ledger = httpx2.get(
        f"{service.url}/v1/balance_transactions",
        params={"type": "call", "limit": 100},
        headers={"Authorization": f"Bearer {reader.stdout.strip()}"},
        timeout=30,
    )
    assert ledger.status_code == 200, ledger.text
    charges = [row for row in ledger.json()["data"] if row["source"] == call_id]
    assert [row["amount"] for row in charges] == [-done["amount"]], ledger.text[:500]
