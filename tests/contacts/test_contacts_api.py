"""GET /v1/contacts and /v1/contacts/{id} (docs/design.md, Phase 2: contacts:read).

"``contact``: ``name``, ``phone_numbers`` ``[{"number","label","country"}]`` (label
``mobile``, ``home``, ``work``, ``other``); ``query`` matches the start of any word of
the name, or digits of a number (ignoring spaces and ``+``); no ``query``: all, by name."
"""

import pytest

from apps.contacts.models import Contact
from tests.support.envelope import assert_error
from tests.support.factories import UserFactory

from .factories import make_contact, make_contacts
from .shapes import CONTACT_FIELDS

pytestmark = pytest.mark.django_db


def names(response) -> list[str]:
    assert response.status_code == 200, response.content
    return [c["name"] for c in response.json()["data"]]


# --- Shapes ---------------------------------------------------------------------------------


def test_a_contact_has_exactly_the_design_fields(get, user, live_secret):
    contact = make_contact(
        user,
        "José Álvarez",
        [("+34612345678", "mobile"), ("+442071838750", "work"), ("+14155550100", "home"), ("+80012345678", "other")],
    )
    body = get(f"/v1/contacts/{contact.id}", live_secret).json()
    assert set(body) == CONTACT_FIELDS
    assert body == {
        "id": contact.id,
        "object": "contact",
        "name": "José Álvarez",
        "phone_numbers": [
            {"number": "+34612345678", "label": "mobile", "country": "ES"},
            {"number": "+442071838750", "label": "work", "country": "GB"},
            {"number": "+14155550100", "label": "home", "country": "US"},
            {"number": "+80012345678", "label": "other", "country": None},  # a number of no country
        ],
        "created": int(contact.created.timestamp()),
        "livemode": True,
    }
    assert contact.id.startswith("ct_") and len(contact.id) == 27


def test_the_list_is_the_phase_1_list_shape(get, user, live_secret):
    contact = make_contact(user, "Ana López")
    response = get("/v1/contacts", live_secret)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"object", "data", "has_more", "url"}
    assert body["object"] == "list" and body["url"] == "/v1/contacts" and body["has_more"] is False
    assert [set(c) for c in body["data"]] == [CONTACT_FIELDS]
    assert body["data"][0] == get(f"/v1/contacts/{contact.id}", live_secret).json()
    assert response["Cache-Control"] and response["Request-Id"].startswith("req_")


def test_a_contact_without_numbers_has_an_empty_list(get, user, live_secret):
    contact = make_contact(user, "Nobody Reachable", numbers=())
    assert get(f"/v1/contacts/{contact.id}", live_secret).json()["phone_numbers"] == []


# --- Order and search -------------------------------------------------------------------------


def test_without_query_every_contact_by_name_accents_and_case_ignored(get, user, live_secret):
    make_contacts(user, ["zoë Quinn", "Álvaro Ruiz", "bob Stone", "Alice Ng", "Émile Zola"])
    assert names(get("/v1/contacts", live_secret)) == [
        "Alice Ng",
        "Álvaro Ruiz",
        "bob Stone",
        "Émile Zola",
        "zoë Quinn",
    ]


@pytest.mark.parametrize("query", ["jose", "JOSE", "José", "alv", "Álv", "ALVAREZ", "jo", "j", "jose alv", "alv jose"])
def test_query_matches_the_start_of_any_word_case_and_accents_ignored(get, user, live_secret, query):
    make_contacts(user, ["José Álvarez", "Maria Silva"])
    assert names(get("/v1/contacts", live_secret, query=query)) == ["José Álvarez"]


@pytest.mark.parametrize("query", ["ose", "varez", "lvarez", "jose x", "josé alvarezz", "sé"])
def test_query_never_matches_inside_a_word(get, user, live_secret, query):
    make_contacts(user, ["José Álvarez"])
    assert names(get("/v1/contacts", live_secret, query=query)) == []


def test_every_word_of_the_query_must_start_a_word_of_the_name(get, user, live_secret):
    make_contacts(user, ["Ana López", "Ana Kim", "Kim Lee"])
    assert names(get("/v1/contacts", live_secret, query="ana")) == ["Ana Kim", "Ana López"]
    assert names(get("/v1/contacts", live_secret, query="kim")) == ["Ana Kim", "Kim Lee"]
    assert names(get("/v1/contacts", live_secret, query="ana k")) == ["Ana Kim"]


@pytest.mark.parametrize(
    "name,query",
    [
        ("Łukasz Nowak", "lukasz"),
        ("Zoë O'Brien", "obrien"),
        ("Zoë O'Brien", "brien"),
        ("Jean-Luc Picard", "luc"),
        ("Jean-Luc Picard", "jeanluc"),
        ("Jürgen Straße", "strasse"),
        ("Nguyễn Văn An", "nguyen van"),
        ("Søren Kierkegaard", "soren"),
        ("王小明", "王"),
    ],
)
def test_names_from_everywhere_are_found_as_people_type_them(get, user, live_secret, name, query):
    make_contacts(user, [name])
    assert names(get("/v1/contacts", live_secret, query=query)) == [name]


@pytest.mark.parametrize(
    "query", ["5550100", "0100", "+1 415", "+14155550100", "1 415 555 0100", "(415) 555-0100", "415.555", "14155550100"]
)
def test_digits_find_any_run_of_a_number_spaces_and_plus_ignored(get, user, live_secret, query):
    make_contact(user, "Ana Kim", [("+34612345678", "mobile"), ("+14155550100", "work")])
    make_contact(user, "Bo Lin", [("+442071838750", "work")])
    assert names(get("/v1/contacts", live_secret, query=query)) == ["Ana Kim"]


def test_digits_match_nothing_that_is_not_in_a_number(get, user, live_secret):
    make_contact(user, "Ana Kim", [("+14155550100", "work")])
    assert names(get("/v1/contacts", live_secret, query="4155550101")) == []
    assert names(get("/v1/contacts", live_secret, query="0100 1")) == []  # one run of digits: 01001


def test_the_last_four_digits_find_every_contact_that_has_them(get, user, live_secret):
    make_contact(user, "Ana Kim", [("+14155550100", "work")])
    make_contact(user, "Bo Lin", [("+442071830100", "home")])
    make_contact(user, "Cy Roe", [("+442071830101", "home")])
    assert names(get("/v1/contacts", live_secret, query="0100")) == ["Ana Kim", "Bo Lin"]


def test_a_query_with_nothing_to_search_for_finds_nothing(get, user, live_secret):
    make_contacts(user, ["Ana Kim"])
    for query in ["!!", " ", "+", "- ()"]:
        assert names(get("/v1/contacts", live_secret, query=query)) == []


def test_search_results_are_ordered_by_name_too(get, user, live_secret):
    make_contacts(user, ["Maria Zed", "Anna Maria", "maria Able"])
    assert names(get("/v1/contacts", live_secret, query="mari")) == ["Anna Maria", "maria Able", "Maria Zed"]


# --- Errors -------------------------------------------------------------------------------------


def test_an_empty_query_is_400_naming_query(get, live_secret):
    assert_error(get("/v1/contacts", live_secret, query=""), 400, "invalid_request", param="query")


def test_a_query_over_100_characters_is_400_naming_query(get, user, live_secret):
    make_contacts(user, ["Ana Kim"])
    assert names(get("/v1/contacts", live_secret, query="a" * 100)) == []
    assert_error(get("/v1/contacts", live_secret, query="a" * 101), 400, "invalid_request", param="query")


@pytest.mark.parametrize("limit", ["0", "101", "-1", "ten", "1.5", ""])
def test_a_bad_limit_is_400_naming_limit(get, live_secret, limit):
    assert_error(get("/v1/contacts", live_secret, limit=limit), 400, "invalid_limit", param="limit")


@pytest.mark.parametrize(
    "cursor", ["ct_doesnotexist0000000000000", "num_0123456789abcdefABCDEFGH", "ct_", "ct_a-b", "x"]
)
@pytest.mark.parametrize("param", ["starting_after", "ending_before"])
def test_a_cursor_that_is_not_one_of_your_contacts_is_400_naming_it(get, user, live_secret, cursor, param):
    make_contacts(user, ["Ana Kim"])
    assert_error(get("/v1/contacts", live_secret, **{param: cursor}), 400, "invalid_cursor", param=param)


def test_both_cursors_is_400(get, user, live_secret):
    a, b = make_contacts(user, ["Ana Kim", "Bo Lin"])
    response = get("/v1/contacts", live_secret, starting_after=a.id, ending_before=b.id)
    assert_error(response, 400, "invalid_cursor", param="ending_before")


@pytest.mark.parametrize(
    "contact_id", ["ct_doesnotexist0000000000000", "num_0123456789abcdefABCDEFGH", "ct_a-b", "ct_", "%E2%9C%93"]
)
def test_an_unknown_or_malformed_id_is_404_naming_contact_id(get, live_secret, contact_id):
    response = get(f"/v1/contacts/{contact_id}", live_secret)
    assert_error(response, 404, "not_found", param="contact_id")


def test_a_malformed_id_is_refused_before_any_contact_query(get, user, live_secret, django_assert_num_queries):
    get("/v1/contacts/ct_warm", live_secret)  # the key's first use stamps it
    with django_assert_num_queries(1):  # the key lookup only (no credential cache in this test)
        assert_error(get("/v1/contacts/ct_a-b", live_secret), 404, "not_found", param="contact_id")


def test_control_characters_are_refused_with_the_param_named(get, live_secret):
    assert_error(get("/v1/contacts/ct_a%00b", live_secret), 400, "invalid_request", param="contact_id")
    assert_error(get("/v1/contacts", live_secret, query="ana\x00"), 400, "invalid_request", param="query")
    response = get("/v1/contacts", live_secret, starting_after="ct_a\x00b")
    assert_error(response, 400, "invalid_cursor", param="starting_after")


# --- Pagination ----------------------------------------------------------------------------------

NAMES = [f"Person {chr(ord('A') + n)}" for n in range(7)]  # Person A ... Person G


def test_pages_follow_name_order_forwards(get, user, live_secret):
    make_contacts(user, list(reversed(NAMES)))  # created in the opposite order: the list ignores it
    first = get("/v1/contacts", live_secret, limit=3).json()
    assert [c["name"] for c in first["data"]] == NAMES[:3] and first["has_more"] is True
    second = get("/v1/contacts", live_secret, limit=3, starting_after=first["data"][-1]["id"]).json()
    assert [c["name"] for c in second["data"]] == NAMES[3:6] and second["has_more"] is True
    third = get("/v1/contacts", live_secret, limit=3, starting_after=second["data"][-1]["id"]).json()
    assert [c["name"] for c in third["data"]] == NAMES[6:] and third["has_more"] is False


def test_pages_follow_name_order_backwards(get, user, live_secret):
    contacts = {c.name: c for c in make_contacts(user, NAMES)}
    back = get("/v1/contacts", live_secret, limit=3, ending_before=contacts["Person G"].id).json()
    assert [c["name"] for c in back["data"]] == NAMES[3:6] and back["has_more"] is True
    back = get("/v1/contacts", live_secret, limit=3, ending_before=back["data"][0]["id"]).json()
    assert [c["name"] for c in back["data"]] == NAMES[:3] and back["has_more"] is False
    edge = get("/v1/contacts", live_secret, ending_before=contacts["Person A"].id).json()
    assert edge["data"] == [] and edge["has_more"] is False


def test_equal_names_are_ordered_by_id_and_paged_without_loss(get, user, live_secret):
    made = make_contacts(user, ["Sam Lee"] * 5)
    seen, cursor = [], None
    while True:
        page = get("/v1/contacts", live_secret, limit=2, **({"starting_after": cursor} if cursor else {})).json()
        seen += [c["id"] for c in page["data"]]
        if not page["has_more"]:
            break
        cursor = page["data"][-1]["id"]
    assert seen == sorted(c.id for c in made)


def test_search_pages_by_name_too(get, user, live_secret):
    make_contacts(user, ["Ana A", "Bo B", "Ana C", "Ana D", "Cy E"])
    first = get("/v1/contacts", live_secret, query="ana", limit=2).json()
    assert [c["name"] for c in first["data"]] == ["Ana A", "Ana C"] and first["has_more"] is True
    rest = get("/v1/contacts", live_secret, query="ana", limit=2, starting_after=first["data"][-1]["id"]).json()
    assert [c["name"] for c in rest["data"]] == ["Ana D"] and rest["has_more"] is False
    back = get("/v1/contacts", live_secret, query="ana", limit=2, ending_before=rest["data"][0]["id"]).json()
    assert [c["name"] for c in back["data"]] == ["Ana A", "Ana C"] and back["has_more"] is False


def test_a_cursor_may_be_a_contact_the_query_does_not_find(get, user, live_secret):
    contacts = {c.name: c for c in make_contacts(user, ["Ana A", "Bo B", "Cy Ana"])}
    page = get("/v1/contacts", live_secret, query="ana", starting_after=contacts["Bo B"].id).json()
    assert [c["name"] for c in page["data"]] == ["Cy Ana"]


def test_limit_defaults_to_10(get, user, live_secret):
    make_contacts(user, [f"Person {n:02d}" for n in range(12)])
    body = get("/v1/contacts", live_secret).json()
    assert len(body["data"]) == 10 and body["has_more"] is True


# --- Accounts and modes -------------------------------------------------------------------------


def test_another_accounts_contact_is_404_and_never_listed_and_no_cursor(get, user, live_secret):
    other = make_contact(UserFactory(), "Ana Other")
    mine = make_contact(user, "Ana Mine")
    assert_error(get(f"/v1/contacts/{other.id}", live_secret), 404, "not_found", param="contact_id")
    assert names(get("/v1/contacts", live_secret)) == ["Ana Mine"]
    assert names(get("/v1/contacts", live_secret, query="ana")) == ["Ana Mine"]
    assert names(get("/v1/contacts", live_secret, query="612345678")) == ["Ana Mine"]
    for param in ("starting_after", "ending_before"):
        assert_error(get("/v1/contacts", live_secret, **{param: other.id}), 400, "invalid_cursor", param=param)
    assert get(f"/v1/contacts/{mine.id}", live_secret).status_code == 200


def test_a_test_key_sees_only_test_contacts_and_a_live_key_only_live_ones(get, user, live_secret, test_secret):
    live = make_contact(user, "Ana Live")
    test = make_contact(user, "Ana Test", livemode=False)
    body = get("/v1/contacts", test_secret).json()
    assert [(c["name"], c["livemode"]) for c in body["data"]] == [("Ana Test", False)]
    assert names(get("/v1/contacts", test_secret, query="ana")) == ["Ana Test"]
    assert names(get("/v1/contacts", live_secret, query="ana")) == ["Ana Live"]
    assert get(f"/v1/contacts/{test.id}", test_secret).json()["livemode"] is False
    assert_error(get(f"/v1/contacts/{live.id}", test_secret), 404, "not_found", param="contact_id")
    assert_error(get(f"/v1/contacts/{test.id}", live_secret), 404, "not_found", param="contact_id")
    assert_error(
        get("/v1/contacts", live_secret, starting_after=test.id), 400, "invalid_cursor", param="starting_after"
    )
    assert_error(get("/v1/contacts", test_secret, ending_before=live.id), 400, "invalid_cursor", param="ending_before")


# --- Other rules -------------------------------------------------------------------------------------


def test_no_credential_is_401(client):
    response = client.get("/v1/contacts")
    assert_error(response, 401, "invalid_token")


def test_only_reads_are_allowed(client, live_secret):
    response = client.post("/v1/contacts", {}, HTTP_AUTHORIZATION=f"Bearer {live_secret}")
    assert_error(response, 405, "method_not_allowed")


def test_reads_spend_the_reads_budget(get, live_secret):
    response = get("/v1/contacts", live_secret)
    assert response["RateLimit-Policy"] == "60;w=60"


def test_a_deleted_contact_is_gone(get, user, live_secret):
    contact = make_contact(user)
    Contact.objects.filter(pk=contact.pk).delete()
    assert_error(get(f"/v1/contacts/{contact.id}", live_secret), 404, "not_found", param="contact_id")
    assert names(get("/v1/contacts", live_secret, query="612")) == []
