"""core.E001: a setting that names project code by a path that does not import fails `manage.py check`."""

from django.core.management import call_command

from apps.core.checks import check_settings_paths


def ids(settings):
    return [(error.id, error.msg.split(" names ")[0]) for error in check_settings_paths(None)]


def test_the_settings_as_shipped_pass():
    assert check_settings_paths(None) == []
    call_command("check")


def test_a_receiver_that_does_not_import(settings):
    settings.TELEPHONY_RECEIVERS = {**settings.TELEPHONY_RECEIVERS, "call": "apps.calls.states.call_apply_carier_event"}
    assert ids(settings) == [("core.E001", "TELEPHONY_RECEIVERS['call']")]


def test_a_standing_in_a_module_that_does_not_exist(settings):
    settings.CREDENTIAL_STANDING = {**settings.CREDENTIAL_STANDING, "oauth": "apps.oauth.tokenz.standing"}
    assert ids(settings) == [("core.E001", "CREDENTIAL_STANDING['oauth']")]


def test_a_carrier_by_a_name_no_table_knows_or_a_path(settings):
    settings.TELEPHONY_CARRIER = "simulatd"
    assert ids(settings) == [("core.E001", "TELEPHONY_CARRIER")]
    settings.TELEPHONY_CARRIER = "apps.telephony.carriers.simulated.SimulatedCarier"
    assert ids(settings) == [("core.E001", "TELEPHONY_CARRIER")]
    settings.TELEPHONY_CARRIER = "simulated"
    assert ids(settings) == []


def test_a_bearer_resolver_that_does_not_import(settings):
    resolvers = {prefix: dict(entry) for prefix, entry in settings.BEARER_RESOLVERS.items()}
    resolvers["sat_"]["resolve"] = "apps.oauth.tokens.resolve_acess_token"
    settings.BEARER_RESOLVERS = resolvers
    assert ids(settings) == [("core.E001", "BEARER_RESOLVERS['sat_']['resolve']")]
