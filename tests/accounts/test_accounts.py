import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError

from tests.support.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_user_id_has_usr_prefix():
    user = UserFactory()
    assert user.id.startswith("usr_") and len(user.id) == 28


def test_email_is_unique_case_insensitively():
    UserFactory(email="Ada@Example.com")
    with pytest.raises(IntegrityError):
        UserFactory(email="ada@example.COM")


def test_sign_in_page_renders(client):
    response = client.get("/login")
    assert response.status_code == 200
    assert b'name="username"' in response.content and b'name="password"' in response.content


def test_sign_in_with_any_email_case_and_back_to_next(client):
    UserFactory(email="ada@example.com")
    response = client.post("/login", {"username": "ADA@example.com", "password": PASSWORD, "next": "/"})
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_wrong_password_shows_an_error(client):
    UserFactory(email="ada@example.com")
    response = client.post("/login", {"username": "ada@example.com", "password": "nope"})
    assert response.status_code == 200
    assert b"errorlist" in response.content


def test_sign_out(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post("/logout")
    assert response.status_code == 302 and response["Location"] == "/login"
    assert client.get("/").status_code == 302


def test_createuser_command(capsys):
    call_command("createuser", "--email", "grace@example.com", "--display-name", "Grace", "--password", PASSWORD)
    user = User.objects.get(email="grace@example.com")
    assert user.display_name == "Grace" and user.check_password(PASSWORD)
    assert user.id in capsys.readouterr().out
    with pytest.raises(CommandError):
        call_command("createuser", "--email", "GRACE@example.com", "--display-name", "G", "--password", PASSWORD)
    call_command(
        "createuser", "--email", "grace@example.com", "--display-name", "G", "--password", PASSWORD, "--if-missing"
    )


def test_createuser_takes_a_password_that_starts_with_a_dash_written_with_equals():
    # A generated password may start with "-"; as a separate word argparse reads it as an option.
    password = "-Xk3_q9vLm2pT8wz"
    call_command("createuser", "--email", "dash@example.com", "--display-name", "Dash", f"--password={password}")
    assert User.objects.get(email="dash@example.com").check_password(password)


def test_createuser_refuses_a_weak_password():
    with pytest.raises(CommandError):
        call_command("createuser", "--email", "weak@example.com", "--display-name", "W", "--password", "123")
    assert not User.objects.filter(email="weak@example.com").exists()


def test_createapikey_prints_a_working_key_once(api, capsys):
    UserFactory(email="ada@example.com")
    call_command("createapikey", "--email", "ada@example.com")
    secret = capsys.readouterr().out.strip()
    assert secret.startswith("sk_live_")
    response = api.get("/v1/me", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert response.status_code == 200 and response.json()["email"] == "ada@example.com"


def test_createapikey_test_mode(capsys):
    UserFactory(email="ada@example.com")
    call_command("createapikey", "--email", "ada@example.com", "--test")
    assert capsys.readouterr().out.strip().startswith("sk_test_")


def test_createapikey_unknown_user():
    with pytest.raises(CommandError):
        call_command("createapikey", "--email", "nobody@example.com")
