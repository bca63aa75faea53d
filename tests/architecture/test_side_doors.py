"""Every arrow between apps is one the import contracts see.

A resource app written by docs/architecture.md's steps (the scratch app of
tests/support/scratch_app.py) tries each kind of reach into another app that the contracts
must refuse: another resource app, a private helper of one, the internals of each framework
app behind its front door, the credential issuers, and the app registry as a side door.
Each one is written into a scratch copy of apps/ and must be refused by name.
"""

import pytest

from tests.support import scratch_app
from tests.support.import_rules import (
    GET_MODEL_ALLOWED,
    ROOT,
    broken_contracts,
    get_model_calls,
    run_lint,
    scratch_copy,
)

BAD_IMPORTS = [
    ("import apps.calls.selectors", "Resource apps import no other resource app"),
    ("from apps.billing.services import _check", "Resource apps import no other resource app"),
    ("import apps.api_v1.pagination", "Other apps use apps.api_v1.public only"),
    ("import apps.webhooks.fanout", "Other apps use apps.webhooks.public only"),
    ("import apps.jobs.runner", "Other apps use apps.jobs.public only"),
    ("import apps.oauth.tokens", "Resource apps never import the credential issuers"),
    ("import apps.accounts.security", "Resource apps never import the credential issuers"),
    ("import apps.telephony.carriers.simulated", "Other apps use apps.telephony.public only"),
    ("import apps.ratelimit.stores.redis", "Other apps use apps.ratelimit.public only"),
    ("import apps.mcp_bridge.protocol", "Other apps use apps.mcp_bridge.public only"),
]
SIDE_DOOR = 'from django.apps import apps\n\nCall = apps.get_model("calls", "Call")\n'


def scratch_with(tmp_path, text: str):
    root = scratch_copy(tmp_path)
    scratch_app.write_scratch_app(root / "apps", {"deliberate_break.py": text})
    return root


@pytest.mark.parametrize(("statement", "contract"), BAD_IMPORTS, ids=[s for s, _ in BAD_IMPORTS])
def test_lint_imports_refuses_the_reach(tmp_path, statement, contract):
    done = run_lint(scratch_with(tmp_path, f"{statement}  # noqa\n"))
    assert done.returncode != 0, done.stdout
    assert contract in broken_contracts(done), done.stdout


def test_the_app_registry_is_no_side_door(tmp_path):
    found = get_model_calls(scratch_with(tmp_path, SIDE_DOOR))
    assert found == [f"apps/{scratch_app.NAME}/deliberate_break.py:3"]


def test_only_the_listed_modules_look_models_up_in_the_app_registry():
    assert get_model_calls(ROOT) == []
    for path in GET_MODEL_ALLOWED:
        assert "get_model(" in (ROOT / path).read_text(), f"{path} no longer needs its place in the list"


def test_the_ground_floor_reaching_up_is_refused(tmp_path):
    """The home page's balance read from accounts once closed accounts -> billing -> webhooks -> accounts."""
    root = scratch_copy(tmp_path)
    (root / "apps" / "accounts" / "deliberate_break.py").write_text("import apps.billing.selectors  # noqa\n")
    done = run_lint(root)
    broken = broken_contracts(done)
    assert "Accounts is the ground floor" in broken, done.stdout
    assert "No circle of imports between apps" in broken, done.stdout
    assert "apps.accounts, apps.billing, apps.webhooks" in broken, done.stdout
