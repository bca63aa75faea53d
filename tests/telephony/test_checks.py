"""``manage.py check`` on the carrier settings: live mode on the simulator outside DEBUG is a warning
(nothing would ring), Twilio without its credentials an error."""

from django.core.checks import run_checks

from apps.telephony import checks


def ids(settings):
    return {message.id for message in checks.check_carrier()}


def test_live_mode_on_the_simulator_outside_debug_is_a_warning(settings):
    settings.TELEPHONY_CARRIER, settings.DEBUG = "simulated", False
    assert ids(settings) == {"telephony.W001"}
    assert "telephony.W001" in {message.id for message in run_checks(tags=["telephony"])}


def test_with_debug_the_simulator_is_the_quick_start(settings):
    settings.TELEPHONY_CARRIER, settings.DEBUG = "simulated", True
    assert ids(settings) == set()


def test_twilio_needs_its_account_and_token(settings):
    settings.TELEPHONY_CARRIER, settings.DEBUG = "twilio", False
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN = "", ""
    settings.TWILIO_INTELLIGENCE_SERVICE_SID = "GA" + "5" * 32
    assert ids(settings) == {"telephony.E003"}
    settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN = "AC" + "7" * 32, "f" * 32
    assert ids(settings) == set()
    settings.TWILIO_INTELLIGENCE_SERVICE_SID = ""
    assert ids(settings) == {"telephony.W002"}


def test_an_unknown_carrier_is_an_error(settings):
    settings.TELEPHONY_CARRIER = "nowhere.Carrier"
    assert ids(settings) == {"telephony.E001"}
    settings.TELEPHONY_CARRIER = "apps.telephony.checks.check_carrier"
    assert ids(settings) == {"telephony.E002"}


def test_the_service_prints_the_addresses_to_set_in_the_twilio_console(settings):
    from io import StringIO

    from django.core.management import call_command

    settings.BASE_URL = "https://calls.example.com"
    out = StringIO()
    call_command("twilio_webhooks", stdout=out)
    assert "A message comes in (HTTP POST): https://calls.example.com/carrier/twilio/sms" in out.getvalue()
    assert "https://calls.example.com/carrier/twilio/status?call=..." in out.getvalue()
