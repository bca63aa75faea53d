"""The contacts routes, asked by the tests that walk every /v1 route (tests/support/routes.py)."""

from tests.contacts.factories import make_contact

MAX_STATEMENTS = 3


def examples(user) -> list[str]:
    contact = make_contact(user, "Ana López", (("+34612345678", "mobile"), ("+14155550100", "work"))).id
    return [
        "/v1/contacts",
        "/v1/contacts?query=ana",
        "/v1/contacts?query=%2B34 612",
        "/v1/contacts?query=",
        "/v1/contacts?limit=0",
        f"/v1/contacts?starting_after={contact}",
        f"/v1/contacts/{contact}",
        "/v1/contacts/ct_nope",
    ]
