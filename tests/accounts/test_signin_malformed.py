"""A sign-in POST Django cannot read gets the sign-in page again, 400, saying why: never Django's
bare "Bad Request (400)" page (apps/accounts/signin_views.SignInView.bad_request_page)."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def browser():
    client = Client(enforce_csrf_checks=True)
    assert client.get("/login").status_code == 200  # the CSRF cookie, as a browser has it
    return client


def token(browser) -> str:
    return browser.cookies["csrftoken"].value


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        ("&".join(f"f{n}=1" for n in range(1100)), FORM, "more than 1,000"),
        ("username=" + "a" * 300_000, FORM, "KB limit"),
        ("no boundary", "multipart/form-data", "could not be read"),
    ],
)
def test_a_malformed_sign_in_post_gets_the_page_with_a_message(browser, body, content_type, reason):
    response = browser.post("/login", body, content_type=content_type, HTTP_X_CSRFTOKEN=token(browser))
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert response["Request-Id"].startswith("req_")
    html = response.content.decode()
    assert "Bad Request (400)" not in html
    assert 'name="username"' in html and 'name="password"' in html  # the form, to try again
    assert "The form could not be read" in html and reason in html


def test_the_page_shown_again_still_signs_in(browser, user):
    user.set_password("right horse battery")
    user.save()
    many = "&".join(f"f{n}=1" for n in range(1100))
    page = browser.post("/login", many, content_type=FORM, HTTP_X_CSRFTOKEN=token(browser))
    assert page.status_code == 400
    signed_in = browser.post(
        "/login", {"username": user.email, "password": "right horse battery", "csrfmiddlewaretoken": token(browser)}
    )
    assert signed_in.status_code == 302


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        ("&".join(f"f{n}=1" for n in range(1100)), FORM, "more than 1,000"),
        ("username=" + "a" * 300_000, FORM, "KB limit"),
        ("no boundary", "multipart/form-data", "could not be read"),
    ],
)
def test_a_malformed_admin_sign_in_post_gets_the_admin_page_with_a_message(body, content_type, reason):
    staff = Client(enforce_csrf_checks=True)
    assert staff.get("/admin/login/").status_code == 200
    csrf = staff.cookies["csrftoken"].value
    response = staff.post("/admin/login/", body, content_type=content_type, HTTP_X_CSRFTOKEN=csrf)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert response["Request-Id"].startswith("req_")
    html = response.content.decode()
    assert "Bad Request (400)" not in html
    assert 'name="username"' in html and 'name="password"' in html
    assert "The form could not be read" in html and reason in html
