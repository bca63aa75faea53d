"""Every arrow between apps is one the import contracts see.

A resource app written by docs/architecture.md's steps (the scratch app of
tests/support/scratch_app.py) tries each kind of reach into another app that the contracts
must refuse: another resource app, a private helper of one, the internals of each framework
app behind its front door, the credential issuers, and the app registry as a side door.
Each one is written into a scratch copy of apps/ and lint-imports must refuse it by name.
"""

import pytest

from tests.support import scratch_app
from tests.support.import_rules import broken_contracts, run_lint, scratch_copy

BAD_REACHES = [
    ("import apps.calls.selectors", "Resource apps import no other resource app"),
    ("from apps.billing.ledger import ledger_entry", "Resource apps import no other resource app"),
    ("import apps.api_v1.pagination", "Other apps use apps.api_v1.public only"),
    ("import apps.webhooks.fanout", "Other apps use apps.webhooks.public only"),
    ("import apps.jobs.runner", "Other apps use apps.jobs.public only"),
    ("import apps.oauth.tokens", "Resource apps never import the credential issuers"),
    ("import apps.accounts.security", "Resource apps never import the credential issuers"),
    ("import apps.telephony.carriers.simulated", "Other apps use apps.telephony.public only"),
    ("import apps.ratelimit.stores.redis", "Other apps use apps.ratelimit.public only"),
    ("import apps.mcp_bridge.protocol", "Other apps use apps.mcp_bridge.public only"),
    (
        'from django.apps import apps\n\nCall = apps.get_model("calls", "Call")',
        "No model looked up in the app registry but where listed",
    ),
]


def scratch_with(tmp_path, text: str):
    root = scratch_copy(tmp_path)
    scratch_app.write_scratch_app(root / "apps", {"deliberate_break.py": text})
    return root


@pytest.mark.parametrize(("source", "contract"), BAD_REACHES, ids=[s.splitlines()[-1] for s, _ in BAD_REACHES])
def test_lint_imports_refuses_the_reach(tmp_path, source, contract):
    done = run_lint(scratch_with(tmp_path, f"{source}  # noqa\n"))
    assert done.returncode != 0, done.stdout
    assert contract in broken_contracts(done), done.stdout


def test_the_ground_floor_reaching_up_is_refused(tmp_path):
    """A balance read from accounts would close the circle accounts -> billing -> webhooks -> accounts."""
    root = scratch_copy(tmp_path)
    (root / "apps" / "accounts" / "deliberate_break.py").write_text("import apps.billing.selectors  # noqa\n")
    done = run_lint(root)
    broken = broken_contracts(done)
    assert "Accounts is the ground floor" in broken, done.stdout
    assert "No circle of imports between apps" in broken, done.stdout
    assert "apps.accounts, apps.billing, apps.webhooks" in broken, done.stdout


def test_a_module_allowed_the_registry_that_no_longer_uses_it_is_named(tmp_path):
    root = scratch_copy(tmp_path)
    receivers = root / "apps" / "credentials" / "receivers.py"
    receivers.write_text(receivers.read_text().replace("apps.get_model(label)", "apps.get_app_config(label)"))
    done = run_lint(root)
    assert "apps.credentials.receivers is allowed to look models up but no longer does" in done.stdout, done.stdout
