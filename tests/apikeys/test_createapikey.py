"""`manage.py createapikey`: the read-only starter set of docs/spec.md 2.3 unless told otherwise."""

import io

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command, get_commands, load_command_class

from apps.apikeys.models import ApiKey
from apps.credentials.scopes import ALL_SCOPES, READ_ONLY_STARTER_SET, SENSITIVE_SCOPES
from tests.support.factories import UserFactory

pytestmark = pytest.mark.django_db


def create(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("createapikey", "--email", "ada@example.com", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def test_default_is_the_read_only_starter_set_like_the_web_page():
    UserFactory(email="ada@example.com")
    secret, err = create()
    key = ApiKey.objects.get()
    assert secret.startswith("sk_live_")
    assert key.scopes == list(READ_ONLY_STARTER_SET)
    assert not set(key.scopes) & SENSITIVE_SCOPES
    # The secret goes to stdout alone (KEY=$(make -s apikey)); what was made goes to stderr.
    assert secret not in err and key.id in err and " ".join(READ_ONLY_STARTER_SET) in err


def test_scopes_can_be_chosen():
    UserFactory(email="ada@example.com")
    create("--scopes", "calls:read calls:place")
    assert ApiKey.objects.get().scopes == ["calls:read", "calls:place"]


def test_help_says_what_the_default_is():
    command = load_command_class(get_commands()["createapikey"], "createapikey")
    parser = command.create_parser("manage.py", "createapikey")
    text = parser.format_help()
    assert "read-only starter set" in text
    assert " ".join(READ_ONLY_STARTER_SET) in " ".join(text.split())


def test_stderr_says_which_scopes_the_key_has_and_how_to_choose_others():
    UserFactory(email="ada@example.com")
    secret, err = create("--choose-with", "make apikey SCOPES=")
    assert secret not in err
    assert f"with scopes {' '.join(READ_ONLY_STARTER_SET)}" in err
    # The hint names a command that adds a scope the key lacks, and every known scope.
    assert f'make apikey SCOPES="{" ".join(READ_ONLY_STARTER_SET)} numbers:read"' in err
    assert f"known scopes: {' '.join(ALL_SCOPES)}" in err


def test_the_hint_defaults_to_the_commands_own_option():
    UserFactory(email="ada@example.com")
    _secret, err = create("--scopes", "rates:read")
    assert '--scopes "rates:read credits:read"' in err


def test_an_unknown_scope_is_refused_naming_the_known_ones():
    UserFactory(email="ada@example.com")
    with pytest.raises(CommandError) as refused:
        create("--scopes", "rates:read numbers:reed")
    assert "'numbers:reed' is not one" in str(refused.value)
    assert ", ".join(ALL_SCOPES) in str(refused.value)
    assert not ApiKey.objects.exists()


def test_make_apikey_passes_the_make_way_of_choosing():
    makefile = (settings.BASE_DIR / "Makefile").read_text()
    target = makefile.split("\napikey:", 1)[1].split("\n\n", 1)[0]
    assert "createapikey" in target and '--choose-with "make apikey SCOPES="' in target
