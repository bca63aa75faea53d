"""Every store call's blocking budgets share one Redis Cluster hash tag (budgets.slot), so one
script spends them all or none on a cluster too (docs/decisions/scale-out.md)."""

import pytest

from apps.ratelimit import budgets as table
from apps.ratelimit.limiter import build_checks, subject_of

SOURCES = ["203.0.113.7", "2001:db8:1:2::5"]


class FakePrincipal:
    credential_id = "key_abc"
    client_id = "https://client.example/metadata.json"

    class user:
        pk = "usr_123"


def subjects(source):
    class Request:
        META = {"REMOTE_ADDR": source}

    request = Request()
    return {
        **subject_of(request, principal=FakePrincipal(), family_id="fam_1", number="+442071838750"),
        table.ACCOUNT: "a" * 32,
        table.HOST: "client.example",
        table.URL: "https://client.example/metadata.json",
    }


def tag(check) -> str:
    return table.slot(check.budget, check.key.split(":", 1)[1])


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("name", sorted(table.CLASSES))
def test_the_blocking_budgets_of_every_class_share_one_tag(name, source):
    checks = build_checks(table.CLASSES[name], subjects(source))
    tags = {tag(c) for c in checks if not c.budget.alert_only}
    assert len(tags) <= 1, (name, tags)


@pytest.mark.parametrize("source", SOURCES)
def test_the_calls_that_join_classes_keep_one_tag(source):
    subject = subjects(source)
    # The token endpoint's path budget and its back-off peek; a refresh's family and client ceilings.
    path = build_checks(table.CLASSES["token_flood"], subject) + build_checks((table.EXCHANGE_FAILURES_IP,), subject)
    refresh = build_checks(table.CLASSES["grant_family"], subject) + build_checks(
        table.CLASSES["exchange_success"], subject
    )
    for checks in (path, refresh):
        assert len({tag(c) for c in checks if not c.budget.alert_only}) == 1


def test_a_users_keys_share_the_users_tag_across_dimensions():
    subject = subjects(SOURCES[0])
    checks = build_checks((table.READS_PRINCIPAL, table.READS_USER, table.MESSAGES_NUMBER), subject)
    assert {tag(c) for c in checks} == {"u:usr_123"}
