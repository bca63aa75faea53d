"""`manage.py createapikey`: the read-only starter set of docs/spec.md 2.3 unless told otherwise."""

import io
import re
import shlex
from datetime import timedelta
from unittest import mock

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command, get_commands, load_command_class
from django.utils import timezone

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


def readme_usage() -> str:
    """The command as the README's list of management commands writes it."""
    readme = (settings.BASE_DIR / "README.md").read_text()
    line = next(line for line in readme.splitlines() if "`manage.py createapikey" in line)
    return line.split("`")[1]


def run_as_written(usage: str, **values) -> tuple[str, str]:
    """``usage`` run through call_command, its placeholders given ``values`` (E, N)."""
    argv = [values.get(word, word) for word in shlex.split(usage)]
    assert argv[:2] == ["manage.py", "createapikey"], argv
    out, err = io.StringIO(), io.StringIO()
    call_command(*argv[1:], stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue()


def test_the_readme_usage_names_keys_apart_unless_told_a_name():
    UserFactory(email="ada@example.com")
    usage = readme_usage()
    assert "[--name N]" in usage
    bare = re.sub(r"\s*\[[^\]]*\]", "", usage)  # as written, the optional parts left out
    start = timezone.now().replace(microsecond=0)
    with mock.patch("django.utils.timezone.now", return_value=start):
        run_as_written(bare, E="ada@example.com")
    with mock.patch("django.utils.timezone.now", return_value=start + timedelta(seconds=1)):
        run_as_written(bare + " --test", E="ada@example.com")
    first, second = ApiKey.objects.order_by("livemode")[::-1]
    # Each says it was made on the command line, when, in which mode and with what; never the same name twice.
    assert first.name == f"CLI {start.day} {start:%b %Y, %H:%M:%S} UTC: read-only starter set"
    later = start + timedelta(seconds=1)
    assert second.name == f"CLI {later.day} {later:%b %Y, %H:%M:%S} UTC test: read-only starter set"
    # --name, as the README writes it, sets the name.
    _secret, err = run_as_written(bare + " --name N", E="ada@example.com", N="Laptop backup")
    assert ApiKey.objects.get(name="Laptop backup").id in err


def test_make_apikey_as_the_makefile_runs_it_names_the_key_by_its_scopes():
    UserFactory(email="demo@example.com")
    makefile = (settings.BASE_DIR / "Makefile").read_text()
    recipe = makefile.split("\napikey:", 1)[1].split("\n\n", 1)[0].replace("\\\n", " ")
    command = recipe[recipe.index("manage.py createapikey") :]
    # make's own words, as make expands them with SCOPES="calls:read calls:place" given.
    command = command.replace("$(DEMO_EMAIL)", "demo@example.com")
    command = re.sub(r"\$\(if \$\(SCOPES\),([^)]*\"\$\(SCOPES\)\")\)", r"\1", command)
    command = command.replace("$(SCOPES)", "calls:read calls:place")
    # TEST not given: make takes the live branch of the mode's $(if ...).
    command = re.sub(r"\$\(if \$\(filter-out 0,\$\(TEST\)\),[^,]*,([^)]*)\)", r"\1", command)
    assert "$(" not in command, command
    secret, _err = run_as_written(command)
    key = ApiKey.objects.get()
    assert secret.startswith("sk_live_")
    assert key.name.startswith("CLI ") and key.name.endswith(" UTC: calls:read calls:place")


def test_a_long_scope_list_is_cut_to_the_longest_name_a_key_takes():
    UserFactory(email="ada@example.com")
    create("--scopes", " ".join(ALL_SCOPES), "--test")
    name = ApiKey.objects.get().name
    assert len(name) == ApiKey._meta.get_field("name").max_length and name.endswith("…")
