"""`manage.py createapikey`: the read-only starter set of docs/spec.md 2.3 unless told otherwise."""

import io

import pytest
from django.core.management import call_command, get_commands, load_command_class

from apps.apikeys.models import ApiKey
from apps.credentials.scopes import READ_ONLY_STARTER_SET, SENSITIVE_SCOPES
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
