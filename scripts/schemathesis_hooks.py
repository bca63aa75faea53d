"""schemathesis hooks for scripts/schemathesis_run.py: credentials as an auth provider.

Given as an auth provider (not as fixed -H headers) so that schemathesis knows
them: when it leaves a security parameter out on purpose (a negative case, or the
ignored-auth check) the credential really is absent and a 401 is expected. Key
endpoints take the dashboard session (cookie plus the CSRF cookie and header);
every other operation takes the API key as a bearer token.
"""

import ipaddress
import itertools
import os

import schemathesis
from hypothesis import strategies as st

# Every request from an address of its own in the benchmarking range (198.18.0.0/15), through the
# server's trusted proxy (scripts/schemathesis_run.py): the contract refuses a source's 61st failed
# credential in a minute with 429 (docs/spec.md 8.1), and a pass sends more bad credentials than that
# on purpose (each operation's auth probes copy their case's address); each case's own answer is
# what is checked here, the budget by its own tests.
_sources = itertools.count(1)


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    address = ipaddress.ip_address("198.18.0.0") + next(_sources) % (2**17 - 2) + 1
    case.headers = {**(case.headers or {}), "X-Forwarded-For": str(address)}


@schemathesis.auth()
class ServiceCredentials:
    def get(self, case, ctx):
        return {
            "key": os.environ["ST_API_KEY"],
            "session": os.environ["ST_SESSION"],
            "csrf": os.environ["ST_CSRF"],
        }

    def set(self, case, data, ctx):
        if case.operation.path.startswith("/v1/api-keys"):
            case.cookies = {**(case.cookies or {}), "sessionid": data["session"], "csrftoken": data["csrf"]}
            case.headers = {**(case.headers or {}), "X-CSRFToken": data["csrf"]}
        else:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data['key']}"}


# Formats named by the document (apps/apikeys/openapi.py) for rules no schema can
# state. A cursor must be the id of one of the caller's keys (docs/spec.md 7.2
# invalid_cursor): draw from real ids of the fuzzed account. A CIDR range may not
# have host bits set: build ranges from an address and a prefix length.
schemathesis.openapi.format(
    "api-key-id", st.sampled_from([i for i in os.environ.get("ST_KEY_IDS", "").split(",") if i] or ["key_0"])
)
# The calls list's cursors (apps/calls/apis.py): ids of the fuzzed account's demo calls.
schemathesis.openapi.format(
    "call-id", st.sampled_from([i for i in os.environ.get("ST_CALL_IDS", "").split(",") if i] or ["call_0"])
)
# The ledger's cursors (apps/billing/apis.py): ids of the fuzzed account's demo ledger rows.
schemathesis.openapi.format(
    "balance-transaction-id",
    st.sampled_from([i for i in os.environ.get("ST_TXN_IDS", "").split(",") if i] or ["txn_0"]),
)
# The contacts, numbers, caller IDs and messages lists' cursors (apps/contacts, numbers and messages apis.py):
# ids of the fuzzed account's demo objects.
for _format, _variable, _fallback in (
    ("contact-id", "ST_CONTACT_IDS", "ct_0"),
    ("number-id", "ST_NUMBER_IDS", "num_0"),
    ("caller-id-id", "ST_CALLER_ID_IDS", "cid_0"),
    ("message-id", "ST_MESSAGE_IDS", "msg_0"),
):
    schemathesis.openapi.format(
        _format, st.sampled_from([i for i in os.environ.get(_variable, "").split(",") if i] or [_fallback])
    )
# GET /v1/rates?to= (apps/rates/apis.py): a number phonenumbers calls possible or a name of one
# country, which no pattern states; priced by the demo deck or not (then 404).
schemathesis.openapi.format(
    "rate-destination",
    st.sampled_from(
        ["+4915112345678", "+18765551234", "+447700900123", "+8613812345678", "DE", "Germany", "Allemagne", "Perú"]
    ),
)
schemathesis.openapi.format(
    "ip-network",
    st.one_of(
        st.builds(
            lambda a, n: str(ipaddress.ip_network(f"{a}/{n}", strict=False)), st.ip_addresses(v=4), st.integers(0, 32)
        ),
        st.builds(
            lambda a, n: str(ipaddress.ip_network(f"{a}/{n}", strict=False)), st.ip_addresses(v=6), st.integers(0, 128)
        ),
    ),
)


def one_cursor_at_most(query) -> bool:
    """docs/spec.md 4: at most one of starting_after and ending_before (an OpenAPI document cannot say so)."""
    return not (query and "starting_after" in query and "ending_before" in query)


@schemathesis.hook
def filter_query(ctx, query):
    return one_cursor_at_most(query)


@schemathesis.hook
def filter_case(ctx, case):
    # The coverage phase applies case hooks only (schemathesis 4's CoverageGenerator), not filter_query.
    return one_cursor_at_most(case.query)
